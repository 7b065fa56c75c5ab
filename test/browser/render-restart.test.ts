import assert from 'node:assert/strict'
import type { ServerResponse } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { createFetcher } from '../../src/crawl/fetch.js'
import { BrowserRenderer } from '../../src/crawl/render.js'
import { TestSite } from '../helpers/site.js'

// The browser is started afresh every BROWSER_RESTART_AFTER pages, but never under a render:
// a page that reaches the count while another is still rendering leaves the restart to the
// last render out, and the one in flight is read once, in the browser it started in.

const page = (title: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`

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
    const fetcher = createFetcher({
      hostMap: new Map([['pages.test', new URL(site.origin)]]),
      allowPrivateNetworks: false,
      timeoutMs: 10_000,
      maxBytes: 5_000_000
    })
    renderer = new BrowserRenderer({ fetcher, concurrency: 2, timeoutMs: 20_000, quietMs: 100, restartAfter: 1 })
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
