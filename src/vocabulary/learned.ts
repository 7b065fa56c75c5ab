import { SEVERITY_RANK, type ChangeType, type Severity } from './core.js'

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
