import type PgBoss from 'pg-boss'
import type { Config } from '../config.js'
import type { Crawler } from '../crawl/crawler.js'
import type { Db } from '../store/db.js'
import { crawlPage } from './crawl-page.js'
import { discoverDomainPages, discoveryGaveUp } from './discover-pages.js'
import type { PipelineEvents } from './events.js'
import { QUEUE, type CrawlJobData, type DiscoverJobData, type JobQueue } from './queue.js'
import { deliver } from '../alerts/deliver.js'
import { dispatchChanges, runDigest } from '../alerts/dispatch.js'
import { runRetention } from './retention.js'
import { runSchedulerTick } from './scheduler.js'

export interface WorkerDeps {
  db: Db
  queue: JobQueue
  crawler: Crawler
  events: PipelineEvents
  config: Config
  log: { info: (o: object, msg: string) => void, warn: (o: object, msg: string) => void, error: (o: object, msg: string) => void }
}

type Job<T> = PgBoss.JobWithMetadata<T>

/**
 * Runs each fetched job on its own and settles it on its own (complete or fail), so
 * one bad page never fails its batch; pg-boss then retries failures with backoff.
 */
async function settle<T> (deps: WorkerDeps, name: string, job: Job<T>, run: () => Promise<object>, onGiveUp?: () => Promise<void>) {
  const { boss } = deps.queue
  try {
    const output = await run()
    await boss.complete(name, job.id, output)
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

export async function startWorkers (deps: WorkerDeps): Promise<void> {
  const { boss } = deps.queue
  const { config } = deps
  const polling = { pollingIntervalSeconds: config.jobPollingSeconds, includeMetadata: true as const }
  // One job per fetch, and as many pg-boss workers as jobs may run at once. With batches,
  // pg-boss completes the whole batch when its handler returns, and by then a job of the
  // batch that failed quickly may already be running its retry in another worker: it
  // would be marked completed under that retry's feet.
  const single = { ...polling, batchSize: 1 }
  async function workOneAtATime<T> (name: string, run: (job: Job<T>) => Promise<void>): Promise<void> {
    let workerId: string | undefined
    workerId = await boss.work<T>(name, single, async ([job]) => {
      await run(job)
      // pg-boss waits a polling interval after every fetch; one that found work fetches again at once.
      if (workerId) boss.notifyWorker(workerId)
    })
  }
  for (let i = 0; i < config.workerConcurrency; i++) {
    await workOneAtATime<CrawlJobData>(QUEUE.crawl, job => settle(deps, QUEUE.crawl, job, () => crawlPage(deps, job.id, job.data)))
  }
  const discoverDeps = { ...deps, maxFetches: config.discoveryMaxFetches }
  for (let i = 0; i < 2; i++) {
    await workOneAtATime<DiscoverJobData>(QUEUE.discover, job => settle(deps, QUEUE.discover, job,
      () => discoverDomainPages(discoverDeps, job.id, job.data),
      () => discoveryGaveUp(discoverDeps, job.data)))
  }
  await boss.work(QUEUE.tick, { ...polling, batchSize: 1 }, async () => {
    const r = await runSchedulerTick(deps.db, deps.queue)
    // The outbox sweep: changes whose realtime dispatch was lost (a crash) go out now.
    const alerted = await dispatchChanges(deps.db, deps.queue)
    if (r.queued > 0 || r.paused > 0 || alerted > 0) deps.log.info({ ...r, alerted }, 'scheduler tick')
    return { ...r, alerted }
  })
  await boss.work(QUEUE.retention, { ...polling, batchSize: 1 }, async () => {
    const r = await runRetention(deps.db)
    deps.log.info(r, 'retention sweep')
    return r
  })
  await boss.work<{ changeIds?: string[] }>(QUEUE.dispatch, { ...polling, batchSize: 4 }, async (jobs) => {
    for (const job of jobs) await dispatchChanges(deps.db, deps.queue, job.data.changeIds)
  })
  const deliverDeps = { db: deps.db, fetcher: deps.crawler.fetcher, publicBaseUrl: config.publicBaseUrl }
  for (let i = 0; i < 4; i++) {
    await workOneAtATime<{ deliveryId: string }>(QUEUE.deliver, job => settle(deps, QUEUE.deliver, job,
      () => deliver(deliverDeps, job.data.deliveryId, job.retryCount >= job.retryLimit)))
  }
  await boss.work(QUEUE.digest, { ...polling, batchSize: 1 }, async () => ({ sent: await runDigest(deps.db, deps.queue) }))
  await boss.schedule(QUEUE.digest, '0 8 * * *')
  await boss.schedule(QUEUE.tick, '* * * * *')
  await boss.schedule(QUEUE.retention, '17 3 * * *')
}
