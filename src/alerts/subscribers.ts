import type { Logger } from 'pino'
import type { PipelineEvents } from '../pipeline/events.js'
import { QUEUE, type JobQueue } from '../queue/queue.js'
import type { Db } from '../store/db.js'
import { dispatchJobFailed } from './dispatch.js'

/**
 * Alerting subscribes to what the pipeline reports. A change is handed to the dispatch
 * queue at once; should that be lost (a crash right after the crawl committed), the
 * sweep of the changes outbox (see startAlertWorkers) sends it within a minute.
 */
export function attachAlerts (events: PipelineEvents, db: Db, queue: JobQueue, log: Logger): void {
  events.on('change.detected', e => {
    queue.send(QUEUE.dispatch, { changeIds: [e.changeId] }).catch(err => {
      log.error({ err }, 'could not queue alert dispatch')
    })
  })
  events.on('job.failed', e => {
    dispatchJobFailed(db, queue, e).catch(err => {
      log.error({ err }, 'could not queue job.failed alerts')
    })
  })
}
