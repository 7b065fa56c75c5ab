// The fleet, measured from the watched sites' side: one API process and W worker
// processes (W = 1, 2, 4) on one PostgreSQL, default politeness, against a local server
// that plays every host, answers after FLEET_ANSWER_MS and records each request.
// 1. 40 hosts of 10 pages crawled at once: pages/s, and per host the most requests in
//    flight and the smallest gap between two starts.
// 2. A tenant registers a 400-page domain; one second later 20 small tenants register
//    8-page domains: how long until each small tenant's pages are all read (p95), beside
//    the polite ideal (its requests one host delay apart).
// Workers run WORKER_CONCURRENCY=4 here, so that one worker's slots, not the hosts,
// bound the first figure at W = 1 (FLEET_DEFAULTS=1: its default). Every process sizes its
// database connections itself (store/db.ts poolPlan), at its default. FLEET_POOLER=pgbouncer
// puts Debian's PgBouncer in transaction mode between the processes and the server, as
// docs/operations.md sets it up (the listeners go to the server: DATABASE_DIRECT_URL).
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { hostManners, startHosts } from '../test/helpers/fleet-hosts.js'
import { startPgBouncer, type PgBouncer } from '../test/helpers/pgbouncer.js'
import type { Hit } from '../test/helpers/fleet-sites.js'
import { apiClient, freePort, startService, stopServices, untilReady } from './service-process.js'

const ANSWER_MS = Number(process.env.FLEET_ANSWER_MS ?? 100)
const DELAY_MS = 250
const PER_HOST = 4
const fmt = (n: number, d = 1) => n.toFixed(d)

/** The machine's CPU time so far, busy and all, in clock ticks (Linux; zeros elsewhere). */
function cpuTicks (): { busy: number, all: number } {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/)
    const ticks = fields.map(Number)
    const all = ticks.reduce((a, b) => a + b, 0)
    return { busy: all - ticks[3] - ticks[4], all }
  } catch {
    return { busy: 0, all: 0 }
  }
}

/** Among `hits` since `from`: the most requests in flight on one host, and the smallest gap between starts on one. */
function manners (hits: Hit[], from: number) {
  const perHost = hostManners(hits, from)
  return { most: Math.max(0, ...perHost.map(m => m.maxInFlight)), gap: Math.min(...perHost.map(m => m.minGap)) }
}

/**
 * The most connections the server had open from clients while it ran, sampled every
 * 500 ms, and the log lines of `processes` that say the database refused or dropped one.
 */
function databaseWatch (serverUrl: string) {
  let most = 0
  let refusals = 0
  const stopping = new AbortController()
  const client = new pg.Client({ connectionString: serverUrl })
  const sampling = (async () => {
    await client.connect()
    while (!stopping.signal.aborted) {
      const { rows } = await client.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend'")
      most = Math.max(most, rows[0].n)
      await sleep(500)
    }
    await client.end()
  })().catch((err: Error) => { console.error(`sampling the server's connections failed: ${err.message}`) })
  return {
    heard: (line: string) => {
      if (/too many clients|no more connections|cannot be reached|connection lost/i.test(line)) refusals++
    },
    stop: async () => {
      stopping.abort()
      await sampling
      return { most, refusals }
    }
  }
}

/** One run at W workers; returns the table's row. */
async function fleetRun (workers: number, serverUrl: string) {
  const pooler: PgBouncer | undefined = process.env.FLEET_POOLER === 'pgbouncer'
    ? await startPgBouncer(serverUrl, 'transaction')
    : undefined
  const databaseUrl = pooler ? pooler.route(serverUrl) : serverUrl
  const database = databaseWatch(serverUrl)
  const wide = Array.from({ length: 40 }, (_, i) => `w${i}.test`)
  const big = 'big.test'
  const small = Array.from({ length: 20 }, (_, i) => `s${i}.test`)
  const hosts = await startHosts({
    answerMs: ANSWER_MS,
    pages: Object.fromEntries([
      ...wide.map(h => [h, 10]), [big, 400], ...small.map(h => [h, 8])
    ])
  })
  const env = {
    DATABASE_URL: databaseUrl,
    ...(pooler ? { DATABASE_DIRECT_URL: serverUrl } : {}),
    ADMIN_TOKEN: 'fleet-bench',
    CRAWL_HOST_MAP: [...wide, big, ...small].map(h => `${h}=${hosts.origin}`).join(','),
    CRAWL_PER_HOST_DELAY_MS: String(DELAY_MS),
    CRAWL_PER_HOST_CONCURRENCY: String(PER_HOST),
    // FLEET_DEFAULTS=1: every worker and pool setting at its default (the fleet on a stock server).
    ...(process.env.FLEET_DEFAULTS === '1' ? {} : { WORKER_CONCURRENCY: '4' }),
    BROWSER_CONCURRENCY: '0',
    RATE_LIMIT_STANDARD_PER_MINUTE: '100000',
    RATE_LIMIT_HEAVY_PER_HOUR: '100000'
  }
  const port = await freePort()
  const processes = [startService({ ...env, ROLE: 'api', PORT: String(port) }, database.heard)]
  const base = `http://127.0.0.1:${port}`
  const call = apiClient(base)
  await untilReady(base)
  const metricsPorts: number[] = []
  for (let i = 0; i < workers; i++) {
    metricsPorts.push(await freePort())
    processes.push(startService({ ...env, ROLE: 'worker', METRICS_PORT: String(metricsPorts[i]) }, database.heard))
  }
  await Promise.all(metricsPorts.map(async port => { await untilReady(`http://127.0.0.1:${port}`) }))
  /** The turns the workers gave up so far (sitewatch_host_turns_given_up_total), summed. */
  const turnsGivenUp = async () => {
    let sum = 0
    for (const port of metricsPorts) {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
      sum += Number(/^sitewatch_host_turns_given_up_total (\S+)$/m.exec(text)?.[1] ?? 0)
    }
    return sum
  }
  const tenant = async (name: string) => (await call('fleet-bench', 'POST', '/admin/orgs', { name, plan: 'enterprise' })).data.apiKey as string
  const drained = async (key: string) => {
    for (;;) {
      const q = (await call(key, 'GET', '/api/jobs/stats')).data
      if (q.waiting + q.active + q.delayed === 0) return
      await sleep(200)
    }
  }
  try {
    // 1. Forty hosts at once, after their discovery and baselines.
    const wideKey = await tenant('wide')
    const domains = await Promise.all(wide.map(async d => (await call(wideKey, 'POST', '/api/domains', { domain: d })).data))
    await drained(wideKey)
    const from = Date.now()
    const cpuFrom = cpuTicks()
    const givenUpBefore = await turnsGivenUp()
    // What the hosts allow: each host's crawls one turn apart from the moment they were asked for.
    const asked = await Promise.all(domains.map(async d => {
      const n = (await call(wideKey, 'POST', `/api/domains/${d.id}/crawl`)).data.queued as number
      return { n, answered: Date.now(), done: Date.now() - from + (n - 1) * DELAY_MS * 1.05 + ANSWER_MS }
    }))
    const queued = asked.reduce((sum, a) => sum + a.n, 0)
    const hostsAllow = queued / (Math.max(...asked.map(a => a.done)) / 1000)
    await drained(wideKey)
    const seconds = (Date.now() - from) / 1000
    const cpuTo = cpuTicks()
    const cpuBusy = (cpuTo.busy - cpuFrom.busy) / Math.max(1, cpuTo.all - cpuFrom.all)
    const wideManners = manners(await hosts.hits(), from)
    // Where the time goes: the gaps between a host's starts (one turn is 262 ms) and the last answer.
    const wideHits = (await hosts.hits()).filter(x => x.start >= from && wide.includes(x.host))
    const gaps = wide.flatMap(h => {
      const starts = wideHits.filter(x => x.host === h).map(x => x.start).sort((a, b) => a - b)
      return starts.slice(1).map((t, i) => t - starts[i])
    }).sort((a, b) => a - b)
    const gap = (p: number) => fmt(gaps[Math.floor(p * (gaps.length - 1))], 0)
    // How long each host waited for its first request, and how long its requests took from first to last.
    const spans = wide.map((h, i) => {
      const starts = wideHits.filter(x => x.host === h).map(x => x.start)
      return {
        first: Math.min(...starts) - from,
        afterAnswer: Math.min(...starts) - asked[i].answered,
        span: Math.max(...starts) - Math.min(...starts)
      }
    })
    const quantile = (xs: number[], p: number) => fmt([...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))], 0)
    console.log(`(W = ${workers}: ${wideHits.length} requests to the 40 hosts, the last answered ` +
      `${fmt((Math.max(...wideHits.map(x => x.end)) - from) / 1000, 2)} s after the first crawl was asked for; ` +
      `gaps between a host's starts p10/p50/p90 ${gap(0.1)}/${gap(0.5)}/${gap(0.9)} ms; a host's first request ` +
      `p50/max ${quantile(spans.map(x => x.first), 0.5)}/${quantile(spans.map(x => x.first), 1)} ms after the first ` +
      `crawl was asked for (p50/max ${quantile(spans.map(x => x.afterAnswer), 0.5)}/` +
      `${quantile(spans.map(x => x.afterAnswer), 1)} ms after its own ask was answered), its first to last p50/max ${quantile(spans.map(x => x.span), 0.5)}/` +
      `${quantile(spans.map(x => x.span), 1)} ms; ${await turnsGivenUp() - givenUpBefore} turns given up late)`)

    // 2. A big tenant, then twenty small ones a second later.
    const bigKey = await tenant('big')
    const smallKeys = await Promise.all(small.map(async (_h, i) => await tenant(`small ${i}`)))
    const from2 = Date.now()
    await call(bigKey, 'POST', '/api/domains', { domain: big })
    await sleep(1000)
    const took = await Promise.all(small.map(async (h, i) => {
      const asked = Date.now()
      await call(smallKeys[i], 'POST', '/api/domains', { domain: h })
      await drained(smallKeys[i])
      return (Date.now() - asked) / 1000
    }))
    took.sort((a, b) => a - b)
    const hits = await hosts.hits()
    const bothManners = manners(hits, from2)
    // The polite ideal of a small tenant: the requests its host saw (discovery's and its
    // crawls'), one host turn apart, the last one answered.
    const requests = small.map(h => hits.filter(x => x.host === h && x.start >= from2).length).sort((a, b) => a - b)
    const idealSmall = ((requests[requests.length - 1] - 1) * DELAY_MS * 1.05 + ANSWER_MS) / 1000
    const connections = await database.stop()
    console.log(`(W = ${workers}${pooler ? ', behind PgBouncer in transaction mode' : ''}: at most ` +
      `${connections.most} connections open on the server; ${connections.refusals} log lines of a refused or lost ` +
      `database connection${pooler ? `; PgBouncer refused ${pooler.log().split('no more connections').length - 1} clients` : ''})`)
    return {
      workers,
      most: Math.max(wideManners.most, bothManners.most),
      gap: Math.min(wideManners.gap, bothManners.gap),
      smallP95: took[Math.min(took.length - 1, Math.floor(0.95 * took.length))],
      idealSmall,
      pagesPerSecond: queued / seconds,
      hostsAllow,
      cpuBusy
    }
  } finally {
    await stopServices(processes)
    await hosts.close()
    await database.stop()
    await pooler?.stop()
  }
}

/** Runs W = 1, 2, 4, each on a database of its own, and prints the table beside the polite ideal. */
export async function fleetBenchmark (
  freshDatabase: () => Promise<{ url: string, drop: () => Promise<void> }>
): Promise<void> {
  console.log(`\n== fleet: 1 API process and W workers on PostgreSQL (WORKER_CONCURRENCY=4, ${PER_HOST} per host, ` +
    `${DELAY_MS} ms between starts, pages answered in ${ANSWER_MS} ms)`)
  console.log('| W | most requests in flight on one host | smallest gap between starts on one host | small tenants\' crawls done (p95) | polite ideal | pages/s (40 hosts) | the hosts allow | machine\'s CPU busy meanwhile |')
  console.log('|---|---|---|---|---|---|---|---|')
  const rows = []
  for (const w of (process.env.FLEET_W ?? '1,2,4').split(',').map(Number)) {
    const db = await freshDatabase()
    try {
      const r = await fleetRun(w, db.url)
      rows.push(r)
      console.log(`| ${w} | ${r.most} ${r.most <= PER_HOST ? '✓' : '✗'} | ${fmt(r.gap, 0)} ms ${r.gap >= DELAY_MS * 0.9 ? '✓' : '✗'} | ${fmt(r.smallP95)} s | ${fmt(r.idealSmall)} s | ${fmt(r.pagesPerSecond)} ` +
        `(${fmt(r.pagesPerSecond / Math.min(w * rows[0].pagesPerSecond, r.hostsAllow), 2)} × the lesser of W × one worker's and the hosts') ` +
        `| ${fmt(r.hostsAllow)} | ${fmt(100 * r.cpuBusy, 0)} % |`)
    } finally {
      await db.drop()
    }
  }
  console.log('polite ideal: a small tenant\'s requests (discovery\'s and its crawls\'), one host turn apart. ' +
    'The hosts allow: each host\'s crawls one turn apart from the moment they were asked for. ' +
    `One worker's 4 slots allow at most ${fmt(4 / (ANSWER_MS / 1000))} pages/s.`)
  console.log('goals: politeness held for every W; small tenants\' p95 within 5 s of the ideal; ' +
    'pages/s ≥ 0.9 × W × one worker\'s while the hosts allow it')
}
