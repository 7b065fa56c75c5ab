import { learnedPattern } from '../detection/detect.js'
import { AppError, notFound } from '../vocabulary/errors.js'
import type { IgnoredFact, NoiseRules } from '../vocabulary/core.js'
import { CHANGE_TYPE_WORDS, factsToMute, type LearnedKind, type Verdict } from '../vocabulary/learned.js'
import { getChange, setAcknowledged, type Acknowledger } from '../store/changes.js'
import {
  deleteLearnedRule, findLearnedRule, insertLearnedRule, learnedRuleView, sameLearnedRule, setVerdict
} from '../store/learned.js'
import type { RuleContext, ServiceContext } from './context.js'
import { checkNoiseRules, requirePage } from './pages.js'
import { changesNothing, recordAudit } from './audit.js'
import { inTransaction, type Db } from '../store/db.js'
import { updatePage } from '../store/pages.js'

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
    // A price's move is quieted by its plan (a fact above), never as a type: lowering every later price change of
    // the page would hide the next real rise.
    ...(change.changeType === 'price_change'
      ? []
      : [{
          kind: 'lower' as const, changeType: change.changeType, description: `Lower later ${type} on this page to low`
        }])
  ]
}

/**
 * Acknowledges changes (`by` a key or a person), or marks them new again (`by` null): the
 * changes as they are now, each recorded in the audit log; those not found are left out.
 */
export async function acknowledgeChanges (db: Db, orgId: string, ids: string[], by: Acknowledger | null) {
  return await inTransaction(db, async tx => {
    const changes = await setAcknowledged(tx, orgId, ids, by)
    if (changes.length === 0) changesNothing()
    for (const c of changes) {
      await recordAudit(tx, {
        action: by ? 'change.acknowledged' : 'change.unacknowledged', objectId: c.id, objectLabel: c.summary
      })
    }
    return changes
  })
}

/** Records a verdict; "important" learns its rule at once, "not important" returns its offers. */
export async function giveVerdict (
  ctx: ServiceContext, orgId: string, changeId: string, verdict: Verdict, teacher: Teacher
) {
  const before = await requireChange(ctx, orgId, changeId)
  return await inTransaction(ctx.db, async tx => {
    await setVerdict(tx, orgId, changeId, verdict, teacher.by)
    const change = await requireChange({ ...ctx, db: tx }, orgId, changeId)
    await recordAudit(tx, {
      action: 'change.feedback',
      objectId: changeId,
      objectLabel: change.summary,
      details: { verdict }
    })
    if (verdict === 'not_important') return { change, learned: [], offers: offersFor(before) }
    const raise = await sameLearnedRule(tx, change.pageId, 'raise', { changeType: change.changeType }) ??
      await insertLearnedRule(tx, {
        orgId,
        pageId: change.pageId,
        kind: 'raise',
        changeType: change.changeType,
        fromChangeId: change.id,
        createdBy: teacher.name
      })
    return { change, learned: [learnedRuleView(raise)], offers: [] }
  })
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
  if (!offer && kind === 'lower') {
    throw new AppError('VALIDATION_ERROR', 'A price change is not lowered as a type: it would hide the next real ' +
      'rise on the page. Mute the plan\'s price moves (one of its offers\' facts) instead.', { field: 'kind' })
  }
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
  if (known) {
    changesNothing()
    return learnedRuleView(known)
  }
  const page = await requirePage(ctx, orgId, change.domainId, change.pageId)
  const rules = offer.pattern !== undefined
    ? withPattern(page.noise_rules ?? {}, offer.pattern)
    : offer.fact !== undefined ? withFact(page.noise_rules ?? {}, offer.fact) : undefined
  // Checked on the analysis threads before the transaction, which must not wait on them.
  await checkNoiseRules(ctx, orgId, rules)
  return await inTransaction(ctx.db, async tx => {
    if (rules) await updatePage(tx, page.id, { noiseRules: rules })
    const rule = await insertLearnedRule(tx, {
      orgId, pageId: change.pageId, kind, ...what, fromChangeId: change.id, createdBy: teacher.name
    })
    await recordAudit(tx, {
      action: 'learned_rule.created',
      objectId: rule.id,
      objectLabel: page.url,
      details: { kind, ...what, fromChangeId: change.id }
    })
    return learnedRuleView(rule)
  })
}

/** The page's rules with `pattern` among its ignore patterns; undefined when it is there already. */
function withPattern (rules: NoiseRules, pattern: string): NoiseRules | undefined {
  const patterns = rules.ignorePatterns ?? []
  if (patterns.includes(pattern)) return undefined
  if (patterns.length >= MAX_PATTERNS) {
    throw new AppError('CONFLICT', `The page has ${MAX_PATTERNS} ignore patterns already: remove one first`)
  }
  return { ...rules, ignorePatterns: [...patterns, pattern] }
}

/** The page's rules with `fact` left out of its changes; undefined when it is already. */
function withFact (rules: NoiseRules, fact: IgnoredFact): NoiseRules | undefined {
  const facts = rules.ignoreFacts ?? []
  if (facts.some(f => sameFact(f, fact))) return undefined
  if (facts.length >= MAX_FACTS) {
    throw new AppError('CONFLICT', `The page leaves ${MAX_FACTS} facts out already: remove one first`)
  }
  return { ...rules, ignoreFacts: [...facts, fact] }
}

const sameFact = (a: IgnoredFact, b: IgnoredFact) => a.kind === b.kind && a.subject === b.subject

/** Removes a learned rule, which undoes it: a muting rule's pattern or fact leaves the page's noise rules. */
export async function forgetRule (ctx: RuleContext, orgId: string, ruleId: string): Promise<void> {
  const rule = await findLearnedRule(ctx.db, orgId, ruleId)
  if (!rule) throw notFound('Learned rule')
  let rules: NoiseRules = rule.noise_rules ?? {}
  const patterns = rules.ignorePatterns ?? []
  const facts = rules.ignoreFacts ?? []
  const fact = rule.fact
  const mutedPattern = rule.pattern !== null && patterns.includes(rule.pattern)
  const mutedFact = fact !== null && facts.some(f => sameFact(f, fact))
  const unmuted = rule.kind === 'mute' && (mutedPattern || mutedFact)
  if (unmuted) {
    rules = {
      ...rules,
      ignorePatterns: patterns.filter(p => p !== rule.pattern),
      ignoreFacts: fact === null ? facts : facts.filter(f => !sameFact(f, fact))
    }
  }
  // Rules that only lose a pattern or a fact cost no more than before: nothing to check.
  await inTransaction(ctx.db, async tx => {
    if (unmuted) await updatePage(tx, rule.page_id, { noiseRules: rules })
    await deleteLearnedRule(tx, rule.id)
    await recordAudit(tx, {
      action: 'learned_rule.deleted',
      objectId: rule.id,
      details: { kind: rule.kind, pageId: rule.page_id }
    })
  })
}
