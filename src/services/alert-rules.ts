import {
  decide, factsOf, RULE_ACTIONS, type AlertRule, type RuleAction, type RuleMatch
} from '../vocabulary/alert-rules.js'
import { AppError, notFound } from '../vocabulary/errors.js'
import { PLANS, type Org } from '../vocabulary/plans.js'
import {
  changesToTry, countAlertRules, deleteAlertRule, insertAlertRule, listAlertRules, updateAlertRule
} from '../store/alert-rules.js'
import { countOwnedDomains } from '../store/domains.js'
import type { ServiceContext } from './context.js'
import { inTransaction } from '../store/db.js'
import { audited, recordAudit } from './audit.js'

// Alert rules (vocabulary/alert-rules.ts): written, ordered, and tried on the last 30 days
// before they are saved. They are custom alert rules: plans that have those (403 otherwise).

export const MAX_ALERT_RULES = 50
/** The window a rule is tried on, and the most changes of it read. */
export const TRY_DAYS = 30
export const TRY_MOST = 10_000

export interface RuleInput { name: string, match: RuleMatch, action: RuleAction, enabled?: boolean, position?: number }

function assertCustomRules (org: Org): void {
  if (!PLANS[org.plan].features.customAlertRules) {
    throw new AppError('FORBIDDEN',
      `The ${org.plan} plan does not include custom alert rules; they come with enterprise`)
  }
}

async function checkMatch (ctx: ServiceContext, org: Org, match: RuleMatch): Promise<void> {
  const ids = match.domainIds ?? []
  if (ids.length > 0 && (await countOwnedDomains(ctx.db, org.id, ids)) !== new Set(ids).size) {
    throw new AppError('VALIDATION_ERROR', 'match.domainIds names a domain that does not exist',
      { field: 'match.domainIds' })
  }
}

export async function createAlertRule (ctx: ServiceContext, org: Org, input: RuleInput) {
  assertCustomRules(org)
  await checkMatch(ctx, org, input.match)
  if (await countAlertRules(ctx.db, org.id) >= MAX_ALERT_RULES) {
    throw new AppError('CONFLICT', `An organisation has at most ${MAX_ALERT_RULES} alert rules: delete one first`)
  }
  return await inTransaction(ctx.db, async tx => {
    const rule = await insertAlertRule(tx, org.id, { ...input, name: input.name.trim() })
    await recordAudit(tx, {
      action: 'alert_rule.created',
      objectId: rule.id,
      objectLabel: rule.name,
      details: { ...input }
    })
    return rule
  })
}

export async function changeAlertRule (ctx: ServiceContext, org: Org, id: string, change: Partial<RuleInput>) {
  assertCustomRules(org)
  if (change.match) await checkMatch(ctx, org, change.match)
  return await inTransaction(ctx.db, async tx => {
    const rule = await updateAlertRule(tx, org.id, id, { ...change, name: change.name?.trim() })
    if (!rule) throw notFound('Alert rule')
    await recordAudit(tx, {
      action: 'alert_rule.updated',
      objectId: rule.id,
      objectLabel: rule.name,
      details: { ...change }
    })
    return rule
  })
}

export async function removeAlertRule (ctx: ServiceContext, orgId: string, id: string): Promise<void> {
  await audited(ctx.db, { action: 'alert_rule.deleted', objectId: id }, async tx => {
    if (!await deleteAlertRule(tx, orgId, id)) throw notFound('Alert rule')
  })
}

/**
 * What the rules would have made of the organisation's changes of the last TRY_DAYS days:
 * the saved rules, or those with `candidate` added last (a rule being written). Counted
 * as the dispatch decides: the first enabled rule that matches; none, the change is alerted.
 */
export async function tryAlertRules (ctx: ServiceContext, org: Org, candidate?: RuleInput, now = new Date()) {
  assertCustomRules(org)
  if (candidate) await checkMatch(ctx, org, candidate.match)
  const saved: AlertRule[] = (await listAlertRules(ctx.db, org.id)).map(r => ({ ...r, match: r.match as RuleMatch }))
  const rules = candidate
    ? [...saved, { ...candidate, id: 'candidate', enabled: true }]
    : saved
  const from = new Date(now.getTime() - TRY_DAYS * 86_400_000)
  const changes = await changesToTry(ctx.db, org.id, from, TRY_MOST + 1)
  const tried = changes.slice(0, TRY_MOST)
  const byAction = Object.fromEntries(RULE_ACTIONS.map(a => [a, 0])) as Record<RuleAction, number>
  const byRule = new Map<string, number>(rules.map(r => [r.id, 0]))
  for (const c of tried) {
    const d = decide(rules, factsOf(c))
    byAction[d?.action ?? 'alert']++
    if (d) byRule.set(d.ruleId, (byRule.get(d.ruleId) ?? 0) + 1)
  }
  return {
    window: { from, to: now },
    total: tried.length,
    capped: changes.length > TRY_MOST,
    byAction,
    rules: rules.map(r => ({
      id: r.id === 'candidate' ? null : r.id, name: r.name, action: r.action, decided: byRule.get(r.id) ?? 0
    }))
  }
}
