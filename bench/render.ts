// npm run bench:render — rendered checks end to end. A local site of script-built pages
// (empty until their script runs) is registered through the API, discovered and crawled
// in the browser; then a tenth of its pages change and the whole domain is crawled again.
// Printed: the recrawl's checks/s (API in, change out), each job's time, the peak memory
// (PSS) of the service's process and of its browsers, and browsers left once it stops.
// The reference in the same run: a bare playwright-core + Chromium rendering the same
// pages at the same concurrency (a fresh context per page, read once the network is idle
// as Playwright defines it, no picture), the way a script that reads rendered pages would.
// While the recrawl runs, the reads of reads-during.ts are timed (BENCH_RENDER_READS=0: not asked).
// BENCH_RENDER_BARE=0 skips the reference (while one change is measured again and again).
// BENCH_RENDER_PAGES (default 200) sets the site's size; BROWSER_CONCURRENCY (default 2).
// BENCH_RENDER_NOISE=1: the recrawl is a noisy one, as on the real web: every page's noise
// moves (its "updated … ago", its build id, the order of its rotating testimonials) and a
// tenth of the pages change for real.
// BENCH_RENDER_SHAPE=app (the default; `plain` is the older light page): each page is an app
// shell as script-built sites serve them: no visible text in its HTML, a bundle of about
// 400 KB of script, its state a base64 JSON blob in an inline script, both allowed by a
// per-response CSP nonce, the page built by the bundle from that state.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { shippedChromium } from '../src/crawl/chromium.js'
import { WATCHED_BY_FIRST_DISCOVERY } from '../src/services/pages.js'
import { apiClient, freePort, startService, stopServices, untilReady } from './service-process.js'
import { request } from 'undici'
import { describeReads, probeReads } from './reads-during.js'

const PAGES = Number(process.env.BENCH_RENDER_PAGES ?? 200)
const CONCURRENCY = Number(process.env.BROWSER_CONCURRENCY ?? 2)
const NOISY = Boolean(process.env.BENCH_RENDER_NOISE)
const READS = process.env.BENCH_RENDER_READS !== '0'
const BARE = process.env.BENCH_RENDER_BARE !== '0'
const fmt = (n: number, d = 1) => n.toFixed(d)
const mb = (bytes: number) => `${fmt(bytes / 1048576, 0)} MB`
const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]

const QUOTES = [
  '<h3>Ada, CTO</h3><p>We moved our whole build to it in a week and never looked back.</p>',
  '<h3>Grace, engineer</h3><p>The support team answered every question within the hour.</p>',
  '<h3>Linus, founder</h3><p>Pricing that stays predictable as the team grows.</p>'
]

/**
 * A pricing page that is empty until its script runs; `version` moves its prices, `noise`
 * what moves on every visit without the page changing.
 */
const page = (n: number, version: number, noise = 0) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Pricing ${n}</title>
<style>body{font:16px sans-serif;margin:40px} .plan{display:inline-block;width:30%;border:1px solid #ccc;margin:4px;padding:8px}</style></head>
<body><div id="root"></div><script>
const plans = [['Starter', ${9 + (n % 7) + version}], ['Team', ${29 + (n % 11)}], ['Business', ${99 + (n % 13)}]]
document.getElementById('root').innerHTML = '<h1>Plans for team ' + ${n} + '</h1>' +
  plans.map(([name, price]) => '<div class="plan"><h2>' + name + '</h2><p>$' + price + '/month</p><ul>' +
    Array.from({ length: 8 }, (_, i) => '<li>Feature ' + i + ' of ' + name + '</li>').join('') + '</ul></div>').join('') +
  '<p>' + 'All plans include unlimited projects and email support. '.repeat(30) + '</p>' +
  '<section><h2>What teams say</h2>' + ${JSON.stringify([...QUOTES.slice(noise % 3), ...QUOTES.slice(0, noise % 3)].join(''))} +
  '</section><footer><p>Prices updated ${noise + 2} minutes ago. Build ${(0x9a3f00a1b2c3 + noise * 7919).toString(16)}</p></footer>'
</script></body></html>`

const SHAPE = process.env.BENCH_RENDER_SHAPE ?? 'app'

/**
 * The app shell's bundle: a framework's weight of functions the browser parses and compiles
 * (most never run, as in a real bundle), and the one that builds the page from its state.
 */
const BUNDLE = `(() => {
${Array.from({ length: 2500 }, (_, i) => `function m${i} (a, b) { const o = { k: a, v: b, i: ${i} }; return Object.keys(o).map(x => String(o[x]) + '${'x'.repeat(60)}').join('|') }`).join('\n')}
const h = (tag, attrs, ...kids) => {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v)
  for (const kid of kids.flat()) el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)))
  return el
}
const state = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(window.__STATE__), c => c.charCodeAt(0))))
document.getElementById('app').replaceChildren(
  h('header', { class: 'nav' }, h('nav', {}, state.nav.map(n => h('a', { href: '/' + n.toLowerCase() }, n)))),
  h('main', {},
    h('h1', {}, state.title),
    h('div', { class: 'plans' }, state.plans.map(p => h('section', { class: 'plan' },
      h('h2', {}, p.name), h('p', { class: 'price' }, '$' + p.price + '/month'),
      h('ul', {}, p.features.map(f => h('li', {}, f)))))),
    h('p', {}, state.blurb),
    h('section', { class: 'quotes' }, h('h2', {}, 'What teams say'), state.quotes.map(q => h('blockquote', {}, h('h3', {}, q[0]), h('p', {}, q[1]))))),
  h('footer', {}, h('p', {}, 'Prices updated ' + state.updated + ' minutes ago. Build ' + state.build)))
})()
`
const BUNDLE_PATH = '/assets/app.3f9c2a.js'

/** The same page as `page`, as an app shell builds it: see SHAPE. */
const appShell = (n: number, version: number, noise = 0) => {
  const nonce = Buffer.from(`${n}.${Date.now()}.${Math.random()}`).toString('base64')
  const quotes = QUOTES.map(q => /<h3>(.*)<\/h3><p>(.*)<\/p>/.exec(q)!.slice(1, 3))
  const state = {
    title: `Plans for team ${n}`,
    nav: ['Product', 'Pricing', 'Customers', 'Docs', 'Blog', 'Careers'],
    plans: [['Starter', 9 + (n % 7) + version], ['Team', 29 + (n % 11)], ['Business', 99 + (n % 13)]].map(([name, price]) => ({
      name, price, features: Array.from({ length: 8 }, (_, i) => `Feature ${i} of ${name}`)
    })),
    blurb: 'All plans include unlimited projects and email support. '.repeat(30),
    quotes: [...quotes.slice(noise % 3), ...quotes.slice(0, noise % 3)],
    updated: noise + 2,
    build: (0x9a3f00a1b2c3 + noise * 7919).toString(16)
  }
  return {
    csp: `default-src 'self'; script-src 'nonce-${nonce}'; style-src 'self' 'nonce-${nonce}'`,
    html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pricing ${n}</title>
<style nonce="${nonce}">body{font:16px sans-serif;margin:40px} .plan{display:inline-block;width:30%;border:1px solid #ccc;margin:4px;padding:8px}</style>
<script nonce="${nonce}">window.__STATE__ = "${Buffer.from(JSON.stringify(state)).toString('base64')}"</script>
<script nonce="${nonce}" src="${BUNDLE_PATH}" defer></script></head>
<body><div id="app"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>`
  }
}

/** Proportional set size of a process, in bytes (its share of pages it shares with others). */
function pss (pid: number | 'self'): number {
  try {
    return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) * 1024
  } catch {
    return 0 // gone
  }
}

/**
 * Of a process's PSS, what its WebAssembly memories hold (PGlite's heap). V8 reserves each
 * memory gigabytes of address space: its pages in use are a read-write mapping that runs
 * straight into an inaccessible one of a gigabyte or more.
 */
function wasmPss (pid: number): number {
  let bytes = 0
  try {
    const mappings = readFileSync(`/proc/${pid}/smaps`, 'utf8').split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/).map(text => {
      const [range, perms] = text.split(' ', 2)
      const [start, end] = range.split('-')
      return {
        start,
        end,
        perms,
        sizeKb: Number(/^Size:\s+(\d+) kB/m.exec(text)?.[1] ?? 0),
        pssKb: Number(/^Pss:\s+(\d+) kB/m.exec(text)?.[1] ?? 0)
      }
    })
    mappings.forEach((m, i) => {
      const next = mappings[i + 1]
      if (m.perms === 'rw-p' && next?.start === m.end && next.perms === '---p' && next.sizeKb >= 1024 * 1024) {
        bytes += m.pssKb * 1024
      }
    })
  } catch { /* gone */ }
  return bytes
}

/** This machine's Chromium processes: their PSS together, and how many there are. */
function browsers (): { bytes: number, processes: number } {
  let bytes = 0
  let processes = 0
  for (const pid of readdirSync('/proc').filter(p => /^\d+$/.test(p))) {
    try {
      if (!/chromium|chrome/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0])) continue
      bytes += pss(Number(pid))
      processes++
    } catch { /* gone */ }
  }
  return { bytes, processes }
}

const versions = new Map<number, number>()
let noise = 0
const site = createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0]
  if (path === '/robots.txt') {
    res.writeHead(200, { 'content-type': 'text/plain' })
    res.end('User-agent: *\nAllow: /\nSitemap: https://render.test/sitemap.xml\n')
    return
  }
  if (path === '/sitemap.xml') {
    res.writeHead(200, { 'content-type': 'application/xml' })
    res.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${
      Array.from({ length: PAGES }, (_, k) => `<url><loc>https://render.test/pricing/${k}</loc></url>`).join('')
    }</urlset>`)
    return
  }
  if (path === BUNDLE_PATH && SHAPE === 'app') {
    res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'public, max-age=31536000, immutable' })
    res.end(BUNDLE)
    return
  }
  const n = path === '/' ? 0 : Number(/^\/pricing\/(\d+)$/.exec(path)?.[1] ?? -1)
  if (n < 0 || n >= PAGES) {
    res.writeHead(404)
    res.end()
    return
  }
  if (SHAPE === 'app') {
    const { csp, html } = appShell(n, versions.get(n) ?? 0, noise)
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp })
    res.end(html)
    return
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
  res.end(page(n, versions.get(n) ?? 0, noise))
})
await new Promise<void>(resolve => site.listen(0, '127.0.0.1', resolve))
const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`

// The reference: a bare browser renders every page once, CONCURRENCY at a time.
const bareRate = await (async () => {
  if (!BARE) return NaN
  const { chromium } = await import('playwright-core')
  const executablePath = process.env.CHROMIUM_PATH ?? await shippedChromium()
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--no-zygote', '--disable-gpu'] })
  let next = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < PAGES) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
      const tab = await context.newPage()
      await tab.goto(`${origin}/pricing/${next++}`, { waitUntil: 'networkidle' })
      await tab.content()
      await context.close()
    }
  }))
  const rate = PAGES / ((performance.now() - started) / 1000)
  await browser.close()
  return rate
})()

// The service as `npm start` runs it, in a process of its own: its memory is its own.
const dataDir = mkdtempSync(join(tmpdir(), 'sitewatch-render-bench-'))
const port = await freePort()
const ADMIN = 'bench-admin-token'
const service = startService({
  DATA_DIR: dataDir,
  PORT: String(port),
  ADMIN_TOKEN: ADMIN,
  CRAWL_HOST_MAP: `render.test=${origin}`,
  CRAWL_PER_HOST_CONCURRENCY: '64',
  CRAWL_PER_HOST_DELAY_MS: '0',
  BROWSER_CONCURRENCY: String(CONCURRENCY),
  RATE_LIMIT_STANDARD_PER_MINUTE: '100000',
  RATE_LIMIT_HEAVY_PER_HOUR: '100000'
})
const base = `http://127.0.0.1:${port}`
let key = ADMIN
const api = apiClient(base)
const call = async (method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) => await api(key, method, path, body)
await untilReady(base)
let peakService = 0
let peakBrowsers = 0
let peakWasm = 0
let samples = 0
let phase = 'discovery and baselines'
/** Each phase's peak PSS, and the main thread's V8 heap (its /metrics) last read before that peak. */
const peaks = new Map<string, { pss: number, heap: number }>()
let mainHeap = 0
const sampler = setInterval(() => {
  const now = pss(service.pid!)
  peakService = Math.max(peakService, now)
  if (now > (peaks.get(phase)?.pss ?? 0)) peaks.set(phase, { pss: now, heap: mainHeap })
  peakBrowsers = Math.max(peakBrowsers, browsers().bytes)
  if (samples++ % 5 === 0) peakWasm = Math.max(peakWasm, wasmPss(service.pid!))
  if (samples % 10 === 0) {
    void request(`${base}/metrics`)
      .then(async r => await r.body.text())
      .then(text => { mainHeap = Number(/^sitewatch_nodejs_heap_size_total_bytes (\d+)/m.exec(text)?.[1] ?? 0) }, () => {})
  }
}, 200)
key = (await call('POST', '/admin/orgs', { name: 'render bench', plan: 'enterprise' })).data.apiKey
const settled = async () => {
  for (;;) {
    const q = (await call('GET', '/api/jobs/stats')).data
    if (q.waiting + q.active + q.delayed === 0) return
    await sleep(250)
  }
}

let t0 = performance.now()
const domain = (await call('POST', '/api/domains', { domain: 'render.test' })).data
await call('PATCH', `/api/domains/${domain.id}`, { render: 'always' })
const pageCount = async () => (await call('GET', `/api/domains/${domain.id}/pages?pageSize=1`)).meta.total as number
// A first discovery watches at most 500 pages (services/pages.ts): the rest are added by hand, as a person would.
while (await pageCount() < Math.min(PAGES, WATCHED_BY_FIRST_DISCOVERY)) await sleep(250)
await settled()
if (PAGES > WATCHED_BY_FIRST_DISCOVERY) {
  const watched = new Set<string>()
  for (let n = 1; watched.size === (n - 1) * 500; n++) {
    for (const p of (await call('GET', `/api/domains/${domain.id}/pages?pageSize=500&page=${n}`)).data) watched.add(p.url)
  }
  for (let k = 0; k < PAGES; k++) {
    const url = `https://render.test/pricing/${k}`
    if (!watched.has(url)) await call('POST', `/api/domains/${domain.id}/pages`, { url })
  }
  while (await pageCount() < PAGES) await sleep(250)
  await settled()
}
const baselineSeconds = (performance.now() - t0) / 1000

for (let n = 0; n < PAGES; n += 10) versions.set(n, 1)
if (NOISY) noise = 1
const probedPage = (await call('GET', `/api/domains/${domain.id}/pages?pageSize=1`)).data[0].id as string
t0 = performance.now()
phase = 'recrawl'
const crawl = (await call('POST', `/api/domains/${domain.id}/crawl`)).data
const probe = READS ? probeReads(base, key, domain.id, probedPage) : undefined
await settled()
const seconds = (performance.now() - t0) / 1000
const probed = probe ? describeReads(await probe.stop()) : 'not asked'
clearInterval(sampler)
const jobs: Array<{ state: string, processedAt: string, finishedAt: string }> =
  await Promise.all((crawl.jobIds as string[]).map(async id => (await call('GET', `/api/jobs/${id}`)).data))
const active = jobs.map(j => (Date.parse(j.finishedAt) - Date.parse(j.processedAt)) / 1000)
const changed = (await call('GET', `/api/changes?domainId=${domain.id}&pageSize=1`)).meta.total as number
// Read in pages of 500 (the list's most): a site of 1,000 pages is two of them.
const pages: any[] = []
for (let n = 1; pages.length === (n - 1) * 500; n++) {
  pages.push(...(await call('GET', `/api/domains/${domain.id}/pages?pageSize=500&page=${n}`)).data)
}
const rendered = pages.filter(p => p.renderedWith === 'browser').length
// The pages that changed for real among those watched ("/" is page 0; at more than 500 pages the
// first discovery may not have chosen it, and the bench adds only the pricing pages).
const changedWatched = pages.filter(p => Number(/\/pricing\/(\d+)$/.exec(p.url)?.[1] ?? 0) % 10 === 0).length
await stopServices([service])
await sleep(1000)
const left = browsers().processes
site.close()
rmSync(dataDir, { recursive: true, force: true })

const rate = crawl.queued / seconds
console.log(`Rendered checks end to end: ${PAGES} script-built pages (${SHAPE === 'app' ? 'app shells: a 400 KB bundle, state in base64, CSP nonces' : 'plain'}), ${CONCURRENCY} renders at a time, politeness lifted`)
console.log(`  discovery + baselines        ${fmt(baselineSeconds).padStart(8)} s   (${rendered} pages read in the browser)`)
console.log(`  recrawl, a tenth changed${NOISY ? ', every page\'s noise moved' : ''}`)
console.log(`                               ${fmt(rate, 2).padStart(8)} checks/s   (goal ≥ 3, and ≥ 0.5 × the bare browser)`)
if (BARE) console.log(`  bare browser, same pages     ${fmt(bareRate, 2).padStart(8)} renders/s   ratio ${fmt(rate / bareRate, 2)}`)
console.log(`  job active p50 / p95         ${fmt(percentile(active, 0.5), 2).padStart(8)} / ${fmt(percentile(active, 0.95), 2)} s`)
console.log(`  pages with a change          ${String(changed).padStart(8)}   (expected ${changedWatched}: the watched pages that changed, / with page 0); failed jobs ${jobs.filter(j => j.state === 'failed').length}`)
console.log(`  the service's process, PSS   ${mb(peakService).padStart(8)}   (goal ≤ 400 MB)`)
console.log(`    of which WebAssembly memory  ${mb(peakWasm).padStart(8)}   (PGlite's heap, at its peak)`)
for (const [name, peak] of peaks) {
  console.log(`    peak in ${name}: ${mb(peak.pss)}, the main thread's V8 heap then ${mb(peak.heap)}`)
}
console.log(`  its browsers, PSS together   ${mb(peakBrowsers).padStart(8)}   (goal < 600 MB)`)
console.log(`  browser processes left       ${String(left).padStart(8)}   (goal 0)`)
console.log(`  reads during the recrawl (goal: p95 ≤ 100 ms): ${probed}`)
