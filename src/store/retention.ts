import { sql } from 'kysely'
import { PLANS } from '../vocabulary/plans.js'
import type { Db } from './db.js'

const DAY = 86_400_000

/**
 * Deletes changes and snapshots older than each plan's history retention. A page's
 * latest snapshot (the baseline of its next comparison) and snapshots that a kept
 * change still points to are kept; audit events go by the same rule. Webhook deliveries older than 30 days go too (the
 * queue forgets its own job records: deleteJobRecordsBefore).
 */
export async function deleteExpired (db: Db, now = new Date()): Promise<{ changes: number, snapshots: number }> {
  let changes = 0
  let snapshots = 0
  for (const plan of Object.values(PLANS)) {
    if (plan.retentionDays === null) continue
    const cutoff = new Date(now.getTime() - plan.retentionDays * DAY)
    const c = await sql`
      DELETE FROM changes c USING orgs o
      WHERE c.org_id = o.id AND o.plan = ${plan.name} AND c.created_at < ${cutoff}`.execute(db)
    changes += Number(c.numAffectedRows ?? 0)
    const s = await sql`
      DELETE FROM snapshots s USING orgs o
      WHERE s.org_id = o.id AND o.plan = ${plan.name} AND s.created_at < ${cutoff}
        AND NOT EXISTS (SELECT 1 FROM changes c WHERE c.snapshot_before_id = s.id OR c.snapshot_after_id = s.id)
        AND s.id <> (SELECT s2.id FROM snapshots s2 WHERE s2.page_id = s.page_id
                     ORDER BY s2.created_at DESC, s2.id DESC LIMIT 1)`.execute(
        db
      )
    snapshots += Number(s.numAffectedRows ?? 0)
    await sql`DELETE FROM audit_events a USING orgs o
      WHERE a.org_id = o.id AND o.plan = ${plan.name} AND a.at < ${cutoff}`.execute(db)
  }
  // The operator's log (no organisation's: unknown addresses' sign-ins and resets) is kept 180 days.
  await db.deleteFrom('audit_events').where('org_id', 'is', null)
    .where('at', '<', new Date(now.getTime() - 180 * DAY)).execute()
  await db
    .deleteFrom('webhook_deliveries')
    .where('created_at', '<', new Date(now.getTime() - 30 * DAY))
    .execute()
  return { changes, snapshots }
}
