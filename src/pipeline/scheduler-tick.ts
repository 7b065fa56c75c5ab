import { type JobQueue } from '../queue/queue.js'
import { crawlJobOf } from '../queue/queues.js'
import type { Db } from '../store/db.js'
import { pauseExpiredTrials } from '../store/domains.js'
import { setNextCrawls, takeDuePages } from '../store/page-checks.js'
import { nextCrawlAt } from './crawl-slots.js'

const BATCH = 500

/**
 * One turn of the scheduler (every minute, through the queue's cron so one process
 * runs it however many there are): pause the domains of expired trials, then queue a
 * crawl for every monitored page of an active domain that is due, and move each such
 * page to its next slot.
 */
export async function runSchedulerTick (
  db: Db,
  queue: JobQueue,
  now = new Date()
): Promise<{ queued: number, paused: number }> {
  const paused = await pauseExpiredTrials(db, now)
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
  return { queued, paused }
}
