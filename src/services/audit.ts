import type { Actor, AuditNote } from '../vocabulary/audit.js'
import { inTransaction, type Db, type Tx } from '../store/db.js'
import { auditEventValues, insertAuditEvent, type AuditEventValues } from '../store/audit-events.js'
import { requestScope } from '../store/urgency.js'

// The audit log's one way in: a use case that changes an organisation (or reveals it)
// does its writes through `audited`, which records who did it in the same transaction.
// Who acts and from where is the request's (store/urgency.ts); work the pipeline does on
// its own (a scheduled crawl, a discovery's pages) has no request and is not logged.

/**
 * Runs `work` in a transaction (joining one already open) and records `note` in it once
 * `work` has succeeded. A note made of what the work wrote (a new object's id) is recorded
 * with recordAudit, in the work's own transaction.
 */
export async function audited<T> (db: Db, note: AuditNote, work: (tx: Tx) => Promise<T>): Promise<T> {
  return await inTransaction(db, async tx => {
    const result = await work(tx)
    await recordAudit(tx, note)
    return result
  })
}

/** Records `note` alone: nothing else is written with it (a refusal, an export). */
export async function recordEvent (db: Db, note: AuditNote): Promise<void> {
  await inTransaction(db, async tx => { await recordAudit(tx, note) })
}

/** Says who the request being served acts as, and in which organisation (once its caller is known). */
export function actingAs (actor: Actor, orgId: string | undefined): void {
  const scope = requestScope()
  if (!scope) return
  scope.actor = actor
  scope.orgId = orgId
}

/**
 * Says that the request being served changed nothing (a form's preview, a list whose every
 * line was refused, a rule taught already): it writes no audit event, and that is no defect.
 */
export function changesNothing (): void {
  const scope = requestScope()
  if (scope) scope.changesNothing = true
}

/** Records `note` in `tx`, as the request being served's: nothing when no request is served. */
export async function recordAudit (tx: Tx, note: AuditNote): Promise<void> {
  const event = auditEventOf(note)
  if (event) await insertAuditEvent(tx, event)
}

/**
 * The audit event that records `note` as the request being served's, for a write that
 * records it in its own statement (store/audit-events.ts's insertAuditEventPerRow); null
 * when no request is served.
 */
export function auditEventOf (note: AuditNote): AuditEventValues | null {
  const scope = requestScope()
  if (!scope) return null
  const actor = note.actor ?? scope.actor ?? { kind: 'anonymous' as const, label: 'anonymous' }
  scope.audited++
  return auditEventValues(note.orgId !== undefined ? note.orgId : scope.orgId ?? null, actor, scope, note)
}

/** Records `note` for work the service does on its own (a scheduled re-check), with no request to name its actor. */
export async function recordUnattended (tx: Tx, orgId: string, note: AuditNote): Promise<void> {
  await insertAuditEvent(tx, auditEventValues(orgId, { kind: 'operator', label: 'Sitewatch (scheduled check)' },
    { ip: null, traceId: null }, note))
}
