import { PLANS } from '../vocabulary/plans.js'
import type { JobQueue } from '../queue/queue.js'
import { queueDeliveries } from '../services/webhooks.js'
import { changesBetween } from '../store/changes.js'
import type { Db } from '../store/db.js'
import { digestOrgs, setLastDigest } from '../store/orgs.js'
import { endpointsFor, type NewDelivery } from '../store/webhooks.js'
import { endpointWants } from './dispatch.js'

/** The most changes one digest message lists; its `total` counts them all. */
const DIGEST_LIMIT = 100

/**
 * Once a day, for plans whose alerts are a digest: one message per endpoint with the
 * changes since the last digest. Returns how many messages were queued.
 */
export async function runDigest (db: Db, queue: JobQueue, now = new Date()): Promise<number> {
  const digestPlans = Object.values(PLANS)
    .filter(p => p.alerts === 'digest')
    .map(p => p.name)
  let sent = 0
  for (const org of await digestOrgs(db, digestPlans)) {
    const from = org.last_digest_at ?? org.created_at
    await queue.transaction(db, async tx => {
      const changes = await changesBetween(tx, org.id, from, now)
      const deliveries: NewDelivery[] = []
      for (const e of await endpointsFor(tx, [org.id], 'change.detected')) {
        const wanted = changes.filter(c => endpointWants(e, c))
        if (wanted.length === 0) continue
        deliveries.push({
          endpoint_id: e.id,
          org_id: org.id,
          event_type: 'changes.digest',
          event_id: `digest:${now.toISOString()}`,
          payload: {
            period: { from: from.toISOString(), to: now.toISOString() },
            total: wanted.length,
            changes: wanted.slice(0, DIGEST_LIMIT).map(c => ({
              id: c.id,
              severity: c.severity,
              changeType: c.change_type,
              summary: c.summary,
              url: c.url,
              domain: c.hostname,
              createdAt: c.created_at
            }))
          }
        })
      }
      sent += (await queueDeliveries(tx, queue, deliveries)).length
      await setLastDigest(tx, org.id, now)
    })
  }
  return sent
}
