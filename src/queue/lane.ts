import { CompiledQuery, sql, type RawBuilder } from 'kysely'
import { setTimeout as sleep } from 'node:timers/promises'
import { inTransaction, isDatabaseUnavailable, type Db, type Tx } from '../store/db.js'
import type { PaceRules } from '../store/host-pace.js'
import type { DueWatch } from './due-watch.js'
import { CRAWLS_DUE_IN, FETCH_CRAWLS } from './crawl-order.js'
import { FETCH_FAIR, holdKeyBehind, type Fairness } from './fair-lanes.js'
import type { GiveUp, Job, JobLane } from './puller.js'
import { CRAWL_QUEUES, type CrawlLaneName, type QueuePolicy } from './queues.js'

// One queue of the `jobs` table: its jobs taken (crawls only when their host is free, see
// crawl-order.ts; the others in their order) and settled. The lifecycle: waiting (from
// start_after), active under its worker (`owner`) and attempt number, then completed, or
// retried with exponential backoff until its attempts run out, then failed. Every settle
// is fenced on the worker and the attempt that took the job: one by a worker whose attempt
// was handed back (its heartbeat stopped, its lease ran out) changes nothing, and says so.

export interface TakenRow {
  id: string
  name: string
  lane: string
  data: unknown
  org_id: string | null
  domain_id: string | null
  page_id: string | null
  url: string | null
  attempts_made: number
  max_attempts: number
  /** A crawl's turn at its host, taken with it (see crawl-order.ts). */
  turn_ms?: number | null
}

/** A taken row as its worker sees it. */
export const jobOf = <T>(r: TakenRow): Job<T> => ({
  id: r.id,
  name: r.lane,
  // A crawl's data are its record's columns; another job's, what it was sent with.
  data: (r.page_id !== null && CRAWL_QUEUES.includes(r.lane)
    ? {
        orgId: r.org_id,
        domainId: r.domain_id,
        pageId: r.page_id,
        url: r.url,
        ...(typeof r.turn_ms === 'number' ? { turn: { startAt: r.turn_ms, lease: r.id } } : {})
      }
    : r.data) as T,
  retryCount: r.attempts_made - 1,
  retryLimit: r.max_attempts - 1
})

/** The columns of a taken row (TakenRow), of `jobs j`. */
export const TAKEN =
  'j.id, j.name, j.lane, j.data, j.org_id, j.domain_id, j.page_id, j.url, j.attempts_made, j.max_attempts'

/** A queue's next due jobs in its order, taken by worker `$3`. */
const FETCH_JOBS = `
  UPDATE jobs j SET state = 'active', processed_at = now(), attempts_made = j.attempts_made + 1, failed_reason = NULL,
    owner = $3
  FROM (
    SELECT id FROM jobs WHERE lane = $1 AND state = 'waiting' AND start_after <= now()
    ORDER BY lane, priority DESC, created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED
  ) next
  WHERE j.id = next.id
  RETURNING ${TAKEN}`

/** A job's attempt as its worker holds it: the fence of every settle. */
const held = (job: Job<unknown>, owner: string) =>
  sql`j.id = ${job.id} AND j.owner = ${owner} AND j.attempts_made = ${job.retryCount + 1} AND j.state = 'active'`

/**
 * Ends the running attempts `which` selects: each waits for a retry, after the policy's
 * delay (doubled per attempt made with `backoff`, and up to twice that at random, so that
 * jobs failed together are not retried together), or fails for good when its attempts
 * are spent or the failure is `permanent` (then it waits to be given up: gave_up_at).
 * `spend` false hands the attempt back unspent (a shutdown). `gaveUp`: its worker gave a job
 * that fails for good up already (see JobPuller.settle); else the sweep's give-up pass does.
 * Returns the jobs ended, and which of them failed for good.
 */
export async function endAttempts (
  db: Db, which: RawBuilder<unknown>, message: string,
  retry: (lane: RawBuilder<unknown>) => RawBuilder<unknown>,
  opts: { permanent?: boolean, spend?: boolean, gaveUp?: boolean } = {}
): Promise<Array<{ id: string, lane: string, failed: boolean }>> {
  const spend = opts.spend ?? true
  const last = sql`(${opts.permanent ?? false}::boolean OR (${spend}::boolean AND j.attempts_made >= j.max_attempts))`
  const { rows } = await sql<{ id: string, lane: string, failed: boolean }>`
    UPDATE jobs j SET
      state = CASE WHEN ${last} THEN 'failed' ELSE 'waiting' END,
      start_after = CASE WHEN ${last} THEN j.start_after WHEN NOT ${spend}::boolean THEN now()
        ELSE now() + ${retry(sql`j.lane`)} * (1 + random()) * interval '1 second' END,
      attempts_made = CASE WHEN ${spend}::boolean THEN j.attempts_made ELSE j.attempts_made - 1 END,
      finished_at = CASE WHEN ${last} THEN now() END,
      -- A failed job shows how far it got; one put back for another attempt starts again from nothing.
      progress = CASE WHEN ${last} THEN j.progress ELSE 0 END,
      failed_reason = ${message},
      owner = NULL,
      gave_up_at = CASE WHEN ${last} AND ${opts.gaveUp ?? false}::boolean THEN now() END,
      processed_at = CASE WHEN ${last} THEN j.processed_at END
    WHERE j.state = 'active' AND ${which}
    RETURNING j.id, j.lane, j.state = 'failed' AS failed`.execute(db)
  return rows
}

/**
 * A retry's delay in seconds as SQL, for a job of the lane `lane` names (see QueuePolicy):
 * each lane's first delay, doubled per attempt made when it backs off.
 */
export function retryDelay (policies: Readonly<Record<string, QueuePolicy>>) {
  const lanes = Object.entries(policies)
  return (lane: RawBuilder<unknown>) => sql`(CASE ${lane} ${sql.join(lanes.map(([name, p]) =>
    sql`WHEN ${name} THEN ${p.retryDelaySeconds}::float8 * ${p.backoff
      ? sql`power(2, least(16, greatest(0, j.attempts_made - 1)))`
      : sql`1`}`), sql` `)} ELSE 1 END)`
}

/** A crawl put back for longer than this holds its host's other waiting crawls too (see stepAside). */
const HOST_HELD_MS = 5000

export class Lane<T> implements JobLane<T> {
  /** A fetch failed: it may have taken jobs all the same, its answer lost with the connection. */
  private answerLost = false

  constructor (
    private readonly db: Db,
    readonly name: string,
    /** The worker that takes and settles this lane's jobs (see workers.ts). */
    private readonly owner: string,
    private readonly retry: (lane: RawBuilder<unknown>) => RawBuilder<unknown>,
    /** A crawl lane's host pace: its jobs are taken only when their host is free, with its turn. */
    private readonly pace?: PaceRules,
    private readonly hooks: {
      /** Told once a job moved to another lane has committed there (its workers look at once). */
      moved?: (to: string) => void
      /** Told of each fetch and how many jobs it took (the metrics count how often workers look). */
      looked?: (found: number) => void
      /** When the worker's idle queues next have a job due (without: an idle lane looks again at each poll). */
      dueWatch?: DueWatch
    } = {},
    /** A lane shared by tenants (see fair-lanes.ts): its jobs taken within their key's and organisation's room. */
    private readonly fair?: Fairness
  ) {}

  /**
   * Takes up to `batchSize` due jobs. After a fetch whose answer was lost (a restart, a
   * failover), the jobs it took, running for nobody, are found by their owner and run now
   * rather than left to the sweep; `running`: those this worker runs already.
   */
  async fetch (batchSize: number, running: ReadonlySet<string> = new Set()): Promise<Array<Job<T>>> {
    if (this.answerLost) {
      const { rows } = await sql<TakenRow>`
        SELECT ${sql.raw(TAKEN)} FROM jobs j
        WHERE j.owner = ${this.owner} AND j.lane = ${this.name} AND j.state = 'active'`.execute(this.db)
      this.answerLost = false
      const lost = rows.filter(r => !running.has(r.id))
      if (lost.length > 0) return lost.map(r => jobOf<T>(r))
    }
    try {
      const query = this.pace
        ? CompiledQuery.raw(FETCH_CRAWLS, [this.name, batchSize, this.pace.concurrency, this.pace.delayMs,
          this.pace.leadMs, this.owner, this.pace.slackMs, this.pace.leaseMs])
        : this.fair
          ? CompiledQuery.raw(FETCH_FAIR, [this.name, batchSize, this.owner, this.fair.perKey, this.fair.perOrg])
          : CompiledQuery.raw(FETCH_JOBS, [this.name, batchSize, this.owner])
      const { rows } = await this.db.executeQuery<TakenRow>(query)
      this.hooks.looked?.(rows.length)
      return rows.map(r => jobOf<T>(r))
    } catch (err) {
      this.answerLost = true
      throw err
    }
  }

  /**
   * A crawl lane asks when its next crawl's host is free, and sleeps until then; the others
   * wait on the worker's watch of its idle queues (see due-watch.ts).
   */
  async untilDue (maxMs: number, signal: AbortSignal): Promise<void> {
    if (!this.pace) {
      if (this.hooks.dueWatch) await this.hooks.dueWatch.untilDue(this.name, signal)
      else await sleep(maxMs, undefined, { signal }).catch(() => {})
      return
    }
    const { rows } = await this.db.executeQuery<{ ms: number | null }>(
      CompiledQuery.raw(CRAWLS_DUE_IN, [this.name, this.pace.concurrency, this.pace.leadMs]))
    const ms = rows[0]?.ms ?? null
    // Due, yet not taken: another worker's fetch took its host's turn a moment ago, or
    // holds its row; looking again sooner would only load the database.
    const napMs = ms === null ? maxMs : ms <= 0 ? 100 : Math.max(20, ms)
    await sleep(Math.min(maxMs, napMs), undefined, { signal }).catch(() => {})
  }

  async complete (job: Job<T>, output: object): Promise<boolean> {
    const r = await sql`UPDATE jobs j SET state = 'completed', finished_at = now(), owner = NULL,
      return_value = ${JSON.stringify(output)}::jsonb, failed_reason = NULL WHERE ${held(job, this.owner)}`
      .execute(this.db)
    return Number(r.numAffectedRows ?? 0) > 0
  }

  async fail (
    job: Job<T>, message: string, permanent = false, giveUp?: GiveUp
  ): Promise<{ settled: boolean, failed: boolean }> {
    const end = async (db: Db, withGiveUp: boolean) => {
      const ended = await endAttempts(db, held(job, this.owner), message, this.retry, { permanent, gaveUp: withGiveUp })
      const failed = ended[0]?.failed ?? false
      // A fair lane's key is held in the same transaction: no fetch sees its slot free before it is held.
      if (this.fair && ended.length > 0 && !failed) await holdKeyBehind(db, job.id)
      const told = withGiveUp && failed ? await giveUp!(db as Tx) : undefined
      return { settled: ended.length > 0, failed, told }
    }
    const inOne = async (withGiveUp: boolean) => withGiveUp || this.fair
      ? await this.db.transaction().execute(async tx => await end(tx, withGiveUp))
      : await end(this.db, false)
    let ended
    try {
      ended = await inOne(giveUp !== undefined)
    } catch (err) {
      // A give-up that failed: the job fails without it, and the sweep's give-up pass runs it again until it runs.
      if (!giveUp || isDatabaseUnavailable(err)) throw err
      ended = await inOne(false)
    }
    ended.told?.()
    return { settled: ended.settled, failed: ended.failed }
  }

  /**
   * Puts the job back until `until`. A crawl's host held that long (a Retry-After, a long
   * Crawl-delay) holds all its waiting crawls: their start moves there too, so that they
   * no longer fill the fetch's lookahead, each taken only to be put back, ahead of free hosts.
   */
  async stepAside (job: Job<T>, until: Date): Promise<boolean> {
    const r = await sql`UPDATE jobs j SET state = 'waiting', start_after = ${until}, attempts_made = attempts_made - 1,
      processed_at = NULL, owner = NULL, progress = 0 WHERE ${held(job, this.owner)}`.execute(this.db)
    const put = Number(r.numAffectedRows ?? 0) > 0
    if (put && this.pace && until.getTime() - Date.now() > HOST_HELD_MS) {
      await sql`UPDATE jobs SET start_after = ${until}
        WHERE lane = ${this.name} AND state = 'waiting' AND start_after < ${until}
          AND host = (SELECT host FROM jobs WHERE id = ${job.id})`.execute(this.db)
    }
    return put
  }

  async move (job: Job<T>, to: string): Promise<boolean> {
    const lane = to as CrawlLaneName
    const r = await sql`UPDATE jobs j SET lane = ${lane}, state = 'waiting', start_after = now(),
      attempts_made = attempts_made - 1, processed_at = NULL, owner = NULL, progress = 0 WHERE ${held(job, this.owner)}`
      .execute(this.db)
    const moved = Number(r.numAffectedRows ?? 0) > 0
    if (moved) this.hooks.moved?.(lane)
    return moved
  }

  /** Hands `jobs` back unspent; a crawl's place at its host (its lease, named by the job) is freed with it. */
  async handBack (jobs: ReadonlyArray<Job<T>>, message: string): Promise<void> {
    if (jobs.length === 0) return
    const ids = jobs.map(j => j.id)
    await inTransaction(this.db, async tx => {
      await endAttempts(tx, sql`j.owner = ${this.owner} AND j.id = ANY(${ids}::uuid[])`, message, this.retry,
        { spend: false })
      if (this.pace) await sql`DELETE FROM host_leases WHERE id = ANY(${ids}::uuid[])`.execute(tx)
    })
  }

  async ping (): Promise<void> {
    await sql`SELECT 1`.execute(this.db)
  }
}
