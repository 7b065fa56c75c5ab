import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { loadConfig } from '../../src/config.js'
import { Crawler } from '../../src/crawl/crawler.js'
import { TurnPassed } from '../../src/crawl/errors.js'
import { HostLimiter } from '../../src/crawl/polite.js'
import { readSitemap } from '../../src/crawl/sitemap.js'
import { clockAt } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

// One process's turns at a host (the embedded database's crawler): the fleet's rules, in memory.
describe("one process's turns at a host", () => {
  it('spaces turns by the delay and its slack, and a start later than the slack gives its turn up', async () => {
    const limiter = new HostLimiter(2, 200)
    const a = await limiter.turn('a.test', 0)
    const b = await limiter.turn('a.test', 0)
    assert.ok('startAt' in a && 'startAt' in b)
    assert.equal(b.startAt - a.startAt, 210, 'the delay and a twentieth of it')
    // A request that starts more than 10 ms after its turn could come too close to the next one.
    assert.equal(a.lateMs, 10)
    const crawlDelayed = await limiter.turn('b.test', 1000)
    const next = await limiter.turn('b.test', 1000)
    assert.ok('startAt' in crawlDelayed && 'startAt' in next)
    assert.equal(next.startAt - crawlDelayed.startAt, 1050, "the host's Crawl-delay, when longer than ours")
  })

  it('moves a late turn to now while no later one was given, and passes it once one was', async () => {
    const limiter = new HostLimiter(4, 200)
    const a = await limiter.turn('late.test', 0)
    const b = await limiter.turn('late.test', 0)
    assert.ok('startAt' in a && 'startAt' in b)
    assert.deepEqual(await b.recheck(b.startAt), { startAt: b.startAt }, 'a turn still to come keeps its time')
    await clockAt(a.startAt + 30)
    assert.equal(await a.recheck(a.startAt), undefined, 'late, and another turn was given after it')
    await clockAt(b.startAt + 30)
    const moved = await b.recheck(b.startAt)
    assert.ok(moved && 'startAt' in moved && moved.startAt >= b.startAt + 30)
    const c = await limiter.turn('late.test', 0)
    assert.ok('startAt' in c)
    assert.ok(c.startAt - moved.startAt >= 210, 'the next turn keeps the delay after the moved one')
    await limiter.backoff('late.test', 5000)
    const held = await c.recheck(c.startAt)
    assert.ok(held && 'busyUntil' in held)
  })

  it('without a delay, keeps only the number of requests in flight', async () => {
    const limiter = new HostLimiter(2, 0)
    const [a, b] = [await limiter.turn('c.test', 0), await limiter.turn('c.test', 0)]
    assert.ok('startAt' in a && 'startAt' in b)
    assert.equal(a.lateMs, Infinity)
    let third = false
    const waiting = limiter.turn('c.test', 0).then(turn => { third = true; return turn })
    await new Promise(resolve => setImmediate(resolve))
    assert.equal(third, false, 'two in flight: the third waits')
    await a.end()
    assert.ok('startAt' in await waiting)
  })
})

/** The process's turns, counting those it gives. */
class CountedTurns extends HostLimiter {
  given = 0
  override async turn (host: string, crawlDelayMs: number) {
    this.given++
    return await super.turn(host, crawlDelayMs)
  }
}

// The turn is kept when the request is written on its socket, not when it is handed to undici:
// what happens in between (a connection to open, a busy event loop) cannot bring two requests closer.

describe('a turn kept on the wire', () => {
  let site: TestSite
  let crawler: Crawler
  const turns = new CountedTurns(4, 300)
  before(async () => {
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
  })

  it('a request whose turn passed before it could be written is not written: its turn moves to when it can be', async () => {
    const handed: number[] = []
    const given = turns.given
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
    // No later turn was given meanwhile: the late one moved to when it could be written, where
    // giving it up for a new one made the host wait a whole delay more.
    assert.equal(turns.given - given, 1)
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
