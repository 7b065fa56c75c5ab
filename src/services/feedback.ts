import { learnedPattern } from '../detection/learn.js'
import { AppError, notFound } from '../vocabulary/errors.js'
import { CHANGE_TYPE_WORDS, type LearnedKind, type Verdict } from '../vocabulary/learned.js'
import { getChange } from '../store/changes.js'
import {
  deleteLearnedRule, findLearnedRule, insertLearnedRule, learnedRuleView, sameLearnedRule, setVerdict
} from '../store/learned.js'
import type { RuleContext, ServiceContext } from './context.js'
import { changePage, requirePage } from './pages.js'

// People's verdicts on changes, and what Sitewatch learns from them (vocabulary/learned.ts):
// "important" pins the change and raises later changes of its type on its page; "not
// important" acknowledges it (it stays stored and searchable) and offers what could be
// learned: a pattern that mutes the passage on that page, or lowering its type there. An
// offer is only a rule once a person takes it; every rule says where it came from and can
// be removed, which undoes it.

/** Who gives a verdict: an API key or a person, and the name a rule keeps of them. */
export interface Teacher { by: { keyId: string } | { userId: string }, name: string }

export interface Offer {
  kind: Exclude<LearnedKind, 'raise'>
  /** mute: the ignore pattern it would add to the page's noise rules. */
  pattern?: string
  /** lower: the type of change it would set to low on the page. */
  changeType?: string
  description: string
}

type ChangeView = NonNullable<Awaited<ReturnType<typeof getChange>>>

/** The page's noise rules allow this many patterns (NoiseRulesSchema). */
const MAX_PATTERNS = 20

async function requireChange (ctx: ServiceContext, orgId: string, id: string): Promise<ChangeView> {
  const change = await getChange(ctx.db, orgId, id)
  if (!change) throw notFound('Change')
  return change
}

/**
 * What "not important" on `change` could teach. A pattern is offered only for a passage
 * whose lines moved in their numbers, ids or words alone, never for a price (learn.ts).
 */
export function offersFor (change: ChangeView): Offer[] {
  const lines = change.diffData.hunks.flatMap(h => h.lines)
  const removed = lines.filter(l => l.type === 'deletion').map(l => l.content)
  const added = lines.filter(l => l.type === 'addition').map(l => l.content)
  const learned = change.changeType === 'price_change' ? undefined : learnedPattern(removed, added)
  const type = CHANGE_TYPE_WORDS[change.changeType]
  return [
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

/** Takes one of a change's offers: the rule, new or the one the page already had. */
export async function learnFrom (
  ctx: RuleContext, orgId: string, changeId: string, kind: Offer['kind'], teacher: Teacher
) {
  const change = await requireChange(ctx, orgId, changeId)
  const offer = offersFor(change).find(o => o.kind === kind)
  if (!offer) {
    throw new AppError('VALIDATION_ERROR', 'This change teaches no pattern: its lines did not move in their numbers, ' +
      'ids or words alone (or it is a price). Lower its type instead, or write an ignore pattern for the page.',
    { field: 'kind' })
  }
  const what = offer.pattern !== undefined ? { pattern: offer.pattern } : { changeType: change.changeType }
  const known = await sameLearnedRule(ctx.db, change.pageId, kind, what)
  if (known) return learnedRuleView(known)
  if (offer.pattern !== undefined) await addPattern(ctx, orgId, change, offer.pattern)
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

/** Removes a learned rule, which undoes it: a muting rule's pattern leaves the page's noise rules. */
export async function forgetRule (ctx: RuleContext, orgId: string, ruleId: string): Promise<void> {
  const rule = await findLearnedRule(ctx.db, orgId, ruleId)
  if (!rule) throw notFound('Learned rule')
  const patterns = rule.noise_rules?.ignorePatterns ?? []
  if (rule.kind === 'mute' && rule.pattern !== null && patterns.includes(rule.pattern)) {
    await changePage(ctx, orgId, rule.domain_id, rule.page_id, {
      noiseRules: { ...rule.noise_rules, ignorePatterns: patterns.filter(p => p !== rule.pattern) }
    })
  }
  await deleteLearnedRule(ctx.db, rule.id)
}
