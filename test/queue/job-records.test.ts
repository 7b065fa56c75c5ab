import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { BatchedCompletions } from '../../src/queue/completions.js'
import { forgetOldJobRecords } from '../../src/queue/job-records.js'
import { Lane, retryDelay } from '../../src/queue/lane.js'
import { QUEUE, queuePolicies } from '../../src/queue/queues.js'
import { startTestService, writesHeard, type TestService } from '../helpers/service.js'

// A job's record (jobs) follows the queue through every change, and the API reads only it.
describe("a job's record and the jobs endpoints", () => {
  let t: TestService
  let orgId = ''
  before(async () => {
    // No workers: the test moves the jobs itself. A long host delay keeps a host's later crawls delayed.
    t = await startTestService({ ROLE: 'api', CRAWL_PER_HOST_DELAY_MS: '5000' })
    orgId = (await t.service.store.db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id
  })
  after(async () => {
    await t.stop()
  })

  async function queueHost (host: string, n: number) {
    const { db } = t.service.store
    const domain = await db.insertInto('domains').values({ org_id: orgId, hostname: host, status: 'active' })
      .returning('id').executeTakeFirstOrThrow()
    const pages = await db.insertInto('pages')
      .values(Array.from({ length: n }, (_, i) => ({
        domain_id: domain.id, org_id: orgId, url: `https://${host}/${i}`, url_hash: `${host}${i}`
      })))
      .returning(['id', 'url']).execute()
    const queued = await t.service.queue.transaction(db, tx => t.service.queue.enqueueCrawls(
      tx, pages.map(p => ({ orgId, domainId: domain.id, pageId: p.id, url: p.url }))))
    return [...queued.values()]
  }

  // The test writes as a worker would, straight to the database: the API reads once it has heard.
  const job = async (id: string) => {
    await writesHeard(t)
    return (await t.api.get(`/api/jobs/${id}`)).body.data
  }
  const countsAgree = async () => {
    const { db } = t.service.store
    const kept = await sql<{ key: string, n: number }>`
      SELECT name || ' ' || state AS key, n::int AS n FROM job_counts WHERE org_id = ${orgId} AND n <> 0 ORDER BY 1`
      .execute(db)
    const counted = await sql<{ key: string, n: number }>`
      SELECT name || ' ' || state AS key, count(*)::int AS n FROM jobs WHERE org_id = ${orgId} GROUP BY 1 ORDER BY 1`
      .execute(db)
    assert.deepEqual(kept.rows, counted.rows, "the counters say what a count of the organisation's jobs says")
  }

  let failedId = ''
  let completedId = ''

  it('follows a crawl from queued to taken, completed, and failed where only the sweep saw it', async () => {
    const slow = await queueHost('r.test', 12)
    const [quick] = await queueHost('s.test', 1)
    await writesHeard(t)
    const stats = (await t.api.get('/api/jobs/stats')).body.data
    assert.equal(stats.total, 13)
    assert.equal(stats.waiting, 13)
    // Queued behind their host's turns, not promised one: a crawl is taken when its host is free.
    assert.equal((await job(slow[11])).state, 'waiting')

    const taken = await t.service.queue.takeCrawls(QUEUE.crawl, 16)
    assert.deepEqual(taken.map(j => new URL((j.data as { url: string }).url).host).sort(), ['r.test', 's.test'])
    completedId = quick
    failedId = taken.find(j => j.id !== quick)!.id
    for (const id of [completedId, failedId]) {
      const running = await job(id)
      assert.equal(running.state, 'active')
      assert.equal(running.attemptsMade, 1)
      assert.ok(running.processedAt)
    }

    // Completed as the crawl workers complete, in one statement with the record.
    const completions = new BatchedCompletions<never>(t.service.store.db, t.service.queue.workerId, () => sql`SELECT 1`)
    assert.equal(await completions.complete(taken.find(j => j.id === quick)!, { outcome: 'unchanged' }), true)
    const done = await job(completedId)
    assert.equal(done.state, 'completed')
    assert.equal(done.progress, 100)
    assert.deepEqual(done.returnValue, { outcome: 'unchanged' })
    assert.ok(done.finishedAt)

    // Its worker silent (frozen, cut off): once the attempt has outlived its lease, the
    // sweep ends it, to be retried after its backoff.
    assert.equal(await t.service.queue.sweep(), 0, 'a running attempt within its expiry is left alone')
    await sql`UPDATE jobs SET processed_at = now() - interval '1 hour' WHERE id = ${failedId}`.execute(t.service.store.db)
    assert.equal(await t.service.queue.sweep(), 1)
    assert.equal(await t.service.queue.sweep(), 0, 'a record up to date is left alone')
    const retried = await job(failedId)
    assert.equal(retried.state, 'delayed', 'a retry waits for its backoff')
    assert.match(retried.failedReason, /expired/)
    await countsAgree()

    // Its retry, taken once due: running again, the last attempt's failure no longer its reason.
    await sql`UPDATE jobs SET start_after = now() WHERE id = ${failedId}`.execute(t.service.store.db)
    await sql`UPDATE host_pace SET next_start = now()`.execute(t.service.store.db)
    const again = await t.service.queue.takeCrawls(QUEUE.crawl, 16)
    assert.deepEqual(again.map(j => j.id), [failedId])
    const running = await job(failedId)
    assert.deepEqual([running.state, running.attemptsMade, running.failedReason], ['active', 2, null])
  })

  it('pages by cursor and by number alike, with exact totals, and refuses a cursor it did not give', async () => {
    // Jobs queued together share their time, to the microsecond: the cursor keeps all of it.
    // (A time of today's: the next test's ages are counted from now.)
    await sql`UPDATE jobs SET created_at = date_trunc('second', now()) + interval '0.123456 second'`
      .execute(t.service.store.db)
    await writesHeard(t)
    const byNumber: string[] = []
    for (let page = 1; page <= 3; page++) {
      const r = await t.api.get(`/api/jobs?limit=5&page=${page}`)
      assert.equal(r.body.meta.total, 13)
      byNumber.push(...r.body.data.map((j: { id: string }) => j.id))
    }
    const byCursor: string[] = []
    let cursor: string | undefined
    do {
      const r = await t.api.get(`/api/jobs?limit=5${cursor ? `&cursor=${cursor}` : ''}`)
      assert.equal(r.status, 200)
      byCursor.push(...r.body.data.map((j: { id: string }) => j.id))
      cursor = r.body.meta.nextCursor
    } while (cursor)
    assert.equal(byCursor.length, 13)
    assert.deepEqual(byCursor, byNumber)

    const completed = await t.api.get('/api/jobs?status=completed')
    const completedIds = completed.body.data.map((j: { id: string }) => j.id)
    assert.deepEqual([completed.body.meta.total, completedIds], [1, [completedId]])
    const crawls = await t.api.get('/api/jobs?type=discover')
    assert.deepEqual([crawls.body.meta.total, crawls.body.data.length], [0, 0])

    for (const bad of ['nonsense', Buffer.from('2026-01-01T00:00:00Z|x').toString('base64url')]) {
      const r = await t.api.get(`/api/jobs?cursor=${bad}`)
      assert.equal(r.status, 400)
      assert.equal(r.body.code, 'VALIDATION_ERROR')
    }
  })

  it('forgets finished jobs after a week; waiting ones (their place in the queue) fail after two, forgotten once given up', async () => {
    const day = 86_400_000
    const { db } = t.service.store
    await forgetOldJobRecords(db, new Date(Date.now() + 10 * day))
    await countsAgree()
    await writesHeard(t)
    const stats = (await t.api.get('/api/jobs/stats')).body.data
    assert.deepEqual([stats.completed, stats.total], [0, 12], 'the completed crawl is forgotten, the others kept')
    await forgetOldJobRecords(db, new Date(Date.now() + 30 * day))
    await countsAgree()
    await writesHeard(t)
    const after = (await t.api.get('/api/jobs/stats')).body.data
    assert.deepEqual([after.failed, after.active, after.total], [11, 1, 12],
      'the waiting ones failed (to be given up, as any failure), not forgotten; the running one left to its lease')
    const failed = (await t.api.get('/api/jobs?status=failed&limit=100')).body.data
    assert.ok(failed.every((j: any) => /waited more than 14 days/.test(j.failedReason)))
    // Given up (the give-up pass of a process that runs the queue): then forgotten.
    await sql`UPDATE jobs SET gave_up_at = now() WHERE state = 'failed'`.execute(db)
    await forgetOldJobRecords(db, new Date(Date.now() + 40 * day))
    await writesHeard(t)
    assert.equal((await t.api.get('/api/jobs/stats')).body.data.total, 1)
  })
})

// A discovery is a job of its lane like any other: its record is its row.
describe("a discovery's attempts, fenced on the worker that holds them", () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ ROLE: 'api' })
  })
  after(async () => {
    await t.stop()
  })

  it('follows a discovery through a retry, a stale worker, the sweep, a permanent failure and a completion', async () => {
    const { db } = t.service.store
    const { queue } = t.service
    const orgId = (await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id
    const discover = async (hostname: string) => {
      const domain = await db.insertInto('domains').values({ org_id: orgId, hostname, status: 'active' })
        .returning('id').executeTakeFirstOrThrow()
      return (await queue.transaction(db, tx => queue.enqueueDiscovery(tx, { orgId, domainId: domain.id }))).id
    }
    const job = async (id: string) => {
      await writesHeard(t)
      return (await t.api.get(`/api/jobs/${id}`)).body.data
    }
    const retry = retryDelay(queuePolicies(t.service.config))
    const lane = new Lane<{ orgId: string, domainId: string }>(db, QUEUE.discover, queue.workerId, retry)
    const stranger = new Lane<{ orgId: string, domainId: string }>(db, QUEUE.discover, randomUUID(), retry)

    const first = await discover('d1.test')
    assert.equal((await job(first)).state, 'waiting')
    const [taken] = await lane.fetch(1)
    assert.deepEqual([taken!.id, taken!.data.orgId], [first, orgId])
    assert.deepEqual([(await job(first)).state, (await job(first)).attemptsMade], ['active', 1])

    // Another worker settles nothing of an attempt it does not hold.
    assert.equal(await stranger.complete(taken!, { pagesDiscovered: 1 }), false)
    assert.deepEqual(await stranger.fail(taken!, 'not mine'), { settled: false, failed: false })
    assert.equal(await stranger.stepAside!(taken!, new Date()), false)
    assert.equal((await job(first)).state, 'active')

    assert.deepEqual(await lane.fail(taken!, 'HTTP 503'), { settled: true, failed: false })
    const retried = await job(first)
    assert.deepEqual([retried.state, retried.failedReason], ['delayed', 'HTTP 503'])

    // Its worker silent past the lease: the sweep hands the attempt back, and what that
    // worker says afterwards changes nothing.
    const second = await discover('d2.test')
    const [held] = await lane.fetch(1)
    assert.equal(await queue.sweep(), 0, 'not yet past its lease')
    await sql`UPDATE jobs SET processed_at = now() - interval '1 hour' WHERE id = ${second}`.execute(db)
    assert.equal(await queue.sweep(), 1)
    const expired = await job(second)
    assert.equal(expired.state, 'delayed')
    assert.match(expired.failedReason, /expired/)
    assert.equal(await lane.complete(held!, { pagesDiscovered: 3 }), false, 'the stale worker completes nothing')
    assert.equal((await job(second)).state, 'delayed')

    // A failure no retry can mend ends the job at once; a completion keeps its output.
    const third = await discover('d3.test')
    const fourth = await discover('d4.test')
    const both = await lane.fetch(2)
    assert.deepEqual(both.map(j => j.id).sort(), [third, fourth].sort())
    assert.deepEqual(await lane.fail(both.find(j => j.id === third)!, 'the domain does not exist', true),
      { settled: true, failed: true })
    assert.equal(await lane.complete(both.find(j => j.id === fourth)!, { pagesDiscovered: 7 }), true)
    const failed = await job(third)
    assert.deepEqual([failed.state, failed.failedReason, failed.attemptsMade], ['failed', 'the domain does not exist', 1])
    const done = await job(fourth)
    assert.deepEqual([done.state, done.returnValue], ['completed', { pagesDiscovered: 7 }])

    // A shutdown hands a running attempt back unspent: it waits to run again at once.
    const fifth = await discover('d5.test')
    const [running] = await lane.fetch(1)
    await lane.handBack([running!], 'the worker shut down while the job was running')
    const back = await job(fifth)
    assert.deepEqual([back.state, back.attemptsMade], ['waiting', 0])
  })
})
