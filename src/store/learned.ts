import { sql, type Selectable } from 'kysely'
import type { ChangeType, IgnoredFact } from '../vocabulary/core.js'
import type { LearnedKind, SeverityRule, Verdict } from '../vocabulary/learned.js'
import type { Db } from './db.js'
import type { LearnedRulesTable } from './schema.js'

// Rules learned from people's verdicts on changes (vocabulary/learned.ts), and the
// verdicts themselves, kept on the change.

export type LearnedRuleRow = Selectable<LearnedRulesTable>

export function learnedRuleView (r: LearnedRuleRow & { url?: string, domain_id?: string }) {
  return {
    id: r.id,
    pageId: r.page_id,
    ...(r.domain_id !== undefined ? { domainId: r.domain_id } : {}),
    ...(r.url !== undefined ? { url: r.url } : {}),
    kind: r.kind,
    pattern: r.pattern,
    fact: r.fact,
    changeType: r.change_type,
    fromChangeId: r.from_change_id,
    createdBy: r.created_by,
    createdAt: r.created_at
  }
}

export async function insertLearnedRule (
  db: Db,
  rule: {
    orgId: string
    pageId: string
    kind: LearnedKind
    pattern?: string
    fact?: IgnoredFact
    changeType?: ChangeType
    fromChangeId: string
    createdBy: string | null
  }
): Promise<LearnedRuleRow> {
  return await db.insertInto('learned_rules').values({
    org_id: rule.orgId,
    page_id: rule.pageId,
    kind: rule.kind,
    pattern: rule.pattern ?? null,
    fact: rule.fact ? JSON.stringify(rule.fact) : null,
    change_type: rule.changeType ?? null,
    from_change_id: rule.fromChangeId,
    created_by: rule.createdBy
  }).returningAll().executeTakeFirstOrThrow()
}

/** The organisation's learned rules, newest first, with their page's address. */
export async function listLearnedRules (db: Db, orgId: string, pageId?: string) {
  let q = db.selectFrom('learned_rules as r').innerJoin('pages as p', 'p.id', 'r.page_id')
    .selectAll('r').select(['p.url', 'p.domain_id'])
    .where('r.org_id', '=', orgId)
  if (pageId) q = q.where('r.page_id', '=', pageId)
  const rows = await q.orderBy('r.created_at', 'desc').orderBy('r.id', 'desc').limit(500).execute()
  return rows.map(learnedRuleView)
}

/** One of the organisation's rules, with its page's domain and noise rules. */
export async function findLearnedRule (db: Db, orgId: string, id: string) {
  return await db.selectFrom('learned_rules as r').innerJoin('pages as p', 'p.id', 'r.page_id')
    .selectAll('r').select(['p.domain_id', 'p.noise_rules'])
    .where('r.org_id', '=', orgId).where('r.id', '=', id)
    .executeTakeFirst()
}

/** A rule like this one, if the page has it already (the same pattern or fact, or the same kind for a type). */
export async function sameLearnedRule (
  db: Db, pageId: string, kind: LearnedKind, what: { pattern?: string, fact?: IgnoredFact, changeType?: ChangeType }
): Promise<LearnedRuleRow | undefined> {
  let q = db.selectFrom('learned_rules').selectAll().where('page_id', '=', pageId).where('kind', '=', kind)
  q = what.pattern !== undefined
    ? q.where('pattern', '=', what.pattern)
    : what.fact !== undefined
      ? q.where(sql<boolean>`fact = ${JSON.stringify(what.fact)}::jsonb`)
      : q.where('change_type', '=', what.changeType!)
  return await q.executeTakeFirst()
}

export async function deleteLearnedRule (db: Db, id: string): Promise<void> {
  await db.deleteFrom('learned_rules').where('id', '=', id).execute()
}

/** The page's severity rules, newest first: what a new change's severity goes through (learnedSeverity). */
export async function severityRules (db: Db, pageId: string): Promise<SeverityRule[]> {
  const rows = await db.selectFrom('learned_rules').select(['id', 'kind', 'change_type'])
    .where('page_id', '=', pageId).where('kind', '!=', 'mute')
    .orderBy('created_at', 'desc').orderBy('id', 'desc').execute()
  return rows.map(r => ({ id: r.id, kind: r.kind, changeType: r.change_type }))
}

/**
 * A person's verdict on a change. "important" pins it; "not important" acknowledges it
 * (it stays stored and searchable). Returns whether the change is the organisation's.
 */
export async function setVerdict (
  db: Db, orgId: string, changeId: string, verdict: Verdict, by: { keyId: string } | { userId: string }
): Promise<boolean> {
  const important = verdict === 'important'
  const row = await db.updateTable('changes').set({
    verdict,
    pinned_at: important ? sql`coalesce(pinned_at, now())` : null,
    ...(important
      ? {}
      : {
          acknowledged_at: sql`coalesce(acknowledged_at, now())`,
          acknowledged_by: sql`CASE WHEN acknowledged_at IS NULL THEN ${'keyId' in by ? by.keyId : null}::uuid
            ELSE acknowledged_by END`,
          acknowledged_by_user: sql`CASE WHEN acknowledged_at IS NULL THEN ${'userId' in by ? by.userId : null}::uuid
            ELSE acknowledged_by_user END`
        })
  }).where('id', '=', changeId).where('org_id', '=', orgId).returning('id').executeTakeFirst()
  return row !== undefined
}
