import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { PLANS } from '../plans/plans.js'
import { changeView, CHANGE_COLUMNS } from '../store/changes.js'
import { txSqlExecutor, type Db, type Tx } from '../store/db.js'
import type { ChangeType, PageType, Severity } from '../store/schema.js'
import type { JobFailed } from '../jobs/events.js'
import { QUEUE, type JobQueue } from '../jobs/queue.js'
import type { EndpointRow } from './endpoints.js'

// Alerting reads the pipeline's records, never the other way round: changes not yet
// alerted (alerted_at null) are the outbox. Each is matched against the organisation's
// endpoints and becomes delivery rows plus queued delivery jobs, in one transaction
// with the flag that marks it done, so nothing is sent twice or lost in a crash.

const RANK: Record<Severity, number> = { low: 0, medium: 1, high: 2, critical: 3 }
const BATCH = 500

export interface ChangeFacts { severity: Severity, changeType: ChangeType, domainId: string, pageType: PageType }

/** Whether an endpoint's filters let a change through. */
export function endpointWants (e: Pick<EndpointRow, 'min_severity' | 'change_types' | 'domain_ids' | 'page_types'>, c: ChangeFacts): boolean {
  return RANK[c.severity] >= RANK[e.min_severity] &&
    (!e.change_types || e.change_types.includes(c.changeType)) &&
    (!e.domain_ids || e.domain_ids.includes(c.domainId)) &&
    (!e.page_types || e.page_types.includes(c.pageType))
}

interface NewDelivery { endpoint_id: string, org_id: string, event_type: string, event_id: string, payload: Record<string, unknown> }

/** Inserts deliveries (once per endpoint and event) and queues a job for each new one. */
export async function queueDeliveries (tx: Tx, queue: JobQueue, deliveries: NewDelivery[]): Promise<string[]> {
  if (deliveries.length === 0) return []
  const rows = await tx.insertInto('webhook_deliveries')
    .values(deliveries.map(d => ({ ...d, id: randomUUID(), payload: JSON.stringify(d.payload) })))
    .onConflict(oc => oc.columns(['endpoint_id', 'event_type', 'event_id']).doNothing())
    .returning('id').execute()
  if (rows.length > 0) {
    await queue.boss.insert(rows.map(r => ({ name: QUEUE.deliver, data: { deliveryId: r.id } })), { db: txSqlExecutor(tx) })
    queue.sentWithin(tx, QUEUE.deliver, rows.length)
  }
  return rows.map(r => r.id)
}

async function endpointsFor (tx: Tx, orgIds: string[], event: string): Promise<EndpointRow[]> {
  if (orgIds.length === 0) return []
  return await tx.selectFrom('webhook_endpoints').selectAll()
    .where('org_id', 'in', orgIds).where('enabled', '=', true)
    .where(sql<boolean>`${event} = ANY(events)`).execute()
}

/**
 * Hands changes not yet alerted to their endpoints: all of them (the sweep), or the
 * given ones (right after a crawl). Digest plans are marked alerted here and sent by
 * the daily digest. Returns how many changes were handled.
 */
export async function dispatchChanges (db: Db, queue: JobQueue, changeIds?: string[]): Promise<number> {
  let handled = 0
  for (;;) {
    const n = await queue.transaction(db, async (tx) => {
      let q = tx.selectFrom('changes as c')
        .innerJoin('pages as p', 'p.id', 'c.page_id')
        .innerJoin('domains as d', 'd.id', 'c.domain_id')
        .innerJoin('orgs as o', 'o.id', 'c.org_id')
        .select(CHANGE_COLUMNS.map(col => `c.${col}` as const))
        .select(['p.url as page_url', 'p.page_type as page_type', 'd.hostname', 'd.display_name', 'o.plan'])
        .where('c.alerted_at', 'is', null)
        .orderBy('c.created_at').limit(BATCH)
      if (changeIds) q = q.where('c.id', 'in', changeIds.length > 0 ? changeIds : ['00000000-0000-0000-0000-000000000000'])
      const rows = await q.forUpdate('c').skipLocked().execute()
      if (rows.length === 0) return 0
      const endpoints = await endpointsFor(tx, [...new Set(rows.map(r => r.org_id))], 'change.detected')
      const deliveries: NewDelivery[] = []
      for (const r of rows) {
        if (PLANS[r.plan].alerts === 'digest') continue
        const facts = { severity: r.severity, changeType: r.change_type, domainId: r.domain_id, pageType: r.page_type }
        for (const e of endpoints) {
          if (e.org_id !== r.org_id || !endpointWants(e, facts)) continue
          deliveries.push({
            endpoint_id: e.id,
            org_id: r.org_id,
            event_type: 'change.detected',
            event_id: r.id,
            payload: {
              change: changeView(r),
              page: { id: r.page_id, url: r.page_url, pageType: r.page_type },
              domain: { id: r.domain_id, domain: r.hostname, displayName: r.display_name }
            }
          })
        }
      }
      await queueDeliveries(tx, queue, deliveries)
      await tx.updateTable('changes').set({ alerted_at: new Date() }).where('id', 'in', rows.map(r => r.id)).execute()
      return rows.length
    })
    handled += n
    if (n < BATCH || changeIds) return handled
  }
}

/** A job that failed for good, to the endpoints that asked for job.failed. */
export async function dispatchJobFailed (db: Db, queue: JobQueue, e: JobFailed): Promise<void> {
  await queue.transaction(db, async (tx) => {
    const endpoints = (await endpointsFor(tx, [e.orgId], 'job.failed')).filter(x => !x.domain_ids || x.domain_ids.includes(e.domainId))
    const domain = await tx.selectFrom('domains').select(['hostname']).where('id', '=', e.domainId).executeTakeFirst()
    await queueDeliveries(tx, queue, endpoints.map(x => ({
      endpoint_id: x.id,
      org_id: e.orgId,
      event_type: 'job.failed',
      event_id: e.jobId,
      payload: { job: { id: e.jobId, name: e.name, domainId: e.domainId, pageId: e.pageId, failedReason: e.reason }, domain: domain ? { id: e.domainId, domain: domain.hostname } : null }
    })))
  })
}

/**
 * Once a day, for plans whose alerts are a digest: one message per endpoint with the
 * changes since the last digest.
 */
export async function runDigest (db: Db, queue: JobQueue, now = new Date()): Promise<number> {
  const digestPlans = Object.values(PLANS).filter(p => p.alerts === 'digest').map(p => p.name)
  const orgs = await db.selectFrom('orgs').select(['id', 'created_at', 'last_digest_at']).where('plan', 'in', digestPlans).execute()
  let sent = 0
  for (const org of orgs) {
    const from = org.last_digest_at ?? org.created_at
    await queue.transaction(db, async (tx) => {
      const changes = await tx.selectFrom('changes as c').innerJoin('pages as p', 'p.id', 'c.page_id').innerJoin('domains as d', 'd.id', 'c.domain_id')
        .select(['c.id', 'c.severity', 'c.change_type', 'c.summary', 'c.domain_id', 'c.created_at', 'p.page_type', 'p.url', 'd.hostname'])
        .where('c.org_id', '=', org.id).where('c.created_at', '>', from).where('c.created_at', '<=', now)
        .orderBy('c.created_at', 'desc').execute()
      const endpoints = await endpointsFor(tx, [org.id], 'change.detected')
      const deliveries: NewDelivery[] = []
      for (const e of endpoints) {
        const wanted = changes.filter(c => endpointWants(e, { severity: c.severity, changeType: c.change_type, domainId: c.domain_id, pageType: c.page_type }))
        if (wanted.length === 0) continue
        deliveries.push({
          endpoint_id: e.id,
          org_id: org.id,
          event_type: 'changes.digest',
          event_id: `digest:${now.toISOString()}`,
          payload: {
            period: { from: from.toISOString(), to: now.toISOString() },
            total: wanted.length,
            changes: wanted.slice(0, 100).map(c => ({ id: c.id, severity: c.severity, changeType: c.change_type, summary: c.summary, url: c.url, domain: c.hostname, createdAt: c.created_at }))
          }
        })
      }
      sent += (await queueDeliveries(tx, queue, deliveries)).length
      await tx.updateTable('orgs').set({ last_digest_at: now }).where('id', '=', org.id).execute()
    })
  }
  return sent
}
