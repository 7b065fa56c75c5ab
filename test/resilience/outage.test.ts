import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { acmeHostMap, startAcmeSite } from '../helpers/fixtures.js'
import { createDatabase, drainJobs, eventually, onPostgres, onRedis, startTestService, type TestService, waitForJob } from '../helpers/service.js'
import pg from 'pg'
import { Lane, retryDelay } from '../../src/queue/lane.js'
import { QUEUE, queuePolicies, type CrawlJobData } from '../../src/queue/queues.js'
import { paceRules } from '../../src/store/host-pace.js'
import type { TestSite } from '../helpers/site.js'
import { proxyFor, type TcpProxy } from '../helpers/tcp-proxy.js'

// The database and Redis go away under load and come back, through a proxy of the
// test's own (the machine's servers are shared): the process lives, the API answers
// 503 in the envelope meanwhile, and every job queued before the outage completes.

const POSTS = 120
const OUTAGE_MS = 5000

describe('a PostgreSQL outage under load', { skip: !onPostgres && 'needs PostgreSQL (TEST_DATABASE_URL)' }, () => {
  let site: TestSite
  let proxy: TcpProxy
  let database: Awaited<ReturnType<typeof createDatabase>>
  let t: TestService
  before(async () => {
    site = await startAcmeSite({
      extraSitemapUrls: Array.from({ length: POSTS }, (_, i) => `https://acme.test/blog/post-${i}`)
    })
    // Slow pages, so that crawls are in flight when the database goes.
    site.fallback = path => path.startsWith('/blog/post-')
      ? (_req, res) => {
          setTimeout(() => {
            res.writeHead(200, { 'content-type': 'text/html' })
            res.end(`<html><body><h1>${path}</h1><p>A post.</p></body></html>`)
          }, 150)
        }
      : undefined
    database = await createDatabase()
    proxy = await proxyFor(database.url)
    t = await startTestService(
      { CRAWL_HOST_MAP: acmeHostMap(site), WORKER_CONCURRENCY: '8' },
      { databaseUrl: proxy.route(database.url) }
    )
  })
  after(async () => {
    proxy.restore()
    await t?.stop()
    await proxy?.close()
    await database?.drop()
    await site?.close()
  })

  it('answers 503 meanwhile, resumes by itself and completes every job', async () => {
    const created = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data
    const discovery = await waitForJob(t.api, created.discoveryJobId)
    assert.equal(discovery.state, 'completed')
    const pages = discovery.returnValue.pagesAdded as number
    assert.ok(pages > POSTS, `discovery added ${pages} pages`)
    await eventually(async () => {
      const s = (await t.api.get('/api/jobs/stats')).body.data
      return s.completed >= 20 ? true : undefined
    }, 20_000, 'some crawls to finish')

    proxy.cut()
    const outageEnds = Date.now() + OUTAGE_MS
    let answered503 = 0
    while (Date.now() < outageEnds - 500) {
      const res = await t.api.get('/api/domains')
      assert.equal(res.status, 503, JSON.stringify(res.body))
      assert.equal(res.body.code, 'SERVICE_UNAVAILABLE')
      assert.equal(typeof res.body.error, 'string')
      assert.ok(Number(res.headers.get('retry-after')) >= 1, 'Retry-After')
      assert.ok(res.headers.get('x-trace-id'))
      const ready = await fetch(`${t.url}/readyz`)
      assert.equal(ready.status, 503)
      assert.equal((await ready.json()).code, 'SERVICE_UNAVAILABLE')
      assert.equal((await fetch(`${t.url}/healthz`)).status, 200)
      answered503++
      await sleep(300)
    }
    assert.ok(answered503 >= 1)
    const metrics = await (await fetch(`${t.url}/metrics`)).text()
    assert.match(metrics, /^sitewatch_database_up 0$/m)
    // The queue's gauges say they could not be read, rather than that the queue is empty.
    assert.match(metrics, /^sitewatch_gauge_readable\{gauge="queue_jobs"\} 0$/m)
    proxy.restore()
    await eventually(async () => /^sitewatch_gauge_readable\{gauge="queue_jobs"\} 1$/m
      .test(await (await fetch(`${t.url}/metrics`)).text())
      ? true
      : undefined, 20_000, 'the gauges read again')

    await eventually(async () => ((await fetch(`${t.url}/readyz`)).ok ? true : undefined), 10_000, 'ready again')
    await drainJobs(t.api, 90_000)
    const stats = (await t.api.get('/api/jobs/stats')).body.data
    assert.equal(stats.failed, 0, 'no job failed for good')
    assert.equal(stats.completed, pages + 1, 'every crawl and the discovery completed')
    const all = (await t.api.get(`/api/domains/${created.id}/pages?pageSize=500`)).body.data as any[]
    assert.equal(all.length, pages)
    const unchecked = all.filter(p => p.lastCheckAt === null).map(p => p.url)
    assert.deepEqual(unchecked, [], 'every page was checked')
  })
})

describe('a Redis outage', { skip: !onRedis && 'needs Redis (TEST_REDIS_URL)' }, () => {
  let proxy: TcpProxy
  let t: TestService
  before(async () => {
    proxy = await proxyFor(process.env.TEST_REDIS_URL!)
    t = await startTestService({ REDIS_URL: proxy.route(process.env.TEST_REDIS_URL!) })
  })
  after(async () => {
    proxy.restore()
    await t?.stop()
    await proxy?.close()
  })

  // Ten requests answered within the test's time: none is held waiting for Redis.
  it('lets requests through (rate limits fail open) and counts again once Redis is back', { timeout: 30_000 }, async () => {
    const before = await t.api.get('/api/usage')
    assert.equal(before.status, 200)
    assert.ok(before.headers.get('x-ratelimit-remaining'))
    proxy.cut()
    for (let i = 0; i < 10; i++) assert.equal((await t.api.get('/api/usage')).status, 200)
    proxy.restore()
    await eventually(async () => {
      const res = await t.api.get('/api/usage')
      return res.headers.get('x-ratelimit-remaining') !== null && res.status === 200 ? true : undefined
    }, 10_000, 'rate limits counted again')
  })
})

describe('a crawl fetch whose answer is lost', { skip: !onPostgres && 'needs PostgreSQL (TEST_DATABASE_URL)' }, () => {
  let proxy: TcpProxy
  let database: Awaited<ReturnType<typeof createDatabase>>
  let direct: pg.Client
  let t: TestService
  before(async () => {
    database = await createDatabase()
    proxy = await proxyFor(database.url)
    t = await startTestService({ ROLE: 'api' }, { databaseUrl: proxy.route(database.url) })
    direct = new pg.Client({ connectionString: database.url })
    await direct.connect()
  })
  after(async () => {
    proxy.restore()
    await direct?.end()
    await t?.stop()
    await proxy?.close()
    await database?.drop()
  })

  it('runs the crawls it took once the database answers again, rather than leaving them to expire', async () => {
    const { db } = t.service.store
    const org = await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()
    const domain = await db.insertInto('domains').values({ org_id: org.id, hostname: 'lost.test', status: 'active' })
      .returning('id').executeTakeFirstOrThrow()
    const pages = await db.insertInto('pages')
      .values(Array.from({ length: 3 }, (_, i) => ({
        domain_id: domain.id, org_id: org.id, url: `https://lost${i}.test/`, url_hash: `lost${i}`
      })))
      .returning(['id', 'url']).execute()
    await t.service.queue.transaction(db, tx => t.service.queue.enqueueCrawls(
      tx, pages.map(p => ({ orgId: org.id, domainId: domain.id, pageId: p.id, url: p.url }))))
    const lane = new Lane<CrawlJobData>(db, QUEUE.crawl, t.service.queue.workerId,
      retryDelay(queuePolicies(t.service.config)), paceRules(t.service.config))
    const running = async () => (await direct.query<{ id: string }>(
      "SELECT id FROM jobs WHERE state = 'active' ORDER BY id")).rows.map(r => r.id)

    // The fetch runs and commits, and its answer is lost with the connection.
    proxy.muteAnswers()
    const fetching = lane.fetch(8)
    const taken = await eventually(async () => {
      const ids = await running()
      return ids.length === 3 ? ids : undefined
    }, 10_000, 'the fetch to commit')
    proxy.cut()
    await assert.rejects(fetching)
    proxy.restore()

    const found = await eventually(async () => await lane.fetch(8).catch(() => undefined), 10_000, 'the database')
    assert.deepEqual(found.map(j => j.id).sort(), taken, 'the crawls the lost fetch took, and no others')
    assert.deepEqual(found.map(j => j.retryCount), [0, 0, 0], 'their first attempt, not a retry')
    assert.deepEqual(await lane.fetch(8), [], 'found once')
  })
})
