import { sql } from 'kysely'
import type { Db } from '../store/db.js'
import { nextCrawlAt } from './schedule.js'
import type { JobQueue } from './queue.js'

const BATCH = 500

/**
 * One turn of the scheduler (every minute, through the queue's cron so one process
 * runs it however many there are): pause the domains of expired trials, then queue a
 * crawl for every monitored page of an active domain that is due.
 */
export async function runSchedulerTick (db: Db, queue: JobQueue, now = new Date()): Promise<{ queued: number, paused: number }> {
  const paused = await db.updateTable('domains')
    .set({ status: 'paused', paused_reason: 'trial_expired', updated_at: now })
    .where('status', '<>', 'paused')
    .where('org_id', 'in', db.selectFrom('orgs').select('id').where('plan', '=', 'trial').where('trial_ends_at', '<=', now))
    .executeTakeFirst()
  let queued = 0
  for (;;) {
    const n = await queue.transaction(db, async (tx) => {
      const due = await sql<{ id: string, url: string, domain_id: string, org_id: string, hours: number }>`
        SELECT p.id, p.url, p.domain_id, p.org_id, d.check_frequency_hours AS hours
        FROM pages p JOIN domains d ON d.id = p.domain_id
        WHERE p.monitoring_enabled AND d.status IN ('active', 'error') AND p.next_crawl_at <= ${now}
        ORDER BY p.next_crawl_at LIMIT ${BATCH}
        FOR UPDATE OF p SKIP LOCKED`.execute(tx)
      const jobs = await queue.enqueueCrawls(tx, due.rows.map(p => ({ orgId: p.org_id, domainId: p.domain_id, pageId: p.id, url: p.url })))
      queued += jobs.size
      if (due.rows.length > 0) {
        // Each page moves to its next slot: one statement for the batch, its pages found by primary key.
        const next = due.rows.map(p => ({ id: p.id, at: nextCrawlAt(p.id, now, p.hours).toISOString() }))
        await sql`
          UPDATE pages SET next_crawl_at = n.at::timestamptz
          FROM jsonb_to_recordset(${JSON.stringify(next)}::jsonb) AS n(id uuid, at text)
          WHERE pages.id = ANY(${due.rows.map(p => p.id)}::uuid[]) AND pages.id = n.id`.execute(tx)
      }
      return due.rows.length
    })
    if (n < BATCH) break
  }
  return { queued, paused: Number(paused.numUpdatedRows) }
}
