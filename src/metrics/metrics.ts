import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { Crawler } from '../crawl/crawler.js'
import type { PipelineEvents } from '../pipeline/events.js'
import { type JobQueue } from '../queue/queue.js'
import { QUEUE } from '../queue/queues.js'
import type { JobSettled } from '../queue/puller.js'
import type { PoolUse } from '../store/db.js'

/** What the metrics listen to and read at each scrape; each part is optional (an API-only process has no crawler). */
export interface MetricSources {
  events?: PipelineEvents
  queue: JobQueue
  crawler?: Pick<Crawler, 'events'>
  ping: () => Promise<void>
  poolUse: () => PoolUse[]
  /** The analysis threads' tasks: running (of which slow: past their share) and waiting in the tenants' lines. */
  analysisLoad?: () => { running: number, slow: number, waiting: number }
}

/**
 * The process's Prometheus metrics (served at /metrics). Counters and histograms are
 * fed by listeners on the events the parts emit (the pipeline's, the queue's, the
 * crawler's, the API's responses); gauges are read when scraped. Nothing in the
 * pipeline calls them.
 */
export class Metrics {
  readonly registry = new Registry()
  private readonly http = new Histogram({
    name: 'sitewatch_http_request_duration_seconds',
    help: 'API requests by method, route (its pattern) and status, and how long they took',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry]
  })

  private readonly unaudited = new Counter({
    name: 'sitewatch_unaudited_writes_total',
    help: 'State-changing requests that succeeded and wrote no audit event (a defect: each should write one)',
    labelNames: ['method', 'route'],
    registers: [this.registry]
  })

  constructor (sources: MetricSources) {
    const registers = [this.registry]
    collectDefaultMetrics({ register: this.registry, prefix: 'sitewatch_' })

    const jobs = new Histogram({
      name: 'sitewatch_job_duration_seconds',
      help: 'Attempts at jobs by queue and outcome (completed, retried, failed for good, deferred: put back for ' +
        'its host\'s turn, moved: a crawl handed to the renderers), and how long they took',
      labelNames: ['queue', 'outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers
    })
    const deliveries = new Counter({
      name: 'sitewatch_alert_deliveries_total',
      help: 'Webhook and Slack delivery attempts by outcome (delivered, skipped, failed)',
      labelNames: ['outcome'],
      registers
    })
    sources.queue.events.on('job.settled', (s: JobSettled) => {
      jobs.labels(s.queue, s.outcome).observe(s.seconds)
      if (s.queue === QUEUE.deliver) {
        const out = s.output as { delivered?: boolean, skipped?: string } | undefined
        deliveries.labels(s.outcome !== 'completed' ? 'failed' : out?.skipped ? 'skipped' : 'delivered').inc()
      }
    })

    // How often workers look for jobs, and whether they found any: the database's load from workers that wait.
    const looks = new Counter({
      name: 'sitewatch_queue_fetches_total',
      help: 'Fetches of waiting jobs by queue, and whether they took any (found: some, none)',
      labelNames: ['queue', 'found'],
      registers
    })
    sources.queue.events.on('jobs.fetched', ({ queue, found }: { queue: string, found: number }) => {
      looks.labels(queue, found > 0 ? 'some' : 'none').inc()
    })

    const checks = new Counter({
      name: 'sitewatch_page_checks_total',
      help: 'Page checks by outcome: not_modified (304), unchanged, changed, baseline (first check), failed',
      labelNames: ['outcome'],
      registers
    })
    const changes = new Counter({
      name: 'sitewatch_changes_detected_total',
      help: 'Changes recorded, by type and severity',
      labelNames: ['type', 'severity'],
      registers
    })
    sources.events?.on('page.checked', e => {
      checks.labels(e.outcome).inc()
    })
    sources.events?.on('change.detected', e => {
      changes.labels(e.changeType, e.severity).inc()
    })
    const readers = new Counter({
      name: 'sitewatch_reader_failures_total',
      help: 'Checks whose structured reader could not read (error=false) or compare (error=true) the page: it was ' +
        'compared as text',
      labelNames: ['reader', 'error'],
      registers
    })
    sources.events?.on('reader.failed', e => {
      readers.labels(e.reader, String(e.error)).inc()
    })

    const fetches = new Histogram({
      name: 'sitewatch_fetch_duration_seconds',
      help: 'Requests to watched sites by outcome (ok, not_modified, http_error, failed), and how long they took',
      labelNames: ['outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers
    })
    sources.crawler?.events.on('fetched', t => {
      fetches.labels(t.outcome).observe(t.seconds)
    })
    const lateTurns = new Counter({
      name: 'sitewatch_host_turns_given_up_total',
      help: 'Turns at a watched host given up because their request could not be written in time (a busy ' +
        'machine, a slow database): each costs its host one turn, and the request takes the next',
      registers
    })
    sources.crawler?.events.on('turnLate', () => { lateTurns.inc() })
    const renders = new Histogram({
      name: 'sitewatch_render_duration_seconds',
      help: 'Pages rendered in the browser, and how long each render took (waiting for a slot included)',
      buckets: [0.25, 0.5, 1, 2, 4, 8, 15, 30],
      registers
    })
    const screenshots = new Counter({
      name: 'sitewatch_screenshots_total',
      help: 'Screenshots taken by renders: only where one is used (a text change, a visual threshold, a first picture)',
      registers
    })
    sources.crawler?.events.on('rendered', r => {
      renders.observe(r.seconds)
      if (r.screenshot) screenshots.inc()
    })

    const queue = sources.queue
    // A gauge read from the database says when it could not be read, rather than an empty queue
    // (sitewatch_gauge_readable, registered after them: a scrape starts each collect in that order).
    const readable = new Map<string, Promise<number>>()
    /** The rows of a gauge, read now; whether they could be is kept for sitewatch_gauge_readable. */
    const read = async <T>(gauge: string, ask: () => Promise<T[]>): Promise<T[]> => {
      const asked = ask().then(rows => ({ rows, ok: 1 }), () => ({ rows: [] as T[], ok: 0 }))
      readable.set(gauge, asked.then(r => r.ok))
      return (await asked).rows
    }
    // eslint-disable-next-line no-new -- registered in the registry, read when scraped
    new Gauge({
      name: 'sitewatch_queue_jobs',
      help: 'Unfinished jobs by queue and state (waiting, delayed, active)',
      labelNames: ['queue', 'state'],
      registers,
      async collect () {
        this.reset()
        const rows = await read('queue_jobs', async () => await queue.backlog.depth())
        for (const d of rows) this.labels(d.queue, d.state).set(d.jobs)
      }
    })
    // eslint-disable-next-line no-new -- as above
    new Gauge({
      name: 'sitewatch_host_backlog_jobs',
      help: 'Unfinished crawls by watched host (the 20 hosts with most): each is released at the host\'s pace',
      labelNames: ['host'],
      registers,
      async collect () {
        this.reset()
        const rows = await read('host_backlog_jobs', async () => await queue.backlog.hosts())
        for (const h of rows) this.labels(h.host).set(h.jobs)
      }
    })
    // eslint-disable-next-line no-new -- as above
    new Gauge({
      name: 'sitewatch_tenant_oldest_waiting_seconds',
      help: 'How long the oldest due crawl of an organisation has waited for a worker (the 20 longest)',
      labelNames: ['org'],
      registers,
      async collect () {
        this.reset()
        const rows = await read('tenant_oldest_waiting', async () => await queue.backlog.tenantWaits())
        for (const t of rows) this.labels(t.org).set(t.seconds)
      }
    })
    // eslint-disable-next-line no-new -- as above
    new Gauge({
      name: 'sitewatch_gauge_readable',
      help: 'Whether each gauge read from the database could be read at this scrape (0: its values are missing, ' +
        'not zero)',
      labelNames: ['gauge'],
      registers,
      async collect () {
        // A scrape collects every metric at once: the reads above were asked first, in this scrape.
        for (const [gauge, ok] of readable) this.labels(gauge).set(await ok)
      }
    })
    const { analysisLoad } = sources
    if (analysisLoad) {
      // eslint-disable-next-line no-new -- as above
      new Gauge({
        name: 'sitewatch_analysis_tasks',
        help: 'Tasks of the analysis threads by state: running, slow (running past their share of the threads, ' +
          'their tenant\'s next tasks wait behind them) and waiting (in the tenants\' lines)',
        labelNames: ['state'],
        registers,
        collect () {
          const load = analysisLoad()
          for (const state of ['running', 'slow', 'waiting'] as const) this.labels(state).set(load[state])
        }
      })
    }
    // eslint-disable-next-line no-new -- as above
    new Gauge({
      name: 'sitewatch_database_up',
      help: '1 when the database (and the queue\'s connection to it) answers, 0 during an outage',
      registers,
      async collect () {
        this.set(await sources.ping().then(() => 1, () => 0))
      }
    })
    // eslint-disable-next-line no-new -- as above
    new Gauge({
      name: 'sitewatch_db_pool_connections',
      help: 'PostgreSQL pool connections by pool (store: the pipeline; requests: the API and the app) and state ' +
        '(open, idle, waiting callers)',
      labelNames: ['pool', 'state'],
      registers,
      collect () {
        for (const p of sources.poolUse()) {
          this.labels(p.pool, 'open').set(p.open)
          this.labels(p.pool, 'idle').set(p.idle)
          this.labels(p.pool, 'waiting').set(p.waiting)
        }
      }
    })
  }

  /** Counts one API response (the API's onResponse hook). */
  observeRequest (method: string, route: string, status: number, seconds: number): void {
    this.http.labels(method, route, String(status)).observe(seconds)
  }

  /** Counts a state-changing request that wrote no audit event (the API's onResponse hook). */
  unauditedWrite (method: string, route: string): void {
    this.unaudited.labels(method, route).inc()
  }

  /** How many state-changing requests wrote no audit event (tests read it). */
  async unauditedWrites (): Promise<number> {
    return (await this.unaudited.get()).values.reduce((n, v) => n + v.value, 0)
  }

  async render (): Promise<{ contentType: string, body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() }
  }
}
