import { sql, type RawBuilder } from 'kysely'
import type { Db } from '../store/db.js'

interface Finished<W> {
  jobId: string
  output: object
  write?: W
  resolve: () => void
  reject: (err: unknown) => void
}

/** The UPDATE (or INSERT) that writes the rows of many finished jobs at once, RETURNING something. */
export type BatchStatement<W> = (writes: W[]) => RawBuilder<unknown>

/**
 * Most crawls end with two small writes: the page's check times and the job's
 * completion. Written one by one they were most of the database's work (and PGlite
 * runs one statement at a time); here those of all jobs of a queue that have finished
 * go out as one statement, with the rows the job's handler asks to write beside it
 * (`statement`), and each job's promise settles when that statement has committed.
 * Nothing waits for a batch to fill: a write goes at the next turn of the event loop,
 * together with whatever else arrived meanwhile or while the previous batch was being written.
 */
export class BatchedCompletions<W> {
  private waiting: Array<Finished<W>> = []
  private writing: Promise<void> | undefined
  private scheduled = false

  constructor (
    private readonly db: Db,
    private readonly statement: BatchStatement<W>,
    private readonly maxBatch = 256
  ) {}

  /** Completes a crawl with its output, together with its handler's `write` if any; resolves once written. */
  async complete (jobId: string, output: object, write?: W): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.waiting.push({ jobId, output, write, resolve, reject })
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
      this.writing = this.write(batch)
      try {
        await this.writing
        for (const w of batch) w.resolve()
      } catch (err) {
        for (const w of batch) w.reject(err)
      } finally {
        this.writing = undefined
      }
    }
  }

  private async write (batch: Array<Finished<W>>): Promise<void> {
    const writes = batch.flatMap(({ write: w }) => (w !== undefined ? [w] : []))
    const jobRows = JSON.stringify(batch.map(c => ({ job_id: c.jobId, output: c.output })))
    // One statement, so one round trip and atomic without a transaction (see crawl-lane.ts).
    await sql`
      WITH written AS (${this.statement(writes)}), completed AS (
        UPDATE jobs j SET state = 'completed', finished_at = now(), return_value = d.output, failed_reason = NULL
        FROM jsonb_to_recordset(${jobRows}::jsonb) AS d (job_id uuid, output jsonb)
        WHERE j.id = ANY(${batch.map(c => c.jobId)}::uuid[]) AND j.id = d.job_id AND j.state = 'active'
        RETURNING j.id
      )
      SELECT (SELECT count(*) FROM written) AS written, (SELECT count(*) FROM completed) AS completed`.execute(this.db)
  }
}
