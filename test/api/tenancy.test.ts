import { randomUUID } from 'node:crypto'
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { KEY_LOOKUP_TTL_MS } from '../../src/services/principals.js'
import { revokeKey } from '../../src/store/orgs.js'
import { startTestService, type TestService } from '../helpers/service.js'

const ADMIN = 'admin-secret-token'

async function admin (t: TestService, method: string, path: string, body?: unknown, token = ADMIN) {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined
  })
  return { status: res.status, body: (await res.json()) as any }
}

describe('organisations, keys and isolation', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({
      ADMIN_TOKEN: ADMIN,
      CRAWL_HOST_MAP: 'acme.test=http://127.0.0.1:9,globex.test=http://127.0.0.1:9'
    })
  })
  after(async () => {
    await t.stop()
  })

  it('nothing of one organisation is visible, listable, crawlable or deletable by another (all 404)', async () => {
    const created = await admin(t, 'POST', '/admin/orgs', { name: 'Globex', plan: 'pro' })
    assert.equal(created.status, 201)
    assert.match(created.body.data.apiKey, /^sw_live_[A-Za-z0-9_-]{32,}$/)
    assert.equal(created.body.data.org.plan, 'pro')
    const listed = await admin(t, 'GET', '/admin/orgs')
    assert.ok(listed.body.data.some((o: any) => o.id === created.body.data.org.id), 'the admin API lists organisations')
    // The first key's id comes back, so it can be revoked through the admin API.
    const spare = await admin(t, 'POST', '/admin/orgs', { name: 'Spare', plan: 'pro' })
    assert.equal((await admin(t, 'DELETE', `/admin/keys/${spare.body.data.keyId}`)).status, 200)
    assert.equal((await t.api.withKey(spare.body.data.apiKey).get('/api/usage')).status, 401)
    const other = t.api.withKey(created.body.data.apiKey)

    const mine = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data
    const page = (await t.api.post(`/api/domains/${mine.id}/pages`, { url: 'https://acme.test/pricing' })).body.data

    assert.equal((await other.get('/api/domains')).body.meta.total, 0)
    assert.equal((await other.get(`/api/domains/${mine.id}`)).status, 404)
    assert.equal((await other.get(`/api/domains/${mine.id}/pages`)).status, 404)
    assert.equal((await other.post(`/api/domains/${mine.id}/pages`, { url: 'https://acme.test/x' })).status, 404)
    assert.equal((await other.post(`/api/domains/${mine.id}/crawl`)).status, 404)
    assert.equal((await other.post(`/api/domains/${mine.id}/discover`)).status, 404)
    assert.equal((await other.delete(`/api/domains/${mine.id}`)).status, 404)
    assert.equal((await other.get(`/api/jobs/${mine.discoveryJobId}`)).status, 404)
    assert.equal((await other.get('/api/jobs')).body.meta.total, 0)
    assert.equal((await other.get('/api/jobs/stats')).body.data.total, 0)
    assert.ok((await t.api.get('/api/jobs/stats')).body.data.total >= 2, 'the owner sees its discovery and crawl jobs')
    assert.equal((await other.get('/api/usage')).body.data.limits.domains.used, 0)

    // The same hostname is free for the other organisation.
    assert.equal((await other.post('/api/domains', { domain: 'acme.test' })).status, 201)
    assert.equal(
      (await t.api.get(`/api/domains/${mine.id}`)).body.data.pages.some((p: any) => p.id === page.id),
      true
    )
  })

  it('starter has no API access: 403 FORBIDDEN on every /api request', async () => {
    const starter = await admin(t, 'POST', '/admin/orgs', { name: 'Small', plan: 'starter' })
    const api = t.api.withKey(starter.body.data.apiKey)
    for (const res of [
      await api.get('/api/domains'),
      await api.get('/api/usage'),
      await api.post('/api/domains', { domain: 'acme.test' })
    ]) {
      assert.equal(res.status, 403)
      assert.equal(res.body.code, 'FORBIDDEN')
      assert.match(res.body.error, /starter/)
    }
  })

  it('a key revoked by another process (the operator\'s command) stops within the lookup\'s time to live', async () => {
    const org = (await admin(t, 'POST', '/admin/orgs', { name: 'Revoked elsewhere', plan: 'pro' })).body.data
    const issued = (await admin(t, 'POST', `/admin/orgs/${org.org.id}/keys`)).body.data
    assert.equal(issued.scope, 'write', 'a bare POST makes a write key')
    // Its optional body on the schema the app's key form uses (vocabulary/people.ts).
    const refused = await admin(t, 'POST', `/admin/orgs/${org.org.id}/keys`, { scope: 'admin' })
    assert.deepEqual([refused.status, refused.body.details?.field], [400, 'scope'])
    const named = await admin(t, 'POST', `/admin/orgs/${org.org.id}/keys`, { scope: 'read', name: 'CI' })
    assert.deepEqual([named.status, named.body.data.scope], [201, 'read'])
    const api = t.api.withKey(issued.apiKey)
    assert.equal((await api.get('/api/usage')).status, 200)
    assert.ok(await revokeKey(t.service.store.db, issued.id))
    // The lookup's time to live is the promise: once it has passed, the very next request is refused,
    // however long requests take on a busy machine.
    await new Promise(resolve => setTimeout(resolve, KEY_LOOKUP_TTL_MS))
    assert.equal((await api.get('/api/usage')).status, 401)
  })

  it('keys: a second key works, a revoked key stops at once; admin needs its token', async () => {
    const org = (await admin(t, 'POST', '/admin/orgs', { name: 'Keys', plan: 'enterprise' })).body.data
    const issued = await admin(t, 'POST', `/admin/orgs/${org.org.id}/keys`)
    assert.equal(issued.status, 201)
    const api = t.api.withKey(issued.body.data.apiKey)
    assert.equal((await api.get('/api/usage')).status, 200)
    const usage = (await api.get('/api/usage')).body.data
    assert.equal(usage.plan, 'enterprise')
    assert.equal(usage.billingCycle, 'monthly')
    assert.equal(usage.trial, null)
    assert.deepEqual(usage.limits.domains, { used: 0, limit: null, remaining: null })
    assert.equal(usage.limits.accessiblePagesPerDomain, null)
    const keys = async () => (await admin(t, 'GET', `/admin/orgs/${org.org.id}/keys`)).body.data as any[]
    const listed = await keys()
    assert.deepEqual(listed.map(k => k.id), [issued.body.data.id, org.keyId], 'newest first')
    assert.equal(listed[0].prefix, issued.body.data.apiKey.slice(0, 12))
    assert.ok(listed.every(k => k.revokedAt === null && !JSON.stringify(k).includes(issued.body.data.apiKey)))
    assert.equal((await admin(t, 'DELETE', `/admin/keys/${issued.body.data.id}`)).status, 200)
    assert.equal((await api.get('/api/usage')).status, 401)
    assert.match((await keys())[0].revokedAt, /^\d{4}-/)
    assert.equal((await admin(t, 'GET', `/admin/orgs/${randomUUID()}/keys`)).status, 404)
    const reader = await admin(t, 'POST', `/admin/orgs/${org.org.id}/keys`, { scope: 'read' })
    assert.equal(reader.body.data.scope, 'read')
    assert.equal((await t.api.withKey(reader.body.data.apiKey).post('/api/domains', { domain: 'r.test' })).status, 403)
    assert.equal((await admin(t, 'POST', `/admin/orgs/${org.org.id}/keys`, { scope: 'all' })).status, 400)
    assert.equal((await admin(t, 'DELETE', `/admin/keys/${issued.body.data.id}`)).status, 404)
    const denied = await admin(t, 'POST', '/admin/orgs', { name: 'x', plan: 'pro' }, 'wrong')
    assert.equal(denied.status, 401)
    assert.equal(denied.body.error.code, 'UNAUTHORIZED')
    const bad = await admin(t, 'POST', '/admin/orgs', { name: 'x', plan: 'gold' })
    assert.equal(bad.status, 400)
    assert.equal(bad.body.code, 'VALIDATION_ERROR')
    assert.equal(
      (await admin(t, 'PATCH', '/admin/orgs/00000000-0000-4000-8000-000000000000', { plan: 'pro' })).status,
      404
    )
  })

  it('an expired trial reads but cannot create: 402 TRIAL_EXPIRED, and its domains are paused', async () => {
    const org = (await admin(t, 'POST', '/admin/orgs', { name: 'Trialist', plan: 'trial' })).body.data
    const api = t.api.withKey(org.apiKey)
    const domain = (await api.post('/api/domains', { domain: 'globex.test' })).body.data
    const ended = await admin(t, 'PATCH', `/admin/orgs/${org.org.id}`, {
      trialEndsAt: new Date(Date.now() - 1000).toISOString()
    })
    assert.equal(ended.status, 200)
    // Paused as soon as the trial has ended, before the scheduler's tick records it.
    assert.equal((await api.get(`/api/domains/${domain.id}`)).body.data.status, 'paused')
    assert.equal((await api.get('/api/domains')).body.data[0].status, 'paused')
    const usage = (await api.get('/api/usage')).body.data
    assert.equal(usage.trial.isExpired, true)
    assert.equal(usage.trial.daysRemaining, 0)
    assert.equal((await api.get('/api/domains')).status, 200)
    for (const res of [
      await api.post('/api/domains', { domain: 'acme.test' }),
      await api.post(`/api/domains/${domain.id}/pages`, { url: 'https://globex.test/a' }),
      await api.post(`/api/domains/${domain.id}/crawl`),
      await api.post(`/api/domains/${domain.id}/discover`)
    ]) {
      assert.equal(res.status, 402)
      assert.equal(res.body.code, 'TRIAL_EXPIRED')
    }
    const { runSchedulerTick } = await import('../../src/pipeline/scheduler-tick.js')
    await runSchedulerTick(t.service.store.db, t.service.queue)
    assert.equal((await api.get(`/api/domains/${domain.id}`)).body.data.status, 'paused')
    // Support extends the trial: creation works again and the domain wakes up.
    await admin(t, 'PATCH', `/admin/orgs/${org.org.id}`, {
      trialEndsAt: new Date(Date.now() + 86_400_000).toISOString()
    })
    assert.equal((await api.get(`/api/domains/${domain.id}`)).body.data.status, 'active')
    assert.equal((await api.post('/api/domains', { domain: 'acme.test' })).status, 201)
  })

  it('changing the plan starts a new billing period with fresh counters', async () => {
    const org = (await admin(t, 'POST', '/admin/orgs', { name: 'Upgrader', plan: 'trial' })).body.data
    const api = t.api.withKey(org.apiKey)
    await api.post('/api/domains', { domain: 'acme.test' })
    assert.equal((await api.get('/api/usage')).body.data.limits.domains.used, 1)
    await admin(t, 'PATCH', `/admin/orgs/${org.org.id}`, { plan: 'pro' })
    const usage = (await api.get('/api/usage')).body.data
    assert.equal(usage.plan, 'pro')
    assert.equal(usage.billingCycle, 'monthly')
    assert.equal(usage.trial, null)
    assert.equal(usage.limits.domains.used, 0)
    const start = new Date(usage.period.start)
    const end = new Date(usage.period.end)
    assert.equal(end.getUTCDate(), start.getUTCDate())
    assert.equal((end.getUTCMonth() - start.getUTCMonth() + 12) % 12, 1)
  })
})
