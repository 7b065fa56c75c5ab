import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { createFetcher } from '../../src/crawl/fetch.js'
import { BrowserRenderer } from '../../src/crawl/render.js'
import { TestSite } from '../helpers/site.js'
import { eventually } from '../helpers/service.js'

// The browser is started afresh every BROWSER_RESTART_AFTER pages, but never under a render:
// a page that reaches the count while another is still rendering leaves the restart to the
// last render out, and the one in flight is read once, in the browser it started in.

const page = (title: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`

const fetcherFor = (site: TestSite) => createFetcher({
  hostMap: new Map([['pages.test', new URL(site.origin)]]),
  allowPrivateNetworks: false,
  timeoutMs: 10_000,
  maxBytes: 5_000_000
})

/** Each running process's parent, and whether it is still running (a zombie is not). */
function processes (): Map<number, { parent: number, running: boolean }> {
  const all = new Map<number, { parent: number, running: boolean }>()
  for (const pid of readdirSync('/proc').filter(p => /^\d+$/.test(p))) {
    try {
      // The command's name is in parentheses and may hold spaces: state and parent follow it.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      all.set(Number(pid), { parent: Number(parent), running: state !== 'Z' && state !== 'X' })
    } catch { /* gone */ }
  }
  return all
}

/** The processes this one started, and theirs, that still run. */
function descendants (): number[] {
  const all = processes()
  const ours = (pid: number): boolean => {
    for (let p = all.get(pid)?.parent; p !== undefined && p > 1; p = all.get(p)?.parent) {
      if (p === process.pid) return true
    }
    return false
  }
  return [...all].filter(([pid, p]) => p.running && ours(pid)).map(([pid]) => pid)
}

describe('a restart of the browser while a page renders', () => {
  const site = new TestSite()
  const asked = new Map<string, number>()
  let holdSlow: ((res: ServerResponse) => void) | undefined
  let slowAsked: Promise<ServerResponse>
  let renderer: BrowserRenderer

  before(async () => {
    await site.start()
    slowAsked = new Promise(resolve => { holdSlow = resolve })
    site.fallback = path => (_req, res) => {
      asked.set(path, (asked.get(path) ?? 0) + 1)
      // The slow page's document is held until the test lets it go.
      if (path === '/slow') holdSlow?.(res)
      else {
        res.writeHead(200, { 'content-type': 'text/html' })
        res.end(page(path.slice(1)))
      }
    }
    renderer = new BrowserRenderer({
      fetcher: fetcherFor(site), concurrency: 2, timeoutMs: 20_000, quietMs: 100, restartAfter: 1
    })
  })
  after(async () => {
    await renderer?.close()
    await site.close()
  })

  it('waits for the render in flight, which is read once; the next render starts in a new browser', async () => {
    const slow = renderer.render('https://pages.test/slow', { screenshot: false })
    const held = await slowAsked
    // The quick page ends while the slow one is in flight: both are past the restart's count.
    const quick = await renderer.render('https://pages.test/quick', { screenshot: false })
    assert.match(quick.html, /<h1>quick<\/h1>/)
    held.writeHead(200, { 'content-type': 'text/html' })
    held.end(page('slow'))
    const slowRead = await slow
    assert.equal(slowRead.status, 200)
    assert.match(slowRead.html, /<h1>slow<\/h1>/)
    assert.equal(asked.get('/slow'), 1, 'the slow page was read once, not again after a restart under it')
    const next = await renderer.render('https://pages.test/next', { screenshot: false })
    assert.match(next.html, /<h1>next<\/h1>/)
  })
})

describe('a browser that does not close', () => {
  const site = new TestSite()

  before(async () => {
    await site.start()
    site.fallback = path => (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(page(path.slice(1)))
    }
  })
  after(async () => {
    await site.close()
  })

  it('is killed with its renderers when it has not closed in 3 s', async () => {
    const before = new Set(descendants())
    const renderer = new BrowserRenderer({
      fetcher: fetcherFor(site), concurrency: 1, timeoutMs: 20_000, quietMs: 100, restartAfter: 100
    })
    try {
      assert.match((await renderer.render('https://pages.test/first', { screenshot: false })).html, /<h1>first<\/h1>/)
      const started = descendants().filter(pid => !before.has(pid))
      const all = processes()
      // The browser's own process is this one's child; its renderers and helpers are its.
      const browser = started.find(pid => all.get(pid)?.parent === process.pid)
      assert.ok(browser !== undefined && started.length > 1, `the browser and its helpers run (${started.length} processes)`)
      process.kill(browser, 'SIGSTOP')
      await renderer.close()
      await eventually(async () => {
        const left = new Set(descendants())
        return started.every(pid => !left.has(pid)) || undefined
      }, 10_000, 'every process of the stopped browser ended')
    } finally {
      await renderer.close()
    }
  })
})
