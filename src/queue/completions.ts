import { sql, type RawBuilder } from 'kysely'
import type { Db } from '../store/db.js'

import type { Job } from './puller.js'

interface Finished<W> {
  job: Job<unknown>
  output: object
  write?: W
  resolve: (completed: boolean) => void
  reject: (err: unknown) => void
}

/**
 * The UPDATE (or INSERT) that writes the rows of many finished jobs at once, RETURNING
 * something; only for the jobs whose completion took: `completed` is the relation of
 * those (its `page_id`).
 */
export type BatchStatement<W> = (writes: W[], completed: RawBuilder<unknown>) => RawBuilder<unknown>

/**
 * Most crawls end with two small writes: the page's check times and the job's
 * completion. Written one by one they were most of the database's work (and PGlite
 * runs one statement at a time); here those of all jobs of a queue that have finished
 * go out as one statement, with the rows the job's handler asks to write beside it
 * (`statement`), and each job's promise settles when that statement has committed.
 * While other crawls of the worker are still running, a batch waits for theirs up to
 * `gatherMs` (at once when the last one comes): written as they came, on a busy embedded
 * database, batches held one or two crawls, each a statement of its own. With no other
 * crawl running, a completion goes at the next turn of the event loop.
 * Each completion is fenced on its worker and attempt (see lane.ts): one whose attempt was
 * handed back completes nothing and writes nothing, and its promise says so (false).
 */
export class BatchedCompletions<W> {
  private waiting: Array<Finished<W>> = []
  private writing = false
  private scheduled = false
  private timer: NodeJS.Timeout | undefined
  private readonly maxBatch: number
  private readonly gatherMs: number
  private readonly othersComing: () => boolean

  constructor (
    private readonly db: Db,
    /** The worker whose attempts these are (see workers.ts). */
    private readonly owner: string,
    private readonly statement: BatchStatement<W>,
    opts: {
      maxBatch?: number
      gatherMs?: number
      /** Whether other jobs of the worker are running, whose completions a batch may wait for. */
      othersComing?: () => boolean
    } = {}
  ) {
    this.maxBatch = opts.maxBatch ?? 256
    this.gatherMs = opts.gatherMs ?? 25
    this.othersComing = opts.othersComing ?? (() => false)
  }

  /**
   * Completes a crawl with its output, together with its handler's `write` if any;
   * resolves once written: whether the attempt was still this worker's.
   */
  async complete (job: Job<unknown>, output: object, write?: W): Promise<boolean> {
    return await new Promise<boolean>((resolve, reject) => {
      this.waiting.push({ job, output, write, resolve, reject })
      this.schedule()
    })
  }

  private schedule (): void {
    if (this.writing) return
    const gather = this.waiting.length < this.maxBatch && this.othersComing()
    const go = () => {
      this.scheduled = false
      this.timer = undefined
      void this.writeNext()
    }
    if (!this.scheduled) {
      this.scheduled = true
      if (gather) this.timer = setTimeout(go, this.gatherMs)
      else setImmediate(go)
    } else if (this.timer && !gather) {
      // Nothing more to wait for: the batch goes now.
      clearTimeout(this.timer)
      this.timer = undefined
      setImmediate(go)
    }
  }

  private async writeNext (): Promise<void> {
    const batch = this.waiting.splice(0, this.maxBatch)
    if (batch.length === 0) return
    this.writing = true
    try {
      const completed = await this.write(batch)
      for (const w of batch) w.resolve(completed.has(w.job.id))
    } catch (err) {
      for (const w of batch) w.reject(err)
    } finally {
      this.writing = false
    }
    // Those that came while it was written gather from now.
    if (this.waiting.length > 0) this.schedule()
  }

  private async write (batch: Array<Finished<W>>): Promise<Set<string>> {
    const writes = batch.flatMap(({ write: w }) => (w !== undefined ? [w] : []))
    const jobRows = JSON.stringify(
      batch.map(c => ({ job_id: c.job.id, attempt: c.job.retryCount + 1, output: c.output })))
    // One statement, so one round trip and atomic without a transaction.
    const { rows } = await sql<{ completed: string[] | null }>`
      WITH completed AS (
        UPDATE jobs j SET state = 'completed', finished_at = now(), return_value = d.output, failed_reason = NULL,
          owner = NULL
        FROM jsonb_to_recordset(${jobRows}::jsonb) AS d (job_id uuid, attempt int, output jsonb)
        WHERE j.id = ANY(${batch.map(c => c.job.id)}::uuid[]) AND j.id = d.job_id AND j.attempts_made = d.attempt
          AND j.owner = ${this.owner} AND j.state = 'active'
        RETURNING j.id, j.page_id
      ), written AS (${writes.length > 0 ? this.statement(writes, sql`completed`) : sql`SELECT 1 WHERE false`})
      SELECT (SELECT count(*) FROM written) AS written, (SELECT array_agg(id::text) FROM completed) AS completed`
      .execute(this.db)
    return new Set(rows[0]?.completed ?? [])
  }
}
