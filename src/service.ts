import type { FastifyInstance } from 'fastify'
import pino from 'pino'
import { buildApp } from './api/app.js'
import type { Config } from './config.js'
import { Crawler } from './crawl/crawler.js'
import { PipelineEvents } from './jobs/events.js'
import { JobQueue } from './jobs/queue.js'
import { attachAlerts } from './alerts/listeners.js'
import { startWorkers } from './jobs/worker.js'
import { openStore, type Store } from './store/db.js'
import { bootstrapDefaultOrg } from './store/orgs.js'

export interface Service {
  config: Config
  store: Store
  queue: JobQueue
  events: PipelineEvents
  crawler: Crawler
  app: FastifyInstance | undefined
  /** Where the API listens, once started. */
  url: string | undefined
  stop (): Promise<void>
}

/**
 * Wires the parts for one process: the store (migrated), the queue, the API when the
 * role serves it, the workers and scheduler when the role runs them.
 */
export async function startService (config: Config, opts: { logger?: boolean | object, listen?: boolean, onBootstrapKey?: (key: string) => void } = {}): Promise<Service> {
  const log = pino(typeof opts.logger === 'object' ? opts.logger : { level: opts.logger === false ? 'silent' : config.logLevel })
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
  const runsWorkers = config.role !== 'api'
  const servesApi = config.role !== 'worker'
  const queue = await JobQueue.start(store, config, { runsWorkers, log })
  const events = new PipelineEvents()
  events.on('change.detected', e => { log.info({ event: 'change.detected', ...e }, `change detected: ${e.summary}`) })
  events.on('job.failed', e => { log.warn({ event: 'job.failed', ...e }, `job failed: ${e.reason}`) })
  attachAlerts(events, store.db, queue, log)
  const crawler = new Crawler(config)

  const bootstrap = await bootstrapDefaultOrg(store.db)
  if (bootstrap) (opts.onBootstrapKey ?? ((key: string) => {
    process.stdout.write(`\nCreated organisation "default" (trial). Its API key, shown once:\n\n  ${key}\n\n`)
  }))(bootstrap.apiKey)

  const workers = runsWorkers ? await startWorkers({ db: store.db, vacuum: store.vacuum, queue, crawler, events, config, log }) : undefined

  let app: FastifyInstance | undefined
  let url: string | undefined
  if (servesApi) {
    app = await buildApp({ db: store.db, queue, config }, { logger: opts.logger ?? { level: config.logLevel } })
    if (opts.listen !== false) url = await app.listen({ port: config.port, host: config.host })
  }

  let stopping: Promise<void> | undefined
  return {
    config, store, queue, events, crawler, app, url,
    stop () {
      stopping ??= (async () => {
        await app?.close()
        await workers?.stop(4000)
        await queue.stop()
        await crawler.close()
        await store.close()
      })()
      return stopping
    }
  }
}
