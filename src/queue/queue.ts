// The one queue: every job is a row of `jobs`, in the lane of its queue (queues.ts, one
// table of policies), sent inside the caller's transaction with the rows it belongs to.
// Workers take jobs by lane (lane.ts: crawls by free host, in the order of
// crawl-order.ts), hold each attempt under their id and settle it fenced on that; a
// heartbeat says they are alive, and one sweep hands back what no worker will finish
// (liveness.ts); a job that fails for good is given up, whatever ended it (by its worker
// before it marks it failed, else by the sweep); the cron sends one job per slot (cron.ts).
// Modelled on Solid Queue and River.
import { randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import { sql, type Insertable } from 'kysely'
import type { Logger } from 'pino'
import type { Config } from '../config.js'
import type { Db, Store, Tx } from '../store/db.js'
import type { JobsTable } from '../store/schema-jobs.js'
import { CRON_LOOK_MS, CronSlots, slotKey } from './cron.js'
import { Backlog } from './backlog.js'
import { DueWatch } from './due-watch.js'
import { heldKeys, waitingByOrg, type FairJob } from './fair-lanes.js'
import { discoveriesWaiting, insertJobRecords, pendingDiscovery } from './job-records.js'
import { Lane, retryDelay } from './lane.js'
import { failedNotGivenUp, markGivenUp, Worker } from './liveness.js'
import { AttemptLost, JobPuller, type Job, type JobHandler, type QueueEvents, type Told } from './puller.js'
import { insertCrawls } from './crawl-order.js'
import { paceRules } from '../store/host-pace.js'
import {
  CRAWL_QUEUES, QUEUE, queuePolicies, type CrawlJobData, type CrawlLaneName, type DiscoverJobData,
  type QueueName, type QueuePolicy, type ResearchJobData
} from './queues.js'

/** The channel on which a transaction that queued jobs names their queues (see JobQueue.transaction). */
export const JOBS_CHANNEL = 'sitewatch_jobs'

/** Crawl jobs queued between two refreshes of the planner's statistics on the jobs (see refreshFetchStatistics). */
export const ANALYZE_AFTER_JOBS = 1000

type QueueConfig = Pick<Config, 'jobPollingSeconds' | 'crawlPerHostDelayMs' | 'crawlPerHostConcurrency' |
  'crawlTimeoutMs' | 'renderTimeoutMs' |
  'jobRetryDelaySeconds' | 'jobExpireSeconds' | 'jobMaintenanceSeconds'>

/** A job row to insert: its queue, data and policy's attempts; a tenant's columns when it is a tenant's record. */
type NewJob = Insertable<JobsTable>

/**
 * The one job queue, in the service's own database. Jobs are always sent inside the
 * caller's transaction, together with the rows they belong to, so a rolled-back request
 * leaves no job behind and a committed one never loses its job.
 */
export class JobQueue {
  /** How many jobs each open transaction has sent, by queue. */
  private readonly sentIn = new WeakMap<Tx, Map<string, number>>()
  private readonly committed = new EventEmitter()
  readonly events = new EventEmitter<QueueEvents>()

  private crawlsSinceAnalyze = 0
  private analyzing: Promise<void> | undefined
  private listener: { stop: () => Promise<void> } | undefined
  private readonly pullers: Array<JobPuller<any, any>> = []
  private readonly handlers = new Map<string, JobHandler<any, any>>()
  private readonly policies: Readonly<Record<QueueName, QueuePolicy>>
  private readonly retry
  private readonly cron = new CronSlots()
  private readonly timers: NodeJS.Timeout[] = []
  /** The heartbeat's and the cron's turns in progress: stop() waits for them. */
  private readonly turns = new Set<Promise<void>>()
  private stopped = false
  /** This process as a worker: the owner of every attempt it takes (none in a process that runs no jobs). */
  private readonly worker: Worker | undefined
  private readonly dueWatch: DueWatch
  /** What the queue holds, for /metrics. */
  readonly backlog: Backlog

  private constructor (
    private readonly db: Db,
    private readonly log: Logger,
    private readonly config: QueueConfig,
    /** Other processes may share the database (PostgreSQL): tell them of new jobs. */
    private readonly notifies: boolean,
    runsWorkers: boolean
  ) {
    this.policies = queuePolicies(config)
    this.retry = retryDelay(this.policies)
    this.backlog = new Backlog(db)
    this.worker = runsWorkers ? new Worker(db, config.jobMaintenanceSeconds * 1000) : undefined
    this.dueWatch = new DueWatch(db, config.jobPollingSeconds * 1000, (err: unknown) => {
      this.log.warn({ err: (err as Error).message }, 'could not look for due jobs; looking again at the next poll')
    })
  }

  /**
   * The id this process takes jobs under: its worker's (see liveness.ts), or, in a process
   * that runs no jobs, one no heartbeat keeps alive (what it takes, the sweep hands back).
   */
  get workerId (): string {
    return this.worker?.id ?? this.idWithoutWorker
  }

  private readonly idWithoutWorker = randomUUID()

  /** Lane `name` as this worker takes it: a crawl moved to another lane wakes that lane's workers everywhere. */
  private lane<T> (name: string): Lane<T> {
    const pace = CRAWL_QUEUES.includes(name) ? paceRules(this.config) : undefined
    return new Lane<T>(this.db, name, this.workerId, this.retry, pace, {
      moved: to => { this.tell([to]) },
      looked: found => this.events.emit('jobs.fetched', { queue: name, found }),
      dueWatch: this.dueWatch
    }, this.policies[name as QueueName]?.fair)
  }

  /** Wakes the workers of queues `names`: this process's at once, others' by a NOTIFY. */
  private tell (names: string[]): void {
    for (const name of names) this.committed.emit(name)
    if (!this.notifies) return
    sql`SELECT pg_notify(${JOBS_CHANNEL}, name) FROM unnest(${names}::text[]) AS name`.execute(this.db).catch(err => {
      this.log.warn({ err }, 'could not tell other processes of new jobs; they find them at their next poll')
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
        .catch(err => { this.log.warn({ err }, "could not refresh the job queue's statistics") })
        .finally(() => { this.analyzing = undefined })
    }
    return result
  }

  /**
   * The crawl lanes' fetch takes waiting crawls in (lane, priority, created_at, id) order.
   * With planner statistics on the jobs, PostgreSQL walks jobs_due and stops at the
   * lookahead; without them it sorts every waiting crawl on each fetch. PGlite has no
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
    const shared = store.kind === 'postgres'
    const queue = new JobQueue(store.db, log, config, shared, opts.runsWorkers)
    if (!queue.worker) return queue
    // Alone on the embedded database: the workers listed were left by processes that died.
    await queue.worker.start(store.kind === 'pglite')
    await queue.maintain()
    // The heartbeat on a timer of its own: a long sweep or give-up pass never makes this worker look lost.
    queue.every(config.jobMaintenanceSeconds * 1000, async () => await queue.beat())
    queue.every(config.jobMaintenanceSeconds * 1000, async () => await queue.sweepAndGiveUp())
    queue.every(CRON_LOOK_MS, async () => await queue.sendCronSlots())
    queue.listener = await store.listen(JOBS_CHANNEL, {
      heard: name => {
        queue.committed.emit(name)
      },
      error: err => {
        log.warn({ err }, 'listening for new jobs failed; workers poll until it is back')
      }
    })
    return queue
  }

  /** Runs `step` every `ms`, one turn at a time, until the queue stops. */
  private every (ms: number, step: () => Promise<unknown>): void {
    let turn: Promise<void> | undefined
    const timer = setInterval(() => {
      if (turn || this.stopped) return
      turn = step()
        .then(() => {}, err => {
          this.log.warn({ err: (err as Error).message }, 'job queue maintenance failed; it runs again at its next turn')
        })
        .finally(() => {
          this.turns.delete(turn!)
          turn = undefined
        })
      this.turns.add(turn)
    }, ms)
    timer.unref()
    this.timers.push(timer)
  }

  /** The heartbeat and the sweep (see liveness.ts), then give-up for the jobs it failed for good. */
  private async maintain (): Promise<number> {
    await this.beat()
    return await this.sweepAndGiveUp()
  }

  /**
   * Renews the heartbeat. A worker that finds it was taken for lost (its database away, its
   * process frozen longer than the sweep waits) stops the attempts it still runs: they were
   * handed back, and their retries may be running elsewhere.
   */
  private async beat (): Promise<void> {
    if (await this.worker!.beat()) return
    let stopped = 0
    for (const puller of this.pullers) stopped += puller.stopAttempts(new AttemptLost())
    if (stopped > 0) this.log.warn({ stopped }, 'this worker was taken for lost: its running attempts were stopped')
  }

  private async sweepAndGiveUp (): Promise<number> {
    const swept = await this.worker!.sweep(this.policies, this.retry)
    if (swept.lost > 0 || swept.expired > 0) this.log.warn(swept, 'attempts handed back by the sweep')
    await this.giveUpFailed()
    return swept.lost + swept.expired
  }

  /**
   * Hands back what no worker will finish and gives up what failed for good (the scheduler's
   * tick runs it too, beside each heartbeat's). Returns how many attempts it handed back.
   */
  async sweep (): Promise<number> {
    if (this.worker) return await this.maintain()
    // A process that runs no jobs hands back only attempts past their lease: it has no beat to judge others by.
    const swept = await new Worker(this.db, this.config.jobMaintenanceSeconds * 1000).sweep(this.policies, this.retry)
    return swept.expired
  }

  /**
   * Runs give-up for every job of this process's queues that failed for good and that no
   * worker gave up: those failed by the sweep (their worker lost, their lease run out), and
   * those whose give-up threw. Each in a transaction of its own that marks the job given up:
   * a process that dies meanwhile leaves it to the next pass, as does a give-up that throws.
   */
  private async giveUpFailed (): Promise<void> {
    const lanes = [...this.handlers.keys()]
    if (lanes.length === 0) return
    for await (const id of failedNotGivenUp(this.db, lanes)) {
      const told = await this.db.transaction().execute(async tx => {
        const failed = await markGivenUp(tx, id)
        return failed ? await this.runGiveUp(failed.job, failed.reason, undefined, tx) : undefined
      }).catch(() => undefined) // said by runGiveUp; the next pass runs it again
      told?.()
    }
  }

  /** Runs the handler's give-up for `job` in `tx`; should it throw, says so and throws (its transaction rolls back). */
  private async runGiveUp (job: Job<unknown>, reason: string, err: unknown, tx: Tx): Promise<Told> {
    const onGiveUp = this.handlers.get(job.name)?.onGiveUp
    try {
      return await onGiveUp?.(job, reason, err, tx)
    } catch (e) {
      this.log.error({ err: e, jobId: job.id, queue: job.name }, 'giving the job up failed; it is tried again')
      throw e
    }
  }

  /** Sends the cron's slots that are due (see cron.ts): one job per slot, whichever process sends it first. */
  private async sendCronSlots (): Promise<void> {
    const sent: string[] = []
    for (const { name, at } of this.cron.due()) {
      const policy = this.policies[name as QueueName]
      await sql`INSERT INTO jobs (id, name, lane, singleton, max_attempts, data)
        VALUES (${randomUUID()}, ${name}, ${name}, ${slotKey(name, at)}, ${policy.attempts}, '{}'::jsonb)
        ON CONFLICT (singleton) WHERE singleton IS NOT NULL DO NOTHING`.execute(this.db)
      this.cron.sentSlot(name, at)
      sent.push(name)
    }
    if (sent.length > 0) this.tell(sent)
  }

  /** The rows of new jobs of queue `name`, each with its policy's attempts. */
  private rowsOf (name: QueueName, data: readonly object[], tenant?: Partial<NewJob>): NewJob[] {
    return data.map(d => ({
      id: randomUUID(), name, lane: name, data: JSON.stringify(d), max_attempts: this.policies[name].attempts, ...tenant
    }))
  }

  /**
   * Queues a discovery of the domain, unless one is waiting or running already: then that
   * one's id, and `queued` false. The domain's row lock serialises concurrent callers.
   * Organisations take turns: a discovery ranks after its organisation's waiting ones
   * (the k-th ranks k), so one that adds 40 domains has its first discoveries taken beside
   * another's first, not all 40 before it.
   */
  async enqueueDiscovery (tx: Tx, data: DiscoverJobData): Promise<{ id: string, queued: boolean }> {
    const pending = await pendingDiscovery(tx, data.domainId)
    if (pending) return { id: pending, queued: false }
    const rank = await discoveriesWaiting(tx, data.orgId)
    const [row] = this.rowsOf(QUEUE.discover, [data], { org_id: data.orgId, domain_id: data.domainId, priority: -rank })
    await insertJobRecords(tx, [row!])
    this.sentWithin(tx, QUEUE.discover, 1)
    return { id: row!.id, queued: true }
  }

  /** Queues the job `jobId` that builds a research brief, with its tenant record. */
  async enqueueResearch (tx: Tx, jobId: string, data: ResearchJobData): Promise<void> {
    const [row] = this.rowsOf(QUEUE.research, [data], { id: jobId, org_id: data.orgId, domain_id: data.domainId })
    await insertJobRecords(tx, [row!])
    this.sentWithin(tx, QUEUE.research, 1)
  }

  /**
   * Queues a crawl for each page that has none waiting or running, in the caller's
   * transaction (crawl-order.ts insertCrawls). Returns the new jobs' ids by page.
   */
  async enqueueCrawls (tx: Tx, pages: readonly CrawlJobData[]): Promise<Map<string, string>> {
    const { queued, plain, rendered } = await insertCrawls(tx, pages)
    if (plain > 0) this.sentWithin(tx, QUEUE.crawl, plain)
    if (rendered > 0) this.sentWithin(tx, QUEUE.render, rendered)
    return queued
  }

  /** Queues one job of `name` per item of `data` in the caller's transaction (jobs no client lists). */
  async enqueue<T extends object>(tx: Tx, name: QueueName, data: T[]): Promise<void> {
    if (data.length === 0) return
    await insertJobRecords(tx, this.rowsOf(name, data))
    this.sentWithin(tx, name, data.length)
  }

  /**
   * Queues one job of the fair lane `name` per item (see fair-lanes.ts), in the caller's
   * transaction: each ranks after its organisation's waiting ones, the k-th ranking k, and
   * one for a key held behind a failed attempt waits for its retry.
   */
  async enqueueFair<T extends object>(tx: Tx, name: QueueName, items: Array<T & FairJob>): Promise<void> {
    if (items.length === 0) return
    const waiting = await waitingByOrg(tx, name, items.map(i => i.orgId))
    const held = await heldKeys(tx, name, items.map(i => i.key))
    const rows = items.map(item => {
      const rank = waiting.get(item.orgId) ?? 0
      waiting.set(item.orgId, rank + 1)
      const until = held.get(item.key)
      return { ...this.rowsOf(name, [item])[0]!, priority: -rank, ...(until ? { start_after: until } : {}) }
    })
    await insertJobRecords(tx, rows)
    this.sentWithin(tx, name, items.length)
  }

  /** Sends a job on its own, outside any transaction (a hint whose loss something else makes good). */
  async send (name: QueueName, data: object): Promise<void> {
    await insertJobRecords(this.db, this.rowsOf(name, [data]))
    this.tell([name])
  }

  /**
   * Runs up to `concurrency` jobs of queue `name` at once with `handler` (see JobPuller), or
   * up to `maxConcurrency` while the process has room (slots.ts): new jobs committed in this
   * process, or announced by NOTIFY, wake it at once.
   */
  pull<T, O extends object>(
    name: QueueName, concurrency: number, handler: JobHandler<T, O>, maxConcurrency = concurrency
  ): void {
    this.handlers.set(name, handler)
    const puller = new JobPuller<T, O>(
      this.lane<T>(name),
      name,
      concurrency,
      this.config.jobPollingSeconds * 1000,
      handler,
      this.log,
      settled => this.events.emit('job.settled', settled),
      this.policies[name].expireSeconds * 1000,
      async (job, reason, err, tx) => await this.runGiveUp(job as Job<unknown>, reason, err, tx),
      maxConcurrency
    )
    puller.start()
    this.pullers.push(puller)
    this.committed.on(name, () => {
      puller.wake()
    })
  }

  /** A host that had all its places taken has one free: every process's crawl workers look again. */
  crawlPlaceFreed (): void {
    this.tell([QUEUE.crawl, QUEUE.render])
  }

  /** Takes up to `batchSize` due crawls of lane `name` whose hosts are free, as a worker's fetch does. */
  async takeCrawls (name: CrawlLaneName, batchSize: number): Promise<Array<Job<CrawlJobData>>> {
    return await this.lane<CrawlJobData>(name).fetch(batchSize)
  }

  /** Runs the service's own jobs of `name` (the cron's, a dispatch) one by one, up to `concurrency` at once. */
  async work<T>(name: QueueName, concurrency: number, run: (jobs: Array<Job<T>>) => Promise<unknown>): Promise<void> {
    this.pull<T, object>(name, concurrency, {
      run: async job => {
        const output = await run([job])
        return typeof output === 'object' && output !== null ? output : {}
      }
    })
  }

  /** Sends a job to `name` on a cron schedule, once per slot however many processes ask (see cron.ts). */
  async schedule (name: QueueName, cron: string): Promise<void> {
    this.cron.add(name, cron)
    await this.sendCronSlots()
  }

  /** Stops the pullers: jobs in flight get `graceMs` to finish, the rest are handed back unspent. */
  async stopPulling (graceMs: number): Promise<void> {
    this.committed.removeAllListeners()
    await Promise.all(this.pullers.map(p => p.stop(graceMs)))
    this.dueWatch.close()
  }

  async stop (): Promise<void> {
    this.stopped = true
    for (const timer of this.timers) clearInterval(timer)
    await Promise.all(this.turns)
    await this.listener?.stop()
    await this.analyzing
    // Its jobs were handed back (stopPulling): none is left to the sweep of another.
    await this.worker?.stop().catch(err => {
      this.log.warn({ err: (err as Error).message }, 'could not leave the list of workers; it ages out')
    })
  }
}
