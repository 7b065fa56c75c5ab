import { randomUUID } from 'node:crypto'
import { CompiledQuery, sql, type RawBuilder } from 'kysely'
import type { Db } from '../store/db.js'
import { CRAWLS_DUE_IN, FETCH_CRAWLS } from './crawl-order.js'
import type { Job, JobLane } from './puller.js'
import type { CrawlJobData } from './queues.js'

// Crawls are queued in their own records (`jobs`, with a lane: plain or rendered), not in
// pg-boss: the fetch takes each free host's share of the waiting crawls in one statement
// (FETCH_CRAWLS), which pg-boss's public API cannot say, and its writes would otherwise
// be made twice, to pg-boss's row and to ours. The lifecycle is pg-boss's: waiting (from
// start_after), active, then completed, or retried with exponential backoff until the
// attempts run out, then failed; an attempt that outlives its expiry is failed by the
// scheduler's sweep, and on the embedded database one left running by a process that
// died is failed as the next one starts.

export type CrawlLaneName = 'crawl.page' | 'crawl.render'

/** How a crawl's failed attempt is retried, and when a running one is taken to be lost (see QUEUE_POLICIES). */
export interface CrawlPolicy {
  retryDelaySeconds: number
  expireSeconds: number
}

interface TakenRow {
  id: string
  lane: CrawlLaneName
  org_id: string
  domain_id: string
  page_id: string
  url: string
  attempts_made: number
  max_attempts: number
}

const jobOf = (r: TakenRow): Job<CrawlJobData> => ({
  id: r.id,
  name: r.lane,
  data: { orgId: r.org_id, domainId: r.domain_id, pageId: r.page_id, url: r.url },
  retryCount: r.attempts_made - 1,
  retryLimit: r.max_attempts - 1
})

/**
 * Ends the running attempts at the crawls `which` selects: each waits for a retry, after
 * `retryDelaySeconds` doubled per attempt made and up to twice that at random (so that
 * crawls failed together are not retried together), or fails for good when its attempts
 * are spent or the failure is `permanent`. Returns the ids.
 */
async function failAttempts (
  db: Db, which: RawBuilder<unknown>, message: string, retryDelaySeconds: number, permanent = false
): Promise<string[]> {
  const last = sql`(${permanent}::boolean OR j.attempts_made >= j.max_attempts)`
  const { rows } = await sql<{ id: string }>`
    UPDATE jobs j SET
      state = CASE WHEN ${last} THEN 'failed' ELSE 'waiting' END,
      start_after = CASE WHEN ${last} THEN j.start_after ELSE now() + ${retryDelaySeconds}::float8
        * power(2, least(16, greatest(0, j.attempts_made - 1))) * (1 + random()) * interval '1 second' END,
      finished_at = CASE WHEN ${last} THEN now() END,
      failed_reason = ${message}
    WHERE j.state = 'active' AND j.lane IS NOT NULL AND ${which}
    RETURNING j.id`.execute(db)
  return rows.map(r => r.id)
}

/** The crawls of lane `name`, taken only when their host is free (see FETCH_CRAWLS). */
export class CrawlLane implements JobLane<CrawlJobData> {
  /** The ids of this lane's fetches that failed: they may have taken crawls all the same. */
  private unanswered: string[] = []

  constructor (
    private readonly db: Db,
    readonly name: CrawlLaneName,
    private readonly pace: { crawlPerHostConcurrency: number, crawlPerHostDelayMs: number },
    private readonly policy: CrawlPolicy,
    /** Told once a crawl moved to another lane has committed there (its workers look at once). */
    private readonly moved: (to: CrawlLaneName) => void = () => {}
  ) {}

  /**
   * Takes up to `batchSize` crawls whose hosts are free. A fetch that failed may still
   * have committed, its answer lost with the connection (a restart, a failover): its
   * crawls, running for nobody, are looked for by its id on the next fetch and run then,
   * rather than left to their expiry.
   */
  async fetch (batchSize: number): Promise<Array<Job<CrawlJobData>>> {
    if (this.unanswered.length > 0) {
      const { rows } = await sql<TakenRow>`
        SELECT id, lane, org_id, domain_id, page_id, url, attempts_made, max_attempts FROM jobs
        WHERE taken_by = ANY(${this.unanswered}::uuid[]) AND state = 'active'`.execute(this.db)
      this.unanswered = []
      if (rows.length > 0) return rows.map(jobOf)
    }
    const { crawlPerHostConcurrency: most, crawlPerHostDelayMs: delay } = this.pace
    // Long enough for the crawl to take its turn, never longer than the host's delay.
    const claimMs = Math.min(delay, 250)
    const fetchId = randomUUID()
    try {
      const { rows } = await this.db.executeQuery<TakenRow>(
        CompiledQuery.raw(FETCH_CRAWLS, [this.name, batchSize, most, delay, claimMs, fetchId]))
      return rows.map(jobOf)
    } catch (err) {
      this.unanswered.push(fetchId)
      throw err
    }
  }

  async untilDue (): Promise<number | null> {
    const { rows } = await this.db.executeQuery<{ ms: number | null }>(CompiledQuery.raw(CRAWLS_DUE_IN, [this.name]))
    const ms = rows[0]?.ms ?? null
    // Due, yet not taken: its host has all its requests in flight. One ends within a few
    // answers' time; looking again sooner would only load the database.
    return ms !== null && ms <= 0 ? 100 : ms
  }

  async complete (job: Job<CrawlJobData>, output: object): Promise<void> {
    await sql`UPDATE jobs SET state = 'completed', finished_at = now(), return_value = ${JSON.stringify(output)}::jsonb,
      failed_reason = NULL WHERE id = ${job.id} AND state = 'active'`.execute(this.db)
  }

  async fail (ids: readonly string[], message: string, permanent = false): Promise<void> {
    await failAttempts(this.db, sql`j.id = ANY(${ids}::uuid[])`, message, this.policy.retryDelaySeconds, permanent)
  }

  async stepAside (id: string, until: Date): Promise<void> {
    await sql`UPDATE jobs SET state = 'waiting', start_after = ${until}, attempts_made = attempts_made - 1,
      processed_at = NULL WHERE id = ${id} AND state = 'active'`.execute(this.db)
  }

  async move (id: string, to: string): Promise<void> {
    const lane = to as CrawlLaneName
    await sql`UPDATE jobs SET lane = ${lane}, state = 'waiting', start_after = now(), attempts_made = attempts_made - 1,
      processed_at = NULL WHERE id = ${id} AND state = 'active'`.execute(this.db)
    this.moved(lane)
  }

  async ping (): Promise<void> {
    await sql`SELECT 1`.execute(this.db)
  }
}

/**
 * Fails the attempts that outlived their expiry: their worker is gone without a word (a
 * process killed on PostgreSQL, where another may be running them). Returns how many.
 */
export async function expireCrawls (db: Db, policy: CrawlPolicy): Promise<number> {
  const ids = await failAttempts(
    db, sql`j.processed_at < now() - ${policy.expireSeconds} * interval '1 second'`,
    'the attempt expired: its worker did not finish it in time', policy.retryDelaySeconds)
  return ids.length
}

/**
 * On the embedded database only this process runs crawls, so one still running as it
 * starts was left by one that died: its attempt is failed now, to be retried (or failed
 * for good) at once rather than when it expires.
 */
export async function handBackCrawls (db: Db): Promise<number> {
  const ids = await failAttempts(db, sql`true`, 'the process running it stopped', 0)
  return ids.length
}
