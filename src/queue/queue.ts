// Longer than 300 lines on purpose: the one class that wraps pg-boss. Sending (inside the
// caller's transaction), running (pull, work, schedule) and the fetch order's index and
// statistics all depend on the same queue definitions and wake-up events.
import { randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import PgBoss from 'pg-boss'
import { CompiledQuery, sql } from 'kysely'
import type { Logger } from 'pino'
import type { Config } from '../config.js'
import type { Db, SqlExecutor, Store, Tx } from '../store/db.js'
import { planTurns } from '../store/host-pace.js'
import { lockPages, pagesReadInBrowser, ROWS_PER_STATEMENT } from '../store/pages.js'
import { FINISHED_JOB_DAYS, insertJobRecords } from './job-records.js'
import { JobPuller, type Job, type JobHandler, type JobPicker, type JobSettled } from './puller.js'
import { JOBS_CHANNEL, WakeUpListener } from './wake-up.js'

export const QUEUE = {
  discover: 'discover.pages',
  crawl: 'crawl.page',
  /** Crawls of pages read in the browser: pulled by processes that run browsers (see RENDER_ROLES). */
  render: 'crawl.render',
  tick: 'schedule.tick',
  retention: 'retention.sweep',
  dispatch: 'alerts.dispatch',
  deliver: 'webhook.deliver',
  digest: 'alerts.digest',
  mail: 'mail.deliver',
  mailDigest: 'mail.digest',
  /** Account e-mails sent from a request that must answer at once (a password reset). */
  accountMail: 'mail.account',
  research: 'research.domain'
} as const
export type QueueName = (typeof QUEUE)[keyof typeof QUEUE]

/**
 * A page's crawl runs on one of these queues; its tenant record (`jobs.name`) says
 * `crawl.page` either way. A crawl that finds its page needs the browser moves to the
 * render queue under the same id (see moveJob).
 */
export const CRAWL_QUEUES: readonly string[] = [QUEUE.crawl, QUEUE.render]

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
async function handBackOrphans (boss: PgBoss, log: Logger): Promise<void> {
  const { rows } = await boss.getDb().executeSql(ACTIVE_JOBS, [])
  for (const { name, ids } of rows as Array<{ name: string, ids: string[] }>) {
    for (const id of ids) await boss.fail(name, id, { message: 'the process running it stopped' })
    log.warn({ queue: name, jobs: ids.length }, 'jobs left active by a stopped process are retried')
  }
}

/** A crawl job's host, as its pace is kept in host_pace (the URL's host and port). */
const jobHost = (job: string) => `substring(${job}.data->>'url' from '^[a-z]+://([^/?#]+)')`
const JOB_HOST = jobHost('j')

/** How many of a crawl queue's waiting jobs, in fetch order, are looked at for one whose host is free. */
const CRAWL_LOOKAHEAD = 256

/**
 * pg-boss 10's fetch, for crawls: the next due jobs in the queue's order (priority, then
 * age), only of hosts free to take a request now (their next start reached, fewer than
 * `$3` requests in flight, not claimed or being taken by another worker's fetch), and one
 * per host when the host has a delay between requests (`$4` ms, or its Crawl-delay). The hosts taken
 * are claimed for `$5` ms, until their crawl takes its turn. A crawl taken while its host
 * is busy would hold a worker's slot waiting for its turn; the crawls of one big domain,
 * ranked one after another, did so back to back.
 */
export const FETCH_CRAWLS = `
  WITH due AS (
    SELECT j.id, j.priority, j.created_on, ${JOB_HOST} AS host
    FROM pgboss.job j
    WHERE j.name = $1 AND j.state < 'active' AND j.start_after < now()
    ORDER BY j.priority DESC, j.created_on, j.id
    LIMIT ${CRAWL_LOOKAHEAD}
    FOR UPDATE SKIP LOCKED
  ), paced AS (
    -- Locked, so that two workers fetching at once cannot both take a crawl of one free host:
    -- the second skips the row, or sees the first one's claim once it has committed.
    SELECT p.host, p.delay_ms FROM host_pace p
    WHERE p.host IN (SELECT host FROM due)
      AND greatest(p.next_start, p.backoff_until, p.claimed_until) <= clock_timestamp() + interval '50 milliseconds'
    FOR UPDATE SKIP LOCKED
  ), hosts AS (
    SELECT h.host, least(
      CASE WHEN greatest($4::int, h.delay_ms) > 0 THEN 1 ELSE $3::int END,
      $3::int - (SELECT count(*) FROM host_leases l WHERE l.host = h.host AND l.expires_at > now())) AS places
    FROM (
      SELECT host, delay_ms FROM paced
      UNION ALL
      SELECT DISTINCT d.host, NULL::int FROM due d WHERE NOT EXISTS (SELECT 1 FROM host_pace p WHERE p.host = d.host)
    ) h
  ), ranked AS (
    SELECT d.id, d.priority, d.created_on, d.host, h.places,
      row_number() OVER (PARTITION BY d.host ORDER BY d.priority DESC, d.created_on, d.id) AS nth
    FROM due d JOIN hosts h ON h.host = d.host
  ), next AS (
    SELECT id, host FROM ranked WHERE nth <= places ORDER BY priority DESC, created_on, id LIMIT $2
  ), claimed AS (
    UPDATE host_pace SET claimed_until = clock_timestamp() + $5::int * interval '1 millisecond'
    WHERE $5::int > 0 AND host IN (SELECT host FROM next)
  )
  UPDATE pgboss.job j SET state = 'active', started_on = now(),
    retry_count = CASE WHEN started_on IS NOT NULL THEN retry_count + 1 ELSE retry_count END
  FROM next WHERE j.name = $1 AND j.id = next.id
  RETURNING j.id, j.name, j.data, EXTRACT(epoch FROM j.expire_in) AS "expireInSeconds", j.policy, j.state,
    j.priority, j.retry_limit AS "retryLimit", j.retry_count AS "retryCount", j.retry_delay AS "retryDelay",
    j.retry_backoff AS "retryBackoff", j.start_after AS "startAfter", j.started_on AS "startedOn",
    j.singleton_key AS "singletonKey", j.singleton_on AS "singletonOn", j.expire_in AS "expireIn",
    j.created_on AS "createdOn", j.completed_on AS "completedOn", j.keep_until AS "keepUntil",
    j.dead_letter AS "deadLetter", j.output`

/** Milliseconds until one of the next waiting crawls may be taken: its start reached and its host's. */
const CRAWLS_DUE_IN = `
  WITH next AS (
    SELECT j.start_after, ${JOB_HOST} AS host FROM pgboss.job j
    WHERE j.name = $1 AND j.state < 'active'
    ORDER BY j.priority DESC, j.created_on, j.id LIMIT ${CRAWL_LOOKAHEAD}
  )
  SELECT (extract(epoch FROM
    min(greatest(n.start_after, p.next_start, p.backoff_until, p.claimed_until)) - now()) * 1000)::float8 AS ms
  FROM next n LEFT JOIN host_pace p ON p.host = n.host`

/** Webhook deliveries get more attempts than crawls: a receiver may be down for a while. */
export const DELIVERY_ATTEMPTS = 6

export const MAX_ATTEMPTS = 3

/** Crawl jobs queued between two refreshes of the queue's planner statistics (see refreshFetchStatistics). */
export const ANALYZE_AFTER_JOBS = 1000

export interface DiscoverJobData {
  orgId: string
  domainId: string
}
export interface ResearchJobData {
  orgId: string
  domainId: string
  briefId: string
}
/** An account e-mail a request asks for (see alerts/account-mail.ts): the reset link is made by the job. */
export interface AccountMailJobData {
  kind: 'reset'
  email: string
}
export interface CrawlJobData {
  orgId: string
  domainId: string
  pageId: string
  url: string
}

/** A page row's crawl job. */
export const crawlJobOf = (page: { id: string, org_id: string, domain_id: string, url: string }): CrawlJobData => ({
  orgId: page.org_id,
  domainId: page.domain_id,
  pageId: page.id,
  url: page.url
})

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
    const jobQueue = {
      name: '',
      retryLimit: MAX_ATTEMPTS - 1,
      retryDelay: config.jobRetryDelaySeconds,
      retryBackoff: true,
      expireInSeconds: config.jobExpireSeconds
    }
    await boss.createQueue(QUEUE.discover, { ...jobQueue, name: QUEUE.discover })
    await boss.createQueue(QUEUE.crawl, { ...jobQueue, name: QUEUE.crawl })
    await boss.createQueue(QUEUE.research, { ...jobQueue, name: QUEUE.research })
    await boss.createQueue(QUEUE.render, { ...jobQueue, name: QUEUE.render })
    await boss.createQueue(QUEUE.tick, { name: QUEUE.tick, retryLimit: 0, expireInSeconds: 600 })
    await boss.createQueue(QUEUE.retention, { name: QUEUE.retention, retryLimit: 2, expireInSeconds: 3600 })
    const backoff = { retryDelay: config.jobRetryDelaySeconds, retryBackoff: true }
    await boss.createQueue(QUEUE.dispatch, { name: QUEUE.dispatch, retryLimit: 3, ...backoff, expireInSeconds: 300 })
    await boss.createQueue(QUEUE.deliver, {
      name: QUEUE.deliver,
      retryLimit: DELIVERY_ATTEMPTS - 1,
      ...backoff,
      expireInSeconds: 120
    })
    await boss.createQueue(QUEUE.digest, { name: QUEUE.digest, retryLimit: 2, expireInSeconds: 600 })
    await boss.createQueue(QUEUE.mail, {
      name: QUEUE.mail,
      retryLimit: DELIVERY_ATTEMPTS - 1,
      ...backoff,
      // A sender killed mid-send leaves its message to be retried once this expires.
      expireInSeconds: Math.min(120, config.jobExpireSeconds)
    })
    await boss.createQueue(QUEUE.mailDigest, { name: QUEUE.mailDigest, retryLimit: 2, expireInSeconds: 600 })
    await boss.createQueue(QUEUE.accountMail, {
      name: QUEUE.accountMail,
      retryLimit: DELIVERY_ATTEMPTS - 1,
      ...backoff,
      expireInSeconds: Math.min(120, config.jobExpireSeconds)
    })
    if (store.kind === 'pglite') await handBackOrphans(boss, log)
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
      fresh.push(...await this.freshCrawls(tx, inLockOrder.slice(i, i + ROWS_PER_STATEMENT), queued))
    }
    if (fresh.length === 0) return queued
    const turns = await this.turnsOf(tx, fresh)
    const ranks = await this.ranksOf(tx, fresh)
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
          name: QUEUE.crawl
        }))
      )
    }
    if (fresh.length > rendered) this.sentWithin(tx, QUEUE.crawl, fresh.length - rendered)
    if (rendered > 0) this.sentWithin(tx, QUEUE.render, rendered)
    return queued
  }

  /**
   * Each crawl's promised turn at its host (see planTurns): a host's crawls are released
   * one delay apart, so none of them waits in a worker for its host, and the crawls of
   * other hosts go between them.
   */
  private async turnsOf (tx: Tx, crawls: readonly CrawlJobData[]): Promise<Map<string, Date>> {
    const byHost = new Map<string, CrawlJobData[]>()
    for (const c of crawls) {
      const host = new URL(c.url).host
      const some = byHost.get(host)
      if (some) some.push(c)
      else byHost.set(host, [c])
    }
    const turns = new Map<string, Date>()
    for (const host of [...byHost.keys()].sort()) {
      const some = byHost.get(host)!
      const times = await planTurns(tx, host, some.length, this.config.crawlPerHostDelayMs)
      some.forEach((c, i) => turns.set(c.pageId, times[i]))
    }
    return turns
  }

  /**
   * Fair shares between organisations, and between an organisation's hosts: a crawl's
   * rank is its place in its organisation's round-robin over the hosts it has crawls
   * waiting for (the k-th crawl of one of H hosts ranks about k × H). The queue takes the
   * lowest ranks first (pg-boss's priority, negated), so an organisation that queues 400
   * crawls has its first ones taken beside another's first ones, not before them, and
   * its own hosts take turns instead of one host's crawls coming up back to back, each
   * to wait for that host.
   */
  private async ranksOf (tx: Tx, crawls: readonly CrawlJobData[]): Promise<Map<string, number>> {
    const orgs = [...new Set(crawls.map(c => c.orgId))]
    const { rows } = await sql<{ org_id: string, host: string, waiting: number }>`
      SELECT j.org_id, ${sql.raw(jobHost('q'))} AS host, count(*)::int AS waiting
      FROM jobs j JOIN pgboss.job q ON q.id = j.id AND q.name = ANY(${CRAWL_QUEUES}::text[])
      WHERE j.org_id = ANY(${orgs}::uuid[]) AND q.state < 'active' GROUP BY 1, 2`.execute(tx)
    const key = (org: string, host: string) => `${org} ${host}`
    const next = new Map(rows.map(r => [key(r.org_id, r.host), r.waiting]))
    const hostsOf = new Map<string, Set<string>>()
    const hostOf = (c: CrawlJobData) => new URL(c.url).host
    for (const r of rows) hostsOf.set(r.org_id, (hostsOf.get(r.org_id) ?? new Set()).add(r.host))
    for (const c of crawls) hostsOf.set(c.orgId, (hostsOf.get(c.orgId) ?? new Set()).add(hostOf(c)))
    const placeOf = new Map([...hostsOf].map(([org, hosts]) => [org, new Map([...hosts].sort().map((h, i) => [h, i]))]))
    const ranks = new Map<string, number>()
    for (const c of crawls) {
      const host = hostOf(c)
      const k = next.get(key(c.orgId, host)) ?? 0
      next.set(key(c.orgId, host), k + 1)
      const hosts = placeOf.get(c.orgId)!
      ranks.set(c.pageId, k * hosts.size + hosts.get(host)!)
    }
    return ranks
  }

  /** The pages without a crawl waiting or running, each given the id of its new job in `queued`. */
  private async freshCrawls (
    tx: Tx, pages: readonly CrawlJobData[], queued: Map<string, string>
  ): Promise<CrawlJobData[]> {
    const ids = pages.map(p => p.pageId)
    const exists = await lockPages(tx, ids)
    const pending = await sql<{ page_id: string }>`
      SELECT j.page_id FROM jobs j JOIN pgboss.job q ON q.id = j.id AND q.name = ANY(${CRAWL_QUEUES}::text[])
      WHERE j.page_id = ANY(${ids}::uuid[]) AND q.state IN ('created', 'retry', 'active')`.execute(tx)
    const busy = new Set(pending.rows.map(r => r.page_id))
    const fresh = pages.filter(p => exists.has(p.pageId) && !busy.has(p.pageId) && !queued.has(p.pageId))
    for (const p of fresh) queued.set(p.pageId, randomUUID())
    return fresh
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
      this.sentWithin(tx, to, 1)
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
      CRAWL_QUEUES.includes(name) ? this.crawlPicker<T>(name) : undefined
    )
    puller.start()
    this.pullers.push(puller)
    this.committed.on(name, () => {
      puller.wake()
    })
  }

  /**
   * Takes up to `batchSize` due crawls of queue `name` whose hosts are free (FETCH_CRAWLS),
   * as a worker's fetch does, and claims their hosts until the crawls take their turns.
   */
  async takeCrawls<T = CrawlJobData>(name: QueueName, batchSize: number): Promise<Array<Job<T>>> {
    const { crawlPerHostConcurrency: most, crawlPerHostDelayMs: delay } = this.config
    // Long enough for the crawl to take its turn, never longer than the host's delay.
    const claimMs = Math.min(delay, 250)
    const { rows } = await this.boss.getDb().executeSql(FETCH_CRAWLS, [name, batchSize, most, delay, claimMs]) as
      { rows: Array<Job<T>> }
    return rows
  }

  /** Crawls are taken when their host is free (takeCrawls). */
  private crawlPicker<T>(name: QueueName): JobPicker<T> {
    return {
      fetch: async batchSize => await this.takeCrawls<T>(name, batchSize),
      untilDue: async () => {
        const { rows } = await this.boss.getDb().executeSql(CRAWLS_DUE_IN, [name]) as
          { rows: Array<{ ms: number | null }> }
        const ms = rows[0]?.ms ?? null
        // Due, yet not taken: its host has all its requests in flight. One ends within a few
        // answers' time; looking again sooner would only load the database.
        return ms !== null && ms <= 0 ? 100 : ms
      }
    }
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
