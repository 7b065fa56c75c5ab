import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { issueKey } from '../../src/store/orgs.js'
import {
  CONTRACT_RATE_LIMITS, drainJobs, eventually, onPostgres, startTestService, waitForJob, type TestService
} from '../helpers/service.js'

// Conditional GETs (api/validators.ts): every GET's answer carries an ETag, the
// organisation's data version, which every committed write to what it shows moves,
// whichever door the write came through (the API, the pipeline, a statement of the
// store). A current tag in If-None-Match gets a 304 that the rate limit does not count.

const ADMIN = 'admin-secret-token'

describe('conditional GETs', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ ...CONTRACT_RATE_LIMITS, ADMIN_TOKEN: ADMIN, CRAWL_HOST_MAP: 'etag.test=http://127.0.0.1:9,elsewhere.test=http://127.0.0.1:9,kept.test=http://127.0.0.1:9' })
  })
  after(async () => {
    await t.stop()
  })

  const ifNoneMatch = (tag: string) => ({ headers: { 'if-none-match': tag } })
  /** Whether `tag` is still current for `path` (on PostgreSQL a write is heard within milliseconds, not at once). */
  const stillCurrent = async (path: string, tag: string) => (await t.api.get(path, ifNoneMatch(tag))).status === 304

  it('a GET carries a weak ETag; asked again with it, the answer is a 304 with no body, counted nowhere', async () => {
    const first = await t.api.get('/api/domains')
    assert.equal(first.status, 200)
    const tag = first.headers.get('etag')!
    assert.match(tag, /^W\/"[^"]+"$/)
    assert.equal(first.headers.get('cache-control'), 'private, no-cache')
    const remaining = Number(first.headers.get('x-ratelimit-remaining'))

    for (let i = 0; i < 5; i++) {
      const again = await t.api.get('/api/domains', ifNoneMatch(tag))
      assert.equal(again.status, 304)
      assert.equal(again.body, undefined)
      assert.equal(again.headers.get('etag'), tag)
    }
    // A list of tags, and the strong form of the same tag, are current too (weak comparison).
    assert.equal((await t.api.get('/api/domains', ifNoneMatch(`"other", ${tag.slice(2)}`))).status, 304)
    const head = await fetch(`${t.url}/api/domains`, {
      method: 'HEAD', headers: { authorization: `Bearer ${t.key}`, 'if-none-match': tag }
    })
    assert.equal(head.status, 304)

    const counted = await t.api.get('/api/domains')
    assert.equal(counted.status, 200)
    assert.equal(Number(counted.headers.get('x-ratelimit-remaining')), remaining - 1, 'the 304s counted nothing')
    assert.equal(counted.headers.get('etag'), tag)
  })

  it("each address has its own tag: another query's tag is not current", async () => {
    const all = (await t.api.get('/api/changes')).headers.get('etag')!
    const some = (await t.api.get('/api/changes?severity=high')).headers.get('etag')!
    assert.notEqual(all, some)
    assert.equal((await t.api.get('/api/changes?severity=high', ifNoneMatch(all))).status, 200)
  })

  it('a write through the API moves the tag of every answer it changes, and the next answer is whole', async () => {
    const list = (await t.api.get('/api/domains')).headers.get('etag')!
    const usage = (await t.api.get('/api/usage')).headers.get('etag')!
    const added = await t.api.post('/api/domains', { domain: 'etag.test' })
    assert.equal(added.status, 201)
    if (!onPostgres) {
      // The embedded database tells of a write before its commit returns: the very next GET is whole.
      assert.equal(await stillCurrent('/api/domains', list), false)
    }
    await eventually(async () => !(await stillCurrent('/api/domains', list)), 10_000, 'the list to change')
    const whole = await t.api.get('/api/domains', ifNoneMatch(list))
    assert.equal(whole.status, 200)
    assert.ok(whole.body.data.some((d: { domain: string }) => d.domain === 'etag.test'))
    assert.equal(await stillCurrent('/api/usage', usage), false, 'usage counts the domain added')
    // Its discovery (of a site that does not answer) writes too; once it has ended, the tag stays.
    await waitForJob(t.api, added.body.data.discoveryJobId)
    await drainJobs(t.api)
    const settled = (await t.api.get('/api/domains')).headers.get('etag')!
    assert.equal(await stillCurrent('/api/domains', settled), true)
  })

  it('a write made by no request (a statement of the store, as the pipeline writes) moves the tag too', async () => {
    const domain = (await t.api.get('/api/domains')).body.data[0]
    const path = `/api/domains/${domain.id}`
    const tag = (await t.api.get(path)).headers.get('etag')!
    await sql`UPDATE domains SET display_name = 'Renamed by the store' WHERE id = ${domain.id}`.execute(t.service.store.db)
    await eventually(async () => !(await stillCurrent(path, tag)), 10_000, "the domain's tag to move")
    assert.equal((await t.api.get(path)).body.data.displayName, 'Renamed by the store')
  })

  it("another organisation's writes leave this one's tags current", async () => {
    const tag = (await t.api.get('/api/domains')).headers.get('etag')!
    const created = await fetch(`${t.url}/admin/orgs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Elsewhere', plan: 'pro' })
    })
    const other = t.api.withKey(((await created.json()) as any).data.apiKey)
    const added = await other.post('/api/domains', { domain: 'elsewhere.test' })
    assert.equal(added.status, 201)
    await waitForJob(other, added.body.data.discoveryJobId)
    const itsTag = (await other.get('/api/domains')).headers.get('etag')!
    assert.notEqual(itsTag, tag)
    assert.equal(await stillCurrent('/api/domains', tag), true)
    // A tag is the organisation's: the same address asked by another organisation is whole.
    assert.equal((await other.get('/api/domains', ifNoneMatch(tag))).status, 200)
  })

  it('an answer asked again is the same, and a write through the API shows in the very next answer', async () => {
    const first = await t.api.get('/api/domains')
    assert.deepEqual((await t.api.get('/api/domains')).body, first.body)
    const added = await t.api.post('/api/domains', { domain: 'kept.test' })
    assert.equal(added.status, 201)
    const listed = await t.api.get('/api/domains')
    assert.ok(listed.body.data.some((d: { domain: string }) => d.domain === 'kept.test'), 'the list shows the domain added')
    const path = `/api/domains/${added.body.data.id}`
    assert.equal((await t.api.get(path)).status, 200)
    assert.equal((await t.api.get(path)).status, 200)
    assert.equal((await t.api.request('PATCH', path, { body: { displayName: 'Kept and renamed' } })).status, 200)
    assert.equal((await t.api.get(path)).body.data.displayName, 'Kept and renamed')
  })

  it("a kept answer is the caller's: a read-only key is refused what a write key was shown, and CSV is not JSON", async () => {
    const orgId = (await t.api.get('/api/domains')).body.data[0].orgId
    assert.equal((await t.api.get('/api/audit-events')).status, 200)
    assert.equal((await t.api.get('/api/audit-events')).status, 200)
    const reader = t.api.withKey((await issueKey(t.service.store.db, orgId, { scope: 'read' })).apiKey)
    assert.equal((await reader.get('/api/audit-events')).status, 403)
    const json = await fetch(`${t.url}/api/changes`, { headers: { authorization: `Bearer ${t.key}` } })
    assert.match(json.headers.get('content-type')!, /json/)
    await json.arrayBuffer()
    for (let i = 0; i < 2; i++) {
      const csv = await fetch(`${t.url}/api/changes`, { headers: { authorization: `Bearer ${t.key}`, accept: 'text/csv' } })
      assert.match(csv.headers.get('content-type')!, /text\/csv/)
      assert.match(csv.headers.get('content-disposition') ?? '', /^attachment/, 'an export is an attachment, asked again too')
      assert.match(await csv.text(), /^createdAt,/)
    }
  })

  it('errors carry no ETag, and a tag never turns a refusal into a 304', async () => {
    const tag = (await t.api.get('/api/domains')).headers.get('etag')!
    const missing = await t.api.get('/api/domains/00000000-0000-4000-8000-000000000000')
    assert.equal(missing.status, 404)
    assert.equal(missing.headers.get('etag'), null)
    const unknown = await t.api.get('/api/domains', { ...ifNoneMatch(tag), key: 'sw_live_not-a-key' })
    assert.equal(unknown.status, 401)
  })

  it('/openapi.json documents the ETag of every GET and its 304', async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as any
    const gets = Object.entries<any>(doc.paths).filter(([path, item]) => path.startsWith('/api/') && item.get)
    assert.ok(gets.length > 15)
    for (const [path, item] of gets) {
      assert.ok(item.get.responses['304'], `${path} documents its 304`)
      assert.ok(item.get.responses['200'].headers.ETag, `${path} documents its ETag`)
    }
  })

  if (onPostgres) {
    it('with its listening connection cut, a process sends no tag until it listens again, then new ones', async () => {
      const tag = (await t.api.get('/api/domains')).headers.get('etag')!
      const listening = sql<{ pid: number }>`SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND query = 'LISTEN sitewatch_data'`
      const [cut] = (await listening.execute(t.service.store.db)).rows
      await sql`SELECT pg_terminate_backend(${cut.pid})`.execute(t.service.store.db)
      // A new tag once listening again, which is current (asked at once: the service's own work, a crawl
      // recorded meanwhile, may move it again, as any write does).
      await eventually(async () => {
        const tagNow = (await t.api.get('/api/domains')).headers.get('etag')
        return tagNow !== null && tagNow !== tag && await stillCurrent('/api/domains', tagNow) ? tagNow : undefined
      }, 15_000, 'a new tag, current, once listening again')
      assert.equal(await stillCurrent('/api/domains', tag), false, 'a tag from before the cut is never current')
    })
  }
})
