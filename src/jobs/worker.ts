import type PgBoss from 'pg-boss'
import type { Config } from '../config.js'
import type { Crawler } from '../crawl/crawler.js'
import type { Db } from '../store/db.js'
import { PageAnalysis } from './analysis.js'
import { crawlPage, crawlTargetLoader, type CrawlResult } from './crawl-page.js'
import { CrawlWrites } from './crawl-writes.js'
import { discoverDomainPages, discoveryGaveUp } from './discover-pages.js'
import type { PipelineEvents } from './events.js'
import { QUEUE, type CrawlJobData, type DiscoverJobData, type JobQueue } from './queue.js'
import { deliver } from '../alerts/deliver.js'
import { dispatchChanges, runDigest } from '../alerts/dispatch.js'
import { runRetention } from './retention.js'
import { JobPuller } from './puller.js'
import { runSchedulerTick } from './scheduler.js'

export interface WorkerDeps {
  db: Db
  /** The store's vacuum (see Store): run after each retention sweep. */
  vacuum: () => Promise<void>
  queue: JobQueue
  crawler: Crawler
  events: PipelineEvents
  config: Config
  log: { info: (o: object, msg: string) => void, warn: (o: object, msg: string) => void, error: (o: object, msg: string) => void }
}

type Job<T> = PgBoss.JobWithMetadata<T>

/**
 * Runs one job and settles it (complete, or fail so that pg-boss retries it with
 * backoff); after the last attempt, runs `onGiveUp` and reports job.failed.
 */
async function settle<T, O extends object> (deps: WorkerDeps, name: string, job: Job<T>, run: () => Promise<O>, onGiveUp?: () => Promise<void>,
  complete = async (output: O) => { await deps.queue.boss.complete(name, job.id, output) }) {
  const { boss } = deps.queue
  try {
    await complete(await run())
  } catch (err) {
    const message = (err as Error)?.message ?? String(err)
    const last = job.retryCount >= job.retryLimit
    deps.log.warn({ jobId: job.id, queue: name, attempt: job.retryCount + 1, last }, `job attempt failed: ${message}`)
    await boss.fail(name, job.id, { message })
    if (last) {
      await onGiveUp?.().catch((e) => { deps.log.error({ err: e, jobId: job.id }, 'after-failure step failed') })
      const data = job.data as { orgId: string, domainId: string, pageId?: string }
      deps.events.emit('job.failed', { jobId: job.id, name, orgId: data.orgId, domainId: data.domainId, pageId: data.pageId ?? null, reason: message })
    }
  }
}

export async function startWorkers (deps: WorkerDeps): Promise<{ stop (graceMs: number): Promise<void> }> {
  const { boss } = deps.queue
  const { config } = deps
  const polling = { pollingIntervalSeconds: config.jobPollingSeconds, includeMetadata: true as const }
  const pullers: Array<JobPuller<any>> = []
  const unsubscribe: Array<() => void> = []
  const pull = <T>(name: string, concurrency: number, run: (job: Job<T>) => Promise<void>) => {
    const puller = new JobPuller<T>(boss, name, concurrency, config.jobPollingSeconds * 1000, run,
      (err) => { deps.log.error({ err, queue: name }, 'job queue error') })
    puller.start()
    pullers.push(puller)
    unsubscribe.push(deps.queue.onCommitted(name, () => { puller.wake() }))
  }
  const writes = new CrawlWrites(deps.db)
  const analysis = new PageAnalysis(config.analysisThreads)
  const crawlDeps = { ...deps, targets: crawlTargetLoader(deps.db), analysis }
  pull<CrawlJobData>(QUEUE.crawl, config.workerConcurrency, job => settle(deps, QUEUE.crawl, job, () => crawlPage(crawlDeps, job.id, job.data),
    undefined, async ({ pageCheck, ...output }: CrawlResult) => { await writes.finished(job.id, output, pageCheck) }))
  const discoverDeps = { ...deps, maxFetches: config.discoveryMaxFetches }
  pull<DiscoverJobData>(QUEUE.discover, 2, job => settle(deps, QUEUE.discover, job,
    () => discoverDomainPages(discoverDeps, job.id, job.data),
    () => discoveryGaveUp(discoverDeps, job.data)))
  const deliverDeps = { db: deps.db, fetcher: deps.crawler.fetcher, publicBaseUrl: config.publicBaseUrl }
  pull<{ deliveryId: string }>(QUEUE.deliver, 8, job => settle(deps, QUEUE.deliver, job,
    () => deliver(deliverDeps, job.data.deliveryId, job.retryCount >= job.retryLimit)))
  await boss.work(QUEUE.tick, { ...polling, batchSize: 1 }, async () => {
    const r = await runSchedulerTick(deps.db, deps.queue)
    // The outbox sweep: changes whose realtime dispatch was lost (a crash) go out now.
    const alerted = await dispatchChanges(deps.db, deps.queue)
    if (r.queued > 0 || r.paused > 0 || alerted > 0) deps.log.info({ ...r, alerted }, 'scheduler tick')
    return { ...r, alerted }
  })
  await boss.work(QUEUE.retention, { ...polling, batchSize: 1 }, async () => {
    const r = await runRetention(deps.db)
    await deps.vacuum()
    deps.log.info(r, 'retention sweep')
    return r
  })
  await boss.work<{ changeIds?: string[] }>(QUEUE.dispatch, { ...polling, batchSize: 4 }, async (jobs) => {
    for (const job of jobs) await dispatchChanges(deps.db, deps.queue, job.data.changeIds)
  })
  await boss.work(QUEUE.digest, { ...polling, batchSize: 1 }, async () => ({ sent: await runDigest(deps.db, deps.queue) }))
  await boss.schedule(QUEUE.digest, '0 8 * * *')
  await boss.schedule(QUEUE.tick, '* * * * *')
  await boss.schedule(QUEUE.retention, '17 3 * * *')
  return {
    /** Stops taking jobs; jobs in flight get `graceMs` to finish, the rest are handed back. */
    async stop (graceMs: number) {
      for (const off of unsubscribe) off()
      await Promise.all(pullers.map(p => p.stop(graceMs)))
      await analysis.close()
    }
  }
}
