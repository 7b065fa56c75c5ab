import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createOrg } from '../../src/services/orgs.js'
import { loadCrawlTargets } from '../../src/store/page-checks.js'
import { ApiClient } from '../helpers/client.js'
import { drainJobs, startTestService, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

// A domain's intelligence pages: the plan's number (25 on trial and pro) of its highest-ranked
// monitored pages, by priority (1 first), then type, then discovery order.

describe('intelligence pages', () => {
  let site: TestSite
  let t: TestService
  let domainId = ''
  const ids = new Map<string, string>()

  before(async () => {
    site = await new TestSite().start()
    site.page('/', '<html><body><h1>Intel</h1><p>Nothing linked from here.</p></body></html>')
    t = await startTestService({ CRAWL_HOST_MAP: `intel.test=${site.origin}` })
    domainId = (await t.api.post('/api/domains', { domain: 'intel.test' })).body.data.id
    await drainJobs(t.api)
    // Four untyped pages first, then 26 features pages: with the home page, 31 monitored pages.
    const add = async (path: string, pageType: string) => {
      const res = await t.api.post(`/api/domains/${domainId}/pages`, { url: `https://intel.test${path}`, pageType })
      assert.equal(res.status, 201, JSON.stringify(res.body))
      ids.set(path, res.body.data.id)
    }
    for (let i = 0; i < 4; i++) await add(`/misc/${i}`, 'other')
    for (let i = 0; i < 26; i++) await add(`/feature/${i}`, 'features')
    await drainJobs(t.api)
  })
  after(async () => {
    await t.stop()
    await site.close()
  })

  const intelligent = async () => {
    const pages = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=100`)).body.data as any[]
    return new Set(pages.filter(p => p.intelligence).map(p => new URL(p.url).pathname))
  }

  it('/api/usage gives the plan\'s figure per domain; null when unlimited', async () => {
    assert.equal((await t.api.get('/api/usage')).body.data.limits.intelligencePagesPerDomain, 25)
    const big = await createOrg(t.service.store.db, 'Unlimited', 'enterprise')
    const bigApi = new ApiClient(t.url, big.apiKey)
    const usage = (await bigApi.get('/api/usage')).body.data
    assert.equal(usage.limits.intelligencePagesPerDomain, null)
    // Unlimited: every monitored page is one, read alone (counted against no limit) as in the list.
    const domain = (await bigApi.post('/api/domains', { domain: 'intel.test' })).body.data
    for (let i = 0; i < 30; i++) {
      assert.equal((await bigApi.post(`/api/domains/${domain.id}/pages`, { url: `https://intel.test/f/${i}`, pageType: 'features' })).status, 201)
    }
    const listed = (await bigApi.get(`/api/domains/${domain.id}/pages?pageSize=100`)).body.data as any[]
    assert.ok(listed.length >= 30)
    for (const p of listed) {
      assert.equal(p.intelligence, true)
      assert.equal((await bigApi.get(`/api/domains/${domain.id}/pages/${p.id}`)).body.data.intelligence, true)
    }
  })

  it('ranks typed pages before the rest, then discovery order; every page says whether it is one', async () => {
    const chosen = await intelligent()
    assert.equal(chosen.size, 25)
    for (let i = 0; i < 25; i++) assert.ok(chosen.has(`/feature/${i}`), `/feature/${i}`)
    assert.ok(!chosen.has('/feature/25'), 'the 26th features page, discovered last')
    for (let i = 0; i < 4; i++) assert.ok(!chosen.has(`/misc/${i}`))
    assert.ok(!chosen.has('/'), 'the home page, untyped')
    const one = (await t.api.get(`/api/domains/${domainId}/pages/${ids.get('/feature/0')}`)).body.data
    assert.equal(one.intelligence, true)
    const detail = (await t.api.get(`/api/domains/${domainId}`)).body.data
    assert.equal(detail.pages.filter((p: any) => p.intelligence).length, 25)
    // A domain's details, its list of pages and each page alone read a page three ways; all show it alike,
    // to the times (the first two carry the rows as JSON, whose times are text).
    // (The details show some of a page's fields.)
    const listed = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=100`)).body.data as any[]
    const shown = Object.keys(detail.pages[0])
    assert.deepEqual(detail.pages, listed.map(p => Object.fromEntries(shown.map(k => [k, p[k]]))))
    const home = listed.find(p => new URL(p.url).pathname === '/')
    assert.match(home.lastCheckAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    assert.match(home.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    assert.ok(listed.some(p => p.failure !== null), 'a page that failed, with its failure')
    for (const p of listed) {
      const { latestSnapshot, ...alone } = (await t.api.get(`/api/domains/${domainId}/pages/${p.id}`)).body.data
      assert.deepEqual(alone, p)
    }
  })

  it('priority 1 comes first; a page no longer monitored gives its place up', async () => {
    const raised = await t.api.request('PATCH', `/api/domains/${domainId}/pages/${ids.get('/misc/3')}`, {
      body: { priority: 1 }
    })
    assert.equal(raised.status, 200)
    assert.equal(raised.body.data.intelligence, true)
    let chosen = await intelligent()
    assert.ok(chosen.has('/misc/3'))
    assert.ok(!chosen.has('/feature/24'), 'the last of the 25 made way')

    const off = await t.api.request('PATCH', `/api/domains/${domainId}/pages/${ids.get('/feature/0')}`, {
      body: { monitoringEnabled: false }
    })
    assert.equal(off.body.data.intelligence, false)
    chosen = await intelligent()
    assert.equal(chosen.size, 25)
    assert.ok(chosen.has('/feature/24'), 'back in, in the place the unmonitored page left')
  })

  it('screenshots are taken only of intelligence pages', async () => {
    for (const path of ['/feature/1', '/feature/25']) {
      const res = await t.api.request('PATCH', `/api/domains/${domainId}/pages/${ids.get(path)}`, {
        body: { screenshots: true }
      })
      assert.equal(res.status, 200)
    }
    const targets = await loadCrawlTargets(t.service.store.db, [ids.get('/feature/1')!, ids.get('/feature/25')!])
    const byId = new Map(targets.map(x => [x.id, x.screenshots]))
    assert.equal(byId.get(ids.get('/feature/1')!), true)
    assert.equal(byId.get(ids.get('/feature/25')!), false, 'screenshots on, but not an intelligence page')
  })

  it('the structured readers read only intelligence pages of their types', async () => {
    // A pricing page ranks before the features pages; a changelog page after them, past the 25.
    const add = async (path: string, pageType: string) =>
      (await t.api.post(`/api/domains/${domainId}/pages`, { url: `https://intel.test${path}`, pageType })).body.data
    const pricing = await add('/pricing', 'pricing')
    const changelog = await add('/changelog', 'changelog')
    assert.equal(pricing.intelligence, true)
    assert.equal(changelog.intelligence, false)
    const targets = await loadCrawlTargets(t.service.store.db, [pricing.id, changelog.id, ids.get('/feature/1')!])
    const read = new Map(targets.map(x => [x.id, x.read_structured]))
    assert.equal(read.get(pricing.id), true)
    assert.equal(read.get(changelog.id), false, 'a changelog, but not an intelligence page')
    assert.equal(read.get(ids.get('/feature/1')!), false, 'an intelligence page of a type with no reader')
  })

  it('a PATCH that moves a page back to the last place answers that it still is one', async () => {
    // Left monitored: /misc/3 (priority 1) and /feature/1 to /feature/24, 25 pages in all.
    const pages = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=100`)).body.data as any[]
    const kept = new Set(['/misc/3', ...Array.from({ length: 24 }, (_, i) => `/feature/${i + 1}`)])
    for (const p of pages.filter(p => p.monitoringEnabled && !kept.has(new URL(p.url).pathname))) {
      const off = await t.api.request('PATCH', `/api/domains/${domainId}/pages/${p.id}`, {
        body: { monitoringEnabled: false }
      })
      assert.equal(off.status, 200)
    }
    // From second to 25th: the 24 others still come first, fewer than the plan's 25.
    const moved = await t.api.request('PATCH', `/api/domains/${domainId}/pages/${ids.get('/feature/1')}`, {
      body: { priority: 6 }
    })
    assert.equal(moved.body.data.intelligence, true)
    assert.ok((await intelligent()).has('/feature/1'))
    const { latestSnapshot, ...alone } = (await t.api.get(`/api/domains/${domainId}/pages/${ids.get('/feature/1')}`))
      .body.data
    assert.deepEqual(moved.body.data, alone)
  })
})
