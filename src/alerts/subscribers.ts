import type { Logger } from 'pino'
import type { PipelineEvents } from '../pipeline/events.js'
import { type JobQueue } from '../queue/queue.js'
import { QUEUE } from '../queue/queues.js'
import type { Db } from '../store/db.js'
import { DISPATCH_BATCH, dispatchJobFailed, dispatchPageRecovered } from './dispatch.js'

/** How long changes are gathered before their dispatch job is queued. */
const GATHER_MS = 50

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
  const send = () => {
    clearTimeout(timer)
    timer = undefined
    const changeIds = gathered
    gathered = []
    queue.send(QUEUE.dispatch, { changeIds }).catch(err => {
      log.error({ err }, 'could not queue alert dispatch')
    })
  }
  events.on('change.detected', e => {
    gathered.push(e.changeId)
    if (gathered.length >= DISPATCH_BATCH) send()
    else timer ??= setTimeout(send, GATHER_MS)
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
