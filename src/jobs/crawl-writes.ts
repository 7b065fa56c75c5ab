import { sql } from 'kysely'
import type { Db } from '../store/db.js'
import { QUEUE } from './queue.js'

/** A healthy check of a page whose content did not move: when, when next, and the validators for the next one. */
export interface PageCheck {
  pageId: string
  checkedAt: Date
  nextCrawlAt: Date
  etag: string | null
  lastModified: string | null
}

interface Finished { jobId: string, output: object, check?: PageCheck, resolve: () => void, reject: (err: unknown) => void }

/**
 * Most crawls end with two small writes: the page's check times and the job's
 * completion. Written one by one they were most of the database's work (and PGlite
 * runs one statement at a time); here those of all crawls that have finished go out as
 * one statement, and each crawl's promise settles when that statement has committed. Nothing waits
 * for a batch to fill: a write goes at the next turn of the event loop, together with
 * whatever else arrived meanwhile or while the previous batch was being written.
 */
export class CrawlWrites {
  private waiting: Finished[] = []
  private writing: Promise<void> | undefined
  private scheduled = false

  constructor (private readonly db: Db, private readonly maxBatch = 256) {}

  /**
   * Completes a crawl job with its output, as pg-boss's complete() would, together with
   * its page's check when the crawl found nothing new; resolves once written.
   */
  async finished (jobId: string, output: object, check?: PageCheck): Promise<void> {
    await new Promise<void>((resolve, reject) => { this.waiting.push({ jobId, output, check, resolve, reject }); this.schedule() })
  }

  private schedule (): void {
    if (this.scheduled || this.writing) return
    this.scheduled = true
    setImmediate(() => { this.scheduled = false; void this.writeAll() })
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

  private async write (batch: Finished[]): Promise<void> {
    const checks = batch.flatMap(({ check: c }) => c ? [c] : [])
    const pageRows = JSON.stringify(checks.map(c =>
      ({ page_id: c.pageId, checked_at: c.checkedAt.toISOString(), next_at: c.nextCrawlAt.toISOString(), etag: c.etag, last_modified: c.lastModified })))
    const jobRows = JSON.stringify(batch.map(c => ({ job_id: c.jobId, output: c.output })))
    // One statement, so one round trip and atomic without a transaction. The job update
    // is pg-boss 10's completeJobs with an output per job. The id lists let each update
    // find its rows by primary key: joined on the JSON rows alone, the planner scanned
    // every page and every crawl job the queue keeps (a week of them), once per batch.
    await sql`
      WITH checked AS (
        UPDATE pages p SET last_check_at = c.checked_at, next_crawl_at = c.next_at, consecutive_failures = 0,
          status = 'active', last_error = NULL, etag = c.etag, last_modified = c.last_modified, rebaseline = false
        FROM jsonb_to_recordset(${pageRows}::jsonb) AS c (page_id uuid, checked_at timestamptz, next_at timestamptz, etag text, last_modified text)
        WHERE p.id = ANY(${checks.map(c => c.pageId)}::uuid[]) AND p.id = c.page_id
        RETURNING p.id
      ), completed AS (
        UPDATE pgboss.job j SET completed_on = now(), state = 'completed', output = d.output
        FROM jsonb_to_recordset(${jobRows}::jsonb) AS d (job_id uuid, output jsonb)
        WHERE j.name = ${QUEUE.crawl} AND j.id = ANY(${batch.map(c => c.jobId)}::uuid[]) AND j.id = d.job_id AND j.state = 'active'
        RETURNING j.id
      )
      SELECT (SELECT count(*) FROM checked) AS checked, (SELECT count(*) FROM completed) AS completed`.execute(this.db)
  }

}
