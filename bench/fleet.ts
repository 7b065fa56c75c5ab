// The fleet, measured from the watched sites' side: one API process and W worker
// processes (W = 1, 2, 4) on one PostgreSQL, default politeness, against a local server
// that plays every host, answers after FLEET_ANSWER_MS and records each request.
// 1. 40 hosts of 10 pages crawled at once: pages/s, and per host the most requests in
//    flight and the smallest gap between two starts.
// 2. A tenant registers a 400-page domain; one second later 20 small tenants register
//    8-page domains: how long until each small tenant's pages are all read (p95), beside
//    the polite ideal (its requests one host delay apart).
// Workers run WORKER_CONCURRENCY=4 here, so that one worker's slots, not the hosts,
// bound the first figure at W = 1.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'

const ANSWER_MS = Number(process.env.FLEET_ANSWER_MS ?? 100)
const DELAY_MS = 250
const PER_HOST = 4
const fmt = (n: number, d = 1) => n.toFixed(d)

interface Hit { host: string, start: number, inFlight: number }

/** Many hosts on one port: each answers robots.txt, a sitemap of its pages, and the pages. */
async function startHosts (pages: (host: string) => number) {
  const hits: Hit[] = []
  const inFlight = new Map<string, number>()
  const server = createServer((req, res) => {
    const host = (req.headers.host ?? '').split(':')[0]
    const path = (req.url ?? '/').split('?')[0]
    const n = (inFlight.get(host) ?? 0) + 1
    inFlight.set(host, n)
    hits.push({ host, start: performance.now(), inFlight: n })
    setTimeout(() => {
      inFlight.set(host, inFlight.get(host)! - 1)
      if (path === '/robots.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' })
        res.end(`User-agent: *\nAllow: /\nSitemap: https://${host}/sitemap.xml\n`)
      } else if (path === '/sitemap.xml') {
        res.writeHead(200, { 'content-type': 'application/xml' })
        res.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${
          Array.from({ length: pages(host) }, (_, i) => `<url><loc>https://${host}/p/${i}</loc></url>`).join('')}</urlset>`)
      } else {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        res.end(`<html><head><title>${host}${path}</title></head><body><main><h1>${host} ${path}</h1>` +
          `<p>Page ${path} of ${host}, with enough words to be read as a page of its own.</p></main></body></html>`)
      }
    }, ANSWER_MS)
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    origin,
    hits,
    /** Since `from`: the most requests in flight on one host, and the smallest gap between two starts on one. */
    manners (from: number) {
      const byHost = new Map<string, number[]>()
      let most = 0
      for (const h of hits.filter(x => x.start >= from)) {
        byHost.set(h.host, [...(byHost.get(h.host) ?? []), h.start])
        most = Math.max(most, h.inFlight)
      }
      let gap = Infinity
      for (const starts of byHost.values()) {
        starts.sort((a, b) => a - b)
        for (let i = 1; i < starts.length; i++) gap = Math.min(gap, starts[i] - starts[i - 1])
      }
      return { most, gap }
    },
    close: async () => await new Promise<void>(resolve => server.close(() => resolve()))
  }
}

async function freePort (): Promise<number> {
  return await new Promise<number>(resolve => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })
}

/** One run at W workers; returns the table's row. */
async function fleetRun (workers: number, databaseUrl: string) {
  const wide = Array.from({ length: 40 }, (_, i) => `w${i}.test`)
  const big = 'big.test'
  const small = Array.from({ length: 20 }, (_, i) => `s${i}.test`)
  const hosts = await startHosts(h => (h === big ? 400 : h.startsWith('s') ? 8 : 10))
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ADMIN_TOKEN: 'fleet-bench',
    CRAWL_HOST_MAP: [...wide, big, ...small].map(h => `${h}=${hosts.origin}`).join(','),
    CRAWL_PER_HOST_DELAY_MS: String(DELAY_MS),
    CRAWL_PER_HOST_CONCURRENCY: String(PER_HOST),
    WORKER_CONCURRENCY: '4',
    BROWSER_CONCURRENCY: '0',
    RATE_LIMIT_STANDARD_PER_MINUTE: '100000',
    RATE_LIMIT_HEAVY_PER_HOUR: '100000'
  }
  const main = fileURLToPath(new URL('../src/main.js', import.meta.url))
  const flags = ['--max-semi-space-size=2', '--max-old-space-size=512']
  const port = await freePort()
  const processes: ChildProcess[] = []
  const start = (role: string, extra: Record<string, string>) => {
    processes.push(spawn(process.execPath, [...flags, main], { env: { ...env, ROLE: role, ...extra }, stdio: ['ignore', 'ignore', 'inherit'] }))
  }
  start('api', { PORT: String(port) })
  const base = `http://127.0.0.1:${port}`
  const call = async (key: string, method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await request(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined
    })
    return (await res.body.json()) as any
  }
  for (let ready = false; !ready; await sleep(200)) {
    ready = await request(`${base}/readyz`).then(r => r.body.dump().then(() => r.statusCode === 200), () => false)
  }
  for (let i = 0; i < workers; i++) start('worker', { METRICS_PORT: String(await freePort()) })
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
    const from = performance.now()
    let queued = 0
    for (const d of domains) queued += (await call(wideKey, 'POST', `/api/domains/${d.id}/crawl`)).data.queued
    await drained(wideKey)
    const seconds = (performance.now() - from) / 1000
    const wideManners = hosts.manners(from)

    // 2. A big tenant, then twenty small ones a second later.
    const bigKey = await tenant('big')
    const smallKeys = await Promise.all(small.map(async (_h, i) => await tenant(`small ${i}`)))
    const from2 = performance.now()
    await call(bigKey, 'POST', '/api/domains', { domain: big })
    await sleep(1000)
    const took = await Promise.all(small.map(async (h, i) => {
      const asked = performance.now()
      await call(smallKeys[i], 'POST', '/api/domains', { domain: h })
      await drained(smallKeys[i])
      return (performance.now() - asked) / 1000
    }))
    took.sort((a, b) => a - b)
    const bothManners = hosts.manners(from2)
    return {
      workers,
      most: Math.max(wideManners.most, bothManners.most),
      gap: Math.min(wideManners.gap, bothManners.gap),
      smallP95: took[Math.min(took.length - 1, Math.floor(0.95 * took.length))],
      pagesPerSecond: queued / seconds
    }
  } finally {
    for (const p of processes) p.kill('SIGTERM')
    await Promise.all(processes.map(async p => p.exitCode === null ? await once(p, 'exit') : undefined))
    await hosts.close()
  }
}

/** Runs W = 1, 2, 4, each on a database of its own, and prints the table beside the polite ideal. */
export async function fleetBenchmark (
  freshDatabase: () => Promise<{ url: string, drop: () => Promise<void> }>
): Promise<void> {
  const turn = DELAY_MS * 1.05
  // A small tenant's requests, one host turn apart: robots.txt, the sitemap, its home page
  // (discovery), then its 9 pages, each answered in ANSWER_MS.
  const idealSmall = (2 + 9 - 1) * turn / 1000 + (ANSWER_MS / 1000) + 1
  const idealRate = 40 * 1000 / turn
  console.log(`\n== fleet: 1 API process and W workers on PostgreSQL (WORKER_CONCURRENCY=4, ${PER_HOST} per host, ` +
    `${DELAY_MS} ms between starts, pages answered in ${ANSWER_MS} ms)`)
  console.log('| W | most requests in flight on one host | smallest gap between starts on one host | small tenants\' crawls done (p95) | pages/s (40 hosts) |')
  console.log('|---|---|---|---|---|')
  const rows = []
  for (const w of [1, 2, 4]) {
    const db = await freshDatabase()
    try {
      const r = await fleetRun(w, db.url)
      rows.push(r)
      console.log(`| ${w} | ${r.most} ${r.most <= PER_HOST ? '✓' : '✗'} | ${fmt(r.gap, 0)} ms ${r.gap >= DELAY_MS * 0.9 ? '✓' : '✗'} | ${fmt(r.smallP95)} s | ${fmt(r.pagesPerSecond)} (${fmt(r.pagesPerSecond / rows[0].pagesPerSecond / w, 2)} × W × one worker's) |`)
    } finally {
      await db.drop()
    }
  }
  console.log(`polite ideal in this run: a small tenant done in about ${fmt(idealSmall)} s (its registration, discovery ` +
    `and 9 pages one turn apart); 40 hosts at most ${fmt(idealRate)} pages/s; one worker at most ${fmt(4 / (ANSWER_MS / 1000))} pages/s (4 slots)`)
  console.log('goals: politeness held for every W; small tenants\' p95 within 5 s of the ideal; pages/s ≥ 0.9 × W × one worker\'s while the hosts allow it')
}
