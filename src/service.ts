import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fleetPacer, fleetRobotsFiles } from './services/host-pacer.js'
import { forgetLeases, paceRules } from './store/host-pace.js'
import type { FastifyInstance } from 'fastify'
import pino from 'pino'
import { attachAlerts } from './alerts/subscribers.js'
import { startAlertWorkers } from './alerts/workers.js'
import { buildApp } from './api/app.js'
import { appBaseUrl, type Config } from './config.js'
import { Crawler } from './crawl/crawler.js'
import { createFetcher } from './crawl/fetch.js'
import { AnalysisTimeout, PageAnalysis } from './pipeline/analysis.js'
import { AppError } from './vocabulary/errors.js'
import { PipelineEvents } from './pipeline/events.js'
import { startPipeline } from './pipeline/workers.js'
import { Metrics } from './metrics/metrics.js'
import { JobQueue } from './queue/queue.js'
import { Mailer } from './mail/mailer.js'
import { firstOwnerLink } from './services/accounts.js'
import { bootstrapDefaultOrg } from './services/orgs.js'
import { Principals } from './services/principals.js'
import type { PageReadings } from './services/context.js'
import { listOrgs } from './store/orgs.js'
import { webApp } from './web/app.js'
import { openStore, poolPlan, type Store } from './store/db.js'
import { DataVersions } from './store/data-versions.js'
import { serviceSecret } from './store/secrets.js'
import { ssoDeps } from './services/sso.js'
import { sealLegacySecrets } from './services/sso-settings.js'

export interface Service {
  config: Config
  store: Store
  queue: JobQueue
  events: PipelineEvents
  crawler: Crawler
  app: FastifyInstance | undefined
  /** What this process has heard of each organisation's writes (the API's validators), where it serves the API. */
  versions: DataVersions | undefined
  /** Where the API listens, once started. */
  url: string | undefined
  stop(): Promise<void>
}

export interface ServiceOptions {
  logger?: boolean | object
  listen?: boolean
  onBootstrapKey?: (key: string) => void
  /** Told the first owner's one-time link (default: printed to standard output). */
  onSetupLink?: (link: string) => void
  /** An in-memory database starts from this dump of a migrated one (tests; see StoreOptions.seedFile). */
  databaseSeed?: string
}

/**
 * The first API key, kept where only the owner of the data directory reads it (mode 0600),
 * so that a first start that failed after printing it (a port in use) loses nothing.
 * Nothing is written for a database in memory or elsewhere (DATABASE_URL: no data directory).
 */
function keepFirstKey (dataDir: string, key: string): void {
  if (dataDir === 'memory://') return
  try {
    mkdirSync(dataDir, { recursive: true })
    writeFileSync(join(dataDir, FIRST_KEY_FILE), `${key}\n`, { mode: 0o600 })
  } catch { /* printed already: the file is a second copy */ }
}

/** Each start says where the first key is while its file is there (its owner deletes it once kept). */
function remindFirstKey (dataDir: string): void {
  if (dataDir === 'memory://' || !existsSync(join(dataDir, FIRST_KEY_FILE))) return
  process.stdout.write(`\nThe default organisation's first API key is in ${join(dataDir, FIRST_KEY_FILE)} ` +
    '(readable by you only): keep it elsewhere, then delete the file.\n\n')
}
const FIRST_KEY_FILE = 'first-api-key.txt'

/** How long a webhook's receiver has to answer (CRAWL_TIMEOUT_MS when that is shorter). */
const ALERT_TIMEOUT_MS = 10_000

/**
 * The composition root: wires the parts for one process. The store (migrated), the
 * queue, the pipeline's events with their subscribers (logs, alerts); the API when the
 * role serves it; the pipeline's and alerting's workers when the role runs them.
 */
export async function startService (config: Config, opts: ServiceOptions = {}): Promise<Service> {
  const log = pino(
    typeof opts.logger === 'object' ? opts.logger : { level: opts.logger === false ? 'silent' : config.logLevel }
  )
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    dataDir: config.dataDir,
    pools: poolPlan(config.role, config.databasePoolSize),
    onPoolsFitted: fit => {
      if (fit.cut) {
        log.warn(fit, `PostgreSQL had ${fit.free} of its ${fit.maxConnections} connections free: this process ` +
          `opens at most ${fit.store + fit.serving} (and 2 that listen), half of them, not more`)
      } else log.info(fit, 'database connections planned')
    },
    ...(opts.databaseSeed ? { seedFile: opts.databaseSeed } : {}),
    onConnectionLost: err => {
      log.warn({ err: err.message }, 'idle database connection lost')
    }
  })
  const runsWorkers = config.role !== 'api'
  const servesApi = config.role === 'all' || config.role === 'api'
  const queue = await JobQueue.start(store, config, { runsWorkers, log })
  const events = new PipelineEvents()
  events.on('change.detected', e => {
    log.info({ event: 'change.detected', ...e }, `change detected: ${e.summary}`)
  })
  events.on('job.failed', e => {
    log.warn({ event: 'job.failed', ...e }, `job failed: ${e.reason}`)
  })
  // A reader that failed on a page is a fault of ours to hear of; one that could not read it, a fact of the page.
  events.on('reader.failed', e => {
    log[e.error ? 'warn' : 'debug']({ event: 'reader.failed', ...e }, `reader ${e.reader}: ${e.note}`)
  })
  attachAlerts(events, store.db, queue, log)
  // Every process keeps each host's turns in the database, the embedded one's too: one rule
  // for the fleet and for one process (see crawl/polite.ts).
  const pacer = fleetPacer(store.db, paceRules(config), () => { queue.crawlPlaceFreed() })
  const fleet = store.kind === 'postgres'
  // The embedded database has this one process: the requests its leases counted ended with its last run.
  if (!fleet) await forgetLeases(store.db)
  const crawler = new Crawler(config, pacer, fleet ? fleetRobotsFiles(store.db) : undefined)

  const bootstrap = await bootstrapDefaultOrg(store.db)
  if (bootstrap) {
    ;(
      opts.onBootstrapKey ??
      ((key: string) => {
        process.stdout.write(`\nCreated organisation "default" (trial). Its API key, shown once:\n\n  ${key}\n\n`)
        keepFirstKey(config.dataDir, key)
      })
    )(bootstrap.apiKey)
  } else if (!opts.onBootstrapKey) {
    remindFirstKey(config.dataDir)
  }
  // While nobody has an account, every start prints a one-time link that makes its holder the owner.
  const setup = await firstOwnerLink(store.db, bootstrap?.org.id ?? (await listOrgs(store.db))[0]?.id)
  if (setup && servesApi) {
    const base = appBaseUrl(config)
    ;(
      opts.onSetupLink ??
      ((link: string) => {
        process.stdout.write(
          `Open this link to create the owner's account of the web app (works once, for 7 days):\n\n  ${link}\n\n`
        )
      })
    )(`${base}/app/setup/${setup}`)
  }
  const mailer = new Mailer(config, log)

  const linkSecret = await serviceSecret(store.db, 'image-links')
  // Client secrets saved before secrets were sealed are sealed now (services/sealed.ts).
  await sealLegacySecrets(ssoDeps(store.db, config))
  // The threads that read pages and check tenants' rules, shared fairly by the organisations
  // (see PageAnalysis): the pipeline's checks and the API's rule checks alike.
  const analysis = new PageAnalysis(config.analysisThreads, config.analysisDeadlineMs)
  const ruleChecks = async (orgId: string, rules: Parameters<PageAnalysis['checkRules']>[0]) =>
    await analysis.for(orgId).checkRules(rules)
  // A page too large to read for a person in the analysis deadline is a 503 that says so, not a 500.
  const inTime = async <T>(what: string, reading: Promise<T>): Promise<T> => await reading.catch(err => {
    if (!(err instanceof AnalysisTimeout)) throw err
    throw new AppError('SERVICE_UNAVAILABLE', `${what} took longer than ${err.ms / 1000} s and was stopped: the page ` +
      'is too large for it; write its selectors in its settings')
  })
  const readings: PageReadings = {
    outline: async (orgId, task) => await inTime('Reading the page\'s outline', analysis.for(orgId).outline(task)),
    tryRules: async (orgId, task) => await inTime('Trying the rules', analysis.for(orgId).tryRules(task))
  }
  if (runsWorkers) {
    // Not fatal: a cold first request is only a few tens of milliseconds later than its turn.
    await crawler.fetcher.warm().catch(err => { log.warn({ err: err.message }, 'warming the HTTP client failed') })
    await startPipeline({ db: store.db, vacuum: store.vacuum, queue, crawler, events, config, log, analysis })
  }
  // Alerts go out through a client of their own: the crawler's may reach CRAWL_HOST_MAP's hosts, alerts may not.
  const alertFetcher = createFetcher({
    hostMap: config.alertHostMap,
    allowPrivateNetworks: config.alertAllowPrivateNetworks,
    // A receiver answers at once and works later (as GitHub's and Stripe's ask): one that does not holds a slot.
    timeoutMs: Math.min(config.crawlTimeoutMs, ALERT_TIMEOUT_MS),
    maxBytes: 1024 * 1024
  })
  if (runsWorkers && config.role !== 'renderer') {
    await startAlertWorkers({
      db: store.db,
      queue,
      fetcher: alertFetcher,
      publicBaseUrl: config.publicBaseUrl,
      appBase: appBaseUrl(config),
      mailer,
      linkSecret,
      log
    })
  }

  const metrics = new Metrics({
    events: runsWorkers ? events : undefined,
    queue,
    crawler: runsWorkers ? crawler : undefined,
    ping: store.ping,
    poolUse: store.poolUse,
    analysisLoad: () => analysis.load()
  })
  let app: FastifyInstance | undefined
  let url: string | undefined
  let stopFollowing: (() => Promise<void>) | undefined
  let versions: DataVersions | undefined
  const port = servesApi ? config.port : config.metricsPort
  if (port !== undefined) {
    versions = new DataVersions()
    if (servesApi) {
      stopFollowing = await store.followWrites(versions, err => {
        log.warn({ err }, 'listening for writes failed; API answers carry no ETag until it is back')
      })
    }
    const deps = { db: store.db, queue, config, ping: store.ping, metrics, linkSecret, ruleChecks, readings, versions }
    const principals = new Principals(store.db)
    app = await buildApp(deps, {
      logger: opts.logger ?? { level: config.logLevel },
      api: servesApi,
      principals,
      mailer
    })
    if (servesApi) {
      await app.register(webApp, {
        prefix: '/app', db: store.db, queue, settings: config, mailer, principals, linkSecret, ruleChecks, readings
      })
    }
    if (opts.listen !== false) url = await app.listen({ port, host: config.host })
  }

  let stopping: Promise<void> | undefined
  return {
    config,
    store,
    queue,
    events,
    crawler,
    app,
    versions,
    url,
    stop () {
      stopping ??= (async () => {
        await closeServer(app)
        await stopFollowing?.()
        // Jobs in flight get 4 s to finish; the rest are handed back to the queue.
        await queue.stopPulling(4000)
        await analysis.close()
        await queue.stop()
        await crawler.close()
        await alertFetcher.close()
        mailer.close()
        await store.close()
      })()
      return stopping
    }
  }
}

/** How long answers being written get once the service stops, before their connections are cut. */
const ANSWER_GRACE_MS = 3000

/**
 * Closes the HTTP server: new connections are refused, idle ones closed, and requests in flight
 * get ANSWER_GRACE_MS. Fastify's close waits for each of them: a body a client sent half of until
 * Node's request timeout (300 s), an answer finishing as the stop began until the keep-alive
 * timeout (72 s), either past a SIGTERM's 10 s.
 */
async function closeServer (app: FastifyInstance | undefined): Promise<void> {
  if (!app) return
  const cut = setTimeout(() => app.server.closeAllConnections(), ANSWER_GRACE_MS)
  try {
    await app.close()
  } finally {
    clearTimeout(cut)
  }
}
