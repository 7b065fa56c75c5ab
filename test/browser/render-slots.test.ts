import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createFetcher } from '../../src/crawl/fetch.js'
import { BrowserRenderer } from '../../src/crawl/render.js'
import { RENDER_SLOT_RULES, renderSlots } from '../../src/crawl/render-slots.js'
import { TestSite } from '../helpers/site.js'

// Renders at once follow the machine's memory: BROWSER_CONCURRENCY at most, one at least,
// fewer while memory runs short, all again once it has room.

const mb = (renders: number) => RENDER_SLOT_RULES.reserveMb + renders * RENDER_SLOT_RULES.renderMb

describe('how many pages render at once', () => {
  it('as many as BROWSER_CONCURRENCY on a machine with room; no more than its memory holds, one at least', () => {
    assert.equal(renderSlots(3, 16_000), 3)
    assert.equal(renderSlots(3, mb(2) + 10), 2)
    assert.equal(renderSlots(3, mb(1)), 1)
    assert.equal(renderSlots(3, 100), 1)
  })

  describe('a renderer of 3 on a machine that runs short of memory, then has room again', () => {
    const site = new TestSite()
    let available = mb(1) + 10
    let open = 0
    let most = 0
    /** Documents are held until this many are asked for at once (or 5 s pass: fewer were allowed). */
    let together = 1
    const held: Array<() => void> = []
    let renderer: BrowserRenderer

    before(async () => {
      await site.start()
      site.fallback = () => (_req, res) => {
        most = Math.max(most, ++open)
        const answer = () => {
          open--
          res.writeHead(200, { 'content-type': 'text/html' })
          res.end('<!doctype html><html lang="en"><head><title>Slow</title></head><body><h1>Slow</h1></body></html>')
        }
        held.push(answer)
        const release = () => { for (const a of held.splice(0)) a() }
        if (open >= together) release()
        else setTimeout(release, 5000)
      }
      const fetcher = createFetcher({
        hostMap: new Map([['slow.test', new URL(site.origin)]]),
        allowPrivateNetworks: false,
        timeoutMs: 10_000,
        maxBytes: 5_000_000
      })
      renderer = new BrowserRenderer({
        fetcher, concurrency: 3, timeoutMs: 20_000, quietMs: 100, restartAfter: 100, availableMb: () => available
      })
    })
    after(async () => {
      await renderer?.close()
      await site.close()
    })

    const renderThree = async () => await Promise.all([1, 2, 3].map(async i =>
      await renderer.render(`https://slow.test/p/${i}`, { screenshot: false })))

    it('renders one page at a time while memory holds only one', async () => {
      const pages = await renderThree()
      assert.deepEqual(pages.map(p => p.status), [200, 200, 200])
      assert.equal(most, 1)
    })

    it('three at once once the machine has room again', async () => {
      available = 16_000
      together = 3
      most = 0
      // Sized at most once a second: the renders after that see the room.
      await new Promise(resolve => setTimeout(resolve, RENDER_SLOT_RULES.everyMs))
      await renderThree()
      assert.equal(most, 3)
    })
  })
})
