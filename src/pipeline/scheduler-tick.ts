import { type JobQueue } from '../queue/queue.js'
import { crawlJobOf } from '../queue/queues.js'
import type { Db } from '../store/db.js'
import { pauseExpiredTrials } from '../store/domains.js'
import { setNextCrawls, takeDuePages } from '../store/page-checks.js'
import { takeDueDiscoveries } from '../store/page-events.js'
import { nextCrawlAt } from './crawl-slots.js'

const BATCH = 500

/** Discoveries queued at most per turn (a week's are spread over the turns that find them due). */
const DISCOVERIES_PER_TURN = 50

/**
 * One turn of the scheduler (every minute, through the queue's cron so one process
 * runs it however many there are): pause the domains of expired trials, queue the weekly
 * discovery of each active domain that is due (to tell of new and removed pages), then
 * queue a crawl for every monitored page of an active domain that is due, and move each
 * such page to its next slot.
 */
export async function runSchedulerTick (
  db: Db,
  queue: JobQueue,
  now = new Date()
): Promise<{ queued: number, paused: number, discoveries: number }> {
  const paused = await pauseExpiredTrials(db, now)
  const discoveries = await queue.transaction(db, async tx => {
    const due = await takeDueDiscoveries(tx, now, DISCOVERIES_PER_TURN)
    let queued = 0
    for (const d of due) {
      if ((await queue.enqueueDiscovery(tx, { orgId: d.org_id, domainId: d.id })).queued) queued++
    }
    return queued
  })
  let queued = 0
  for (;;) {
    const n = await queue.transaction(db, async tx => {
      const due = await takeDuePages(tx, now, BATCH)
      queued += (await queue.enqueueCrawls(tx, due.map(crawlJobOf))).size
      await setNextCrawls(
        tx,
        due.map(p => ({ id: p.id, at: nextCrawlAt(p.id, now, p.hours) }))
      )
      return due.length
    })
    if (n < BATCH) break
  }
  return { queued, paused, discoveries }
}
