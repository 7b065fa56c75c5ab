// npm run bench:render — the browser, measured: renders per second at the default
// concurrency (the renderer alone: a page check adds its analysis and database writes),
// time per render (p50/p95), peak memory of the browser processes and of this process,
// and browser processes left once it is closed. The reference in the same run: the same
// pages fetched plainly through the same fetcher.
import { readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { createFetcher } from '../src/crawl/fetch.js'
import { BrowserRenderer } from '../src/crawl/render.js'

const RENDERS = Number(process.env.BENCH_RENDERS ?? 500)
const CONCURRENCY = Number(process.env.BROWSER_CONCURRENCY ?? 2)
const fmt = (n: number, d = 1) => n.toFixed(d)
const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]

/** A page that is empty until its script runs: plans, a table and some prose written by the script. */
const page = (n: number) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pricing ${n}</title>
<style>body{font:16px sans-serif;margin:40px} .plan{display:inline-block;width:30%;border:1px solid #ccc;margin:4px;padding:8px}</style></head>
<body><div id="root"></div><script>
const plans = [['Starter', ${9 + (n % 7)}], ['Team', ${29 + (n % 11)}], ['Business', ${99 + (n % 13)}]]
document.getElementById('root').innerHTML = '<h1>Plans ' + ${n} + '</h1>' +
  plans.map(([name, price]) => '<div class="plan"><h2>' + name + '</h2><p>$' + price + '/month</p><ul>' +
    Array.from({ length: 8 }, (_, i) => '<li>Feature ' + i + ' of ' + name + '</li>').join('') + '</ul></div>').join('') +
  '<p>' + 'All plans include unlimited projects and email support. '.repeat(30) + '</p>'
</script></body></html>`

/** Resident memory of this machine's Chromium processes, in bytes, and how many there are. */
function browserMemory (): { bytes: number, processes: number } {
  let bytes = 0
  let processes = 0
  for (const pid of readdirSync('/proc').filter(p => /^\d+$/.test(p))) {
    try {
      if (!/chromium|chrome/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0])) continue
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
      if (rss) bytes += Number(rss[1]) * 1024
      processes++
    } catch { /* gone */ }
  }
  return { bytes, processes }
}

const server = createServer((req, res) => {
  const n = Number(/\d+/.exec(req.url ?? '')?.[0] ?? 0)
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
  res.end(page(n))
})
await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const fetcher = createFetcher({
  hostMap: new Map([['bench.test', new URL(origin)]]),
  allowPrivateNetworks: false,
  timeoutMs: 15_000,
  maxBytes: 5 * 1024 * 1024
})
const url = (i: number) => `https://bench.test/pricing/${i % 50}`

// The reference: plain fetches of the same pages, CONCURRENCY at a time.
let t0 = performance.now()
let next = 0
await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
  while (next < RENDERS) await fetcher.fetch(url(next++))
}))
const plainPerSecond = RENDERS / ((performance.now() - t0) / 1000)

const renderer = new BrowserRenderer({
  fetcher,
  concurrency: CONCURRENCY,
  timeoutMs: 20_000,
  quietMs: Number(process.env.RENDER_QUIET_MS ?? 300),
  restartAfter: 100,
  executablePath: process.env.CHROMIUM_PATH
})
await renderer.render(url(0), { screenshot: true }) // the first start unpacks Chromium: not measured
let peakBrowser = 0
let peakSelf = 0
const sampler = setInterval(() => {
  peakBrowser = Math.max(peakBrowser, browserMemory().bytes)
  peakSelf = Math.max(peakSelf, process.memoryUsage().rss)
}, 100)
const times: number[] = []
let failures = 0
let shotBytes = 0
t0 = performance.now()
next = 0
await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
  while (next < RENDERS) {
    const i = next++
    const started = performance.now()
    try {
      const r = await renderer.render(url(i), { screenshot: true })
      shotBytes += r.screenshot?.length ?? 0
    } catch {
      failures++
    }
    times.push(performance.now() - started)
  }
}))
const seconds = (performance.now() - t0) / 1000
clearInterval(sampler)
await renderer.close()
await new Promise(resolve => setTimeout(resolve, 1000))
const left = browserMemory().processes
await fetcher.close()
server.close()

console.log(`Rendering ${RENDERS} script-built pages with screenshots, ${CONCURRENCY} at a time (browser restarted every 100)`)
console.log(`  renders/s                ${fmt(RENDERS / seconds, 2).padStart(8)}   (target ≥ 3; plain fetch of the same pages: ${fmt(plainPerSecond, 0)}/s)`)
console.log(`  time per render p50/p95  ${fmt(percentile(times, 0.5), 0).padStart(8)} / ${fmt(percentile(times, 0.95), 0)} ms`)
console.log(`  failed renders           ${String(failures).padStart(8)}`)
console.log(`  screenshot size, mean    ${fmt(shotBytes / Math.max(1, RENDERS - failures) / 1024, 0).padStart(8)} KB`)
console.log(`  browser processes, peak  ${fmt(peakBrowser / 1048576, 0).padStart(8)} MB   (target < 600 MB)`)
console.log(`  this process, peak RSS   ${fmt(peakSelf / 1048576, 0).padStart(8)} MB`)
console.log(`  browser processes left   ${String(left).padStart(8)}   (target 0)`)
