import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { TurnPassed } from '../../src/crawl/errors.js'
import type { InTurn } from '../../src/crawl/fetch.js'
import type { BrowserRenderer } from '../../src/crawl/render.js'
import { siteRenderer } from '../helpers/renderer.js'
import { TestSite } from '../helpers/site.js'

// A rendered page's document takes its host's turn when the browser asks for it, kept on the
// wire as a crawl's is: started before the browser was ready, it could be written too close
// to the next turn. Its scripts and calls are one visit's and go as a browser sends them.

describe("a rendered page's turn", () => {
  const site = new TestSite()
  let renderer: BrowserRenderer
  before(async () => {
    await site.start()
    site.page('/app', '<!doctype html><html lang="en"><head><title>App</title><script src="/app.js"></script></head>' +
      '<body><main id="root"></main></body></html>')
    site.set('/app.js', {
      body: "addEventListener('DOMContentLoaded', async () => { const r = await fetch('/api/plans'); " +
        "document.getElementById('root').textContent = (await r.json()).plan })",
      headers: { 'content-type': 'text/javascript' }
    })
    site.set('/api/plans', { body: JSON.stringify({ plan: 'Team: $20' }), headers: { 'content-type': 'application/json' } })
    renderer = siteRenderer(site, 'app.test')
  })
  after(async () => {
    await renderer?.close()
    await site.close()
  })

  it('the document waits for a turn kept when it is written; the script and its call do not take one', async () => {
    const turns: string[] = []
    const rendered = await renderer.render('https://app.test/app', { screenshot: false }, async <T>(
      url: string, request: (inTurn: InTurn) => Promise<T>
    ) => {
      turns.push(new URL(url).pathname)
      // The first turn has passed by the time the browser's request would be written: it is not sent.
      await assert.rejects(request({ atWrite: () => false }), (err: unknown) => err instanceof TurnPassed)
      return await request({ atWrite: () => true })
    })
    assert.match(rendered.html, /Team: \$20/)
    assert.deepEqual(turns, ['/app'])
    assert.equal(site.hitsOf('/app'), 1, 'the request its turn refused never reached the host')
    assert.equal(site.hitsOf('/app.js'), 1)
    assert.equal(site.hitsOf('/api/plans'), 1)
  })
})
