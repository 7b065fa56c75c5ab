import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createFetcher } from '../../src/crawl/fetch.js'
import { BrowserRenderer } from '../../src/crawl/render.js'
import { nextRenderSlots, RENDER_SLOT_RULES, type MachineRoom } from '../../src/crawl/render-slots.js'
import { TestSite } from '../helpers/site.js'

// Renders at once follow the machine's room: BROWSER_CONCURRENCY at most, one at least,
// fewer while memory or the CPU runs short, more again once it has room.

const plenty = { availableMb: 16_000, cpuPressure: 0 }
const mb = (renders: number) => RENDER_SLOT_RULES.reserveMb + renders * RENDER_SLOT_RULES.renderMb

describe('how many pages render at once', () => {
  it('as many as BROWSER_CONCURRENCY on a machine with room', () => {
    assert.equal(nextRenderSlots(3, 3, plenty), 3)
    assert.equal(nextRenderSlots(1, 3, plenty), 2, 'one more each time it is sized')
    assert.equal(nextRenderSlots(2, 3, { availableMb: 16_000, cpuPressure: undefined }), 3, 'no pressure measured: memory alone')
  })

  it('fewer while the CPU is pressed (tasks waiting for a core), never under one', () => {
    assert.equal(nextRenderSlots(3, 3, { availableMb: 16_000, cpuPressure: 55 }), 2)
    assert.equal(nextRenderSlots(1, 3, { availableMb: 16_000, cpuPressure: 90 }), 1)
    assert.equal(nextRenderSlots(2, 3, { availableMb: 16_000, cpuPressure: 30 }), 2, 'between the two: as it is')
  })

  it('no more than the available memory holds, one at least', () => {
    assert.equal(nextRenderSlots(3, 3, { availableMb: mb(2) + 10, cpuPressure: 0 }), 2)
    assert.equal(nextRenderSlots(3, 3, { availableMb: 100, cpuPressure: 0 }), 1)
  })

  describe('a renderer of 3 on a machine that runs short of memory, then has room again', () => {
    const site = new TestSite()
    let room: MachineRoom = { availableMb: mb(1) + 10, cpuPressure: 0 }
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
        fetcher, concurrency: 3, timeoutMs: 20_000, quietMs: 100, restartAfter: 100, machineRoom: () => room
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

    it('back to three at once, a render more each time it is sized, once the machine has room again', async () => {
      room = plenty
      together = 3
      const seen: number[] = []
      // Sized at most once a second: each round of renders after that sees one more allowed.
      for (let round = 0; round < 4 && seen.at(-1) !== 3; round++) {
        await new Promise(resolve => setTimeout(resolve, RENDER_SLOT_RULES.everyMs))
        most = 0
        await renderThree()
        seen.push(most)
      }
      assert.deepEqual(seen, [2, 3])
    })
  })
})
