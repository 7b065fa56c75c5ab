// Tags on domains ("direct competitors", "suppliers"): kept as people mean them (case and
// spacing aside), and narrowing the domain list, the changes, the feeds, the webhooks and
// the e-mail alerts to the domains that have one.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { endpointWants } from '../../src/alerts/dispatch.js'
import { addUser } from '../../src/services/accounts.js'
import { createOrg } from '../../src/services/orgs.js'
import { defaultMailPreference, preferenceWants } from '../../src/vocabulary/mail-alerts.js'
import { startTestService, type TestService } from '../helpers/service.js'
import type { ApiClient } from '../helpers/client.js'

describe('tags on domains', () => {
  let t: TestService
  let api: ApiClient
  const ids: Record<string, string> = {}

  before(async () => {
    t = await startTestService({
      CRAWL_HOST_MAP: 'rival.test=http://127.0.0.1:9,vendor.test=http://127.0.0.1:9,' +
      'other.test=http://127.0.0.1:9'
    })
    const { org, apiKey } = await createOrg(t.service.store.db, 'Tagged', 'enterprise')
    await addUser(t.service.store.db, org.id, { email: 'analyst@tagged.test', password: 'a long enough password' }, 'admin')
    api = t.api.withKey(apiKey)
  })
  after(async () => await t.stop())

  it('a domain is made with its tags, trimmed, lower-case and each once; a bad tag is a 400 that makes nothing', async () => {
    const made = await api.post('/api/domains', { domain: 'rival.test', tags: [' Direct  Competitors ', 'EU', 'direct competitors'] })
    assert.equal(made.status, 201, JSON.stringify(made.body))
    assert.deepEqual(made.body.data.tags, ['direct competitors', 'eu'])
    ids.rival = made.body.data.id
    ids.vendor = (await api.post('/api/domains', { domain: 'vendor.test', tags: ['suppliers', 'eu'] })).body.data.id
    ids.other = (await api.post('/api/domains', { domain: 'other.test' })).body.data.id
    for (const tags of [['a,b'], ['x'.repeat(41)], ['   '], Array.from({ length: 11 }, (_, i) => `t${i}`)]) {
      const bad = await api.post('/api/domains', { domain: 'bad.test', tags })
      assert.equal(bad.status, 400, JSON.stringify(tags))
      assert.equal(bad.body.code, 'VALIDATION_ERROR')
    }
    assert.equal((await api.get('/api/domains')).body.meta.total, 3, 'a refused domain was not made')
    assert.deepEqual((await api.get(`/api/domains/${ids.other}`)).body.data.tags, [])
  })

  it('PATCH sets all of them; the list narrows to a tag, whatever its case', async () => {
    const patched = await api.request('PATCH', `/api/domains/${ids.other}`, { body: { tags: ['Suppliers'] } })
    assert.equal(patched.status, 200)
    assert.deepEqual(patched.body.data.tags, ['suppliers'])
    const suppliers = await api.get('/api/domains?tag=SUPPLIERS')
    assert.deepEqual(suppliers.body.data.map((d: any) => d.domain).sort(), ['other.test', 'vendor.test'])
    assert.equal(suppliers.body.meta.total, 2)
    assert.deepEqual((await api.get('/api/domains?tag=eu&pageSize=1&page=2')).body.meta, { total: 2, page: 2, pageSize: 1 })
    assert.equal((await api.get('/api/domains?tag=nobody')).body.meta.total, 0)
    assert.equal((await api.get('/api/domains?tag=a,b')).status, 400)
    const cleared = await api.request('PATCH', `/api/domains/${ids.other}`, { body: { tags: [] } })
    assert.deepEqual(cleared.body.data.tags, [])
    await api.request('PATCH', `/api/domains/${ids.other}`, { body: { tags: ['suppliers'] } })
  })

  it('changes and feeds narrow to the domains with a tag', async () => {
    const db = t.service.store.db
    for (const [name, id] of Object.entries(ids)) {
      await sql`WITH p AS (
          INSERT INTO pages (domain_id, org_id, url, url_hash, page_type)
          SELECT id, org_id, 'https://' || hostname || '/pricing', ${name}, 'pricing' FROM domains WHERE id = ${id}::uuid
          RETURNING id, org_id, domain_id),
        s AS (INSERT INTO snapshots (page_id, org_id, content_hash, content, http_status)
          SELECT id, org_id, 'h', 'text', 200 FROM p RETURNING id, page_id)
        INSERT INTO changes (page_id, domain_id, org_id, change_type, severity, confidence, summary, diff_data,
          snapshot_before_id, snapshot_after_id)
        SELECT p.id, p.domain_id, p.org_id, 'price_change', 'high', 0.9, 'Pro: $49 → $59 on ' || ${name},
          '{"before":"","after":"","stats":{"additions":0,"deletions":0,"changes":0},"hunks":[]}'::jsonb, s.id, s.id
        FROM p JOIN s ON s.page_id = p.id`.execute(db)
    }
    const tagged = async (q: string) => (await api.get(`/api/changes?${q}`)).body.data.map((c: any) => c.summary).sort()
    assert.deepEqual(await tagged('tag=Suppliers'), ['Pro: $49 → $59 on other', 'Pro: $49 → $59 on vendor'])
    assert.deepEqual(await tagged('tag=direct%20competitors&severity=high'), ['Pro: $49 → $59 on rival'])
    assert.deepEqual(await tagged('tag=nobody'), [])
    const token = (await api.get('/api/feeds')).body.data.changes.split('/feeds/')[1].split('/')[0]
    const feed = await (await fetch(`${t.url}/feeds/${token}/changes.atom?tag=eu`)).text()
    assert.match(feed, /on rival/)
    assert.match(feed, /on vendor/)
    assert.doesNotMatch(feed, /on other/)
  })

  it('webhooks and e-mail alerts can be narrowed to tags (a custom alert rule)', async () => {
    const hook = await api.post('/api/webhooks', { url: 'https://hooks.example.com/in', tags: ['Suppliers'] })
    assert.equal(hook.status, 201, JSON.stringify(hook.body))
    assert.deepEqual(hook.body.data.tags, ['suppliers'])
    const unset = await api.request('PATCH', `/api/webhooks/${hook.body.data.id}`, { body: { tags: null } })
    assert.equal(unset.body.data.tags, null)
    const { apiKey } = await createOrg(t.service.store.db, 'Small', 'starter')
    const refused = await t.api.withKey(apiKey).post('/api/webhooks', { url: 'https://hooks.example.com/in', tags: ['eu'] })
    assert.equal(refused.status, 403)
    const fact = { severity: 'high', changeType: 'price_change', domainId: ids.rival, pageType: 'pricing' } as const
    const row = { severity: 'high', change_type: 'price_change', domain_id: ids.rival, page_type: 'pricing' } as const
    assert.equal(endpointWants({ match: { tags: ['suppliers'] } }, { ...row, domain_tags: ['eu'] }), false)
    assert.equal(endpointWants({ match: { tags: ['suppliers', 'eu'] } }, { ...row, domain_tags: ['eu'] }), true)
    assert.equal(endpointWants({ match: {} }, { ...row, domain_tags: [] }), true)
    const [member] = (await api.get('/api/alert-settings')).body.data
    const saved = await api.request('PUT', `/api/alert-settings/${member.userId}`, { body: { tags: ['EU'] } })
    assert.equal(saved.status, 200, JSON.stringify(saved.body))
    assert.deepEqual(saved.body.data.tags, ['eu'])
    const mail = { ...defaultMailPreference('enterprise'), tags: ['suppliers'] }
    assert.equal(preferenceWants(mail, { ...fact, domainTags: ['direct competitors'] }), false)
    assert.equal(preferenceWants(mail, { ...fact, domainTags: ['suppliers'] }), true)
  })
})
