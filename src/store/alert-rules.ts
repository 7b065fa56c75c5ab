import { sql, type Selectable } from 'kysely'
import type { AlertRule, RuleAction, RuleMatch } from '../vocabulary/alert-rules.js'
import type { ChangeType, DiffData, PageType, Severity } from '../vocabulary/core.js'
import type { Db, Tx } from './db.js'
import type { AlertRulesTable } from './schema.js'

// The alert rules people write (vocabulary/alert-rules.ts), in their order, and what the
// dispatch made of each change (changes.alert_action).

type AlertRuleRow = Selectable<AlertRulesTable>

export function alertRuleView (r: AlertRuleRow) {
  return {
    id: r.id,
    name: r.name,
    position: r.position,
    match: r.match,
    action: r.action,
    enabled: r.enabled,
    createdAt: r.created_at,
    updatedAt: r.updated_at
  }
}

/** The organisations' rules, in order (the first that matches decides), by organisation. */
export async function alertRulesOf (db: Db, orgIds: readonly string[]): Promise<Map<string, AlertRule[]>> {
  const byOrg = new Map<string, AlertRule[]>()
  if (orgIds.length === 0) return byOrg
  const rows = await db.selectFrom('alert_rules').selectAll().where('org_id', 'in', [...orgIds])
    .orderBy('org_id').orderBy('position').orderBy('created_at').execute()
  for (const r of rows) byOrg.set(r.org_id, [...(byOrg.get(r.org_id) ?? []), r])
  return byOrg
}

export async function listAlertRules (db: Db, orgId: string) {
  return (await alertRulesOf(db, [orgId])).get(orgId)?.map(r => alertRuleView(r as AlertRuleRow)) ?? []
}

export async function insertAlertRule (
  db: Db,
  orgId: string,
  rule: { name: string, match: RuleMatch, action: RuleAction, enabled?: boolean, position?: number }
) {
  const last = sql<number>`(SELECT coalesce(max(position), 0) + 1 FROM alert_rules WHERE org_id = ${orgId})`
  const row = await db.insertInto('alert_rules').values({
    org_id: orgId,
    name: rule.name,
    match: JSON.stringify(rule.match),
    action: rule.action,
    enabled: rule.enabled ?? true,
    position: rule.position ?? last
  }).returningAll().executeTakeFirstOrThrow()
  return alertRuleView(row)
}

export async function updateAlertRule (
  db: Db, orgId: string, id: string,
  change: { name?: string, match?: RuleMatch, action?: RuleAction, enabled?: boolean, position?: number }
) {
  const row = await db.updateTable('alert_rules').set({
    updated_at: new Date(),
    ...(change.name !== undefined ? { name: change.name } : {}),
    ...(change.match !== undefined ? { match: JSON.stringify(change.match) } : {}),
    ...(change.action !== undefined ? { action: change.action } : {}),
    ...(change.enabled !== undefined ? { enabled: change.enabled } : {}),
    ...(change.position !== undefined ? { position: change.position } : {})
  }).where('org_id', '=', orgId).where('id', '=', id).returningAll().executeTakeFirst()
  return row && alertRuleView(row)
}

export async function deleteAlertRule (db: Db, orgId: string, id: string): Promise<boolean> {
  const row = await db.deleteFrom('alert_rules').where('org_id', '=', orgId).where('id', '=', id)
    .returning('id').executeTakeFirst()
  return row !== undefined
}

export async function countAlertRules (db: Db, orgId: string): Promise<number> {
  const r = await db.selectFrom('alert_rules').select(sql<number>`count(*)::int`.as('n')).where('org_id', '=', orgId)
    .executeTakeFirstOrThrow()
  return r.n
}

/** Records what the rules made of each change as it is dispatched. */
export async function recordAlertActions (
  tx: Tx, decided: ReadonlyArray<{ id: string, action: RuleAction, ruleId: string }>
): Promise<void> {
  if (decided.length === 0) return
  const values = sql.join(decided.map(d => sql`(${d.id}::uuid, ${d.action}, ${d.ruleId}::uuid)`))
  await sql`UPDATE changes c SET alert_action = v.action, alert_rule_id = v.rule
    FROM (VALUES ${values}) AS v (id, action, rule) WHERE c.id = v.id`.execute(tx)
}

/** The organisation's changes since `since`, newest first (at most `limit`), with what a rule reads of them. */
export async function changesToTry (db: Db, orgId: string, since: Date, limit: number) {
  const rows = await db.selectFrom('changes as c')
    .innerJoin('pages as p', 'p.id', 'c.page_id')
    .innerJoin('domains as d', 'd.id', 'c.domain_id')
    .select([
      'c.id', 'c.domain_id', 'c.change_type', 'c.severity', 'c.confidence', 'c.diff_data', 'c.alert_action',
      'p.page_type', 'd.tags'
    ])
    .where('c.org_id', '=', orgId).where('c.created_at', '>=', since)
    .orderBy('c.created_at', 'desc').limit(limit).execute()
  return rows.map(r => ({
    id: r.id,
    domainId: r.domain_id,
    domainTags: r.tags,
    pageType: r.page_type as PageType,
    changeType: r.change_type as ChangeType,
    severity: r.severity as Severity,
    confidence: r.confidence,
    diffData: r.diff_data as DiffData,
    alertAction: r.alert_action
  }))
}
