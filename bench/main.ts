// Longer than 300 lines on purpose: the whole benchmark and its report, read top to bottom.
// npm run bench — crawl benchmark. Serves a generated site locally, registers it,
// discovers and crawls every page, mutates a tenth of them (and moves the noise of all),
// crawls again, and prints throughput, per-page analysis time and peak memory; then the
// same on PostgreSQL when one answers. BENCH_PAGES (default 1000) sets the site's size.
import { fork, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import pg from 'pg'
import { sql } from 'kysely'
import { request } from 'undici'
import { loadConfig } from '../src/config.js'
import { startService, type Service } from '../src/service.js'
import { createOrg } from '../src/services/orgs.js'
import { describeReads, pooledReads, probeReads, type ReadTimes } from './reads-during.js'
import { freePort, START, startService as startServiceProcess, stopServices, untilReady } from './service-process.js'

const PAGES = Number(process.env.BENCH_PAGES ?? 1000)
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]
}
const fmt = (n: number, d = 1) => n.toFixed(d)

let peakRss = 0
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss)
}, 50)
if (process.env.BENCH_MEMORY_TRACE) {
  setInterval(() => {
    const m = process.memoryUsage()
    console.log(
      `  [memory] rss ${fmt(m.rss / 1048576, 0)} heap ` +
      `${fmt(m.heapUsed / 1048576, 0)}/${fmt(m.heapTotal / 1048576, 0)} external ${fmt(m.external / 1048576, 0)} ` +
      `buffers ${fmt(m.arrayBuffers / 1048576, 0)} MB`
    )
  }, 1000).unref()
}

async function analysisBenchmark (): Promise<void> {
  // Loaded here, not in the scenarios' processes, whose memory is the service's.
  const { compareContent, readPage } = await import('../src/detection/detect.js')
  const { pageHtml } = await import('./site.js')
  const times: number[] = []
  const sizes: number[] = []
  for (let i = 0; i < 200; i++) {
    const before = pageHtml(i, 0, false)
    const after = pageHtml(i, 1, i % 10 === 0)
    const previous = readPage(before)
    const started = performance.now()
    const current = readPage(after)
    if (current.hash !== previous.hash) compareContent(previous.text, current, 'pricing')
    times.push(performance.now() - started)
    sizes.push(after.length)
  }
  const around100k = times.filter((_, i) => sizes[i] >= 85_000 && sizes[i] <= 115_000)
  console.log(
    'extraction + diff + classification, per page (200 pages of ' +
    `${fmt(Math.min(...sizes) / 1024, 0)}–${fmt(Math.max(...sizes) / 1024, 0)} KB):`
  )
  console.log(
    `  all pages:      median ${fmt(percentile(times, 0.5), 2)} ms   p95 ${fmt(percentile(times, 0.95), 2)} ms`
  )
  console.log(
    `  ~100 KB pages:  median ${fmt(percentile(around100k, 0.5), 2)} ms   p95 ` +
    `${fmt(percentile(around100k, 0.95), 2)} ms   (target: median < 5 ms)`
  )
  // The same pages as intelligence pricing pages: their plans are read into the hash at
  // every check, and both versions' plans when the text moved (see readPage, compareContent).
  const structured: number[] = []
  for (let i = 0; i < 200; i++) {
    const before = pageHtml(i, 0, false)
    const after = pageHtml(i, 1, i % 10 === 0)
    const previous = readPage(before, undefined, undefined, 'pricing')
    const started = performance.now()
    const current = readPage(after, undefined, undefined, 'pricing')
    if (current.hash !== previous.hash) compareContent(previous.text, current, 'pricing', undefined, { before, after })
    structured.push(performance.now() - started)
  }
  const structured100k = structured.filter((_, i) => sizes[i] >= 85_000 && sizes[i] <= 115_000)
  console.log(
    `  read as tables (intelligence pricing pages): median ${fmt(percentile(structured, 0.5), 2)} ms, ` +
    `~100 KB median ${fmt(percentile(structured100k, 0.5), 2)} ms (text only above)`
  )
}

async function waitFor (service: Service, what: string, done: () => Promise<boolean>, everyMs = 100): Promise<void> {
  const until = Date.now() + 30 * 60_000
  while (!(await done())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, everyMs))
  }
}

async function pendingJobs (service: Service): Promise<number> {
  const r = await sql<{
    n: number
  }>`SELECT count(*)::int AS n FROM jobs WHERE name IN ('crawl.page', 'discover.pages') AND state IN ('waiting', 'active')`.execute(
    service.store.db
  )
  return r.rows[0].n
}

/** The generated site, served by a child process. */
async function startSite (): Promise<{
  origin: string
  mutate: (noise: number[], real: number[]) => Promise<void>
  close: () => void
}> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./site-server.js', import.meta.url)), {
    env: { ...process.env, BENCH_PAGES: String(PAGES) },
    execArgv: []
  })
  const origin = await new Promise<string>(resolve => child.once('message', (m: any) => resolve(m.origin)))
  return {
    origin,
    mutate: async (noise, real) => {
      const done = new Promise(resolve => child.once('message', resolve))
      child.send({ noise, real })
      await done
    },
    close: () => {
      child.disconnect()
    }
  }
}

/** The API's rate limits, lifted for the bench's own calls and reads. */
const RATES = { RATE_LIMIT_STANDARD_PER_MINUTE: '100000', RATE_LIMIT_HEAVY_PER_HOUR: '100000' }

async function scenario (label: string, databaseUrl: string | undefined): Promise<void> {
  const site = await startSite()
  const dataDir = mkdtempSync(join(tmpdir(), 'sitewatch-bench-'))
  peakRss = process.memoryUsage().rss
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl ?? '',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    CRAWL_HOST_MAP: `bench.test=${site.origin}`,
    CRAWL_PER_HOST_CONCURRENCY: '64',
    CRAWL_PER_HOST_DELAY_MS: '0',
    WORKER_CONCURRENCY: process.env.BENCH_CONCURRENCY ?? '64',
    JOB_POLLING_SECONDS: '0.5',
    DISCOVERY_MAX_FETCHES: '20',
    ...RATES,
    ...(process.env.ANALYSIS_THREADS ? { ANALYSIS_THREADS: process.env.ANALYSIS_THREADS } : {})
  })
  const service = await startService(config, { logger: false, onBootstrapKey: () => {} })
  console.log(`(service started: RSS ${fmt(process.memoryUsage().rss / 1024 / 1024, 0)} MB)`)
  const processes: ChildProcess[] = []
  try {
    const { apiKey } = await createOrg(service.store.db, `bench-${Date.now()}`, 'enterprise')
    // undici's request, which the service has loaded anyway: Node's own fetch would add
    // its ~10 MB to the memory measured.
    const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
      const res = await request(`${service.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined
      })
      return (await res.body.json()) as any
    }
    console.log(`\n== ${label}: ${PAGES} pages`)
    const t0 = performance.now()
    const domain = (await call('POST', '/api/domains', { domain: 'bench.test' })).data
    // Discovery keeps at most 10,000 candidates, so a bigger site is monitored in part.
    await waitFor(service, 'discovery and baseline crawls', async () => {
      const r = await sql<{
        snaps: number
        pages: number
      }>`SELECT (SELECT count(*)::int FROM snapshots) AS snaps, (SELECT count(*)::int FROM pages) AS pages`.execute(
        service.store.db
      )
      return r.rows[0].pages > 0 && r.rows[0].snaps >= r.rows[0].pages && (await pendingJobs(service)) === 0
    })
    const monitored = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pages`.execute(service.store.db)).rows[0]
      .n
    if (monitored < PAGES) {
      console.log(`(discovery added ${monitored} of the ${PAGES} pages: a first discovery watches at most 500; ` +
        'the changes expected are those of the pages watched)')
    }
    // Which of the site's pages are watched: "/" shows page 0, as /p/0 does.
    const watchedUrls = (await sql<{ url: string }>`SELECT url FROM pages`.execute(service.store.db)).rows.map(r => r.url)
    const pageOf = (url: string) => new URL(url).pathname === '/' ? 0 : Number(/^\/p\/(\d+)$/.exec(new URL(url).pathname)?.[1] ?? -1)
    const watchedOf = (pages: number[]) => watchedUrls.filter(u => pages.includes(pageOf(u))).length
    const first = (performance.now() - t0) / 1000
    console.log(`discover + first crawl (baselines): ${fmt(first)} s, ${fmt(monitored / first)} pages/s`)

    const probedPage = (await sql<{ id: string }>`SELECT id FROM pages ORDER BY url DESC LIMIT 1`
      .execute(service.store.db)).rows[0].id
    // BENCH_API_PROCESS=1, on PostgreSQL: the reads are asked of an API process of its own
    // (ROLE=api), as operations.md deploys the service, not of the one that crawls.
    const readsUrl = databaseUrl && process.env.BENCH_API_PROCESS === '1'
      ? await (async () => {
        const port = await freePort()
        const child = startServiceProcess({ ROLE: 'api', DATABASE_URL: databaseUrl, PORT: String(port), ...RATES })
        processes.push(child)
        const url = `http://127.0.0.1:${port}`
        await untilReady(url)
        console.log(`(the reads are asked of an API process of their own, ${url})`)
        return url
      })()
      : service.url!
    const range = (from: number, step: number) =>
      Array.from({ length: Math.ceil((PAGES - from) / step) }, (_, k) => from + k * step).filter(i => i < PAGES)
    const changedBy = async () =>
      (
        await sql<{ pages: number }>`SELECT count(DISTINCT page_id)::int AS pages FROM changes`.execute(
          service.store.db
        )
      ).rows[0].pages
    const readsDuringCrawls: ReadTimes[] = []
    const recrawl = async (label: string, expectChanged: number) => {
      const before = await changedBy()
      const startedAt = Date.now()
      const started = performance.now()
      const cpuBefore = process.cpuUsage()
      const serverBefore = databaseUrl ? postgresCpuSeconds() : 0
      const loopBefore = performance.eventLoopUtilization()
      const turns = monitorEventLoopDelay({ resolution: 5 })
      turns.enable()
      const crawl = (await call('POST', `/api/domains/${domain.id}/crawl`)).data
      const queuedIn = (performance.now() - started) / 1000
      const probe = probeReads(readsUrl, apiKey, domain.id, probedPage)
      // Polled slowly, so that the benchmark's own queries barely load the database; the
      // crawl ends when its last job completed, as the queue recorded it.
      await waitFor(service, label, async () => (await pendingJobs(service)) === 0, 500)
      const waited = (performance.now() - started) / 1000
      const probed = await probe.stop()
      const cpu = process.cpuUsage(cpuBefore)
      const serverCpu = databaseUrl ? postgresCpuSeconds() - serverBefore : 0
      const loop = performance.eventLoopUtilization(loopBefore)
      turns.disable()
      const ended = (
        await sql<{
          at: Date
        }>`SELECT max(finished_at) AS at FROM jobs WHERE name = 'crawl.page' AND id = ANY(${crawl.jobIds}::uuid[])`.execute(
          service.store.db
        )
      ).rows[0].at
      const seconds = (new Date(ended).getTime() - startedAt) / 1000
      const changed = (await changedBy()) - before
      const failed = (
        await sql<{
          n: number
        }>`SELECT count(*)::int AS n FROM jobs WHERE name = 'crawl.page' AND state = 'failed'`.execute(
          service.store.db
        )
      ).rows[0].n
      console.log(
        `${label}: ${crawl.queued} pages in ${fmt(seconds)} s = ${fmt(crawl.queued / seconds)} page checks/s end to end`
      )
      console.log(
        `  pages with a reported change: ${changed} (expected ${expectChanged}); noise-only pages reported: ` +
        `${Math.max(0, changed - expectChanged)}; failed jobs: ${failed}`
      )
      console.log(
        `  ${fmt(queuedIn, 2)} s to queue the crawls; CPU: ${fmt((cpu.user + cpu.system) / 1e6 / waited, 2)} cores ` +
        `busy, the service's main thread ${fmt(loop.utilization * 100, 0)}% busy, its event loop late by ` +
        `${fmt(turns.percentile(50) / 1e6, 0)} ms at p50, ${fmt(turns.percentile(95) / 1e6, 0)} at p95, ` +
        `${fmt(turns.max / 1e6, 0)} at most`
      )
      console.log(
        `  CPU per page check: the service ${fmt((cpu.user + cpu.system) / 1e3 / crawl.queued, 1)} ms` +
        (databaseUrl ? `, the PostgreSQL server ${fmt(serverCpu * 1e3 / crawl.queued, 1)} ms` : ' (database included)')
      )
      console.log(`  reads meanwhile (target: p95 <= 100 ms): ${describeReads(probed)}`)
      readsDuringCrawls.push(probed)
    }

    // The same reads with no crawl running: the floor of the reads' times during one.
    const quiet = probeReads(readsUrl, apiKey, domain.id, probedPage)
    await new Promise(resolve => setTimeout(resolve, 3000))
    console.log(`reads with no crawl running: ${describeReads(await quiet.stop())}`)

    // The issue's scenario: a tenth of the pages change (half for real, half only in
    // their noise); the rest are untouched and answer conditional requests with 304.
    const real = range(0, 20)
    await site.mutate(range(10, 20), real)
    await recrawl('second crawl (a tenth mutated: half real, half noise; target >= 300/s)', watchedOf(real))
    // Harder: every page's noise moves (no 304s), and another tenth changes for real.
    const real2 = range(5, 10)
    await site.mutate(
      range(0, 1).filter(i => !real2.includes(i)),
      real2
    )
    await recrawl(
      "third crawl (every page's noise moved, a tenth real; target >= " + (databaseUrl ? '400' : '250') + '/s)',
      watchedOf(real2)
    )
    // Nothing moved: every page answers 304 to its ETag.
    await recrawl('fourth crawl (nothing changed: every page answers 304)', 0)
    // Each crawl lasts seconds, and asks each read a few times: the three together give a p95 that is not its most.
    console.log(`reads during the three recrawls (target: p95 <= 100 ms): ${describeReads(pooledReads(readsDuringCrawls))}`)
    const size = databaseUrl
      ? (await sql<{ bytes: string }>`SELECT pg_database_size(current_database())::text AS bytes`.execute(
          service.store.db
        )).rows[0].bytes
      : String(directorySize(dataDir))
    const snapshots = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM snapshots`.execute(service.store.db))
      .rows[0].n
    console.log(
      `database size: ${fmt(Number(size) / 1048576, 0)} MB for ${monitored} pages and ${snapshots} snapshots ` +
      `(${fmt(Number(size) / 1024 / monitored, 0)} KB per page)`
    )
    console.log(
      'peak memory (RSS of the service process: API, workers and ' +
      `${databaseUrl ? 'database client' : 'the embedded database'}): ${fmt(peakRss / 1024 / 1024, 0)} MB`
    )
    // After the peak is read: the reference's own fetches run in this process.
    const bare = await bareFetchRate(site.origin)
    console.log(
      `reference, in this run: fetching the ${PAGES} pages (64 at a time) and counting their tags with a regular ` +
      `expression: ${fmt(bare.full)} pages/s; conditional requests answered 304: ${fmt(bare.notModified)} pages/s`
    )
  } finally {
    await stopServices(processes)
    await service.stop()
    site.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/**
 * What a bare client does with the same site: fetch every page (64 at a time) and count
 * its tags, then ask again with the ETags and get 304s. The ceiling for a crawler.
 */
async function bareFetchRate (origin: string): Promise<{ full: number, notModified: number }> {
  const etags: string[] = new Array(PAGES)
  const pass = async (conditional: boolean) => {
    let next = 0
    let tags = 0
    const started = performance.now()
    await Promise.all(Array.from({ length: 64 }, async () => {
      while (next < PAGES) {
        const i = next++
        const res = await request(`${origin}/p/${i}`, {
          headers: conditional ? { 'if-none-match': etags[i] } : {}
        })
        const body = await res.body.text()
        etags[i] = String(res.headers.etag)
        tags += body.match(/<[a-z]/g)?.length ?? 0
      }
    }))
    if (tags < 0) throw new Error('unreachable')
    return PAGES / ((performance.now() - started) / 1000)
  }
  const full = await pass(false)
  return { full, notModified: await pass(true) }
}

/** Bytes under `dir`, as du counts them (the embedded database's files). */
function directorySize (dir: string): number {
  let bytes = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size
  }
  return bytes
}

/**
 * CPU seconds used so far by the local PostgreSQL server (it is this machine's): its live
 * processes, and the backends that have ended, which the postmaster has reaped.
 */
function postgresCpuSeconds (): number {
  const processes = new Map<number, { parent: number, own: number, reaped: number }>()
  for (const pid of readdirSync('/proc').filter(d => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const close = stat.lastIndexOf(')')
      if (!stat.slice(stat.indexOf('(') + 1, close).startsWith('postgres')) continue
      // Fields from the 3rd (state): ppid is the 4th, utime/stime the 14th/15th, cutime/cstime the 16th/17th.
      const f = stat.slice(close + 2).split(' ').map(Number)
      processes.set(Number(pid), { parent: f[1], own: f[11] + f[12], reaped: f[13] + f[14] })
    } catch {
      // the process ended meanwhile
    }
  }
  let ticks = 0
  for (const p of processes.values()) ticks += p.own + (processes.has(p.parent) ? 0 : p.reaped)
  return ticks / 100
}

async function postgresAnswers (): Promise<boolean> {
  const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 })
  try {
    await c.connect()
    await c.end()
    return true
  } catch {
    return false
  }
}

async function freshDatabase (): Promise<{ url: string, drop: () => Promise<void> }> {
  const name = `sw_bench_${Date.now()}`
  const admin = new pg.Client({ connectionString: PG_URL })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(PG_URL)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      // The pool's last connections may still be closing when stop() resolves.
      await new Promise(resolve => setTimeout(resolve, 500))
      const c = new pg.Client({ connectionString: PG_URL })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    }
  }
}

/** Each scenario runs in a fresh process, so its memory figure is its own. */
async function inChild (args: string[], env: Record<string, string> = {}): Promise<void> {
  const asStarted = ['--scenario', '--api', '--web'].includes(args[0])
  const child = fork(fileURLToPath(import.meta.url), args, {
    stdio: 'inherit',
    // The service runs as `npm start` runs it (its heap sizes, its allocator's arenas), as it does in use.
    env: { ...process.env, ...(asStarted ? START.env : {}), ...env },
    execArgv: asStarted ? START.flags : []
  })
  const code = await new Promise<number | null>(resolve => child.once('exit', resolve))
  if (code !== 0) throw new Error(`scenario ${args.join(' ')} exited with ${code}`)
}

const [mode, target] = process.argv.slice(2)
if (mode === '--analysis') {
  await analysisBenchmark()
} else if (mode === '--changes') {
  const { changesBenchmark } = await import('./changes.js')
  await changesBenchmark(target)
} else if (mode === '--web') {
  const { webBenchmark } = await import('./web.js')
  await webBenchmark(target)
} else if (mode === '--api') {
  const { apiBenchmark } = await import('./api.js')
  await apiBenchmark(target)
} else if (mode === '--research') {
  const { researchBenchmark } = await import('./research.js')
  await researchBenchmark()
} else if (mode === '--fleet') {
  const { fleetBenchmark } = await import('./fleet.js')
  await fleetBenchmark(freshDatabase)
} else if (mode === '--scenario') {
  await scenario(
    target === 'pglite' ? 'embedded database (PGlite)' : `PostgreSQL (${PG_URL})`,
    target === 'pglite' ? undefined : target
  )
} else {
  await analysisBenchmark()
  console.log(`\n(the service runs as npm start runs it: ${Object.entries(START.env).map(([k, v]) => `${k}=${v} `).join('')}node ${START.flags.join(' ')})`)
  await inChild(['--scenario', 'pglite'])
  await inChild(['--api', 'pglite'])
  await inChild(['--web', 'pglite'])
  await inChild(['--research'])
  if (process.env.BENCH_SKIP_POSTGRES) {
    console.log('\n(PostgreSQL skipped: BENCH_SKIP_POSTGRES is set)')
  } else if (await postgresAnswers()) {
    const db = await freshDatabase()
    try {
      await inChild(['--scenario', db.url])
    } finally {
      await db.drop()
    }
    const apiDb = await freshDatabase()
    try {
      await inChild(['--api', apiDb.url])
    } finally {
      await apiDb.drop()
    }
    const webDb = await freshDatabase()
    try {
      await inChild(['--web', webDb.url])
    } finally {
      await webDb.drop()
    }
    if (!process.env.BENCH_SKIP_CHANGES) {
      const big = await freshDatabase()
      try {
        await inChild(['--changes', big.url])
      } finally {
        await big.drop()
      }
    }
    const { fleetBenchmark } = await import('./fleet.js')
    await fleetBenchmark(freshDatabase)
  } else {
    console.log(`\n(PostgreSQL at ${PG_URL} does not answer: set BENCH_DATABASE_URL to benchmark it)`)
  }
  await memoryAtScale()
}

/**
 * The same scenarios at BENCH_MEMORY_PAGES (default 10,000; 0 skips them), for their peak
 * memory beside the 1,000-page runs': it must not grow with the number of pages.
 */
async function memoryAtScale (): Promise<void> {
  const pages = Number(process.env.BENCH_MEMORY_PAGES ?? 10_000)
  if (!pages) return
  console.log(`\n== memory at ${pages.toLocaleString('en')} pages (compare the peaks with the runs above)`)
  const env = { BENCH_PAGES: String(pages) }
  await inChild(['--scenario', 'pglite'], env)
  if (process.env.BENCH_SKIP_POSTGRES || !(await postgresAnswers())) return
  const db = await freshDatabase()
  try {
    await inChild(['--scenario', db.url], env)
  } finally {
    await db.drop()
  }
}
clearInterval(sampler)
