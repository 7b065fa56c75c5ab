import { learnedPattern } from '../detection/detect.js'
import { AppError, notFound } from '../vocabulary/errors.js'
import type { IgnoredFact } from '../vocabulary/core.js'
import { CHANGE_TYPE_WORDS, factsToMute, type LearnedKind, type Verdict } from '../vocabulary/learned.js'
import { getChange } from '../store/changes.js'
import {
  deleteLearnedRule, findLearnedRule, insertLearnedRule, learnedRuleView, sameLearnedRule, setVerdict
} from '../store/learned.js'
import type { RuleContext, ServiceContext } from './context.js'
import { changePage, requirePage } from './pages.js'

// People's verdicts on changes, and what Sitewatch learns from them (vocabulary/learned.ts):
// "important" pins the change and raises later changes of its type on its page; "not
// important" acknowledges it (it stays stored and searchable) and offers what could be
// learned: muting one of its facts on that page (a plan's price moves, a limit, a
// feature), a pattern that mutes the passage, or lowering its type there. An offer is
// only a rule once a person takes it; every rule says where it came from and can be
// removed, which undoes it.

/** Who gives a verdict: an API key or a person, and the name a rule keeps of them. */
export interface Teacher { by: { keyId: string } | { userId: string }, name: string }

export interface Offer {
  kind: Exclude<LearnedKind, 'raise'>
  /** mute: the ignore pattern it would add to the page's noise rules. */
  pattern?: string
  /** mute: the facts it would leave out of the page's later changes (its noise rules' ignoreFacts). */
  fact?: IgnoredFact
  /** lower: the type of change it would set to low on the page. */
  changeType?: string
  description: string
}

type ChangeView = NonNullable<Awaited<ReturnType<typeof getChange>>>

/** The page's noise rules allow this many patterns, and this many facts left out (NoiseRulesSchema). */
const MAX_PATTERNS = 20
const MAX_FACTS = 20

async function requireChange (ctx: ServiceContext, orgId: string, id: string): Promise<ChangeView> {
  const change = await getChange(ctx.db, orgId, id)
  if (!change) throw notFound('Change')
  return change
}

/**
 * What "not important" on `change` could teach. A pattern is offered only for a passage
 * whose lines moved in their numbers, ids or words alone, never for a price (detection/classify/learn.ts).
 */
export function offersFor (change: ChangeView): Offer[] {
  const lines = change.diffData.hunks.flatMap(h => h.lines)
  const removed = lines.filter(l => l.type === 'deletion').map(l => l.content)
  const added = lines.filter(l => l.type === 'addition').map(l => l.content)
  const learned = change.changeType === 'price_change' ? undefined : learnedPattern(removed, added)
  const type = CHANGE_TYPE_WORDS[change.changeType]
  return [
    ...factsToMute(change.diffData.facts ?? []).map(o => ({ kind: 'mute' as const, ...o })),
    ...(learned
      ? [{
          kind: 'mute' as const,
          pattern: learned.pattern,
          description: `Mute "${learned.shown}" on this page, whatever stands where "…" is`
        }]
      : []),
    { kind: 'lower', changeType: change.changeType, description: `Lower later ${type} on this page to low` }
  ]
}

/** Records a verdict; "important" learns its rule at once, "not important" returns its offers. */
export async function giveVerdict (
  ctx: ServiceContext, orgId: string, changeId: string, verdict: Verdict, teacher: Teacher
) {
  const before = await requireChange(ctx, orgId, changeId)
  await setVerdict(ctx.db, orgId, changeId, verdict, teacher.by)
  const change = await requireChange(ctx, orgId, changeId)
  if (verdict === 'not_important') return { change, learned: [], offers: offersFor(before) }
  const raise = await sameLearnedRule(ctx.db, change.pageId, 'raise', { changeType: change.changeType }) ??
    await insertLearnedRule(ctx.db, {
      orgId,
      pageId: change.pageId,
      kind: 'raise',
      changeType: change.changeType,
      fromChangeId: change.id,
      createdBy: teacher.name
    })
  return { change, learned: [learnedRuleView(raise)], offers: [] }
}

/**
 * Takes one of a change's offers: the rule, new or the one the page already had. A mute
 * names the fact it mutes (one of the offered ones); without one it is the text pattern.
 */
export async function learnFrom (
  ctx: RuleContext, orgId: string, changeId: string, kind: Offer['kind'], teacher: Teacher, fact?: IgnoredFact
) {
  const change = await requireChange(ctx, orgId, changeId)
  const offers = offersFor(change).filter(o => o.kind === kind)
  const offer = fact
    ? offers.find(o => o.fact?.kind === fact.kind && o.fact.subject === fact.subject)
    : offers.find(o => o.fact === undefined)
  if (!offer) {
    throw new AppError('VALIDATION_ERROR', fact
      ? 'This change offers no such fact to mute: take one of its offers\' facts as given.'
      : 'This change teaches no pattern: its lines did not move in their numbers, ids or words alone (or it is a ' +
        'price). Mute one of its facts, lower its type, or write an ignore pattern for the page.',
    { field: fact ? 'fact' : 'kind' })
  }
  const what = offer.pattern !== undefined
    ? { pattern: offer.pattern }
    : offer.fact !== undefined ? { fact: offer.fact } : { changeType: change.changeType }
  const known = await sameLearnedRule(ctx.db, change.pageId, kind, what)
  if (known) return learnedRuleView(known)
  if (offer.pattern !== undefined) await addPattern(ctx, orgId, change, offer.pattern)
  if (offer.fact !== undefined) await addFact(ctx, orgId, change, offer.fact)
  const rule = await insertLearnedRule(ctx.db, {
    orgId, pageId: change.pageId, kind, ...what, fromChangeId: change.id, createdBy: teacher.name
  })
  return learnedRuleView(rule)
}

async function addPattern (ctx: RuleContext, orgId: string, change: ChangeView, pattern: string): Promise<void> {
  const page = await requirePage(ctx, orgId, change.domainId, change.pageId)
  const rules = page.noise_rules ?? {}
  const patterns = rules.ignorePatterns ?? []
  if (patterns.includes(pattern)) return
  if (patterns.length >= MAX_PATTERNS) {
    throw new AppError('CONFLICT', `The page has ${MAX_PATTERNS} ignore patterns already: remove one first`)
  }
  await changePage(ctx, orgId, change.domainId, change.pageId, {
    noiseRules: { ...rules, ignorePatterns: [...patterns, pattern] }
  })
}

async function addFact (ctx: RuleContext, orgId: string, change: ChangeView, fact: IgnoredFact): Promise<void> {
  const page = await requirePage(ctx, orgId, change.domainId, change.pageId)
  const rules = page.noise_rules ?? {}
  const facts = rules.ignoreFacts ?? []
  if (facts.some(f => sameFact(f, fact))) return
  if (facts.length >= MAX_FACTS) {
    throw new AppError('CONFLICT', `The page leaves ${MAX_FACTS} facts out already: remove one first`)
  }
  await changePage(ctx, orgId, change.domainId, change.pageId, {
    noiseRules: { ...rules, ignoreFacts: [...facts, fact] }
  })
}

const sameFact = (a: IgnoredFact, b: IgnoredFact) => a.kind === b.kind && a.subject === b.subject

/** Removes a learned rule, which undoes it: a muting rule's pattern or fact leaves the page's noise rules. */
export async function forgetRule (ctx: RuleContext, orgId: string, ruleId: string): Promise<void> {
  const rule = await findLearnedRule(ctx.db, orgId, ruleId)
  if (!rule) throw notFound('Learned rule')
  const patterns = rule.noise_rules?.ignorePatterns ?? []
  const facts = rule.noise_rules?.ignoreFacts ?? []
  if (rule.kind === 'mute' && rule.pattern !== null && patterns.includes(rule.pattern)) {
    await changePage(ctx, orgId, rule.domain_id, rule.page_id, {
      noiseRules: { ...rule.noise_rules, ignorePatterns: patterns.filter(p => p !== rule.pattern) }
    })
  }
  const fact = rule.fact
  if (rule.kind === 'mute' && fact !== null && facts.some(f => sameFact(f, fact))) {
    await changePage(ctx, orgId, rule.domain_id, rule.page_id, {
      noiseRules: { ...rule.noise_rules, ignoreFacts: facts.filter(f => !sameFact(f, fact)) }
    })
  }
  await deleteLearnedRule(ctx.db, rule.id)
}
