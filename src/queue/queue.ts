// The one class that wraps pg-boss: sending (inside the caller's transaction), running
// (pull, work, schedule), the fetch order's index and statistics. The queues and their
// policies are in queues.ts, the order crawls are taken in is in crawl-order.ts.
import { EventEmitter } from 'node:events'
import PgBoss from 'pg-boss'
import { CompiledQuery, sql } from 'kysely'
import type { Logger } from 'pino'
import type { Config } from '../config.js'
import type { Db, SqlExecutor, Store, Tx } from '../store/db.js'
import { ROWS_PER_STATEMENT } from '../store/pages.js'
import { pagesReadInBrowser } from '../store/page-checks.js'
import { FINISHED_JOB_DAYS, insertJobRecords, RECORDED_QUEUES, recordJobStates } from './job-records.js'
import { JobPuller, type Job, type JobHandler, type JobSettled, type JobTransition } from './puller.js'
import { JOBS_CHANNEL, WakeUpListener } from './wake-up.js'
import { crawlPicker, crawlRanks, crawlTurns, freshCrawls, jobHost } from './crawl-order.js'
import {
  CRAWL_QUEUES, QUEUE, QUEUE_POLICIES, type CrawlJobData, type DiscoverJobData, type QueueName, type ResearchJobData
} from './queues.js'

/** One job moved between queues, id, data and attempts kept: deleted from `$1` and inserted into `$3`. */
const MOVE_JOB = `WITH gone AS (DELETE FROM pgboss.job WHERE name = $1 AND id = $2 AND state = 'active' RETURNING *)
  INSERT INTO pgboss.job (id, name, priority, data, retry_limit, retry_count, retry_delay, retry_backoff,
    expire_in, keep_until, created_on, dead_letter, policy)
  SELECT id, $3, priority, data, retry_limit, retry_count, retry_delay, retry_backoff,
    expire_in, keep_until, created_on, dead_letter, policy FROM gone`

/** The jobs left active, by queue: on the embedded database, those of a process that is gone. */
const ACTIVE_JOBS = 'SELECT name, array_agg(id::text) AS ids FROM pgboss.job WHERE state = \'active\' GROUP BY name'

/**
 * On the embedded database only this process runs jobs, so a job still active as it
 * starts was left by one that died: it is failed now, an attempt counted, to be retried
 * (or failed for good) at once rather than when it expires (JOB_EXPIRE_SECONDS). On
 * PostgreSQL another process may be running it: there, expiry decides.
 */
async function handBackOrphans (boss: PgBoss, db: Db, log: Logger): Promise<void> {
  const { rows } = await boss.getDb().executeSql(ACTIVE_JOBS, [])
  for (const { name, ids } of rows as Array<{ name: string, ids: string[] }>) {
    await db.transaction().execute(async tx => {
      const inTx = txSqlExecutor(tx)
      for (const id of ids) await boss.fail(name, id, { message: 'the process running it stopped' }, { db: inTx })
      await recordJobStates(tx, ids)
    })
    log.warn({ queue: name, jobs: ids.length }, 'jobs left active by a stopped process are retried')
  }
}

/** Crawl jobs queued between two refreshes of the queue's planner statistics (see refreshFetchStatistics). */
export const ANALYZE_AFTER_JOBS = 1000

/** pg-boss's `db` option over an open transaction, so a job is enqueued atomically with its rows. */
function txSqlExecutor (tx: Tx): SqlExecutor {
  return {
    async executeSql (text, values) {
      const result = await tx.executeQuery(CompiledQuery.raw(text, values ?? []))
      return { rows: result.rows as any[] }
    }
  }
}

/**
 * The pg-boss queue on the service's own database. Jobs are always sent inside the
 * caller's transaction, together with a `jobs` row that ties them to a tenant, so a
 * rolled-back request leaves no job behind and a committed one never loses its job.
 */
export class JobQueue {
  /** How many jobs each open transaction has sent, by queue. */
  private readonly sentIn = new WeakMap<Tx, Map<string, number>>()
  private readonly committed = new EventEmitter()
  /** Told of every attempt at a job once it is settled (metrics listen). */
  readonly events = new EventEmitter<{ 'job.settled': [JobSettled] }>()
  private crawlsSinceAnalyze = 0
  private analyzing: Promise<void> | undefined
  private listener: WakeUpListener | undefined
  private readonly pullers: Array<JobPuller<any, any>> = []

  private constructor (
    /** pg-boss itself: for tests that look under the wrapper; the service's code goes through the methods below. */
    readonly boss: PgBoss,
    private readonly db: Db,
    private readonly log: Logger,
    private readonly config: Pick<Config, 'jobPollingSeconds' | 'crawlPerHostDelayMs' | 'crawlPerHostConcurrency'>,
    private readonly crawlTable: string,
    /** Other processes may share the database (PostgreSQL): tell them of new jobs. */
    private readonly notifies: boolean
  ) {}

  /**
   * Runs `work` in a transaction. Once it commits, the workers of the queues it sent
   * jobs to look for them at once instead of at their next poll: a crawl asked for starts
   * now, not up to JOB_POLLING_SECONDS later. This process's workers hear of it from an
   * event; on PostgreSQL, other processes' from a NOTIFY in the same transaction, which
   * PostgreSQL delivers when, and only if, it commits.
   */
  async transaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
    let sent = new Map<string, number>()
    const result = await db.transaction().execute(async tx => {
      const value = await work(tx)
      sent = this.sentIn.get(tx) ?? sent
      if (this.notifies && sent.size > 0) {
        await sql`SELECT pg_notify(${JOBS_CHANNEL}, name) FROM unnest(${[...sent.keys()]}::text[]) AS name`.execute(tx)
      }
      return value
    })
    for (const name of sent.keys()) this.committed.emit(name)
    this.crawlsSinceAnalyze += sent.get(QUEUE.crawl) ?? 0
    if (this.crawlsSinceAnalyze >= ANALYZE_AFTER_JOBS && !this.analyzing) {
      this.crawlsSinceAnalyze = 0
      this.analyzing = this.refreshFetchStatistics()
        .catch(err => {
          this.log.warn({ err }, "could not refresh the job queue's statistics")
        })
        .finally(() => {
          this.analyzing = undefined
        })
    }
    return result
  }

  /**
   * pg-boss's fetch takes waiting jobs in (priority, created_on, id) order. With planner
   * statistics on the crawl queue's table, PostgreSQL walks job_fetch_order (see start())
   * and stops at the batch; without them it sorts every waiting job on each fetch: 21 ms
   * per fetch at 10,000 waiting on PGlite, against 5 ms. PGlite has no autovacuum, and
   * PostgreSQL's comes a minute or more after a crawl of a whole domain is queued, so
   * the queue refreshes them itself. Ten as the statistics target samples 3,000 rows:
   * 30–50 ms on PGlite at 100,000 jobs, where the default's 30,000 took 560 ms.
   */
  private async refreshFetchStatistics (): Promise<void> {
    await this.db.transaction().execute(async tx => {
      await sql`SET LOCAL default_statistics_target = 10`.execute(tx)
      await sql`ANALYZE ${sql.id('pgboss', this.crawlTable)}`.execute(tx)
      // The jobs' records too: without statistics, a page of a long history is sorted whole
      // (130 ms at 100,000 jobs on PGlite) instead of read from its index (0.1 ms).
      await sql`ANALYZE jobs`.execute(tx)
    })
  }

  /** Notes that `tx` sent `jobs` jobs to queue `name`: its workers are woken when it commits (see transaction()). */
  private sentWithin (tx: Tx, name: string, jobs: number): void {
    const sent = this.sentIn.get(tx) ?? new Map<string, number>()
    sent.set(name, (sent.get(name) ?? 0) + jobs)
    this.sentIn.set(tx, sent)
  }

  static async start (store: Store, config: Config, opts: { runsWorkers: boolean, log: Logger }): Promise<JobQueue> {
    const { log } = opts
    const boss = new PgBoss({
      db: store.queueDb,
      schema: 'pgboss',
      supervise: opts.runsWorkers,
      schedule: opts.runsWorkers,
      maintenanceIntervalSeconds: config.jobMaintenanceSeconds,
      // Finished jobs stay visible through /api/jobs for a week.
      archiveCompletedAfterSeconds: FINISHED_JOB_DAYS * 24 * 3600,
      archiveFailedAfterSeconds: FINISHED_JOB_DAYS * 24 * 3600,
      deleteAfterDays: FINISHED_JOB_DAYS
    } as PgBoss.ConstructorOptions)
    boss.on('error', err => {
      log.error({ err }, 'job queue error')
    })
    await boss.start()
    for (const [name, policy] of Object.entries(QUEUE_POLICIES(config))) {
      await boss.createQueue(name, { name, ...policy })
    }
    if (store.kind === 'pglite') await handBackOrphans(boss, store.db, log)
    await createFetchIndex(store.db)
    // pg-boss 10 keeps each queue's jobs in a partition of pgboss.job of its own.
    const crawlTable = await sql<{ partition_name: string }>`
      SELECT partition_name FROM pgboss.queue WHERE name = ${QUEUE.crawl}`.execute(store.db)
    const shared = store.listenUrl
    const queue = new JobQueue(boss, store.db, log, config, crawlTable.rows[0].partition_name, shared !== undefined)
    if (opts.runsWorkers && shared !== undefined) {
      queue.listener = new WakeUpListener(
        shared,
        name => {
          queue.committed.emit(name)
        },
        err => {
          log.warn({ err }, 'listening for new jobs failed; workers poll until it is back')
        }
      )
      await queue.listener.start()
    }
    return queue
  }

  async enqueueDiscovery (tx: Tx, data: DiscoverJobData): Promise<string> {
    const id = await this.boss.send(QUEUE.discover, data, { db: txSqlExecutor(tx) })
    if (!id) throw new Error('the queue refused a discovery job')
    this.sentWithin(tx, QUEUE.discover, 1)
    await insertJobRecords(tx, [{ id, org_id: data.orgId, domain_id: data.domainId, name: QUEUE.discover }])
    return id
  }

  /** Queues the job `jobId` that builds a research brief, with its tenant record. */
  async enqueueResearch (tx: Tx, jobId: string, data: ResearchJobData): Promise<void> {
    await this.boss.insert([{ id: jobId, name: QUEUE.research, data }], { db: txSqlExecutor(tx) })
    this.sentWithin(tx, QUEUE.research, 1)
    await insertJobRecords(tx, [{ id: jobId, org_id: data.orgId, domain_id: data.domainId, name: QUEUE.research }])
  }

  /**
   * Queues a crawl for each page that has none waiting or running, in the caller's
   * transaction, in four statements per thousand pages. Returns the new jobs' ids by
   * page. The page rows' locks, taken in id order, serialise concurrent callers.
   */
  async enqueueCrawls (tx: Tx, pages: readonly CrawlJobData[]): Promise<Map<string, string>> {
    const queued = new Map<string, string>()
    const inLockOrder = [...pages].sort((a, b) => (a.pageId < b.pageId ? -1 : a.pageId > b.pageId ? 1 : 0))
    const fresh: CrawlJobData[] = []
    for (let i = 0; i < inLockOrder.length; i += ROWS_PER_STATEMENT) {
      fresh.push(...await freshCrawls(tx, inLockOrder.slice(i, i + ROWS_PER_STATEMENT), queued))
    }
    if (fresh.length === 0) return queued
    const turns = await crawlTurns(tx, fresh, this.config.crawlPerHostDelayMs)
    const ranks = await crawlRanks(tx, fresh)
    let rendered = 0
    for (let i = 0; i < fresh.length; i += ROWS_PER_STATEMENT) {
      const some = fresh.slice(i, i + ROWS_PER_STATEMENT)
      const inBrowser = await pagesReadInBrowser(tx, some.map(p => p.pageId))
      rendered += inBrowser.size
      await this.boss.insert(
        some.map(p => ({
          id: queued.get(p.pageId)!,
          name: inBrowser.has(p.pageId) ? QUEUE.render : QUEUE.crawl,
          data: p,
          startAfter: turns.get(p.pageId),
          priority: -(ranks.get(p.pageId) ?? 0)
        })),
        { db: txSqlExecutor(tx) }
      )
      await insertJobRecords(
        tx,
        some.map(p => ({
          id: queued.get(p.pageId)!,
          org_id: p.orgId,
          domain_id: p.domainId,
          page_id: p.pageId,
          url: p.url,
          name: QUEUE.crawl,
          start_after: turns.get(p.pageId)
        }))
      )
    }
    if (fresh.length > rendered) this.sentWithin(tx, QUEUE.crawl, fresh.length - rendered)
    if (rendered > 0) this.sentWithin(tx, QUEUE.render, rendered)
    return queued
  }

  /**
   * Queues one job of `name` per item of `data` in the caller's transaction
   * (jobs no client lists: no tenant record). */
  async enqueue<T extends object>(tx: Tx, name: QueueName, data: T[]): Promise<void> {
    if (data.length === 0) return
    await this.boss.insert(
      data.map(d => ({ name, data: d })),
      { db: txSqlExecutor(tx) }
    )
    this.sentWithin(tx, name, data.length)
  }

  /**
   * Moves an active job to queue `to` (a crawl that needs the browser, to the renderers),
   * its id, data and attempts kept; the workers of `to` hear of it at once.
   */
  async moveJob (from: string, id: string, to: QueueName): Promise<void> {
    await this.transaction(this.db, async tx => {
      await tx.executeQuery(CompiledQuery.raw(MOVE_JOB, [from, id, to]))
      await recordJobStates(tx, [id])
      this.sentWithin(tx, to, 1)
    })
  }

  /** A change of jobs' states in the queue, their records written in the same transaction (see JobTransition). */
  private readonly recordedTransition: JobTransition = async step => {
    await this.db.transaction().execute(async tx => {
      await recordJobStates(tx, await step(txSqlExecutor(tx)))
    })
  }

  /** Sends a job on its own, outside any transaction (a hint whose loss something else makes good). */
  async send (name: QueueName, data: object): Promise<void> {
    await this.boss.send(name, data)
  }

  /**
   * Runs up to `concurrency` jobs of queue `name` at once with `handler` (see JobPuller):
   * new jobs committed in this process, or announced by NOTIFY, wake it at once.
   */
  pull<T, O extends object>(name: QueueName, concurrency: number, handler: JobHandler<T, O>): void {
    const puller = new JobPuller<T, O>(
      this.boss,
      name,
      concurrency,
      this.config.jobPollingSeconds * 1000,
      handler,
      this.log,
      settled => this.events.emit('job.settled', settled),
      async (from, id, to) => {
        await this.moveJob(from, id, to as QueueName)
      },
      CRAWL_QUEUES.includes(name) ? crawlPicker<T>(this.boss.getDb(), name, this.config) : undefined,
      RECORDED_QUEUES.includes(name) ? this.recordedTransition : undefined
    )
    puller.start()
    this.pullers.push(puller)
    this.committed.on(name, () => {
      puller.wake()
    })
  }

  /** Takes up to `batchSize` due crawls of queue `name` whose hosts are free, as a worker's fetch does. */
  async takeCrawls<T = CrawlJobData>(name: QueueName, batchSize: number): Promise<Array<Job<T>>> {
    return await crawlPicker<T>(this.boss.getDb(), name, this.config).fetch(batchSize)
  }

  /** pg-boss's own worker, for the service's periodic jobs: `run` handles each fetched batch. */
  async work<T>(name: QueueName, batchSize: number, run: (jobs: Array<Job<T>>) => Promise<unknown>): Promise<void> {
    await this.boss.work<T>(
      name,
      { pollingIntervalSeconds: this.config.jobPollingSeconds, includeMetadata: true, batchSize },
      async jobs => {
        const started = performance.now()
        const settled = (outcome: JobSettled['outcome']) => {
          const seconds = (performance.now() - started) / 1000
          for (let i = 0; i < jobs.length; i++) this.events.emit('job.settled', { queue: name, outcome, seconds })
        }
        try {
          const output = await run(jobs)
          settled('completed')
          return output
        } catch (err) {
          settled(jobs.every(j => j.retryCount >= j.retryLimit) ? 'failed' : 'retried')
          throw err
        }
      }
    )
  }

  /** Sends a job to `name` on a cron schedule, once per minute slot however many processes ask. */
  async schedule (name: QueueName, cron: string): Promise<void> {
    await this.boss.schedule(name, cron)
  }

  /** Jobs not yet finished, by queue and state: waiting (due), delayed (a later start or a retry's backoff), active. */
  async depth (): Promise<Array<{ queue: string, state: 'waiting' | 'delayed' | 'active', jobs: number }>> {
    const { rows } = await sql<{ queue: string, state: 'waiting' | 'delayed' | 'active', jobs: number }>`
      SELECT name AS queue,
        CASE WHEN state = 'active' THEN 'active' WHEN start_after > now() THEN 'delayed' ELSE 'waiting' END AS state,
        count(*)::int AS jobs
      FROM pgboss.job WHERE state < 'completed' GROUP BY 1, 2`.execute(this.db)
    return rows
  }

  /** Across tenants, for /metrics: unfinished crawls by host, the 20 hosts with most. */
  async hostBacklog () {
    const { rows } = await sql<{ host: string, jobs: number }>`
      SELECT ${sql.raw(jobHost('j'))} AS host, count(*)::int AS jobs
      FROM pgboss.job j WHERE name = ANY(${CRAWL_QUEUES}::text[]) AND state < 'completed'
      GROUP BY 1 ORDER BY 2 DESC LIMIT 20`.execute(this.db)
    return rows
  }

  /** Across tenants, for /metrics: the longest wait of a due crawl by organisation, the 20 longest. */
  async tenantWaits () {
    const { rows } = await sql<{ org: string, seconds: number }>`
      SELECT data->>'orgId' AS org, max(extract(epoch FROM now() - start_after))::float8 AS seconds
      FROM pgboss.job
      WHERE name = ANY(${CRAWL_QUEUES}::text[]) AND state IN ('created', 'retry') AND start_after <= now()
      GROUP BY 1 ORDER BY 2 DESC LIMIT 20`.execute(this.db)
    return rows
  }

  /** Stops the pullers: jobs in flight get `graceMs` to finish, the rest are handed back to be retried. */
  async stopPulling (graceMs: number): Promise<void> {
    this.committed.removeAllListeners()
    await Promise.all(this.pullers.map(p => p.stop(graceMs)))
  }

  async stop (): Promise<void> {
    // The crawl, discovery and delivery workers have stopped by now (startWorkers' stop);
    // the scheduler's own jobs get 3 s, leaving time to close the database within 10 s.
    await this.listener?.stop()
    await this.boss.stop({ graceful: true, timeout: 3000, close: true, wait: true })
    await this.analyzing
  }
}

/**
 * An index in the order pg-boss 10's fetch takes waiting jobs, which its own job_i5
 * (name, start_after) does not match. Made on the partitioned pgboss.job, so every
 * queue's partition gets it, those pg-boss attaches later too. The advisory lock keeps
 * two processes starting at once from both creating it.
 */
async function createFetchIndex (db: Db): Promise<void> {
  await db.transaction().execute(async tx => {
    await sql`SELECT pg_advisory_xact_lock(hashtext('sitewatch.job_fetch_order'))`.execute(tx)
    await sql`
      CREATE INDEX IF NOT EXISTS job_fetch_order ON pgboss.job (name, priority DESC, created_on, id)
      WHERE state < 'active'`.execute(
        tx
      )
  })
}
