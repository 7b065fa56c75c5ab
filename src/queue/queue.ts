// The one class that wraps pg-boss: sending (inside the caller's transaction), running
// (pull, work, schedule) and statistics. The queues and their policies are in queues.ts;
// crawls are queued in our own records (crawl-lane.ts), in the order of crawl-order.ts;
// pg-boss runs the rest through its public API (boss-lane.ts).
import { EventEmitter } from 'node:events'
import PgBoss from 'pg-boss'
import { sql } from 'kysely'
import type { Logger } from 'pino'
import type { Config } from '../config.js'
import type { Db, Store, Tx } from '../store/db.js'
import { ROWS_PER_STATEMENT } from '../store/pages.js'
import { pagesReadInBrowser } from '../store/page-checks.js'
import { BossLane, txSqlExecutor } from './boss-lane.js'
import { CrawlLane, expireCrawls, handBackCrawls, type CrawlLaneName, type CrawlPolicy } from './crawl-lane.js'
import {
  FINISHED_JOB_DAYS, insertJobRecords, overdueRecords, pendingDiscovery, RECORDED_QUEUES
} from './job-records.js'
import { JobPuller, type Job, type JobHandler, type JobSettled } from './puller.js'
import { JOBS_CHANNEL, WakeUpListener } from './wake-up.js'
import { crawlRanks, crawlTurns, freshCrawls, urlHost } from './crawl-order.js'
import {
  BOSS_QUEUES, CRAWL_QUEUES, MAX_ATTEMPTS, QUEUE, QUEUE_POLICIES, type BossQueueName, type CrawlJobData,
  type DiscoverJobData,
  type QueueName, type ResearchJobData
} from './queues.js'

const STOPPED = 'the process running it stopped'

/**
 * On the embedded database only this process runs jobs, so a job still running as it
 * starts was left by one that died: its attempt is failed now, to be retried (or failed
 * for good) at once rather than when it expires (JOB_EXPIRE_SECONDS). These are the
 * crawls still active, and the jobs of pg-boss's queues this process's pullers held. On
 * PostgreSQL another process may be running them: there, expiry decides.
 */
async function handBackOrphans (boss: PgBoss, db: Db, log: Logger): Promise<void> {
  const crawls = await handBackCrawls(db)
  if (crawls > 0) log.warn({ jobs: crawls }, 'crawls left running by a stopped process are retried')
  const held = await db.selectFrom('held_jobs').select(['queue', 'id']).execute()
  for (const name of new Set(held.map(h => h.queue))) {
    const ids = held.filter(h => h.queue === name).map(h => h.id)
    const lane = new BossLane(boss, db, name, { records: RECORDED_QUEUES.includes(name), holds: true })
    const handedBack = await lane.handBack(ids, STOPPED)
    if (handedBack > 0) log.warn({ queue: name, jobs: handedBack }, 'jobs left active by a stopped process are retried')
  }
}

/** Crawl jobs queued between two refreshes of the planner's statistics on the jobs (see refreshFetchStatistics). */
export const ANALYZE_AFTER_JOBS = 1000

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
    private readonly config: Pick<Config, 'jobPollingSeconds' | 'crawlPerHostDelayMs' | 'crawlPerHostConcurrency' |
      'jobRetryDelaySeconds' | 'jobExpireSeconds'>,
    /** Other processes may share the database (PostgreSQL): tell them of new jobs. */
    private readonly notifies: boolean
  ) {}

  /** One process runs every job (PGlite): it keeps which of pg-boss's jobs it holds (see handBackOrphans). */
  private get embedded (): boolean {
    return !this.notifies
  }

  private get crawlPolicy (): CrawlPolicy {
    return { retryDelaySeconds: this.config.jobRetryDelaySeconds, expireSeconds: this.config.jobExpireSeconds }
  }

  /** Crawl lane `name`: a crawl moved to another lane wakes that lane's workers, here and in other processes. */
  private crawlLane (name: CrawlLaneName): CrawlLane {
    return new CrawlLane(this.db, name, this.config, this.crawlPolicy, to => {
      this.committed.emit(to)
      if (this.notifies) {
        sql`SELECT pg_notify(${JOBS_CHANNEL}, ${to})`.execute(this.db).catch(err => {
          this.log.warn({ err }, 'could not tell other processes of a moved crawl; they find it at their next poll')
        })
      }
    })
  }

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
   * The crawl lanes' fetch takes waiting crawls in (lane, priority, created_at, id) order.
   * With planner statistics on the jobs, PostgreSQL walks jobs_crawl_order and stops at
   * the lookahead; without them it sorts every waiting crawl on each fetch. PGlite has no
   * autovacuum, and PostgreSQL's comes a minute or more after a crawl of a whole domain is
   * queued, so the queue refreshes them itself. Ten as the statistics target samples
   * 3,000 rows: 30–50 ms on PGlite at 100,000 jobs, where the default's 30,000 took 560 ms.
   * The same statistics let a page of a long job history be read from its index (0.1 ms
   * on PGlite at 100,000 jobs) instead of sorted whole (130 ms).
   */
  private async refreshFetchStatistics (): Promise<void> {
    await this.db.transaction().execute(async tx => {
      await sql`SET LOCAL default_statistics_target = 10`.execute(tx)
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
    // Crawls were pg-boss's before migration 0022 moved those waiting into their records.
    for (const name of CRAWL_QUEUES) {
      if (await boss.getQueue(name)) {
        await boss.deleteQueue(name).catch((err: unknown) => {
          log.warn({ err, queue: name }, "could not delete pg-boss's former crawl queue")
        })
      }
    }
    if (store.kind === 'pglite') await handBackOrphans(boss, store.db, log)
    const shared = store.listenUrl
    const queue = new JobQueue(boss, store.db, log, config, shared !== undefined)
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

  /**
   * Queues a discovery of the domain, unless one is waiting or running already: then that
   * one's id, and `queued` false. The domain's row lock serialises concurrent callers.
   */
  async enqueueDiscovery (tx: Tx, data: DiscoverJobData): Promise<{ id: string, queued: boolean }> {
    const pending = await pendingDiscovery(tx, data.domainId)
    if (pending) return { id: pending, queued: false }
    const id = await this.boss.send(QUEUE.discover, data, { db: txSqlExecutor(tx) })
    if (!id) throw new Error('the queue refused a discovery job')
    this.sentWithin(tx, QUEUE.discover, 1)
    await insertJobRecords(tx, [{ id, org_id: data.orgId, domain_id: data.domainId, name: QUEUE.discover }])
    return { id, queued: true }
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
      await insertJobRecords(
        tx,
        some.map(p => ({
          id: queued.get(p.pageId)!,
          org_id: p.orgId,
          domain_id: p.domainId,
          page_id: p.pageId,
          url: p.url,
          name: QUEUE.crawl,
          lane: inBrowser.has(p.pageId) ? QUEUE.render : QUEUE.crawl,
          priority: -(ranks.get(p.pageId) ?? 0),
          start_after: turns.get(p.pageId),
          max_attempts: MAX_ATTEMPTS
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

  /** Sends a job on its own, outside any transaction (a hint whose loss something else makes good). */
  async send (name: QueueName, data: object): Promise<void> {
    await this.boss.send(name, data)
  }

  /**
   * Runs up to `concurrency` jobs of queue `name` at once with `handler` (see JobPuller):
   * new jobs committed in this process, or announced by NOTIFY, wake it at once.
   */
  pull<T, O extends object>(name: QueueName, concurrency: number, handler: JobHandler<T, O>): void {
    const lane = CRAWL_QUEUES.includes(name)
      ? this.crawlLane(name as CrawlLaneName)
      : new BossLane<T>(this.boss, this.db, name, { records: RECORDED_QUEUES.includes(name), holds: this.embedded })
    const expireSeconds = CRAWL_QUEUES.includes(name)
      ? this.crawlPolicy.expireSeconds
      : QUEUE_POLICIES(this.config)[name as BossQueueName].expireInSeconds
    const puller = new JobPuller<T, O>(
      lane as JobPuller<T, O>['lane'],
      name,
      concurrency,
      this.config.jobPollingSeconds * 1000,
      handler,
      this.log,
      settled => this.events.emit('job.settled', settled),
      expireSeconds === undefined ? undefined : expireSeconds * 1000
    )
    puller.start()
    this.pullers.push(puller)
    this.committed.on(name, () => {
      puller.wake()
    })
  }

  /** Takes up to `batchSize` due crawls of lane `name` whose hosts are free, as a worker's fetch does. */
  async takeCrawls (name: CrawlLaneName, batchSize: number): Promise<Array<Job<CrawlJobData>>> {
    return await this.crawlLane(name).fetch(batchSize)
  }

  /**
   * Catches what no worker saw, for the scheduler's tick: crawls whose attempt expired
   * (failed here), and discoveries and briefs pg-boss's maintenance failed for the same
   * reason (their records read again). Returns how many records changed.
   */
  async sweep (): Promise<number> {
    let changed = await expireCrawls(this.db, this.crawlPolicy)
    const overdue = await overdueRecords(this.db, this.config.jobExpireSeconds)
    for (const name of RECORDED_QUEUES) {
      const lane = new BossLane(this.boss, this.db, name, { records: true, holds: this.embedded })
      changed += (await lane.reread(overdue.filter(r => r.name === name).map(r => r.id))).length
    }
    return changed
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

  /**
   * Jobs not yet finished, by queue and state: waiting (due), delayed (a later start or
   * a retry's backoff), active. Of pg-boss's queues, whose public API counts jobs by state
   * only, a delayed job counts as waiting.
   */
  async depth (): Promise<Array<{ queue: string, state: 'waiting' | 'delayed' | 'active', jobs: number }>> {
    const { rows } = await sql<{ queue: string, state: 'waiting' | 'delayed' | 'active', jobs: number }>`
      SELECT lane AS queue,
        CASE WHEN state = 'active' THEN 'active' WHEN start_after > now() THEN 'delayed' ELSE 'waiting' END AS state,
        count(*)::int AS jobs
      FROM jobs WHERE state IN ('waiting', 'active') AND lane IS NOT NULL GROUP BY 1, 2`.execute(this.db)
    for (const queue of BOSS_QUEUES) {
      const waiting = await this.boss.getQueueSize(queue)
      const active = await this.boss.getQueueSize(queue, { before: 'completed' }) - waiting
      if (waiting > 0) rows.push({ queue, state: 'waiting', jobs: waiting })
      if (active > 0) rows.push({ queue, state: 'active', jobs: active })
    }
    return rows
  }

  /** Across tenants, for /metrics: unfinished crawls by host, the 20 hosts with most. */
  async hostBacklog () {
    const { rows } = await sql<{ host: string, jobs: number }>`
      SELECT ${sql.raw(urlHost('url'))} AS host, count(*)::int AS jobs
      FROM jobs WHERE state IN ('waiting', 'active') AND lane IS NOT NULL
      GROUP BY 1 ORDER BY 2 DESC LIMIT 20`.execute(this.db)
    return rows
  }

  /** Across tenants, for /metrics: the longest wait of a due crawl by organisation, the 20 longest. */
  async tenantWaits () {
    const { rows } = await sql<{ org: string, seconds: number }>`
      SELECT org_id::text AS org, max(extract(epoch FROM now() - start_after))::float8 AS seconds
      FROM jobs
      WHERE state = 'waiting' AND lane IS NOT NULL AND start_after <= now()
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
