import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { CompiledQuery, sql } from 'kysely'
import { pino } from 'pino'
import { JobQueue, JOBS_CHANNEL } from '../../src/queue/queue.js'
import { ANALYZE_AFTER_JOBS } from '../../src/queue/queue.js'
import { FETCH_CRAWLS } from '../../src/queue/crawl-order.js'
import { Lane, retryDelay } from '../../src/queue/lane.js'
import {
  QUEUE, queuePolicies, type CrawlJobData, type DiscoverJobData, type ResearchJobData
} from '../../src/queue/queues.js'
import { paceRules, takeTurn } from '../../src/store/host-pace.js'
import { setJobProgress } from '../../src/queue/job-records.js'
import { AttemptLost, type Job } from '../../src/queue/puller.js'
import { createOrg } from '../../src/services/orgs.js'
import { eventually, onPostgres, startTestService, type TestService } from '../helpers/service.js'

describe('fetching jobs from a long queue', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ ROLE: 'api' })
  })
  after(async () => {
    await t.stop()
  })

  const fetchPlan = async () => {
    const r = await t.service.store.db.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`EXPLAIN ${FETCH_CRAWLS}`, [QUEUE.crawl, 32, 4, 0, 0, '00000000-0000-4000-8000-000000000000', 0, 60_000])
    )
    return r.rows.map(row => row['QUERY PLAN']).join('\n')
  }

  async function queueCrawls (n: number, from: number) {
    const { db } = t.service.store
    const org = await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()
    const domain = await db
      .insertInto('domains')
      .values({ org_id: org.id, hostname: `q${from}.test`, status: 'active' })
      .returning('id')
      .executeTakeFirstOrThrow()
    const pages = await db
      .insertInto('pages')
      .values(
        Array.from({ length: n }, (_, i) => ({
          domain_id: domain.id,
          org_id: org.id,
          url: `https://q.test/${from + i}`,
          url_hash: `q${from + i}`
        }))
      )
      .returning(['id', 'url'])
      .execute()
    await t.service.queue.transaction(db, tx =>
      t.service.queue.enqueueCrawls(
        tx,
        pages.map(p => ({ orgId: org.id, domainId: domain.id, pageId: p.id, url: p.url }))
      )
    )
  }

  it('walks the fetch-order index instead of sorting every waiting crawl, once a crawl of 1,000 pages is queued', async () => {
    await queueCrawls(ANALYZE_AFTER_JOBS - 1, 0)
    await queueCrawls(1, ANALYZE_AFTER_JOBS)
    // The queue refreshes the planner's statistics after that many crawls, in the background.
    const lookahead = (plan: string) => plan.slice(plan.indexOf('CTE due'), plan.indexOf('CTE paced'))
    const plan = await eventually(async () => {
      const p = await fetchPlan()
      return lookahead(p).includes('jobs_due') ? p : undefined
    }, 10_000, 'the fetch to walk jobs_due')
    // Only the lookahead's 256 rows are sorted later, by host.
    assert.doesNotMatch(lookahead(plan), /Sort/, plan)
    // A waiting crawl's host is read from its row, and the busy hosts are found once: neither
    // the URL's regular expression nor a count of the requests in flight runs per crawl walked.
    assert.doesNotMatch(lookahead(plan), /host_leases|substring/, plan)

    // No delay between requests here: one host takes as many as it has places (4).
    const jobs = await t.service.queue.takeCrawls(QUEUE.crawl, 32)
    assert.equal(jobs.length, 4)
    assert.equal(new Set(jobs.map(j => j.id)).size, 4)
  })

  it('discoveries take turns: one organisation\'s forty waiting do not all come before another\'s first', async () => {
    const { db } = t.service.store
    const { queue } = t.service
    const big = (await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id
    const { org: small } = await createOrg(db, 'Small', 'starter')
    const discover = async (orgId: string, host: string) => {
      const domain = await db.insertInto('domains').values({ org_id: orgId, hostname: host, status: 'discovering' })
        .returning('id').executeTakeFirstOrThrow()
      await queue.transaction(db, tx => queue.enqueueDiscovery(tx, { orgId, domainId: domain.id }))
      return domain.id
    }
    const bigOnes = []
    for (let i = 0; i < 40; i++) bigOnes.push(await discover(big, `big-${i}.test`))
    const smallOne = await discover(small.id, 'small.test')
    const policies = queuePolicies(t.service.config)
    const lane = new Lane<DiscoverJobData>(db, QUEUE.discover, queue.workerId, retryDelay(policies))
    const firstTwo = await lane.fetch(2)
    assert.deepEqual(firstTwo.map(j => j.data.domainId), [bigOnes[0], smallOne])
  })
})

/** Queues a crawl of `n` pages of `host`, in a transaction of its own, as one API call does. */
async function queueHost (t: TestService, host: string, n: number) {
  const { db } = t.service.store
  const org = await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()
  const domain = await db.insertInto('domains').values({ org_id: org.id, hostname: host, status: 'active' })
    .returning('id').executeTakeFirstOrThrow()
  const pages = await db.insertInto('pages')
    .values(Array.from({ length: n }, (_, i) => ({
      domain_id: domain.id, org_id: org.id, url: `https://${host}/${i}`, url_hash: `${host}${i}`
    })))
    .returning(['id', 'url']).execute()
  await t.service.queue.transaction(db, tx => t.service.queue.enqueueCrawls(
    tx, pages.map(p => ({ orgId: org.id, domainId: domain.id, pageId: p.id, url: p.url }))))
}

describe('crawls are taken when their host is free', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ ROLE: 'api', CRAWL_PER_HOST_DELAY_MS: '250' })
  })
  after(async () => {
    await t.stop()
  })

  it('ranks an organisation\'s hosts in turn, takes one crawl per free host, and none of a host just taken', async () => {
    await queueHost(t, 'a.test', 10)
    await queueHost(t, 'b.test', 10)
    const { db } = t.service.store
    const order = await sql<{ url: string }>`
      SELECT url FROM jobs WHERE lane = ${QUEUE.crawl} AND state = 'waiting'
      ORDER BY priority DESC, created_at, id`.execute(db)
    const firstOfB = order.rows.findIndex(r => r.url.startsWith('https://b.test/'))
    assert.ok(firstOfB <= 2, `b.test's first crawl is ${firstOfB + 1}th in the queue's order, behind a.test's`)

    // One crawl per free host, each with its host's turn, taken in the same statement: a
    // lease in the job's name, and the host's next start a delay and its slack after the turn.
    const taken = await t.service.queue.takeCrawls(QUEUE.crawl, 16)
    assert.deepEqual(taken.map(j => new URL((j.data as { url: string }).url).host).sort(), ['a.test', 'b.test'])
    const rules = paceRules(t.service.config)
    const { rows: paces } = await sql<{ host: string, next_ms: number }>`
      SELECT host, (extract(epoch FROM next_start) * 1000)::float8 AS next_ms FROM host_pace ORDER BY host`.execute(db)
    for (const job of taken) {
      const { turn, url } = job.data as CrawlJobData
      assert.ok(turn, 'the crawl carries its turn')
      assert.equal(turn.lease, job.id)
      assert.ok(Math.abs(turn.startAt - Date.now()) < 5000)
      const pace = paces.find(p => p.host === new URL(url).host)!
      assert.ok(Math.abs(pace.next_ms - turn.startAt - (rules.delayMs + rules.slackMs)) < 0.01,
        `${pace.next_ms - turn.startAt} ms to the next turn`)
    }
    const { rows: leases } = await sql<{ id: string }>`SELECT id FROM host_leases ORDER BY id`.execute(db)
    assert.deepEqual(leases.map(l => l.id), taken.map(j => j.id).sort())
    // Both hosts' next turns are a delay away: nothing more yet, and a request of another
    // kind (a discovery's, robots.txt) waits for the same turn as the crawls.
    assert.equal((await t.service.queue.takeCrawls(QUEUE.crawl, 16)).length, 0)
    const aTurn = (taken.find(j => j.data.url.startsWith('https://a.test/'))!.data as CrawlJobData).turn!
    const other = await takeTurn(db, 'a.test', rules)
    assert.ok('startAt' in other && other.startAt - aTurn.startAt >= rules.delayMs + rules.slackMs - 0.01)

    // a.test's next turn is far away (another worker's discovery took it): only b.test's crawls go.
    await sql`UPDATE host_pace SET next_start = now() + interval '1 minute' WHERE host = 'a.test'`.execute(db)
    const later = await eventually(async () => {
      const jobs = await t.service.queue.takeCrawls(QUEUE.crawl, 16)
      return jobs.length > 0 ? jobs : undefined
    }, 5000, 'the next crawl to be due')
    assert.deepEqual(later.map(j => new URL((j.data as { url: string }).url).host), ['b.test'])
  })
})

describe(
  'jobs queued by one process wake the workers of another',
  { skip: !onPostgres && 'PGlite serves one process' },
  () => {
    // Both poll once a minute: only the notification can start the job within seconds.
    const env = {
      JOB_POLLING_SECONDS: '60',
      CRAWL_HOST_MAP: 'wake.test=http://127.0.0.1:9,wake2.test=http://127.0.0.1:9'
    }
    let api: TestService
    let worker: TestService
    before(async () => {
      api = await startTestService({ ...env, ROLE: 'api' })
      worker = await startTestService({ ...env, ROLE: 'worker' }, { databaseUrl: api.service.config.databaseUrl })
      // The workers' first fetch, made as they start, is over: from now on they sleep.
      await new Promise(resolve => setTimeout(resolve, 1000))
    })
    after(async () => {
      await worker.stop()
      await api.stop()
    })

    it('a discovery queued through an API process starts at once in a worker process', async () => {
      const added = await api.api.post('/api/domains', { domain: 'wake.test' })
      assert.equal(added.status, 201)
      const job = await eventually(
        async () => {
          const j = (await api.api.get(`/api/jobs/${added.body.data.discoveryJobId}`)).body.data
          return j.state === 'waiting' ? undefined : j
        },
        10_000,
        'the worker to take the discovery job'
      )
      assert.notEqual(job.state, 'waiting')
    })

    it('and still do after the listening connection was cut', async () => {
      const listening = sql<{
        pid: number
      }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = ${`LISTEN ${JOBS_CHANNEL}`}`
      const [cut] = (await listening.execute(api.service.store.db)).rows
      await sql`SELECT pg_terminate_backend(${cut.pid})`.execute(api.service.store.db)
      await eventually(
        async () => {
          const rows = (await listening.execute(api.service.store.db)).rows
          return rows.length === 1 && rows[0].pid !== cut.pid ? true : undefined
        },
        10_000,
        'the listener to connect again'
      )
      const added = await api.api.post('/api/domains', { domain: 'wake2.test' })
      assert.equal(added.status, 201)
      await eventually(
        async () => {
          const j = (await api.api.get(`/api/jobs/${added.body.data.discoveryJobId}`)).body.data
          return j.state === 'waiting' ? undefined : j
        },
        10_000,
        'the worker to take the discovery job'
      )
    })
  }
)

describe("a research brief's attempts", () => {
  let t: TestService
  before(async () => {
    // No workers of the service's own: the test's handler is the only one on the queue. A retry
    // waits a minute, so a job is seen between its attempts.
    t = await startTestService({ ROLE: 'api', JOB_EXPIRE_SECONDS: '2', JOB_RETRY_DELAY_SECONDS: '60' })
  })
  after(async () => {
    await t.stop()
  })

  /** A brief of a domain of `host` queued and run by `run`: its job as the API shows it once the attempt failed. */
  async function failedAttempt (
    host: string, run: (job: Job<ResearchJobData>, signal: AbortSignal) => Promise<object>
  ) {
    const { db } = t.service.store
    const { queue } = t.service
    const org = await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()
    const domain = await db.insertInto('domains').values({ org_id: org.id, hostname: host, status: 'active' })
      .returning('id').executeTakeFirstOrThrow()
    const jobId = crypto.randomUUID()
    await queue.transaction(db, tx =>
      queue.enqueueResearch(tx, jobId, { orgId: org.id, domainId: domain.id, briefId: crypto.randomUUID() }))
    queue.pull(QUEUE.research, 1, { run })
    try {
      return await eventually(async () => {
        const job = (await t.api.get(`/api/jobs/${jobId}`)).body.data
        return job.failedReason ? job : undefined
      }, 20_000, 'the attempt to fail')
    } finally {
      await queue.stopPulling(0)
    }
  }

  it('one that outlives its lease is stopped by its signal before its expiry hands it on, and fails saying why', async () => {
    const stopped: unknown[] = []
    // Work that would never end by itself: only its signal ends it.
    const failed = await failedAttempt('lease.test', async (_job, signal) =>
      await new Promise<object>((_resolve, reject) => {
        signal.addEventListener('abort', () => { stopped.push(signal.reason); reject(new Error('aborted')) })
      }))
    assert.equal(failed.failedReason, 'the attempt ran for 2 s, the most its queue allows, and was stopped')
    assert.equal(stopped.length, 1)
  })

  it("a worker that finds itself taken for lost stops the attempts it runs: their retries are another's", async () => {
    const { store } = t.service
    const { db } = store
    // A worker of its own, beating every second, on the same database.
    const worker = await JobQueue.start(store, { ...t.service.config, jobMaintenanceSeconds: 1 },
      { runsWorkers: true, log: pino({ level: 'silent' }) })
    const org = await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()
    const domain = await db.insertInto('domains').values({ org_id: org.id, hostname: 'lost.test', status: 'active' })
      .returning('id').executeTakeFirstOrThrow()
    const jobId = crypto.randomUUID()
    await worker.transaction(db, tx =>
      worker.enqueueResearch(tx, jobId, { orgId: org.id, domainId: domain.id, briefId: crypto.randomUUID() }))
    let running = false
    let stoppedBy: unknown
    worker.pull<ResearchJobData, object>(QUEUE.research, 1, {
      run: async (_job, signal) => await new Promise<object>((_resolve, reject) => {
        running = true
        signal.addEventListener('abort', () => { stoppedBy = signal.reason; reject(signal.reason) })
      })
    })
    try {
      await eventually(async () => running || undefined, 10_000, 'the attempt to run')
      // Another worker's sweep took this one for lost (it was frozen, cut off): its attempt handed back, its row gone.
      await sql`UPDATE jobs SET state = 'waiting', owner = NULL, start_after = now() + interval '1 hour'
        WHERE id = ${jobId}`.execute(db)
      await sql`DELETE FROM workers WHERE id = ${worker.workerId}`.execute(db)
      const reason = await eventually(async () => stoppedBy, 10_000, 'the attempt stopped')
      assert.ok(reason instanceof AttemptLost, String(reason))
      const job = await eventually(async () => {
        const j = await db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow()
        return j
      }, 5_000, 'the job')
      assert.equal(job.state, 'waiting', "the stopped attempt's end changes nothing of the handed-back job")
      await eventually(async () => (await db.selectFrom('workers').select('id').where('id', '=', worker.workerId)
        .executeTakeFirst()) ?? undefined, 5_000, 'the worker listed again')
    } finally {
      await worker.stopPulling(0)
      await worker.stop()
    }
  })

  it('one that fails starts again from nothing: waiting for its retry, it shows no progress of the attempt', async () => {
    const job = await failedAttempt('retry.test', async job => {
      await setJobProgress(t.service.store.db, job.id, 90)
      throw new Error('the site went away at 90 %')
    })
    assert.equal(job.state, 'delayed')
    assert.equal(job.attemptsMade, 1)
    assert.equal(job.progress, 0)
  })
})

describe('a host that asked to be left alone', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ ROLE: 'api', CRAWL_PER_HOST_DELAY_MS: '0' })
  })
  after(async () => {
    await t.stop()
  })

  it("moves its waiting crawls' start to when its Retry-After ends, and starves no other host", async () => {
    const { db } = t.service.store
    const { queue } = t.service
    // Ranked ahead of everything else, as a big tenant's first crawl may be.
    const queueRanked = async (host: string, n: number, rank: number) => {
      await queueHost(t, host, n)
      await sql`UPDATE jobs SET priority = ${rank} WHERE url LIKE ${`https://${host}/%`}`.execute(db)
    }
    await queueRanked('held.test', 300, 10)
    await queueRanked('free.test', 1, 0)
    const [first] = await queue.takeCrawls(QUEUE.crawl, 1)
    assert.equal(new URL(first!.data.url).host, 'held.test')
    // Its answer was a 429 with Retry-After: an hour; the crawl steps aside until then.
    const lane = new Lane<CrawlJobData>(db, QUEUE.crawl, queue.workerId, retryDelay(queuePolicies(t.service.config)),
      paceRules(t.service.config))
    const until = new Date(Date.now() + 3_600_000)
    assert.equal(await lane.stepAside(first!, until), true)
    const { rows } = await sql<{ early: number }>`
      SELECT count(*) FILTER (WHERE start_after < ${until})::int AS early FROM jobs
      WHERE url LIKE 'https://held.test/%' AND state = 'waiting'`.execute(db)
    assert.equal(rows[0]!.early, 0, 'every waiting crawl of the held host starts when it may')
    const taken = await queue.takeCrawls(QUEUE.crawl, 4)
    assert.deepEqual(taken.map(j => new URL(j.data.url).host), ['free.test'])
  })

  it('a host with all its places taken, however many crawls it has ranked first, hides no free host\'s', async () => {
    const { db } = t.service.store
    const { queue } = t.service
    await queueHost(t, 'full.test', 300)
    await sql`UPDATE jobs SET priority = 10 WHERE url LIKE 'https://full.test/%'`.execute(db)
    await queueHost(t, 'other.test', 1)
    // Four requests in flight at full.test: its four places, taken as a crawler takes them.
    const rules = { concurrency: 4, delayMs: 0, leaseMs: 60_000, maxWaitMs: 1000, slackMs: 0, leadMs: 0 }
    for (let i = 0; i < 4; i++) assert.ok('lease' in await takeTurn(db, 'full.test', rules))
    const taken = await queue.takeCrawls(QUEUE.crawl, 4)
    assert.deepEqual(taken.map(j => new URL(j.data.url).host), ['other.test'])
  })

  it('a crawl handed back unrun (its worker stopping) frees its place at its host at once, not when the lease ends', async () => {
    const { db } = t.service.store
    const { queue } = t.service
    await queueHost(t, 'back.test', 1)
    await sql`UPDATE jobs SET priority = 20 WHERE url LIKE 'https://back.test/%'`.execute(db)
    const lane = new Lane<CrawlJobData>(db, QUEUE.crawl, queue.workerId, retryDelay(queuePolicies(t.service.config)),
      paceRules(t.service.config))
    const [taken] = await lane.fetch(1)
    assert.equal(new URL(taken!.data.url).host, 'back.test')
    const places = sql<{ n: number }>`SELECT count(*)::int AS n FROM host_leases WHERE host = 'back.test'`
    assert.equal((await places.execute(db)).rows[0]!.n, 1, 'the crawl holds its place as it is taken')
    await lane.handBack([taken!], 'the worker shut down while the job was running')
    assert.equal((await places.execute(db)).rows[0]!.n, 0)
    const back = await db.selectFrom('jobs').select(['state', 'attempts_made']).where('id', '=', taken!.id).executeTakeFirstOrThrow()
    assert.deepEqual([back.state, back.attempts_made], ['waiting', 0])
  })
})
