// The idle queues of a worker learn that a job is due from one statement for all of them,
// not from a fetch and a question each per poll.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql, type KyselyPlugin } from 'kysely'
import { DueWatch } from '../../src/queue/due-watch.js'
import { startTestService, type TestService } from '../helpers/service.js'

/** Counts the statements sent through the Kysely instance it is plugged into. */
class StatementCount implements KyselyPlugin {
  n = 0
  transformQuery: KyselyPlugin['transformQuery'] = args => {
    this.n++
    return args.node
  }

  transformResult: KyselyPlugin['transformResult'] = async args => args.result
}

// A poll far longer than the test: a job found at all was found by the watch's first question or its timer.
const POLL_MS = 600_000

describe('the watch of idle queues', () => {
  let t: TestService
  // No workers: nothing takes the jobs the test queues.
  before(async () => { t = await startTestService({ ROLE: 'api' }) })
  after(async () => { await t.stop() })

  const queueJob = async (lane: string, inMs: number) => {
    await sql`INSERT INTO jobs (id, name, lane, data, max_attempts, start_after)
      VALUES (gen_random_uuid(), ${lane}, ${lane}, '{}'::jsonb, 1, now() + ${inMs} * interval '1 millisecond')`
      .execute(t.service.store.db)
  }

  it('asks once for every queue that falls idle at once; a job due later is released at its time, unasked',
    { timeout: 30_000 }, async () => {
      const count = new StatementCount()
      const errors: unknown[] = []
      const watch = new DueWatch(t.service.store.db.withPlugin(count), POLL_MS, err => { errors.push(err) })
      await queueJob('watch.due-now', 0)
      await queueJob('watch.due-soon', 300)
      const lanes = ['watch.due-now', 'watch.due-soon', ...Array.from({ length: 8 }, (_, i) => `watch.idle-${i}`)]
      const stops = lanes.map(() => new AbortController())
      const waits = lanes.map((lane, i) => watch.untilDue(lane, stops[i].signal).then(() => lane))
      assert.equal(await Promise.race(waits), 'watch.due-now')
      assert.equal(await waits[1], 'watch.due-soon')
      assert.equal(count.n, 1, 'one statement for the ten queues')
      // The idle ones wait on, until woken (their queue got a job) or stopped.
      for (const stop of stops) stop.abort()
      assert.deepEqual(await Promise.all(waits), lanes)
      watch.close()
      assert.deepEqual(errors, [])
    })

  it('a queue that falls idle while the watch asks is asked for right after', { timeout: 30_000 }, async () => {
    const count = new StatementCount()
    const watch = new DueWatch(t.service.store.db.withPlugin(count), POLL_MS, () => {})
    await queueJob('watch.late', 0)
    const first = new AbortController()
    const early = watch.untilDue('watch.early', first.signal)
    // In the next turn: the question for watch.early is on its way.
    await new Promise(resolve => setImmediate(resolve))
    await watch.untilDue('watch.late', new AbortController().signal)
    assert.equal(count.n, 2)
    first.abort()
    await early
    watch.close()
  })
})
