import type { JobQueue } from '../queue/queue.js'
import type { Db } from '../store/db.js'

/** What a use case works with: the database, and the queue its jobs go to in the same transaction. */
export interface ServiceContext {
  db: Db
  queue: JobQueue
}
