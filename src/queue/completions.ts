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
 * Nothing waits for a batch to fill: a write goes at the next turn of the event loop,
 * together with whatever else arrived meanwhile or while the previous batch was being written.
 * Each completion is fenced on its worker and attempt (see lane.ts): one whose attempt was
 * handed back completes nothing and writes nothing, and its promise says so (false).
 */
export class BatchedCompletions<W> {
  private waiting: Array<Finished<W>> = []
  private writing: Promise<void> | undefined
  private scheduled = false

  constructor (
    private readonly db: Db,
    /** The worker whose attempts these are (see workers.ts). */
    private readonly owner: string,
    private readonly statement: BatchStatement<W>,
    private readonly maxBatch = 256
  ) {}

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
    if (this.scheduled || this.writing) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      void this.writeAll()
    })
  }

  private async writeAll (): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxBatch)
      try {
        const completed = await this.write(batch)
        for (const w of batch) w.resolve(completed.has(w.job.id))
      } catch (err) {
        for (const w of batch) w.reject(err)
      } finally {
        this.writing = undefined
      }
    }
  }

  private async write (batch: Array<Finished<W>>): Promise<Set<string>> {
    let done!: () => void
    this.writing = new Promise<void>(resolve => { done = resolve })
    try {
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
    } finally {
      done()
    }
  }
}
