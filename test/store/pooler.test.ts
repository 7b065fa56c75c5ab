import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import pg from 'pg'
import { DATA_CHANNEL, DataVersions } from '../../src/store/data-versions.js'
import { openStore } from '../../src/store/db.js'
import { PGBOUNCER, startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.js'
import { TestSite } from '../helpers/site.js'
import { createDatabase, eventually, onPostgres, startTestService, waitForJob, type TestService } from '../helpers/service.js'

// Behind Debian's PgBouncer in transaction mode, as docs/operations.md sets it up: a
// statement goes to whichever server connection is free, so LISTEN succeeds and then hears
// nothing, and a session's lock (the migrator's) stays on a server connection that another
// client gets next. What needs a session takes one of its own (DATABASE_DIRECT_URL), and a
// listener that cannot hear a probe sent through the pool says so and is not trusted.

describe('behind PgBouncer in transaction mode', {
  skip: (!onPostgres && 'PostgreSQL only') || (!PGBOUNCER && 'PgBouncer is not installed (apt-get install pgbouncer)')
}, () => {
  let database: Awaited<ReturnType<typeof createDatabase>>
  let bouncer: PgBouncer
  let pooled: string
  before(async () => {
    database = await createDatabase()
    bouncer = await startPgBouncer(database.url, 'transaction')
    pooled = bouncer.route(database.url)
  })
  after(async () => {
    await bouncer?.stop()
    await database?.drop()
  })

  it('a listener through the pooler hears nothing, says why, and no version is trusted', async () => {
    const store = await openStore({ databaseUrl: pooled, dataDir: '' })
    const versions = new DataVersions()
    const errors: unknown[] = []
    const stop = await store.followWrites(versions, err => { errors.push(err) })
    try {
      assert.match(String(errors[0]), /DATABASE_DIRECT_URL/)
      await sql`SELECT pg_notify(${DATA_CHANNEL}, 'org-a:7')`.execute(store.db)
      assert.equal(versions.of('org-a'), undefined, 'no validator from a listener that may miss writes')
    } finally {
      await stop()
      await store.close()
    }
  })

  it('with DATABASE_DIRECT_URL, a write through the pooler is heard', async () => {
    const store = await openStore({ databaseUrl: pooled, directUrl: database.url, dataDir: '' })
    const versions = new DataVersions()
    const errors: unknown[] = []
    const stop = await store.followWrites(versions, err => { errors.push(err) })
    try {
      assert.deepEqual(errors, [])
      const before = versions.of('org-a')
      assert.ok(before)
      await sql`SELECT pg_notify(${DATA_CHANNEL}, 'org-a:7')`.execute(store.db)
      await eventually(async () => versions.of('org-a') === 'x7' ? true : undefined, 5000, 'the write to be heard')
    } finally {
      await stop()
      await store.close()
    }
  })

  it('four processes that start at once on a new database migrate it once, none waiting on a lock left behind', { timeout: 60_000 }, async () => {
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
    await admin.connect()
    const name = `sw_test_empty_${randomBytes(6).toString('hex')}`
    await admin.query(`CREATE DATABASE ${name}`)
    const direct = new URL(database.url)
    direct.pathname = `/${name}`
    try {
      const stores = await Promise.all([1, 2, 3, 4].map(async () =>
        await openStore({ databaseUrl: bouncer.route(direct.toString()), directUrl: direct.toString(), dataDir: '' })))
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM kysely_migration`.execute(stores[0].db)
      assert.ok(rows[0].n > 30)
      await Promise.all(stores.map(async s => { await s.close() }))
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    }
  })

  describe('an API and a worker behind the pooler', () => {
    let site: TestSite
    let api: TestService
    let worker: TestService
    before(async () => {
      site = await new TestSite().start()
      site.page('/', '<html><head><title>Pooled</title></head><body><a href="/pricing">Pricing</a></body></html>')
      site.page('/pricing', '<html><body><h1>Pricing</h1><p>Pro: $10 per month</p></body></html>')
      // Both poll once a minute: only a notification heard through the listen URL starts a job within seconds.
      const env = {
        CRAWL_HOST_MAP: `pooled.test=${site.origin}`,
        JOB_POLLING_SECONDS: '60',
        DATABASE_DIRECT_URL: database.url
      }
      api = await startTestService({ ...env, ROLE: 'api' }, { databaseUrl: pooled })
      worker = await startTestService({ ...env, ROLE: 'worker' }, { databaseUrl: pooled })
    })
    after(async () => {
      await worker?.stop()
      await api?.stop()
      await site?.close()
    })

    it('discovers and crawls at once, and every answer carries a tag that the worker\'s writes move', async () => {
      const first = await api.api.get('/api/domains')
      const tag = first.headers.get('etag')
      assert.ok(tag, 'the API listens, so it sends validators')
      const added = await api.api.post('/api/domains', { domain: 'pooled.test' })
      assert.equal(added.status, 201)
      const job = await waitForJob(api.api, added.body.data.discoveryJobId, 20_000)
      assert.equal(job.state, 'completed')
      const id = added.body.data.id
      const pages = await eventually(async () => {
        const list = (await api.api.get(`/api/domains/${id}/pages`)).body.data
        return list.length >= 2 && list.every((p: any) => p.lastCheckAt) ? list : undefined
      }, 20_000, 'the pages to be crawled')
      assert.ok(pages.some((p: any) => p.url.endsWith('/pricing')))
      const now = await api.api.get('/api/domains')
      assert.notEqual(now.headers.get('etag'), tag)
      assert.equal((await api.api.get('/api/domains', { headers: { 'if-none-match': now.headers.get('etag')! } })).status, 304)
      assert.doesNotMatch(bouncer.log(), /no more connections allowed/)
    })
  })
})
