import { sql, type Insertable, type Selectable } from 'kysely'
import type { Actor, AuditEvent, AuditNote } from '../vocabulary/audit.js'
import { objectTypeOf } from '../vocabulary/audit.js'
import type { Db, Tx } from './db.js'
import { after, cappedTotal, createdUs, pageOf, type CountedPage, type Cursor } from './lists.js'
import type { AuditEventsTable } from './schema.js'

// The audit log's rows: written in the transaction of the change they record (see
// services/audit.ts), read newest first, never updated (migration 0027's trigger).

export type AuditEventRow = Selectable<AuditEventsTable>

/** Where a request came from and which trace it is, beside its actor. */
export interface RequestOrigin { ip: string | null, traceId: string | null }

export type AuditEventValues = Insertable<AuditEventsTable>

/** The row that records `note`, made by `actor` from `origin`, in `orgId`'s log. */
export function auditEventValues (
  orgId: string | null, actor: Actor, origin: RequestOrigin, note: AuditNote
): AuditEventValues {
  return {
    org_id: orgId,
    actor_kind: actor.kind,
    actor_user_id: actor.userId ?? null,
    actor_key_id: actor.keyId ?? null,
    actor_label: storable(actor.label.slice(0, 320)),
    ip: origin.ip,
    action: note.action,
    object_type: objectTypeOf(note.action),
    object_id: note.objectId ?? null,
    object_label: note.objectLabel == null ? null : storable(note.objectLabel.slice(0, 2048)),
    details: JSON.stringify(note.details ?? {}, (_key, v: unknown) => typeof v === 'string' ? storable(v) : v),
    trace_id: origin.traceId
  }
}

export async function insertAuditEvent (tx: Tx, event: AuditEventValues): Promise<void> {
  await tx.insertInto('audit_events').values(event).execute()
}

/**
 * An INSERT, for a statement's WITH, of `event` once for each row its `rows` query returned
 * (none when the write matched nothing), labelled with that row's `labelColumn`: a write and
 * its audit event made in one statement, with no transaction held open between them.
 */
export function insertAuditEventPerRow (event: AuditEventValues, rows: string, labelColumn: string) {
  return sql<never>`(INSERT INTO audit_events
    (org_id, actor_kind, actor_user_id, actor_key_id, actor_label, ip, action, object_type, object_id, object_label,
      details, trace_id)
    SELECT ${event.org_id}::uuid, ${event.actor_kind}, ${event.actor_user_id}::uuid, ${event.actor_key_id}::uuid,
      ${event.actor_label}, ${event.ip}::text, ${event.action}, ${event.object_type}, ${event.object_id}::text,
      left(${sql.ref(`${rows}.${labelColumn}`)}, 2048), ${event.details}::jsonb, ${event.trace_id}::text
    FROM ${sql.table(rows)})`
}

/** Text PostgreSQL keeps: a lone surrogate (which jsonb refuses) made U+FFFD, and no NUL. */
const storable = (text: string) =>
  text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD').replaceAll('\0', '')

export interface AuditFilters {
  /** A person's user id: what they did. */
  userId?: string
  actions?: readonly string[]
  from?: Date
  /** Up to, not including. */
  to?: Date
}

function matching (db: Db, orgId: string, f: AuditFilters) {
  let q = db.selectFrom('audit_events').where('org_id', '=', orgId)
  if (f.userId) q = q.where('actor_user_id', '=', f.userId)
  if (f.actions?.length) q = q.where('action', 'in', f.actions)
  if (f.from) q = q.where('at', '>=', f.from)
  if (f.to) q = q.where('at', '<', f.to)
  return q
}

/** A page of the organisation's log, newest first, from `cursor` or at `offset`. */
export async function listAuditEvents (
  db: Db, orgId: string, f: AuditFilters, opts: { limit: number, offset: number, cursor?: Cursor }
): Promise<{ items: AuditEvent[], counted: CountedPage, next?: Cursor }> {
  let q = matching(db, orgId, f).selectAll().select(createdUs('at'))
  q = opts.cursor ? q.where(after('at', 'id', opts.cursor)) : q.offset(opts.offset)
  const rows = await q.orderBy('at', 'desc').orderBy('id', 'desc').limit(opts.limit + 1).execute()
  const { page, next } = pageOf(rows, opts.limit)
  const counted = await cappedTotal(db, matching(db, orgId, f), {
    shown: page.length, more: next !== undefined, offset: opts.cursor ? undefined : opts.offset
  })
  return { items: page.map(auditEventView), counted, ...(next ? { next } : {}) }
}

/** Every event of the filter, newest first, in pages of `batch` (the CSV). */
export async function * allAuditEvents (db: Db, orgId: string, f: AuditFilters, batch = 1000) {
  let cursor: Cursor | undefined
  do {
    let q = matching(db, orgId, f).selectAll().select(createdUs('at'))
    if (cursor) q = q.where(after('at', 'id', cursor))
    const rows = await q.orderBy('at', 'desc').orderBy('id', 'desc').limit(batch + 1).execute()
    const { page, next } = pageOf(rows, batch)
    yield page.map(auditEventView)
    cursor = next
  } while (cursor)
}

export function auditEventView (r: AuditEventRow): AuditEvent {
  return {
    id: r.id,
    at: r.at,
    actor: { kind: r.actor_kind, userId: r.actor_user_id, keyId: r.actor_key_id, label: r.actor_label },
    ip: r.ip,
    action: r.action as AuditEvent['action'],
    object: { type: r.object_type, id: r.object_id, label: r.object_label },
    details: r.details,
    traceId: r.trace_id
  }
}

/** The people who appear in the organisation's log, for its filter. */
export async function auditActors (db: Db, orgId: string): Promise<Array<{ userId: string, label: string }>> {
  const rows = await db.selectFrom('audit_events')
    .select(['actor_user_id', db.fn.max('actor_label').as('label')])
    .where('org_id', '=', orgId).where('actor_user_id', 'is not', null)
    .groupBy('actor_user_id').orderBy('label').limit(500).execute()
  return rows.map(r => ({ userId: r.actor_user_id!, label: r.label }))
}
