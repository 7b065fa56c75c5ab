import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { endTurn, holdHost, takeTurn, type PaceRules } from '../../src/store/host-pace.js'
import { startTestService, type TestService } from '../helpers/service.js'

// The fleet's turns at a host, on the real database: what each worker is told.

const rules: PaceRules = { concurrency: 2, delayMs: 100, leaseMs: 400, maxWaitMs: 1000, slackMs: 5, leadMs: 0 }

describe('turns at a host, shared by every worker', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ ROLE: 'api' })
  })
  after(async () => {
    await t.stop()
  })

  it('spaces turns by the delay and the slack, and never gives more places than the limit', async () => {
    const db = t.service.store.db
    const a = await takeTurn(db, 'a.test', rules)
    const b = await takeTurn(db, 'a.test', rules)
    assert.ok('startAt' in a && 'startAt' in b)
    assert.ok(b.startAt - a.startAt >= 104.9, `${b.startAt - a.startAt} ms apart`)
    const c = await takeTurn(db, 'a.test', rules)
    assert.ok('busyUntil' in c, 'two in flight: the third is told when to come back')
    await endTurn(db, a.lease)
    const d = await takeTurn(db, 'a.test', rules)
    assert.ok('startAt' in d && d.startAt - b.startAt >= 104.9)
    // Other hosts do not wait for this one; a free host's turn comes a lead from now (a worker's time to be ready).
    const other = await takeTurn(db, 'b.test', rules)
    assert.ok('startAt' in other && other.startAt <= Date.now() + 5)
    const asked = Date.now()
    const led = await takeTurn(db, 'c.test', { ...rules, leadMs: 60 })
    assert.ok('startAt' in led)
    assert.ok(led.startAt >= asked + 59, `${led.startAt - asked} ms ahead`)
  })

  it('a turn given up late is taken again from now while no later one was given, else after the last', async () => {
    const db = t.service.store.db
    const first = await takeTurn(db, 'late.test', rules)
    assert.ok('startAt' in first)
    await endTurn(db, first.lease)
    // Given up late: the host saw nothing since, and the next turn starts now, not a delay after it.
    const again = await takeTurn(db, 'late.test', rules, 0, first.startAt)
    assert.ok('startAt' in again)
    assert.ok(again.startAt - first.startAt < rules.delayMs / 2, `${again.startAt - first.startAt} ms after`)
    // Once another turn was given after it, a late one gives way: the turn after the last.
    const other = await takeTurn(db, 'late.test', rules)
    assert.ok('startAt' in other)
    const passed = await takeTurn(db, 'late.test', { ...rules, concurrency: 3 }, 0, again.startAt)
    assert.ok('startAt' in passed)
    assert.ok(passed.startAt - other.startAt >= rules.delayMs + rules.slackMs - 0.01)
  })

  it('gives no more places than the limit to workers asking at once', async () => {
    const db = t.service.store.db
    const open = { ...rules, delayMs: 0, slackMs: 0 }
    const turns = await Promise.all(Array.from({ length: 12 }, async () => await takeTurn(db, 'crowd.test', open)))
    assert.equal(turns.filter(turn => 'startAt' in turn).length, open.concurrency)
  })

  it('a worker that died frees its place when its lease expires', async () => {
    const db = t.service.store.db
    // Two turns whose workers never end them.
    await takeTurn(db, 'dead.test', rules)
    await takeTurn(db, 'dead.test', rules)
    assert.ok('busyUntil' in await takeTurn(db, 'dead.test', rules))
    await sleep(rules.leaseMs + 300)
    assert.ok('startAt' in await takeTurn(db, 'dead.test', rules), 'the expired leases no longer count')
  })

  it('a Retry-After and a Crawl-delay hold the host for everyone', async () => {
    const db = t.service.store.db
    await holdHost(db, 'slow.test', 3000)
    const held = await takeTurn(db, 'slow.test', rules)
    assert.ok('busyUntil' in held && held.busyUntil.getTime() >= Date.now() + 2500)
    const first = await takeTurn(db, 'crawl-delay.test', rules, 2000)
    const second = await takeTurn(db, 'crawl-delay.test', { ...rules, maxWaitMs: 5000 }, 2000)
    assert.ok('startAt' in first && 'startAt' in second && second.startAt - first.startAt >= 2000)
  })
})
