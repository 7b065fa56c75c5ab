// Longer than 300 lines on purpose: the contract (service-api.md), endpoint by endpoint, in its order.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { acmeHostMap, startAcmeSite } from '../helpers/fixtures.js'
import { CONTRACT_RATE_LIMITS, pollUntil, startTestService, type TestService } from '../helpers/service.js'
import type { TestSite } from '../helpers/site.js'

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe('the API contract, endpoint by endpoint', () => {
  let t: TestService
  let site: TestSite
  before(async () => {
    site = await startAcmeSite()
    site.page('/about/team', '<html><body><h1>Team</h1><p>Us.</p></body></html>')
    site.page('/guide', '<html><body><h1>Guide</h1><p>How to.</p></body></html>')
    t = await startTestService({ CRAWL_HOST_MAP: acmeHostMap(site), ...CONTRACT_RATE_LIMITS })
  })
  after(async () => {
    await t.stop()
    await site.close()
  })

  let domainId = ''
  let discoveryJobId = ''

  it('POST /api/domains creates a domain in discovering state and queues discovery', async () => {
    const res = await t.api.post('/api/domains', { domain: '  ACME.test ', displayName: 'Acme' })
    assert.equal(res.status, 201)
    const d = res.body.data
    assert.deepEqual(Object.keys(d).sort(), [
      'checkFrequencyHours',
      'createdAt',
      'discoveryFailure',
      'discoveryJobId',
      'discoveryNote',
      'displayName',
      'domain',
      'id',
      'orgId',
      'render',
      'status',
      'tags',
      'updatedAt'
    ])
    assert.match(d.id, UUID)
    assert.match(d.orgId, UUID)
    assert.equal(d.domain, 'acme.test')
    assert.equal(d.displayName, 'Acme')
    assert.equal(d.status, 'discovering')
    assert.equal(d.checkFrequencyHours, 24)
    assert.match(d.createdAt, ISO)
    assert.match(d.updatedAt, ISO)
    assert.equal(typeof d.discoveryJobId, 'string')
    domainId = d.id
    discoveryJobId = d.discoveryJobId
  })

  it('POST /api/domains: 409 CONFLICT for the same domain again', async () => {
    const res = await t.api.post('/api/domains', { domain: 'acme.test' })
    assert.equal(res.status, 409)
    assert.equal(res.body.code, 'CONFLICT')
    assert.equal(typeof res.body.error, 'string')
  })

  for (const [input, why] of [
    ['https://acme.test', 'scheme'],
    ['acme.test/pricing', 'path'],
    ['acme.test.', 'trailing dot'],
    ['127.0.0.1', 'IP address'],
    ['localhost', 'localhost'],
    ['intranet', 'no public suffix'],
    ['exa mple.com', 'space'],
    ['', 'empty']
  ]) {
    it(`POST /api/domains: 400 VALIDATION_ERROR for ${why}`, async () => {
      const res = await t.api.post('/api/domains', { domain: input })
      assert.equal(res.status, 400)
      assert.equal(res.body.code, 'VALIDATION_ERROR')
      assert.equal(res.body.details.field, 'domain')
    })
  }

  it('POST /api/domains: 400 for a missing field, a wrong type, malformed JSON, a wrong content type; 413 for an oversized body', async () => {
    const missing = await t.api.post('/api/domains', { displayName: 'x' })
    assert.equal(missing.status, 400)
    assert.equal(missing.body.code, 'VALIDATION_ERROR')
    assert.equal(missing.body.details.field, 'domain')
    const wrongType = await t.api.post('/api/domains', { domain: { a: 1 } })
    assert.equal(wrongType.status, 400)
    const malformed = await t.api.request('POST', '/api/domains', {
      rawBody: '{"domain":',
      headers: { 'content-type': 'application/json' }
    })
    assert.equal(malformed.status, 400)
    assert.equal(malformed.body.code, 'VALIDATION_ERROR')
    const text = await t.api.request('POST', '/api/domains', {
      rawBody: 'domain=acme.test',
      headers: { 'content-type': 'application/x-www-form-urlencoded' }
    })
    assert.equal(text.status, 400)
    assert.equal(text.body.code, 'VALIDATION_ERROR')
    const big = await t.api.post('/api/domains', { domain: 'big.com', displayName: 'x'.repeat(2 * 1024 * 1024) })
    assert.equal(big.status, 413)
    assert.equal(big.body.code, 'PAYLOAD_TOO_LARGE')
    assert.match(big.body.error, /too large \(limit 1 MiB\)/)
    assert.equal((await t.api.get('/api/domains?pageSize=100')).body.data.some((d: any) => d.domain === 'big.com'), false)
  })

  it('POST /api/domains: a body value of the wrong JSON type is 400 naming the field, not coerced, and adds nothing', async () => {
    const before = (await t.api.get('/api/domains')).body.meta.total
    for (const [body, field] of [
      [{ domain: 'typed.com', displayName: 123 }, 'displayName'],
      [{ domain: null }, 'domain'],
      [{ domain: ['typed.com'] }, 'domain'],
      [{ domain: true }, 'domain']
    ] as const) {
      const res = await t.api.post('/api/domains', body)
      assert.equal(res.status, 400, JSON.stringify(body))
      assert.equal(res.body.code, 'VALIDATION_ERROR')
      assert.equal(res.body.details.field, field)
      assert.match(res.body.error, /must be string/)
    }
    assert.equal((await t.api.get('/api/domains')).body.meta.total, before)
  })

  it('a NUL character, which PostgreSQL cannot store, is 400 naming the field wherever it is sent', async () => {
    const before = (await t.api.get('/api/domains')).body.meta.total
    const cases = [
      ['POST', '/api/domains', { domain: 'nul.com', displayName: 'a\u0000b' }, 'displayName', 'body'],
      ['POST', '/api/webhooks', { url: 'https://example.org/hook', description: '\u0000' }, 'description', 'body'],
      ['PATCH', `/api/domains/${domainId}`, { displayName: '\u0000' }, 'displayName', 'body'],
      ['GET', '/api/changes?q=a%00b', undefined, 'q', 'query']
    ] as const
    for (const [method, path, body, field, location] of cases) {
      const res = await t.api.request(method, path, body ? { body } : {})
      assert.equal(res.status, 400, `${method} ${path}`)
      assert.equal(res.body.code, 'VALIDATION_ERROR')
      assert.deepEqual([res.body.details.field, res.body.details.location], [field, location])
    }
    assert.equal((await t.api.get('/api/domains')).body.meta.total, before)
    assert.equal((await t.api.get('/api/webhooks')).body.data.length, 0)
  })

  it('the discovery job runs: GET /api/jobs/:id shows it completed with pagesDiscovered and pagesAdded', async () => {
    // Polled as a client polls, with the answer's ETag: the 304s count nothing against the contract's 100 a minute.
    const job = await pollUntil(t.api, `/api/jobs/${discoveryJobId}`, j => j.state === 'completed' ? j : undefined,
      30_000, 'discovery to complete')
    assert.deepEqual(Object.keys(job).sort(), [
      'attemptsMade',
      'createdAt',
      'domainId',
      'failedReason',
      'finishedAt',
      'id',
      'maxAttempts',
      'name',
      'pageId',
      'processedAt',
      'progress',
      'returnValue',
      'state',
      'type',
      'url'
    ])
    assert.equal(job.id, discoveryJobId)
    assert.equal(job.name, 'discover.pages')
    assert.equal(job.type, 'discover')
    assert.equal(job.url, null)
    assert.equal(job.pageId, null)
    assert.equal(job.domainId, domainId)
    assert.equal(job.progress, 100)
    assert.equal(job.attemptsMade, 1)
    assert.equal(job.maxAttempts, 3)
    assert.equal(job.failedReason, null)
    assert.match(job.processedAt, ISO)
    assert.match(job.finishedAt, ISO)
    assert.equal(Number.isInteger(job.returnValue.pagesDiscovered), true)
    assert.ok(job.returnValue.pagesAdded >= 7, `added ${job.returnValue.pagesAdded}`)
  })

  it('GET /api/domains lists domains with page summaries and crawl times', async () => {
    const res = await t.api.get('/api/domains')
    assert.equal(res.status, 200)
    assert.deepEqual(res.body.meta, { total: 1, page: 1, pageSize: 20 })
    const d = res.body.data[0]
    assert.deepEqual(Object.keys(d).sort(), [
      'checkFrequencyHours',
      'createdAt',
      'discoveryFailure',
      'discoveryNote',
      'displayName',
      'domain',
      'id',
      'lastCrawledAt',
      'nextCrawlAt',
      'orgId',
      'pages',
      'render',
      'status',
      'tags',
      'updatedAt'
    ])
    assert.equal(d.status, 'active')
    assert.deepEqual(Object.keys(d.pages[0]).sort(), ['id', 'pageType', 'status', 'url'])
    const paged = await t.api.get('/api/domains?page=2&pageSize=5')
    assert.deepEqual(paged.body.meta, { total: 1, page: 2, pageSize: 5 })
    assert.deepEqual(paged.body.data, [])
    const last = await t.api.get('/api/domains?page=1000000&pageSize=100')
    assert.equal(last.status, 200)
    assert.deepEqual(last.body.data, [])
    for (const q of [
      'page=0',
      'pageSize=101',
      'page=abc',
      'pageSize=-1',
      'page=1000001',
      'page=99999999999999999999'
    ]) {
      const bad = await t.api.get(`/api/domains?${q}`)
      assert.equal(bad.status, 400, q)
      assert.equal(bad.body.code, 'VALIDATION_ERROR')
    }
  })

  it('GET /api/domains/:id returns pages and recent changes; 404 for unknown, 400 for a non-UUID', async () => {
    await pollUntil(t.api, `/api/domains/${domainId}`, d => d.lastCrawledAt ? d : undefined, 30_000, 'first crawls')
    const res = await t.api.get(`/api/domains/${domainId}`)
    assert.equal(res.status, 200)
    const d = res.body.data
    assert.ok(Array.isArray(d.recentChanges))
    assert.match(d.lastCrawledAt, ISO)
    assert.match(d.nextCrawlAt, ISO)
    // The contract's fields, with priority, intelligence and name added (documented in /openapi.json).
    assert.deepEqual(Object.keys(d.pages[0]).sort(), [
      'domainId',
      'id',
      'intelligence',
      'lastChangeAt',
      'lastCheckAt',
      'monitoringEnabled',
      'name',
      'pageType',
      'priority',
      'status',
      'url'
    ])
    const missing = await t.api.get('/api/domains/00000000-0000-4000-8000-000000000000')
    assert.equal(missing.status, 404)
    assert.equal(missing.body.code, 'NOT_FOUND')
    const bad = await t.api.get('/api/domains/not-a-uuid')
    assert.equal(bad.status, 400)
    assert.equal(bad.body.code, 'VALIDATION_ERROR')
    assert.equal(bad.body.details.field, 'id')
    assert.equal(bad.body.details.location, 'params')
  })

  let pageId = ''
  it('POST /api/domains/:id/pages adds a page on the domain or a subdomain', async () => {
    const res = await t.api.post(`/api/domains/${domainId}/pages`, {
      url: 'https://www.acme.test/about/team#people',
      pageType: 'other'
    })
    assert.equal(res.status, 201)
    const p = res.body.data
    assert.deepEqual(Object.keys(p).sort(), [
      'createdAt',
      'domainId',
      'errorCount',
      'failure',
      'id',
      'intelligence',
      'lastChangeAt',
      'lastCheckAt',
      'lastError',
      'metadata',
      'monitoringEnabled',
      'name',
      'pageType',
      'pageTypeSource',
      'priority',
      'status',
      'url',
      'urlHash'
    ])
    assert.equal(p.url, 'https://www.acme.test/about/team')
    assert.equal(p.status, 'active')
    assert.equal(p.monitoringEnabled, true)
    assert.equal(p.priority, 5)
    assert.equal(p.lastCheckAt, null)
    assert.equal(p.lastChangeAt, null)
    assert.equal(p.errorCount, 0)
    assert.equal(p.lastError, null)
    assert.equal(p.failure, null)
    assert.deepEqual(p.metadata, {})
    assert.match(p.urlHash, /^[0-9a-f]{64}$/)
    pageId = p.id
    // Without a pageType, a page is typed from its address at once (and from its content after its first crawl).
    const untyped = await t.api.post(`/api/domains/${domainId}/pages`, { url: 'https://www.acme.test/team/berlin' })
    assert.equal(untyped.body.data.pageType, 'other')
    const docs = await t.api.post(`/api/domains/${domainId}/pages`, { url: 'https://docs.acme.test/guide' })
    assert.equal(docs.body.data.pageType, 'api_docs', 'a docs subdomain names API docs')
  })

  it('POST /api/domains/:id/pages: 400 for a foreign host or bad pageType, 409 for a duplicate, 404 for an unknown domain', async () => {
    const foreign = await t.api.post(`/api/domains/${domainId}/pages`, { url: 'https://evil.com/acme.test' })
    assert.equal(foreign.status, 400)
    assert.equal(foreign.body.code, 'VALIDATION_ERROR')
    const lookalike = await t.api.post(`/api/domains/${domainId}/pages`, { url: 'https://notacme.test/' })
    assert.equal(lookalike.status, 400)
    const notUrl = await t.api.post(`/api/domains/${domainId}/pages`, { url: 'ftp://acme.test/x' })
    assert.equal(notUrl.status, 400)
    const badType = await t.api.post(`/api/domains/${domainId}/pages`, { url: 'https://acme.test/x', pageType: 'blog' })
    assert.equal(badType.status, 400)
    assert.equal(badType.body.code, 'VALIDATION_ERROR')
    assert.equal(badType.body.error, 'pageType must be one of: pricing, features, terms, security, api_docs, changelog, other')
    const dup = await t.api.post(`/api/domains/${domainId}/pages`, {
      url: 'https://WWW.acme.test/about/team?utm_source=x'
    })
    assert.equal(dup.status, 409)
    assert.equal(dup.body.code, 'CONFLICT')
    const unknown = await t.api.post('/api/domains/00000000-0000-4000-8000-000000000000/pages', {
      url: 'https://acme.test/x'
    })
    assert.equal(unknown.status, 404)
  })

  it('GET /api/domains/:id/pages lists full pages with pageTypeConfidence', async () => {
    const res = await t.api.get(`/api/domains/${domainId}/pages`)
    assert.equal(res.status, 200)
    assert.equal(res.body.meta.pageSize, 100)
    assert.equal(res.body.meta.total, res.body.data.length)
    const p = res.body.data.find((x: any) => x.id === pageId)
    assert.match(p.pageTypeConfidence, /^[01]\.\d\d$/)
    const pricing = res.body.data.find((x: any) => x.url === 'https://acme.test/pricing')
    assert.equal(pricing.pageType, 'pricing')
    // The contract's default: discovery orders its crawls its own way, not through priority.
    assert.deepEqual([...new Set(res.body.data.map((x: any) => x.priority))], [5])
    const bad = await t.api.get(`/api/domains/${domainId}/pages?pageSize=501`)
    assert.equal(bad.status, 400)
    const unknown = await t.api.get('/api/domains/00000000-0000-4000-8000-000000000000/pages')
    assert.equal(unknown.status, 404)
  })

  it('POST /api/domains/:id/crawl queues one crawl per monitored page and counts a manual recheck', async () => {
    // Let the baseline crawls finish so none is pending.
    await pollUntil(t.api, '/api/jobs/stats', s => s.waiting + s.active + s.delayed === 0 ? true : undefined,
      30_000, 'queue to drain')
    const before = (await t.api.get('/api/usage')).body.data.limits.manualRechecks.used
    // One slow page keeps its crawl running while the endpoint is called again.
    site.set('/about/team', (_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html' })
        res.end('<h1>Team</h1><p>Us.</p>')
      }, 1500)
    })
    const res = await t.api.post(`/api/domains/${domainId}/crawl`)
    assert.equal(res.status, 200)
    const pages = (await t.api.get(`/api/domains/${domainId}/pages`)).body.data
    assert.deepEqual(Object.keys(res.body.data).sort(), ['domain', 'jobIds', 'message', 'queued'])
    assert.equal(res.body.data.domain, 'acme.test')
    assert.equal(res.body.data.queued, pages.length)
    assert.equal(res.body.data.jobIds.length, pages.length)
    const after = (await t.api.get('/api/usage')).body.data.limits.manualRechecks.used
    assert.equal(after, before + 1)
    const again = await t.api.post(`/api/domains/${domainId}/crawl`)
    assert.ok(again.body.data.queued < pages.length, 'pages with a waiting crawl are not queued twice')
    assert.match(again.body.data.message, /already had a crawl waiting or running/)
    const unknown = await t.api.post('/api/domains/00000000-0000-4000-8000-000000000000/crawl')
    assert.equal(unknown.status, 404)
  })

  it('POST /api/domains/:id/discover queues discovery', async () => {
    const res = await t.api.request('POST', `/api/domains/${domainId}/discover`, {
      headers: { 'content-type': 'application/json' }
    })
    assert.equal(res.status, 200)
    assert.deepEqual(Object.keys(res.body.data).sort(), ['discoveryJobId', 'domain', 'message'])
    assert.equal(res.body.data.domain, 'acme.test')
    const job = await t.api.get(`/api/jobs/${res.body.data.discoveryJobId}`)
    assert.equal(job.status, 200)
    const unknown = await t.api.post('/api/domains/00000000-0000-4000-8000-000000000000/discover')
    assert.equal(unknown.status, 404)
  })

  it('GET /api/jobs lists newest first, filters by status, validates limit and status', async () => {
    const res = await t.api.get('/api/jobs?limit=5')
    assert.equal(res.status, 200)
    assert.equal(res.body.meta.pageSize, 5)
    assert.ok(res.body.data.length <= 5)
    const j = res.body.data[0]
    assert.equal('maxAttempts' in j, false)
    assert.equal('returnValue' in j, false)
    const times = res.body.data.map((x: any) => x.createdAt)
    assert.deepEqual(times, [...times].sort().reverse())
    const completed = await t.api.get('/api/jobs?status=completed&limit=100')
    assert.ok(completed.body.data.length > 0)
    assert.ok(completed.body.data.every((x: any) => x.state === 'completed' && x.progress === 100))
    for (const q of ['limit=0', 'limit=101', 'status=done', 'limit=x', 'page=99999999999999999999']) {
      const bad = await t.api.get(`/api/jobs?${q}`)
      assert.equal(bad.status, 400, q)
      assert.equal(bad.body.code, 'VALIDATION_ERROR')
    }
  })

  it("GET /api/jobs/stats counts the organisation's jobs by state", async () => {
    const res = await t.api.get('/api/jobs/stats')
    assert.equal(res.status, 200)
    const s = res.body.data
    // The counts, and the backlog by host that Sitewatch adds (documented in /openapi.json).
    assert.deepEqual(Object.keys(s).sort(),
      ['active', 'completed', 'delayed', 'failed', 'hosts', 'oldestWaitingSeconds', 'total', 'waiting'])
    assert.ok(Array.isArray(s.hosts))
    assert.equal(s.total, s.waiting + s.active + s.completed + s.failed + s.delayed)
  })

  it('GET /api/jobs/:id: 404 for an unknown job, 401 without a key', async () => {
    const missing = await t.api.get('/api/jobs/00000000-0000-4000-8000-000000000000')
    assert.equal(missing.status, 404)
    assert.equal(missing.body.code, 'NOT_FOUND')
    const junk = await t.api.get('/api/jobs/whatever')
    assert.equal(junk.status, 404)
    const anon = await t.api.get(`/api/jobs/${discoveryJobId}`, { key: null })
    assert.equal(anon.status, 401)
    assert.deepEqual(Object.keys(anon.body.error).sort(), ['code', 'message'])
    assert.equal(anon.body.error.code, 'UNAUTHORIZED')
  })

  it('GET /api/usage shows the trial with hour precision', async () => {
    const res = await t.api.get('/api/usage')
    assert.equal(res.status, 200)
    const u = res.body.data
    assert.equal(u.plan, 'trial')
    assert.equal(u.billingCycle, 'trial')
    assert.equal(u.limits.domains.used, 1)
    assert.equal(u.limits.domains.limit, 25)
    assert.equal(u.limits.domains.remaining, 24)
    assert.equal(u.limits.accessiblePagesPerDomain, 500)
    assert.deepEqual(u.features, { slackIntegration: true, apiAccess: true, customAlertRules: false })
    assert.equal(u.trial.isExpired, false)
    assert.equal(u.trial.daysRemaining, 14)
    assert.equal(new Date(u.trial.expiresAt).getTime() - new Date(u.period.start).getTime(), 14 * 86_400_000)
    assert.equal(u.period.end, u.trial.expiresAt)
  })

  it('every /api response carries trace id and rate-limit headers; a sane X-Trace-Id is echoed, a bad one replaced', async () => {
    const res = await t.api.get('/api/usage', { headers: { 'x-trace-id': 'abc-123:req.1' } })
    assert.equal(res.headers.get('x-trace-id'), 'abc-123:req.1')
    assert.equal(res.headers.get('x-ratelimit-limit'), '100')
    assert.match(res.headers.get('x-ratelimit-remaining')!, /^\d+$/)
    const reset = Number(res.headers.get('x-ratelimit-reset'))
    assert.ok(
      reset > Date.now() / 1000 && reset <= Date.now() / 1000 + 61,
      `reset ${reset} is a Unix time within the minute`
    )
    const bad = await t.api.get('/api/usage', { headers: { 'x-trace-id': 'bad id with spaces' } })
    assert.notEqual(bad.headers.get('x-trace-id'), 'bad id with spaces')
    assert.match(bad.headers.get('x-trace-id')!, UUID)
    const unknown = await t.api.get('/api/nothing-here')
    assert.equal(unknown.status, 404)
    assert.equal(unknown.body.code, 'NOT_FOUND')
    assert.ok(unknown.headers.get('x-trace-id'))
    assert.ok(unknown.headers.get('x-ratelimit-limit'))
    const root404 = await fetch(`${t.url}/nope`)
    assert.equal(root404.status, 404)
    assert.equal((await root404.json()).code, 'NOT_FOUND')
    assert.ok(root404.headers.get('x-trace-id'))
  })

  it('401 for a missing, malformed or unknown key', async () => {
    for (const key of [null, 'sw_live_nope']) {
      const res = await t.api.get('/api/domains', { key })
      assert.equal(res.status, 401)
      assert.equal(res.body.error.code, 'UNAUTHORIZED')
    }
    const basic = await t.api.get('/api/domains', { key: null, headers: { authorization: 'Basic abc' } })
    assert.equal(basic.status, 401)
  })

  it('DELETE /api/domains/:id deletes the domain with its pages; quota is not restored', async () => {
    const res = await t.api.delete(`/api/domains/${domainId}`)
    assert.equal(res.status, 200)
    assert.equal(res.body.data.deleted, true)
    assert.match(res.body.data.message, /acme\.test/)
    assert.equal((await t.api.get(`/api/domains/${domainId}`)).status, 404)
    assert.equal((await t.api.get(`/api/domains/${domainId}/pages`)).status, 404)
    assert.equal((await t.api.delete(`/api/domains/${domainId}`)).status, 404)
    const usage = await t.api.get('/api/usage')
    assert.equal(usage.body.data.limits.domains.used, 1)
    const remaining = await t.service.store.db
      .selectFrom('pages')
      .select('id')
      .where('domain_id', '=', domainId)
      .execute()
    assert.equal(remaining.length, 0)
  })

  it('/openapi.json, /swagger, /healthz and /readyz need no key', async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as any
    assert.equal(doc.openapi, '3.1.0')
    for (const path of [
      '/api/domains',
      '/api/domains/{id}',
      '/api/domains/{id}/pages',
      '/api/domains/{id}/discover',
      '/api/domains/{id}/crawl',
      '/api/jobs',
      '/api/jobs/{id}',
      '/api/jobs/stats',
      '/api/usage'
    ]) {
      assert.ok(doc.paths[path], path)
    }
    assert.equal(
      Object.keys(doc.paths).some((p: string) => p.startsWith('/admin')),
      false
    )
    // Enums are enums (one type for client generators), and requests carry examples.
    const page = doc.components.schemas.Page
    assert.deepEqual(page.properties.pageType.enum, ['pricing', 'features', 'terms', 'security', 'api_docs', 'changelog', 'other'])
    assert.ok(!JSON.stringify(doc).includes('"const"'), 'no anyOf of one-value enums')
    const create = doc.paths['/api/domains'].post.requestBody.content['application/json'].schema
    assert.deepEqual(create.properties.domain.examples, ['example.com'])
    assert.equal((await fetch(`${t.url}/swagger`)).status, 200)
    assert.equal((await fetch(`${t.url}/healthz`)).status, 200)
    assert.equal((await fetch(`${t.url}/readyz`)).status, 200)
  })
})
