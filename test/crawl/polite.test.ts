import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { loadConfig } from '../../src/config.js'
import { Crawler } from '../../src/crawl/crawler.js'
import { TurnPassed } from '../../src/crawl/errors.js'
import type { HostPacer } from '../../src/crawl/polite.js'
import { readSitemap } from '../../src/crawl/sitemap.js'
import { fleetPacer } from '../../src/services/host-pacer.js'
import { paceRules, takeTurn } from '../../src/store/host-pace.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

/** The fleet's turns (in the database), counting those given. */
function counted (pacer: HostPacer): HostPacer & { given: number } {
  const counting = {
    ...pacer,
    given: 0,
    turn: async (host: string, crawlDelayMs: number, passedAt?: number) => {
      counting.given++
      return await pacer.turn(host, crawlDelayMs, passedAt)
    }
  }
  return counting
}

// The turn is kept when the request is written on its socket, not when it is handed to undici:
// what happens in between (a connection to open, a busy event loop) cannot bring two requests closer.

describe('a turn kept on the wire', () => {
  let site: TestSite
  let crawler: Crawler
  let t: TestService
  let turns: ReturnType<typeof counted>
  before(async () => {
    t = await startTestService({ ROLE: 'api' })
    turns = counted(fleetPacer(t.service.store.db, paceRules(loadConfig({ CRAWL_PER_HOST_DELAY_MS: '300' }))))
    site = await new TestSite().start()
    site.set('/robots.txt', { body: 'User-agent: *\nAllow: /\n', headers: { 'content-type': 'text/plain' } })
    site.page('/a', '<h1>A</h1>')
    site.set('/sitemap.xml', {
      body: '<urlset><url><loc>https://wire.test/a</loc></url><url><loc>https://wire.test/b</loc></url></urlset>',
      headers: { 'content-type': 'application/xml' }
    })
    crawler = new Crawler(loadConfig({ CRAWL_HOST_MAP: `wire.test=${site.origin}`, CRAWL_PER_HOST_DELAY_MS: '300' }),
      turns)
    await crawler.robots.isAllowed('https://wire.test/a')
  })
  after(async () => {
    await crawler.close()
    await site.close()
    await t.stop()
  })

  it('a request whose turn passed before it could be written is not written: it takes the next turn', async () => {
    const handed: number[] = []
    const given = turns.given
    let late = 0
    crawler.events.on('turnLate', () => { late++ })
    const answer = await crawler.polite('https://wire.test/a', 'wait', async inTurn => {
      handed.push(Date.now())
      const request = crawler.fetcher.fetch('https://wire.test/a', inTurn)
      // The event loop busy past the turn's slack (15 ms) before undici can open the connection and write.
      const until = Date.now() + (handed.length === 1 ? 100 : 0)
      while (Date.now() < until) { /* busy */ }
      return await request
    })
    assert.equal(answer.status, 200)
    assert.ok(handed.length >= 2, 'the first request was handed to undici in its turn, and refused when written')
    assert.equal(site.hitsOf('/a'), 1, 'only the request written in its turn reached the host')
    // The late turn was given up, and the request written in the next one (a busy machine may miss that one too).
    assert.ok(turns.given - given >= 2)
    assert.equal(late, turns.given - given - 1, 'each turn given up is told (sitewatch_host_turns_given_up_total)')
  })

  it('a request on time is written; one its turn refuses never reaches the host', async () => {
    const answer = await crawler.polite('https://wire.test/a', 'wait', async inTurn =>
      await crawler.fetcher.fetch('https://wire.test/a', inTurn))
    assert.equal(answer.status, 200)
    await assert.rejects(crawler.fetcher.fetch('https://wire.test/a', { atWrite: () => false }),
      (err: unknown) => err instanceof TurnPassed)
    assert.equal(site.hitsOf('/a'), 2)
  })

  it('a sitemap whose turn passed is read in the next turn, not given up as unreadable', async () => {
    const listed: string[] = []
    let tries = 0
    const read = await crawler.polite('https://wire.test/sitemap.xml', 'wait', async inTurn => {
      // The first try is on a machine too busy to write it in its turn (found under load: a
      // discovery then saw no sitemap, and only the home page).
      const late = tries++ === 0
      return await readSitemap(crawler.fetcher, 'https://wire.test/sitemap.xml', loc => { listed.push(loc); return true },
        () => {}, { inflatedLeft: 1e6 }, late ? { atWrite: () => false } : inTurn)
    })
    assert.deepEqual(read, { ok: true })
    // A busy machine may miss the next turn's slack too: what counts is that it is read in one, not given up.
    assert.ok(tries >= 2, 'read again after the turn that passed')
    assert.deepEqual(listed, ['https://wire.test/a', 'https://wire.test/b'])
    assert.equal(site.hitsOf('/sitemap.xml'), 1)
  })
})

// A crawl's turn is taken with its job from the queue (queue/crawl-order.ts): its request goes
// in that turn, or, late, in the next one; a turn that cannot be written sends nothing.
describe("a crawl's turn, and one that cannot be taken", () => {
  let site: TestSite
  let t: TestService
  const crawlers: Crawler[] = []
  const config = () => loadConfig({ CRAWL_HOST_MAP: `turn.test=${site.origin}`, CRAWL_PER_HOST_DELAY_MS: '200' })
  before(async () => {
    site = await new TestSite().start()
    site.set('/robots.txt', { body: 'User-agent: *\nAllow: /\n', headers: { 'content-type': 'text/plain' } })
    site.page('/a', '<h1>A</h1>')
    t = await startTestService({ ROLE: 'api' })
  })
  after(async () => {
    for (const c of crawlers) await c.close()
    await site.close()
    await t.stop()
  })

  it('a turn taken with the crawl is used for its request; one gone late is given up for the next', async () => {
    const turns = counted(fleetPacer(t.service.store.db, paceRules(config())))
    const crawler = new Crawler(config(), turns)
    crawlers.push(crawler)
    await crawler.robots.isAllowed('https://turn.test/a')
    const given = turns.given
    const inTime = turns.taken({ startAt: Date.now() + 20, lease: randomUUID() })
    assert.equal((await crawler.fetchPage('https://turn.test/a', {}, 'defer', { turn: inTime })).status, 200)
    assert.equal(turns.given, given, 'no other turn was taken')
    const late = turns.taken({ startAt: Date.now() - 1000, lease: randomUUID() })
    assert.equal((await crawler.fetchPage('https://turn.test/a', {}, 'wait', { turn: late })).status, 200)
    assert.ok(turns.given > given, 'the late turn was given up, and the request sent in one of its own')
    assert.equal(site.hitsOf('/a'), 2)
  })

  it("a crawl holding its host's only place fetches robots.txt in its turn, not waiting for another", async () => {
    // One place per host: the crawl's turn, taken with it, holds it (as a fetch from the queue leaves it).
    const one = loadConfig({ CRAWL_HOST_MAP: `one.test=${site.origin}`, CRAWL_PER_HOST_CONCURRENCY: '1' })
    const rules = paceRules(one)
    const crawler = new Crawler(one, fleetPacer(t.service.store.db, rules))
    crawlers.push(crawler)
    const held = await takeTurn(t.service.store.db, 'one.test', rules)
    assert.ok('lease' in held)
    const robots = site.hitsOf('/robots.txt')
    const page = await crawler.fetchPage('https://one.test/a', {}, 'wait', { turn: crawler.pacer.taken(held) })
    assert.equal(page.status, 200)
    assert.equal(site.hitsOf('/robots.txt'), robots + 1, "robots.txt was read, in the crawl's turn")
  })

  it('a turn that cannot be recorded is not taken, and nothing is fetched', async () => {
    const other = await startTestService({ ROLE: 'api' })
    const crawler = new Crawler(config(), fleetPacer(other.service.store.db, paceRules(config())))
    crawlers.push(crawler)
    await crawler.robots.isAllowed('https://turn.test/a')
    const hits = site.hitsOf('/a')
    // Its database gone (an outage): the turn cannot be written.
    await other.stop()
    await assert.rejects(crawler.fetchPage('https://turn.test/a', {}, 'wait'))
    assert.equal(site.hitsOf('/a'), hits, 'no request reached the host')
  })
})
