import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { BatchedCompletions } from '../../src/queue/completions.js'
import { QUEUE } from '../../src/queue/queues.js'
import { recordChecksStatement } from '../../src/store/page-checks.js'
import { startTestService, type TestService } from '../helpers/service.js'

describe('crawl results written in batches', () => {
  let t: TestService
  before(async () => {
    // One host's crawls all taken at once.
    t = await startTestService({ ROLE: 'api', CRAWL_PER_HOST_DELAY_MS: '0', CRAWL_PER_HOST_CONCURRENCY: '64' })
  })
  after(async () => {
    await t.stop()
  })

  async function activeCrawlJobs (n: number) {
    const { db } = t.service.store
    const org = await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()
    const domain = await db
      .insertInto('domains')
      .values({ org_id: org.id, hostname: `w${Date.now()}.test`, status: 'active' })
      .returning('id')
      .executeTakeFirstOrThrow()
    const pages = await db
      .insertInto('pages')
      .values(
        Array.from({ length: n }, (_, i) => ({
          domain_id: domain.id,
          org_id: org.id,
          url: `https://w.test/${i}`,
          url_hash: `h${i}`,
          consecutive_failures: 2,
          last_error: 'earlier failure'
        }))
      )
      .returning(['id', 'url'])
      .execute()
    await db.transaction().execute(tx =>
      t.service.queue.enqueueCrawls(
        tx,
        pages.map(p => ({ orgId: org.id, domainId: domain.id, pageId: p.id, url: p.url }))
      )
    )
    const jobs = await t.service.queue.takeCrawls(QUEUE.crawl, n)
    assert.equal(jobs.length, n)
    return jobs
  }

  it("completes each job with its own output and records each page's check", async () => {
    const jobs = await activeCrawlJobs(20)
    const writes = new BatchedCompletions(t.service.store.db, t.service.queue.workerId, recordChecksStatement,
      { maxBatch: 8 })
    const checkedAt = new Date('2026-03-01T10:00:00Z')
    await Promise.all(
      jobs.map((job, i) =>
        writes.complete(
          job,
          { n: i },
          i % 2 === 0
            ? {
                pageId: job.data.pageId,
                checkedAt,
                nextCrawlAt: new Date('2026-03-02T10:00:00Z'),
                etag: `"e${i}"`,
                lastModified: null
              }
            : undefined
        )
      )
    )
    const rows = await sql<{ state: string, output: { n: number }, page_id: string }>`
      SELECT state, return_value AS output, page_id FROM jobs WHERE id = ANY(${jobs.map(j => j.id)}::uuid[])`.execute(
      t.service.store.db
    )
    assert.deepEqual(
      rows.rows.map(r => r.state),
      jobs.map(() => 'completed')
    )
    assert.deepEqual(
      rows.rows.map(r => r.output.n).sort((a, b) => a - b),
      jobs.map((_, i) => i)
    )
    const pages = await t.service.store.db
      .selectFrom('pages')
      .select(['id', 'etag', 'last_check_at', 'consecutive_failures', 'last_error'])
      .where(
        'id',
        'in',
        jobs.map(j => j.data.pageId)
      )
      .execute()
    const byId = new Map(pages.map(p => [p.id, p]))
    jobs.forEach((job, i) => {
      const page = byId.get(job.data.pageId)!
      if (i % 2 === 0) {
        assert.deepEqual(
          [page.etag, page.last_check_at, page.consecutive_failures, page.last_error],
          [`"e${i}"`, checkedAt, 0, null]
        )
      } else assert.deepEqual([page.etag, page.last_check_at, page.consecutive_failures], [null, null, 2])
    })
  })

  // A gather far longer than the test's timeout: a batch that waited for it fails the test.
  const LONG_GATHER_MS = 600_000

  it('waits for the completions of crawls still running, and goes as the last one comes: one statement',
    { timeout: 30_000 }, async () => {
      const jobs = await activeCrawlJobs(5)
      let running = jobs.length
      const writes = new BatchedCompletions(t.service.store.db, t.service.queue.workerId, recordChecksStatement,
        { gatherMs: LONG_GATHER_MS, othersComing: () => running > 0 })
      const written: Array<Promise<boolean>> = []
      for (const [i, job] of jobs.entries()) {
        running--
        written.push(writes.complete(job, { n: i }))
        // A turn of the event loop between two crawls' ends: a batch not gathered would go in it.
        await new Promise(resolve => setImmediate(resolve))
      }
      assert.deepEqual(await Promise.all(written), jobs.map(() => true))
      const { rows } = await sql<{ n: number }>`SELECT count(DISTINCT finished_at)::int AS n FROM jobs
        WHERE id = ANY(${jobs.map(j => j.id)}::uuid[])`.execute(t.service.store.db)
      assert.equal(rows[0].n, 1, 'completed by one statement (one transaction time)')
    })

  it('with no other crawl running, a completion is written at once', { timeout: 30_000 }, async () => {
    const [job] = await activeCrawlJobs(1)
    const writes = new BatchedCompletions(t.service.store.db, t.service.queue.workerId, recordChecksStatement,
      { gatherMs: LONG_GATHER_MS, othersComing: () => false })
    assert.equal(await writes.complete(job!, { alone: true }), true)
  })

  it('a batch that cannot be written fails every crawl in it and completes none', async () => {
    const jobs = await activeCrawlJobs(3)
    const writes = new BatchedCompletions(t.service.store.db, t.service.queue.workerId, recordChecksStatement)
    const results = await Promise.allSettled([
      writes.complete(jobs[0], { ok: true }),
      writes.complete(
        jobs[1],
        { ok: true },
        { pageId: 'not-a-uuid', checkedAt: new Date(), nextCrawlAt: new Date(), etag: null, lastModified: null }
      ),
      writes.complete(jobs[2], { ok: true })
    ])
    assert.deepEqual(
      results.map(r => r.status),
      ['rejected', 'rejected', 'rejected']
    )
    const states = await sql<{
      state: string
    }>`SELECT state FROM jobs WHERE id = ANY(${jobs.map(j => j.id)}::uuid[])`.execute(t.service.store.db)
    assert.deepEqual(
      states.rows.map(r => r.state),
      ['active', 'active', 'active']
    )
    // The next batch goes out as usual.
    await writes.complete(jobs[0], { ok: true })
  })

  it('a completion by a worker that no longer holds the attempt changes nothing, and says so', async () => {
    const [job, retried] = await activeCrawlJobs(2)
    const check = (pageId: string) => ({
      pageId, checkedAt: new Date('2026-03-05T10:00:00Z'), nextCrawlAt: new Date(), etag: '"stale"', lastModified: null
    })
    // Another worker's: this worker's attempt was handed back to it.
    const stranger = new BatchedCompletions(t.service.store.db, randomUUID(), recordChecksStatement)
    assert.equal(await stranger.complete(job!, { by: 'stranger' }, check(job!.data.pageId)), false)
    // The right worker, at an attempt since retried (its number moved on).
    await sql`UPDATE jobs SET attempts_made = attempts_made + 1 WHERE id = ${retried!.id}`.execute(t.service.store.db)
    const own = new BatchedCompletions(t.service.store.db, t.service.queue.workerId, recordChecksStatement)
    assert.equal(await own.complete(retried!, { by: 'old attempt' }, check(retried!.data.pageId)), false)
    const { rows } = await sql<{ state: string, return_value: unknown, etag: string | null }>`
      SELECT j.state, j.return_value, p.etag FROM jobs j JOIN pages p ON p.id = j.page_id
      WHERE j.id = ANY(${[job!.id, retried!.id]}::uuid[])`.execute(t.service.store.db)
    assert.deepEqual(rows, [
      { state: 'active', return_value: null, etag: null }, { state: 'active', return_value: null, etag: null }
    ])
    // The holder completes it.
    assert.equal(await own.complete(job!, { by: 'holder' }, check(job!.data.pageId)), true)
  })
})
