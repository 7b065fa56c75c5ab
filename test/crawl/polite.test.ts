import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { HostLimiter } from '../../src/crawl/polite.js'

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
