import { randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import PgBoss from 'pg-boss'
import { sql } from 'kysely'
import type { Config } from '../config.js'
import { txSqlExecutor, type Db, type Store, type Tx } from '../store/db.js'
import { ROWS_PER_STATEMENT } from '../store/pages.js'

export const QUEUE = {
  discover: 'discover.pages',
  crawl: 'crawl.page',
  tick: 'schedule.tick',
  retention: 'retention.sweep',
  dispatch: 'alerts.dispatch',
  deliver: 'webhook.deliver',
  digest: 'alerts.digest'
} as const

/** Webhook deliveries get more attempts than crawls: a receiver may be down for a while. */
export const DELIVERY_ATTEMPTS = 6

export const MAX_ATTEMPTS = 3

export interface DiscoverJobData { orgId: string, domainId: string }
export interface CrawlJobData { orgId: string, domainId: string, pageId: string, url: string }

/**
 * The pg-boss queue on the service's own database. Jobs are always sent inside the
 * caller's transaction, together with a `jobs` row that ties them to a tenant, so a
 * rolled-back request leaves no job behind and a committed one never loses its job.
 */
export class JobQueue {
  /** The queues each open transaction has sent jobs to. */
  private readonly sentIn = new WeakMap<Tx, Set<string>>()
  private readonly committed = new EventEmitter()

  private constructor (readonly boss: PgBoss) {}

  /**
   * Runs `work` in a transaction. Once it commits, this process's workers of the queues
   * it sent jobs to look for them at once instead of at their next poll: a crawl asked
   * for starts now, not up to JOB_POLLING_SECONDS later. (Workers in other processes
   * still find the jobs by polling.)
   */
  async transaction<T> (db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
    let used: Tx | undefined
    const result = await db.transaction().execute(async (tx) => { used = tx; return await work(tx) })
    for (const name of this.sentIn.get(used!) ?? []) this.committed.emit(name)
    return result
  }

  /** Calls `listener` whenever a transaction that sent jobs to queue `name` has committed; returns the unsubscribe. */
  onCommitted (name: string, listener: () => void): () => void {
    this.committed.on(name, listener)
    return () => { this.committed.off(name, listener) }
  }

  /** Notes that `tx` sent jobs to queue `name`: its workers are woken when it commits (see transaction()). */
  sentWithin (tx: Tx, name: string): void {
    const names = this.sentIn.get(tx) ?? new Set<string>()
    names.add(name)
    this.sentIn.set(tx, names)
  }

  static async start (store: Store, config: Config, opts: { maintenance: boolean }): Promise<JobQueue> {
    const boss = new PgBoss({
      ...store.queueConnection,
      schema: 'pgboss',
      supervise: opts.maintenance,
      schedule: opts.maintenance,
      maintenanceIntervalSeconds: config.jobMaintenanceSeconds,
      // Finished jobs stay visible through /api/jobs for a week.
      archiveCompletedAfterSeconds: 7 * 24 * 3600,
      archiveFailedAfterSeconds: 7 * 24 * 3600,
      deleteAfterDays: 7
    } as PgBoss.ConstructorOptions)
    boss.on('error', (err) => { console.error(JSON.stringify({ level: 50, msg: 'job queue error', err: String(err?.message ?? err) })) })
    await boss.start()
    const jobQueue = { name: '', retryLimit: MAX_ATTEMPTS - 1, retryDelay: config.jobRetryDelaySeconds, retryBackoff: true, expireInSeconds: config.jobExpireSeconds }
    await boss.createQueue(QUEUE.discover, { ...jobQueue, name: QUEUE.discover })
    await boss.createQueue(QUEUE.crawl, { ...jobQueue, name: QUEUE.crawl })
    await boss.createQueue(QUEUE.tick, { name: QUEUE.tick, retryLimit: 0, expireInSeconds: 600 })
    await boss.createQueue(QUEUE.retention, { name: QUEUE.retention, retryLimit: 2, expireInSeconds: 3600 })
    await boss.createQueue(QUEUE.dispatch, { name: QUEUE.dispatch, retryLimit: 3, retryDelay: config.jobRetryDelaySeconds, retryBackoff: true, expireInSeconds: 300 })
    await boss.createQueue(QUEUE.deliver, {
      name: QUEUE.deliver, retryLimit: DELIVERY_ATTEMPTS - 1, retryDelay: config.jobRetryDelaySeconds, retryBackoff: true, expireInSeconds: 120
    })
    await boss.createQueue(QUEUE.digest, { name: QUEUE.digest, retryLimit: 2, expireInSeconds: 600 })
    return new JobQueue(boss)
  }

  async enqueueDiscovery (tx: Tx, data: DiscoverJobData): Promise<string> {
    const id = await this.boss.send(QUEUE.discover, data, { db: txSqlExecutor(tx) })
    if (!id) throw new Error('the queue refused a discovery job')
    this.sentWithin(tx, QUEUE.discover)
    await tx.insertInto('jobs').values({ id, org_id: data.orgId, domain_id: data.domainId, name: QUEUE.discover }).execute()
    return id
  }

  /**
   * Queues a crawl for each page that has none waiting or running, in the caller's
   * transaction, in four statements per thousand pages. Returns the new jobs' ids by
   * page. The page rows' locks, taken in id order, serialise concurrent callers.
   */
  async enqueueCrawls (tx: Tx, pages: readonly CrawlJobData[]): Promise<Map<string, string>> {
    const queued = new Map<string, string>()
    const inLockOrder = [...pages].sort((a, b) => a.pageId < b.pageId ? -1 : a.pageId > b.pageId ? 1 : 0)
    for (let i = 0; i < inLockOrder.length; i += ROWS_PER_STATEMENT) {
      await this.enqueueSomeCrawls(tx, inLockOrder.slice(i, i + ROWS_PER_STATEMENT), queued)
    }
    return queued
  }

  private async enqueueSomeCrawls (tx: Tx, pages: readonly CrawlJobData[], queued: Map<string, string>): Promise<void> {
    const ids = pages.map(p => p.pageId)
    const present = await tx.selectFrom('pages').select('id').where('id', 'in', ids).orderBy('id').forUpdate().execute()
    const exists = new Set(present.map(r => r.id))
    const pending = await sql<{ page_id: string }>`
      SELECT j.page_id FROM jobs j JOIN pgboss.job q ON q.id = j.id AND q.name = ${QUEUE.crawl}
      WHERE j.page_id = ANY(${ids}::uuid[]) AND q.state IN ('created', 'retry', 'active')`.execute(tx)
    const busy = new Set(pending.rows.map(r => r.page_id))
    const fresh = pages.filter(p => exists.has(p.pageId) && !busy.has(p.pageId) && !queued.has(p.pageId))
    if (fresh.length === 0) return
    for (const p of fresh) queued.set(p.pageId, randomUUID())
    await this.boss.insert(fresh.map(p => ({ id: queued.get(p.pageId)!, name: QUEUE.crawl, data: p })), { db: txSqlExecutor(tx) })
    this.sentWithin(tx, QUEUE.crawl)
    await tx.insertInto('jobs').values(fresh.map(p => ({
      id: queued.get(p.pageId)!, org_id: p.orgId, domain_id: p.domainId, page_id: p.pageId, url: p.url, name: QUEUE.crawl
    }))).execute()
  }

  async stop (): Promise<void> {
    // The crawl, discovery and delivery workers have stopped by now (startWorkers' stop);
    // the scheduler's own jobs get 3 s, leaving time to close the database within 10 s.
    await this.boss.stop({ graceful: true, timeout: 3000, close: true, wait: true })
  }
}
