import assert from 'node:assert/strict'
import type { ServerResponse } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { nextSlots } from '../../src/queue/slots.js'
import { layout } from '../helpers/fixtures.js'
import { drainJobs, eventually, onPostgres, startTestService, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

// A worker's crawl slots grow from WORKER_CONCURRENCY while every slot is taken and the
// process has CPU and memory to spare (crawls mostly wait on sites), up to
// WORKER_MAX_CONCURRENCY, and shrink back towards the base when either runs short.

/**
 * A site of `pages` pages (/p/N, linked from its home page and its sitemap) that wait to be
 * answered while `holding`: `held` answers them in order. A request is open until answered
 * or given up by the crawler; `most` is the most open at once.
 */
class WaitingSite {
  readonly site = new TestSite()
  holding = false
  readonly held: Array<() => void> = []
  open = 0
  most = 0

  async start (host: string, pages: number): Promise<this> {
    await this.site.start()
    const paths = Array.from({ length: pages }, (_, i) => `/p/${i}`)
    this.site.page('/', layout('Plans', `<h1>Plans</h1><p>${paths.map(p => `<a href="${p}">Plan ${p}</a>`).join(' ')}</p>`))
    this.site.set('/sitemap.xml', {
      body: '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
        `${paths.map(p => `<url><loc>https://${host}${p}</loc></url>`).join('')}</urlset>`,
      headers: { 'content-type': 'application/xml' }
    })
    this.site.fallback = path => paths.includes(path) ? (_req, res) => { this.answer(path, res) } : undefined
    return this
  }

  private answer (path: string, res: ServerResponse): void {
    let open = true
    const ended = () => {
      if (open) this.open--
      open = false
    }
    res.on('close', ended)
    this.open++
    this.most = Math.max(this.most, this.open)
    const answer = () => {
      ended()
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(layout(`Plan ${path}`, `<h1>Plan ${path}</h1><p>What plan ${path} offers.</p>`))
    }
    if (this.holding) this.held.push(answer)
    else answer()
  }

  /** Answers what it holds, and holds no more. */
  release (): void {
    this.holding = false
    for (const answer of this.held.splice(0)) answer()
  }

  async close (): Promise<void> {
    this.release()
    await this.site.close()
  }
}

describe('how many crawls a worker runs at once', () => {
  const roomy = { cpu: 0.2, heap: 0.2 }
  it('grows while every slot is taken and the process has room, to its most', () => {
    assert.equal(nextSlots(16, 16, 64, true, roomy), 20)
    assert.equal(nextSlots(60, 16, 64, true, roomy), 64)
    assert.equal(nextSlots(16, 16, 64, false, roomy), 16, 'slots left free: no more are needed')
    assert.equal(nextSlots(16, 16, 64, true, { cpu: 0.85, heap: 0.2 }), 16, 'busy, not full: it stays')
  })

  it('shrinks towards its base when the CPU or the heap runs short, never below it', () => {
    assert.equal(nextSlots(40, 16, 64, true, { cpu: 0.97, heap: 0.2 }), 32)
    assert.equal(nextSlots(40, 16, 64, false, { cpu: 0.2, heap: 0.75 }), 32)
    assert.equal(nextSlots(18, 16, 64, true, { cpu: 0.99, heap: 0.9 }), 16)
  })

  describe('a worker of 2 slots, at most 6, crawling a site whose pages keep it waiting', () => {
    let site: WaitingSite
    let t: TestService
    let domainId = ''
    const PAGES = 12

    before(async () => {
      site = await new WaitingSite().start('slow.test', PAGES)
      t = await startTestService({
        CRAWL_HOST_MAP: `slow.test=${site.site.origin}`,
        WORKER_CONCURRENCY: '2',
        WORKER_MAX_CONCURRENCY: '6',
        CRAWL_PER_HOST_CONCURRENCY: '16',
        CRAWL_PER_HOST_DELAY_MS: '0'
      })
      domainId = (await t.api.post('/api/domains', { domain: 'slow.test' })).body.data.id
      await drainJobs(t.api)
    })
    after(async () => {
      site?.release()
      await t?.stop()
      await site?.close()
    })

    it('takes more crawls while they all wait, and never more than its most', async () => {
      const pages = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=100`)).body.data
      assert.ok(pages.length >= PAGES, `${pages.length} pages watched`)
      site.holding = true
      site.most = 0
      assert.equal((await t.api.post(`/api/domains/${domainId}/crawl`)).status, 200)
      // Two slots at first; the sizing sees them all taken and the process idle, and grows.
      await eventually(async () => site.open >= 6, 30_000, 'six crawls waiting on the site at once')
      site.release()
      await drainJobs(t.api)
      assert.equal(site.most, 6, 'never more than WORKER_MAX_CONCURRENCY')
    })
  })
})

// Discoveries wait on their hosts as crawls do: a worker's discovery slots grow the same way
// (DISCOVERY_CONCURRENCY to DISCOVERY_MAX_CONCURRENCY). Twenty small tenants' discoveries at
// once no longer wait for the first sixteen to end (bench/fleet.ts).
describe('a worker of 1 discovery slot, at most 3, discovering sites that keep it waiting', () => {
  const site = new TestSite()
  const held: Array<() => void> = []
  let holding = true
  const waiting = new Map<string, number>()
  let most = 0
  let t: TestService

  before(async () => {
    await site.start()
    site.fallback = () => (req, res) => {
      const host = (req.headers.host ?? '').split(':')[0]
      waiting.set(host, (waiting.get(host) ?? 0) + 1)
      most = Math.max(most, [...waiting.values()].filter(n => n > 0).length)
      const answer = () => {
        waiting.set(host, waiting.get(host)! - 1)
        res.writeHead(200, { 'content-type': 'text/html' })
        res.end(layout(host, `<h1>${host}</h1><p>Welcome.</p>`))
      }
      if (holding) held.push(answer)
      else answer()
    }
    const hosts = Array.from({ length: 5 }, (_, i) => `d${i}.test=${site.origin}`).join(',')
    t = await startTestService({ CRAWL_HOST_MAP: hosts, DISCOVERY_CONCURRENCY: '1', DISCOVERY_MAX_CONCURRENCY: '3' })
  })
  after(async () => {
    holding = false
    for (const answer of held.splice(0)) answer()
    await t?.stop()
    await site.close()
  })

  it('runs more discoveries while they all wait, and never more than its most', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await t.api.post('/api/domains', { domain: `d${i}.test` })).status, 201)
    // One slot at first; the sizing sees it taken and the process idle, and grows.
    await eventually(async () => most >= 3, 30_000, 'three discoveries waiting on their sites at once')
    holding = false
    for (const answer of held.splice(0)) answer()
    await drainJobs(t.api, 60_000)
    assert.equal(most, 3, 'never more than DISCOVERY_MAX_CONCURRENCY')
  })
})

// On PostgreSQL a host's places are the fleet's (host_leases): a crawl whose host has them
// all taken waits in the queue, and the workers wait for a place to free, not look every 100 ms.
describe('a host with every place taken', { skip: !onPostgres && 'needs TEST_DATABASE_URL: PGlite paces hosts in memory' }, () => {
  let site: WaitingSite
  let t: TestService
  let domainId = ''
  const PAGES = 4

  before(async () => {
    site = await new WaitingSite().start('busy.test', PAGES)
    t = await startTestService({
      CRAWL_HOST_MAP: `busy.test=${site.site.origin}`,
      WORKER_CONCURRENCY: '4',
      WORKER_MAX_CONCURRENCY: '4',
      CRAWL_PER_HOST_CONCURRENCY: '1',
      CRAWL_PER_HOST_DELAY_MS: '0'
    })
    domainId = (await t.api.post('/api/domains', { domain: 'busy.test' })).body.data.id
    await drainJobs(t.api)
  })
  after(async () => {
    site?.release()
    await t?.stop()
    await site?.close()
  })

  it('waits for the place to free rather than looking every 100 ms, and takes the next crawl once it does', async () => {
    const pages = (await t.api.get(`/api/domains/${domainId}/pages`)).body.data
    assert.ok(pages.length >= PAGES, `${pages.length} pages watched`)
    let empty = 0
    t.service.queue.events.on('jobs.fetched', ({ queue, found }) => { if (queue === 'crawl.page' && found === 0) empty++ })
    site.holding = true
    assert.equal((await t.api.post(`/api/domains/${domainId}/crawl`)).status, 200)
    await eventually(async () => site.held.length === 1, 20_000, 'the first crawl at the site')
    // The others are due, their host full: the workers wait (JOB_POLLING_SECONDS at most) for its place.
    const since = empty
    await new Promise(resolve => setTimeout(resolve, 1500))
    assert.ok(empty - since <= 3, `${empty - since} fetches found nothing in 1.5 s (every 100 ms would be about 15)`)
    // The place frees: the next crawl is taken.
    site.held.shift()!()
    await eventually(async () => site.held.length === 1, 20_000, 'the next crawl at the site')
    site.release()
    await drainJobs(t.api)
  })
})
