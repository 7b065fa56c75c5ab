import { randomUUID } from 'node:crypto'
import { sql, type CompiledQuery, type Expression, type Selectable, type SqlBool } from 'kysely'
import type { ChangeType, DiffData, Fact, PageType, Severity } from '../vocabulary/core.js'
import { inOneTransaction, type Db } from './db.js'
import { after, cappedTotal, createdUs, pageOf, type Cursor } from './lists.js'
import type { ChangesTable } from './schema.js'

// Snapshots (what a page read, each time it moved) and changes (what moved between two).
// Changes not yet alerted (alerted_at null) are the alerts' outbox.

export type ChangeRow = Omit<Selectable<ChangesTable>, 'acknowledged_by_user' | 'search'> & {
  /** The e-mail of the person who acknowledged it (see ACKNOWLEDGER). */
  acknowledger?: string | null
}

/** Who acknowledged a change, when a person did: their e-mail (a key's id is in acknowledged_by). */
const ACKNOWLEDGER = sql<string | null>`(SELECT u.email FROM users u WHERE u.id = acknowledged_by_user)`
  .as('acknowledger')

export function changeView (c: ChangeRow) {
  return {
    id: c.id,
    pageId: c.page_id,
    domainId: c.domain_id,
    orgId: c.org_id,
    changeType: c.change_type,
    severity: c.severity,
    confidence: Number(c.confidence).toFixed(2),
    summary: c.summary,
    diffData: c.diff_data,
    snapshotBeforeId: c.snapshot_before_id,
    snapshotAfterId: c.snapshot_after_id,
    acknowledgedAt: c.acknowledged_at,
    acknowledgedBy: c.acknowledged_by ?? c.acknowledger ?? null,
    acknowledgedByKind: c.acknowledged_by ? 'key' as const : c.acknowledger ? 'person' as const : null,
    createdAt: c.created_at,
    verdict: c.verdict,
    pinnedAt: c.pinned_at,
    learnedSeverity: c.learned_severity_from
      ? { from: c.learned_severity_from, ruleId: c.learned_rule_id }
      : null,
    alertRule: c.alert_action ? { action: c.alert_action, ruleId: c.alert_rule_id } : null
  }
}

export interface ChangeFilters {
  severity?: Severity[]
  changeType?: ChangeType[]
  pageType?: PageType[]
  domainId?: string
  pageId?: string
  since?: Date
  until?: Date
  acknowledged?: boolean
  q?: string
  /** Only changes of domains with this tag (as normalTags keeps it). */
  tag?: string
}

/** The columns of a Change (the search vector stays in the database). */
export const CHANGE_COLUMNS = [
  'id',
  'page_id',
  'domain_id',
  'org_id',
  'change_type',
  'severity',
  'confidence',
  'summary',
  'diff_data',
  'snapshot_before_id',
  'snapshot_after_id',
  'acknowledged_at',
  'acknowledged_by',
  'alerted_at',
  'created_at',
  'verdict',
  'pinned_at',
  'learned_severity_from',
  'learned_rule_id',
  'alert_action',
  'alert_rule_id'
] as const

/** The columns of CHANGE_COLUMNS that hold times (for rowsFromJson). */
export const CHANGE_DATES = ['acknowledged_at', 'alerted_at', 'created_at', 'pinned_at'] as const satisfies
  ReadonlyArray<typeof CHANGE_COLUMNS[number]>

/** The organisation's changes that pass the filters, as a query to select from. */
function changesMatching (db: Db, orgId: string, f: ChangeFilters) {
  return db
    .selectFrom('changes as c')
    .where('c.org_id', '=', orgId)
    .where(eb => {
      const conds: Array<Expression<SqlBool>> = []
      if (f.severity?.length) conds.push(eb('c.severity', 'in', f.severity))
      if (f.changeType?.length) conds.push(eb('c.change_type', 'in', f.changeType))
      if (f.domainId) conds.push(eb('c.domain_id', '=', f.domainId))
      if (f.pageId) conds.push(eb('c.page_id', '=', f.pageId))
      if (f.since) conds.push(eb('c.created_at', '>=', f.since))
      if (f.until) conds.push(eb('c.created_at', '<', f.until))
      if (f.acknowledged !== undefined) conds.push(eb('c.acknowledged_at', f.acknowledged ? 'is not' : 'is', null))
      if (f.q) conds.push(sql<SqlBool>`c.search @@ websearch_to_tsquery('english', ${f.q})`)
      if (f.tag) {
        conds.push(eb.exists(eb.selectFrom('domains as d').select('d.id').whereRef('d.id', '=', 'c.domain_id')
          .where(sql<SqlBool>`${f.tag} = ANY(d.tags)`)))
      }
      if (f.pageType?.length) {
        conds.push(
          eb.exists(
            eb
              .selectFrom('pages as p')
              .select('p.id')
              .whereRef('p.id', '=', 'c.page_id')
              .where('p.page_type', 'in', f.pageType)
          )
        )
      }
      return eb.and(conds)
    })
}

/**
 * A page of the organisation's changes that pass the filters, newest first: after `cursor`
 * (keyset, the same cost at any depth) or at `page`. The total is counted up to COUNT_CAP
 * (see cappedTotal).
 */
export async function listChanges (
  db: Db, orgId: string, f: ChangeFilters, page: number, pageSize: number, cursor?: Cursor
) {
  const base = changesMatching(db, orgId, f)
  const offset = cursor ? undefined : (page - 1) * pageSize
  const rows = await (cursor ? base.where(after('c.created_at', 'c.id', cursor)) : base)
    .select(CHANGE_COLUMNS.map(c => `c.${c}` as const))
    .select(ACKNOWLEDGER)
    .select(createdUs('c.created_at'))
    .orderBy('c.created_at', 'desc')
    .orderBy('c.id', 'desc')
    .limit(pageSize + 1)
    .offset(offset ?? 0)
    .execute()
  const { page: shown, next } = pageOf(rows, pageSize)
  const counted = await cappedTotal(db, base, { shown: shown.length, more: next !== undefined, offset })
  return { items: shown.map(changeView), next, ...counted }
}

/** One of the organisation's changes; `orgId` null only for a link that was signed for this change. */
export async function getChange (db: Db, orgId: string | null, id: string) {
  let q = db.selectFrom('changes').select([...CHANGE_COLUMNS]).select(ACKNOWLEDGER).where('id', '=', id)
  if (orgId !== null) q = q.where('org_id', '=', orgId)
  const row = await q.executeTakeFirst()
  return row ? changeView(row) : undefined
}

/** Who acknowledges: an API key or a person. */
export type Acknowledger = { keyId: string } | { userId: string }

/**
 * Idempotent: a second acknowledgement keeps the first one's time and author. `by` null
 * undoes it. Many ids at once (the app's inbox); the changes of other organisations are
 * left alone. Returns the changes as they now are.
 */
export async function setAcknowledged (db: Db, orgId: string, ids: string[], by: Acknowledger | null) {
  if (ids.length === 0) return []
  const rows = await db
    .updateTable('changes')
    .set(
      by
        ? {
            acknowledged_at: sql`coalesce(acknowledged_at, now())`,
            acknowledged_by: sql`CASE WHEN acknowledged_at IS NULL THEN ${'keyId' in by ? by.keyId : null}::uuid
              ELSE acknowledged_by END`,
            acknowledged_by_user: sql`CASE WHEN acknowledged_at IS NULL THEN ${'userId' in by ? by.userId : null}::uuid
              ELSE acknowledged_by_user END`
          }
        : { acknowledged_at: null, acknowledged_by: null, acknowledged_by_user: null }
    )
    .where('id', 'in', ids)
    .where('org_id', '=', orgId)
    .returning([...CHANGE_COLUMNS])
    .returning(ACKNOWLEDGER)
    .execute()
  return rows.map(changeView)
}

const asBuffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)

export interface NewSnapshot {
  pageId: string
  orgId: string
  hash: string
  text: string
  rawGzip: Uint8Array
  httpStatus: number
  contentType: string | null
  /** The document the page is read with (an API description, a feed), gzipped. */
  document?: { url: string, gzip: Uint8Array, contentType: string }
  at: Date
}

export interface NewChange {
  changeType: ChangeType
  severity: Severity
  confidence: number
  summary: string
  diffData: DiffData
  /** Set when a learned rule moved its severity: what it was detected at, and the rule. */
  learned?: { from: Severity, ruleId: string }
}

/**
 * A page's new snapshot was to follow a snapshot that is no longer its latest: another
 * attempt at its check (the retry of one taken to be lost) recorded the page meanwhile.
 */
export class SnapshotSuperseded extends Error {
  constructor () {
    super('another attempt recorded the page meanwhile: this reading is dropped, so that no change is recorded twice')
  }
}

/**
 * Records a page's new snapshot and the changes found against the previous one, with the
 * statements `alongside` it (given the new snapshot's id), in one transaction sent at once
 * (see inOneTransaction), if the page's latest snapshot is still `latestId` (what the crawl
 * read; null: none): the page's row lock orders two attempts, and the later one's throws
 * SnapshotSuperseded and writes nothing, so that an edit is recorded once whatever the
 * retries. Returns the snapshot's id and the changes' rows.
 */
export async function recordSnapshot (
  db: Db,
  s: NewSnapshot,
  latestId: string | null,
  against?: { snapshotId: string, domainId: string, changes: NewChange[] },
  alongside: (snapshotId: string) => CompiledQuery[] = () => []
) {
  const snapshotId = randomUUID()
  const changes = against?.changes ?? []
  const statements = [
    sql`SELECT page_still_at(${s.pageId}, ${latestId}) AS still`.compile(db),
    db.insertInto('snapshots')
      .values({
        id: snapshotId,
        page_id: s.pageId,
        org_id: s.orgId,
        content_hash: s.hash,
        content: s.text,
        raw_html_gzip: asBuffer(s.rawGzip),
        http_status: s.httpStatus,
        content_type: s.contentType,
        document_url: s.document?.url ?? null,
        document_gzip: s.document ? asBuffer(s.document.gzip) : null,
        document_type: s.document?.contentType ?? null,
        created_at: s.at
      })
      .compile(),
    ...(against && changes.length > 0
      ? [db.insertInto('changes')
          .values(changes.map(c => ({
            page_id: s.pageId,
            domain_id: against.domainId,
            org_id: s.orgId,
            change_type: c.changeType,
            severity: c.severity,
            confidence: c.confidence.toFixed(2),
            summary: c.summary,
            diff_data: JSON.stringify(c.diffData),
            snapshot_before_id: against.snapshotId,
            snapshot_after_id: snapshotId,
            created_at: s.at,
            learned_severity_from: c.learned?.from ?? null,
            learned_rule_id: c.learned?.ruleId ?? null
          })))
          .returning(['id', 'change_type', 'severity', 'summary'])
          .compile()]
      : []),
    ...alongside(snapshotId)
  ]
  try {
    const results = await inOneTransaction(db, statements)
    return {
      snapshotId,
      changes: changes.length > 0
        ? results[2].rows as Array<Pick<ChangeRow, 'id' | 'change_type' | 'severity' | 'summary'>>
        : []
    }
  } catch (err) {
    if ((err as { code?: unknown }).code === SUPERSEDED) throw new SnapshotSuperseded()
    throw err
  }
}

/** The SQLSTATE of page_still_at's exception (migration 0031). */
const SUPERSEDED = 'SWSUP'

/**
 * Up to `limit` changes not alerted yet (all, or of `ids`), oldest first, with their page,
 * domain and plan: read, not taken (see markAlerted).
 */
export async function unalertedChanges (db: Db, limit: number, ids?: string[]) {
  let q = db
    .selectFrom('changes as c')
    .innerJoin('pages as p', 'p.id', 'c.page_id')
    .innerJoin('domains as d', 'd.id', 'c.domain_id')
    .innerJoin('orgs as o', 'o.id', 'c.org_id')
    .select(CHANGE_COLUMNS.map(col => `c.${col}` as const))
    .select([
      'p.url as page_url', 'p.name as page_name', 'p.page_type as page_type', 'd.hostname', 'd.display_name',
      'd.tags as domain_tags', 'o.plan'
    ])
    .where('c.alerted_at', 'is', null)
    .orderBy('c.created_at')
    .limit(limit)
  if (ids) q = q.where('c.id', 'in', ids.length > 0 ? ids : ['00000000-0000-0000-0000-000000000000'])
  return await q.execute()
}

/**
 * Marks the changes `ids` alerted, of those still not alerted and not being marked by
 * another transaction (locked in one order, skipped when locked: two dispatches never
 * wait for each other); returns the ids it marked, the ones this transaction alerts.
 */
export async function markAlerted (db: Db, ids: string[], at = new Date()): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await db.updateTable('changes').set({ alerted_at: at })
    .where('id', 'in', eb => eb.selectFrom('changes').select('id')
      .where('id', 'in', ids).where('alerted_at', 'is', null).orderBy('id').forUpdate().skipLocked())
    .returning('id').execute()
  return new Set(rows.map(r => r.id))
}

/** An organisation's changes in (from, to], newest first, with their page and domain. */
export async function changesBetween (db: Db, orgId: string, from: Date, to: Date) {
  return await db
    .selectFrom('changes as c')
    .innerJoin('pages as p', 'p.id', 'c.page_id')
    .innerJoin('domains as d', 'd.id', 'c.domain_id')
    .select([
      'c.id',
      'c.severity',
      'c.change_type',
      'c.summary',
      'c.domain_id',
      'c.created_at',
      'p.page_type',
      'p.url',
      'd.hostname',
      'd.tags as domain_tags',
      'c.alert_action'
    ])
    .where('c.org_id', '=', orgId)
    // A change an alert rule muted goes in no digest.
    .where(eb => eb.or([eb('c.alert_action', 'is', null), eb('c.alert_action', '!=', 'mute')]))
    .where('c.created_at', '>', from)
    .where('c.created_at', '<=', to)
    .orderBy('c.created_at', 'desc')
    .execute()
}

/** Each domain's changes not yet acknowledged, counted by severity. */
export async function openChangesByDomain (db: Db, orgId: string, domainIds: string[]) {
  if (domainIds.length === 0) return new Map<string, Partial<Record<Severity, number>>>()
  const rows = await db
    .selectFrom('changes')
    .select(['domain_id', 'severity', sql<number>`count(*)::int`.as('n')])
    .where('org_id', '=', orgId)
    .where('acknowledged_at', 'is', null)
    .groupBy(['domain_id', 'severity'])
    .orderBy('domain_id')
    .orderBy('severity')
    .execute()
  // Every domain of the organisation is counted (no list of ids): that lets PostgreSQL stream its partial index.
  const wanted = new Set(domainIds)
  const open = new Map<string, Partial<Record<Severity, number>>>()
  for (const r of rows) {
    if (wanted.has(r.domain_id)) open.set(r.domain_id, { ...open.get(r.domain_id), [r.severity]: r.n })
  }
  return open
}

/** At most this many changes go in one export: the newest. */
export const EXPORT_CAP = 10_000

/** The changes that pass the filters, newest first, as a spreadsheet's rows need them (no diffs). */
export async function changesForExport (db: Db, orgId: string, f: ChangeFilters) {
  return await changesMatching(db, orgId, f)
    .innerJoin('pages as p', 'p.id', 'c.page_id')
    .innerJoin('domains as d', 'd.id', 'c.domain_id')
    .select([
      'c.id', 'c.created_at', 'd.hostname', 'p.url', 'p.page_type', 'c.change_type', 'c.severity', 'c.confidence',
      'c.summary', 'c.acknowledged_at'
    ])
    .select(sql<Fact | null>`c.diff_data->'facts'->0`.as('lead'))
    .orderBy('c.created_at', 'desc')
    .orderBy('c.id', 'desc')
    .limit(EXPORT_CAP)
    .execute()
}
