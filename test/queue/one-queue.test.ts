import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import pino from 'pino'
import type { JobFailed } from '../../src/pipeline/events.js'
import { JobQueue } from '../../src/queue/queue.js'
import { Lane, retryDelay } from '../../src/queue/lane.js'
import { QUEUE, queuePolicies } from '../../src/queue/queues.js'
import { markDiscoveryFailed } from '../../src/store/domains.js'
import { recordSnapshot, SnapshotSuperseded } from '../../src/store/changes.js'
import { openStore, type Store } from '../../src/store/db.js'
import { eventually, FAST_JOBS, startTestService, type TestService } from '../helpers/service.js'

// Every job is a row of `jobs`, taken under a worker's id: what no worker will finish is
// handed back by the sweep, and what failed for good is given up once, whatever ended it.
// On PostgreSQL a worker judges others only once it has beaten for six beats itself: the
// tests wait for the states, never for a time.
describe('the one queue: the sweep, give-up whatever ended a job, and the cron', () => {
  let t: TestService
  let orgId = ''
  const failed: JobFailed[] = []
  before(async () => {
    t = await startTestService({ ...FAST_JOBS, JOB_MAINTENANCE_SECONDS: '1' })
    orgId = (await t.service.store.db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id
    t.service.events.on('job.failed', e => failed.push(e))
  })
  after(async () => {
    await t.stop()
  })

  const newDomain = async (hostname: string, status: 'active' | 'discovering') =>
    await t.service.store.db.insertInto('domains').values({ org_id: orgId, hostname, status })
      .returning('id').executeTakeFirstOrThrow()

  /** A job as a worker would have left it running, at its last attempt. */
  const leftRunning = async (row: { name: string, domainId: string, pageId?: string, url?: string, owner: string }) => {
    const id = randomUUID()
    const lane = row.name
    await t.service.store.db.insertInto('jobs').values({
      id,
      name: row.name,
      lane,
      org_id: orgId,
      domain_id: row.domainId,
      page_id: row.pageId ?? null,
      url: row.url ?? null,
      data: JSON.stringify({ orgId, domainId: row.domainId }),
      state: 'active',
      owner: row.owner,
      attempts_made: 3,
      max_attempts: 3,
      processed_at: new Date()
    }).execute()
    return id
  }

  it("gives up a discovery whose worker stopped answering: the domain leaves 'discovering', saying why", async () => {
    const domain = await newDomain('lost-worker.test', 'discovering')
    const jobId = await leftRunning({ name: QUEUE.discover, domainId: domain.id, owner: randomUUID() })
    const job = await eventually(async () => {
      const j = (await t.api.get(`/api/jobs/${jobId}`)).body.data
      return j.state === 'failed' ? j : undefined
    }, 30_000, 'the sweep to hand the attempt back')
    assert.match(job.failedReason, /stopped answering/)
    // job.failed is sent once giving up is done.
    await eventually(async () => failed.some(f => f.jobId === jobId), 10_000, 'the discovery to be given up')
    const ended = await t.service.store.db.selectFrom('domains').select(['status', 'discovery_error'])
      .where('id', '=', domain.id).executeTakeFirstOrThrow()
    assert.deepEqual(ended, { status: 'error', discovery_error: job.failedReason })
    const told = failed.filter(f => f.jobId === jobId)
    assert.deepEqual(told.map(f => [f.name, f.domainId]), [[QUEUE.discover, domain.id]])
  })

  it('gives up a crawl whose last attempt ran out its lease: the page enters error and job.failed is sent once', async () => {
    const domain = await newDomain('expired.test', 'active')
    const page = await t.service.store.db.insertInto('pages')
      .values({ domain_id: domain.id, org_id: orgId, url: 'https://expired.test/a', url_hash: 'expired-a' })
      .returning('id').executeTakeFirstOrThrow()
    // Held by this very worker, alive: only its lease ends it.
    const jobId = await leftRunning({
      name: QUEUE.crawl, domainId: domain.id, pageId: page.id, url: 'https://expired.test/a', owner: t.service.queue.workerId
    })
    await sql`UPDATE jobs SET processed_at = now() - interval '2 hours' WHERE id = ${jobId}`.execute(t.service.store.db)
    // job.failed is sent once giving up is done.
    await eventually(async () => failed.some(f => f.jobId === jobId), 30_000, 'the crawl to be given up')
    const p = await t.service.store.db.selectFrom('pages').select(['status', 'last_error', 'failure_alerted_at'])
      .where('id', '=', page.id).executeTakeFirstOrThrow()
    assert.equal(p.status, 'error')
    assert.match(p.last_error ?? '', /the check was lost: the attempt expired/)
    assert.ok(p.failure_alerted_at)
    const row = await t.service.store.db.selectFrom('jobs').select(['state', 'gave_up_at'])
      .where('id', '=', jobId).executeTakeFirstOrThrow()
    assert.equal(row.state, 'failed')
    assert.ok(row.gave_up_at, 'given up, once')
    await t.service.queue.sweep()
    assert.equal(failed.filter(f => f.jobId === jobId).length, 1)
  })

  it('gives up in the transaction that fails the job: a give-up that throws leaves nothing, and runs again until it runs', async () => {
    const { db } = t.service.store
    const domain = await newDomain('give-up-throws.test', 'discovering')
    const jobId = await leftRunning({ name: QUEUE.discover, domainId: domain.id, owner: t.service.queue.workerId })
    const lane = new Lane(db, QUEUE.discover, t.service.queue.workerId, retryDelay(queuePolicies(t.service.config)))
    const job = { id: jobId, name: QUEUE.discover, data: { orgId, domainId: domain.id }, retryCount: 2, retryLimit: 2 }
    const ended = await lane.fail(job, 'HTTP 503', false, async tx => {
      await markDiscoveryFailed(tx, domain.id, { reason: 'written halfway', code: 'CRAWL_FAILED' })
      throw new Error('the give-up broke halfway')
    })
    assert.deepEqual(ended, { settled: true, failed: true }, 'the job fails all the same')
    const halfway = await db.selectFrom('domains').select('discovery_error').where('id', '=', domain.id)
      .executeTakeFirstOrThrow()
    assert.notEqual(halfway.discovery_error, 'written halfway', 'what the give-up wrote went with it')
    // The sweep's pass runs it again (the service's handler, this time whole).
    await eventually(async () => failed.some(f => f.jobId === jobId), 30_000, 'the give-up, again')
    const d = await db.selectFrom('domains').select(['status', 'discovery_error']).where('id', '=', domain.id)
      .executeTakeFirstOrThrow()
    assert.deepEqual(d, { status: 'error', discovery_error: 'HTTP 503' })
    const row = await db.selectFrom('jobs').select(['state', 'gave_up_at']).where('id', '=', jobId)
      .executeTakeFirstOrThrow()
    assert.ok(row.state === 'failed' && row.gave_up_at)
    await t.service.queue.sweep()
    assert.equal(failed.filter(f => f.jobId === jobId).length, 1)
  })

  it('gives up a job failed for good that nobody gave up (a crash at the wrong moment, an older version)', async () => {
    const domain = await newDomain('died-after.test', 'discovering')
    const jobId = randomUUID()
    await t.service.store.db.insertInto('jobs').values({
      id: jobId,
      name: QUEUE.discover,
      lane: QUEUE.discover,
      org_id: orgId,
      domain_id: domain.id,
      data: JSON.stringify({ orgId, domainId: domain.id }),
      state: 'failed',
      owner: randomUUID(),
      attempts_made: 3,
      max_attempts: 3,
      failed_reason: 'HTTP 503',
      finished_at: new Date()
    }).execute()
    await eventually(async () => failed.some(f => f.jobId === jobId), 30_000, 'the give-up')
    const d = await t.service.store.db.selectFrom('domains').select(['status', 'discovery_error'])
      .where('id', '=', domain.id).executeTakeFirstOrThrow()
    assert.deepEqual(d, { status: 'error', discovery_error: 'HTTP 503' })
  })

  it("sends each cron slot once, however many processes' queues send it", async () => {
    const { config } = t.service
    const stores: Store[] = config.databaseUrl
      ? await Promise.all([1, 2, 3, 4].map(async () => await openStore({ databaseUrl: config.databaseUrl, dataDir: '' })))
      : [t.service.store, t.service.store, t.service.store, t.service.store]
    const queues = await Promise.all(stores.map(async s => await JobQueue.start(s, config, {
      runsWorkers: false, log: pino({ level: 'silent' })
    })))
    try {
      for (let round = 0; round < 3; round++) {
        await Promise.all(queues.map(async q => {
          await q.schedule(QUEUE.retention, '* * * * *')
        }))
      }
      const { rows } = await sql<{ singleton: string, n: number }>`
        SELECT singleton, count(*)::int AS n FROM jobs WHERE name = ${QUEUE.retention} AND singleton IS NOT NULL
        GROUP BY 1`.execute(t.service.store.db)
      assert.ok(rows.length >= 1 && rows.length <= 2, 'this minute, or the next if the rounds straddled one')
      assert.deepEqual(rows.map(r => r.n), rows.map(() => 1), 'one job per slot')
    } finally {
      for (const q of queues) await q.stop()
      if (config.databaseUrl) for (const s of stores) await s.close()
    }
  })

  it("records a page's snapshot only after the one its crawl compared with: a stale attempt records nothing", async () => {
    const { db } = t.service.store
    const domain = await newDomain('fenced.test', 'active')
    const page = await db.insertInto('pages')
      .values({ domain_id: domain.id, org_id: orgId, url: 'https://fenced.test/', url_hash: 'fenced' })
      .returning('id').executeTakeFirstOrThrow()
    const snapshot = (text: string) => ({
      pageId: page.id,
      orgId,
      hash: text,
      text,
      rawGzip: new Uint8Array(),
      httpStatus: 200,
      contentType: 'text/html',
      at: new Date()
    })
    const first = await recordSnapshot(db, snapshot('v1'), null)
    // Both attempts read v1; the retry records v2 and its change first.
    const change = {
      changeType: 'content_change' as const,
      severity: 'low' as const,
      confidence: 0.9,
      summary: 'v1 → v2',
      diffData: { before: 'v1', after: 'v2', stats: { additions: 1, deletions: 1, changes: 1 }, hunks: [] }
    }
    const against = { snapshotId: first.snapshotId, domainId: domain.id, changes: [change] }
    await recordSnapshot(db, snapshot('v2'), first.snapshotId, against)
    await assert.rejects(
      recordSnapshot(db, snapshot('v2'), first.snapshotId, against),
      SnapshotSuperseded
    )
    const counts = await sql<{ snapshots: number, changes: number }>`
      SELECT (SELECT count(*)::int FROM snapshots WHERE page_id = ${page.id}) AS snapshots,
        (SELECT count(*)::int FROM changes WHERE page_id = ${page.id}) AS changes`.execute(db)
    assert.deepEqual(counts.rows[0], { snapshots: 2, changes: 1 })
  })
})
