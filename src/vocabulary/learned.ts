import {
  FACT_SUBJECT_OF, SEVERITY_RANK, type ChangeType, type Fact, type FactSubject, type IgnoredFact, type Severity
} from './core.js'

// What Sitewatch learns from people's verdicts on changes ("important", "not important"),
// as rules of a page: a noise pattern to mask (mute), or the severity of later changes of
// one type on that page (lower, raise). Each rule remembers the change it came from.

export const VERDICTS = ['important', 'not_important'] as const
export type Verdict = typeof VERDICTS[number]

export const LEARNED_KINDS = ['mute', 'lower', 'raise'] as const
export type LearnedKind = typeof LEARNED_KINDS[number]

/** What a severity rule makes of a later change's severity, by its kind. */
const SEVERITY_OF: Record<Exclude<LearnedKind, 'mute'>, (s: Severity) => Severity> = {
  lower: () => 'low',
  raise: s => SEVERITY_RANK[s] >= SEVERITY_RANK.high ? s : 'high'
}

/** A type of change in words, as a rule about later ones says it ("lower later price changes"). */
export const CHANGE_TYPE_WORDS: Record<ChangeType, string> = {
  price_change: 'price changes',
  feature_added: 'features added',
  feature_removed: 'features removed',
  terms_update: 'terms updates',
  section_added: 'sections added',
  section_removed: 'sections removed',
  content_change: 'content changes'
}

export interface SeverityRule { id: string, kind: LearnedKind, changeType: ChangeType | null }

/**
 * A new change's severity under the page's rules (the newest rule of its type decides),
 * and the rule that set it when it moved.
 */
export function learnedSeverity (
  change: { changeType: ChangeType, severity: Severity }, newestFirst: readonly SeverityRule[]
): { severity: Severity, ruleId?: string } {
  const rule = newestFirst.find(r => r.kind !== 'mute' && r.changeType === change.changeType)
  if (!rule || rule.kind === 'mute') return { severity: change.severity }
  const severity = SEVERITY_OF[rule.kind](change.severity)
  return severity === change.severity ? { severity } : { severity, ruleId: rule.id }
}

/** How an offer to mute one fact's subject says it ("Mute price moves of "Pro" on this page"). */
const MUTE_WORDS: Readonly<Partial<Record<FactSubject, (subject: string) => string>>> = {
  price: s => `Mute price moves of "${s}" on this page`,
  plan: s => `Mute the plan "${s}" coming or going on this page`,
  limit: s => `Mute moves of the limit "${s}" on this page`,
  feature: s => `Mute the feature "${s}" coming or going on this page`,
  section: s => `Mute the section "${s}" added or removed on this page`,
  operation: s => `Mute changes of the operation ${s} on this page`
}

/** The most facts of one change offered to mute. */
const MAX_FACT_OFFERS = 3

/**
 * What "not important" on a change could mute, fact by fact, its lead first: each
 * subject a later change may name again (a plan's prices, a limit, a feature, a section,
 * an operation; not a changelog's entry, which is new each time), once.
 */
export function factsToMute (facts: readonly Fact[]): Array<{ fact: IgnoredFact, description: string }> {
  const out: Array<{ fact: IgnoredFact, description: string }> = []
  const seen = new Set<string>()
  for (const f of facts) {
    const kind = FACT_SUBJECT_OF[f.kind]
    const words = kind && MUTE_WORDS[kind]
    if (!kind || !words || !f.subject || seen.has(`${kind}\n${f.subject}`)) continue
    seen.add(`${kind}\n${f.subject}`)
    out.push({ fact: { kind, subject: f.subject.slice(0, 200) }, description: words(f.subject) })
    if (out.length === MAX_FACT_OFFERS) break
  }
  return out
}
