import type { Logger } from 'pino'
import type { PipelineEvents } from '../pipeline/events.js'
import { type JobQueue } from '../queue/queue.js'
import { QUEUE } from '../queue/queues.js'
import type { Db } from '../store/db.js'
import { DISPATCH_BATCH, dispatchJobFailed, dispatchPageRecovered } from './dispatch.js'

/**
 * How long changes are gathered before their dispatch job is queued, and how far apart
 * two such jobs are at least: the first change after a quiet spell is alerted at once, a
 * crawl that finds many goes out about once a second rather than as a job per change or two.
 */
export const DISPATCH_SPACING = { gatherMs: 50, apartMs: 1000 } as const

/**
 * Alerting subscribes to what the pipeline reports. A change is handed to the dispatch
 * queue at once; should that be lost (a crash right after the crawl committed), the
 * sweep of the changes outbox (see startAlertWorkers) sends it within a minute.
 */
export function attachAlerts (events: PipelineEvents, db: Db, queue: JobQueue, log: Logger): void {
  // Changes detected together (a crawl of many pages) go as one dispatch job: a job per
  // change was most of the queue's work when many pages changed at once.
  let gathered: string[] = []
  let timer: NodeJS.Timeout | undefined
  let sentAt = -Infinity
  const send = () => {
    clearTimeout(timer)
    timer = undefined
    sentAt = performance.now()
    const changeIds = gathered
    gathered = []
    queue.send(QUEUE.dispatch, { changeIds }).catch(err => {
      log.error({ err }, 'could not queue alert dispatch')
    })
  }
  events.on('change.detected', e => {
    gathered.push(e.changeId)
    if (gathered.length >= DISPATCH_BATCH) send()
    else {
      // Unreferenced: a process that ends meanwhile leaves them to the outbox's sweep.
      timer ??= setTimeout(send,
        Math.max(DISPATCH_SPACING.gatherMs, sentAt + DISPATCH_SPACING.apartMs - performance.now())).unref()
    }
  })
  events.on('job.failed', e => {
    dispatchJobFailed(db, queue, e).catch(err => {
      log.error({ err }, 'could not queue job.failed alerts')
    })
  })
  events.on('pages.told', () => {
    queue.send(QUEUE.dispatch, {}).catch(err => {
      log.error({ err }, 'could not queue the dispatch of page events')
    })
  })
  events.on('page.recovered', e => {
    dispatchPageRecovered(db, queue, e).catch(err => {
      log.error({ err }, 'could not queue page.recovered alerts')
    })
  })
}
