import type { PipelineEvents } from '../jobs/events.js'
import { QUEUE, type JobQueue } from '../jobs/queue.js'
import type { Db } from '../store/db.js'
import { dispatchJobFailed } from './dispatch.js'

interface Log { error: (o: object, msg: string) => void }

/**
 * Alerting subscribes to what the pipeline reports. A change is handed to the dispatch
 * queue at once; should that be lost (a crash right after the crawl committed), the
 * scheduler's sweep of the changes outbox sends it a minute later.
 */
export function attachAlerts (events: PipelineEvents, db: Db, queue: JobQueue, log: Log): void {
  events.on('change.detected', (e) => {
    queue.boss.send(QUEUE.dispatch, { changeIds: [e.changeId] }).catch((err) => { log.error({ err }, 'could not queue alert dispatch') })
  })
  events.on('job.failed', (e) => {
    if (e.name !== QUEUE.crawl && e.name !== QUEUE.discover) return
    dispatchJobFailed(db, queue, e).catch((err) => { log.error({ err }, 'could not queue job.failed alerts') })
  })
}
