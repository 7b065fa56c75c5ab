import assert from 'node:assert/strict'
import { after, afterEach, before, describe, it } from 'node:test'
import { createDomain } from '../../src/services/domains.js'
import { listOrgs } from '../../src/store/orgs.js'
import { layout } from '../helpers/fixtures.js'
import { eventually, startTestService, waitForJob, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

// Discovery's manners and its one-page-per-document rule, each on a small site of its own.

describe('discovery on sites of their own', () => {
  let site: TestSite
  let t: TestService
  before(async () => {
    site = await new TestSite().start()
    // A host per test: robots.txt is cached per origin.
    const hosts = ['closed.test', 'named.test', 'twins.test', 'nohome.test', 'slash.test', 'slow.test', 'asked.test']
    // nowhere.test goes to a name no DNS resolves (.invalid is reserved for that).
    t = await startTestService({
      CRAWL_HOST_MAP: [...hosts.map(h => `${h}=${site.origin}`), 'nowhere.test=http://nowhere.invalid'].join(','),
      DISCOVERY_DEADLINE_SECONDS: '3'
    })
  })
  afterEach(async () => {
    for (const d of (await t.api.get('/api/domains')).body.data) await t.api.delete(`/api/domains/${d.id}`)
    site.routes.clear()
    site.fallback = undefined
    site.hits.length = 0
  })
  after(async () => {
    await t.stop()
    await site.close()
  })

  it('a page a person named as they added the domain is read first and watched, though nothing links to it', async () => {
    // The home page answers nothing; the page asked for does.
    site.fallback = path => path === '/docs/reference/plans'
      ? { body: layout('Plans', '<h1>Plans reference</h1><p>Team: $20 per seat.</p>'), headers: { 'content-type': 'text/html' } }
      : { status: 404, body: 'no' }
    const [org] = await listOrgs(t.service.store.db)
    const created = await createDomain({ db: t.service.store.db, queue: t.service.queue }, org, 'asked.test', undefined, [],
      ['https://asked.test/docs/reference/plans'])
    const job = await waitForJob(t.api, created.discoveryJobId)
    assert.equal(job.state, 'completed')
    const domain = (await t.api.get(`/api/domains/${created.id}`)).body.data
    assert.equal(domain.status, 'active')
    assert.deepEqual(domain.pages.map((p: any) => p.url), ['https://asked.test/docs/reference/plans'])
  })

  it('a site whose robots.txt disallows everything has nothing read but its robots.txt', async () => {
    site.set('/robots.txt', { body: 'User-agent: *\nDisallow: /\n', headers: { 'content-type': 'text/plain' } })
    site.page('/', layout('Acme', '<h1>Acme</h1><a href="/pricing">Pricing</a>'))
    site.set('/sitemap.xml', {
      body: '<?xml version="1.0"?><urlset><url><loc>https://closed.test/pricing</loc></url></urlset>',
      headers: { 'content-type': 'application/xml' }
    })
    const created = (await t.api.post('/api/domains', { domain: 'closed.test' })).body.data
    const job = await waitForJob(t.api, created.discoveryJobId)
    assert.equal(job.state, 'failed', 'nothing could be read: no success to report')
    assert.match(job.failedReason, /no page of closed\.test could be read: .*robots\.txt/)
    assert.equal(job.attemptsMade, 1, 'robots.txt will say the same again: no retry')
    assert.deepEqual([...new Set(site.hits)], ['/robots.txt'])
    const domain = (await t.api.get(`/api/domains/${created.id}`)).body.data
    assert.equal(domain.status, 'error')
    assert.deepEqual(domain.pages, [])
  })

  it('a site too slow to be read whole in the time a discovery has: it stops at its deadline, keeps what it found, says so', async () => {
    site.page('/', layout('Slow', '<h1>Slow</h1><a href="/pricing">Pricing</a><a href="/features">Features</a>'))
    // Every page but the home page answers after a second: sixty of them would take a minute.
    site.fallback = path => (_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html' })
        res.end(layout(path, `<h1>${path}</h1><p>Text.</p>`))
      }, 1000)
    }
    const created = (await t.api.post('/api/domains', { domain: 'slow.test' })).body.data
    const job = await waitForJob(t.api, created.discoveryJobId)
    assert.equal(job.state, 'completed', job.failedReason)
    assert.match(job.returnValue.stopped, /the site answered too slowly to be read whole in the time a discovery has/)
    const domain = (await t.api.get(`/api/domains/${created.id}`)).body.data
    assert.equal(domain.status, 'active')
    assert.ok(domain.pages.some((p: any) => p.url === 'https://slow.test/pricing'), 'a page found and not read is kept')
    assert.ok(site.hits.length < 15, `${site.hits.length} requests`)
  })

  it('a home page that fails is not added nor counted; the pages that answer are', async () => {
    site.set('/', { status: 404, body: 'not here' })
    site.set('/sitemap.xml', {
      body: '<?xml version="1.0"?><urlset><url><loc>https://nohome.test/pricing</loc></url></urlset>',
      headers: { 'content-type': 'application/xml' }
    })
    site.page('/pricing', layout('Pricing', '<h1>Pricing</h1><p>Pro $49/month</p>'))
    const created = (await t.api.post('/api/domains', { domain: 'nohome.test' })).body.data
    const job = await waitForJob(t.api, created.discoveryJobId)
    assert.equal(job.state, 'completed')
    assert.equal(job.returnValue.pagesAdded, 1)
    const domain = (await t.api.get(`/api/domains/${created.id}`)).body.data
    assert.deepEqual(domain.pages.map((p: any) => p.url), ['https://nohome.test/pricing'])
    assert.equal(domain.status, 'active')
  })

  it('a domain whose name does not resolve ends discovery failed with the reason, and the domain in error', async () => {
    const created = (await t.api.post('/api/domains', { domain: 'nowhere.test' })).body.data
    const job = await waitForJob(t.api, created.discoveryJobId)
    assert.equal(job.state, 'failed')
    assert.match(job.failedReason, /no page of nowhere\.test could be read: .*(DNS|resolve|ENOTFOUND)/i)
    // The domain is marked once the job has failed for good (its give-up step comes after).
    const domain = await eventually(async () => {
      const d = (await t.api.get(`/api/domains/${created.id}`)).body.data
      return d.status === 'error' ? d : undefined
    }, 10_000, 'the domain to be in error')
    assert.deepEqual(domain.pages, [])
    const usage = (await t.api.get('/api/usage')).body.data
    assert.ok(usage.limits.domains.used >= 1, 'the domain itself was registered')
  })

  it('URLs keep their trailing slash; a redirect between the two spellings makes them one page, as the server spells it', async () => {
    site.page('/', layout('Slash', '<h1>Slash</h1><a href="/privacypolicy/">Privacy policy</a> <a href="/terms">Terms</a>'))
    site.page('/privacypolicy/', layout('Privacy policy', '<h1>Privacy policy</h1><p>We process personal data.</p>'))
    site.set('/terms', { status: 301, headers: { location: '/terms/' } })
    site.page('/terms/', layout('Terms of service', '<h1>Terms of service</h1><p>These terms govern the service.</p>'))
    const created = (await t.api.post('/api/domains', { domain: 'slash.test' })).body.data
    await waitForJob(t.api, created.discoveryJobId)
    const urls = (await t.api.get(`/api/domains/${created.id}/pages`)).body.data.map((p: any) => p.url).sort()
    assert.ok(urls.includes('https://slash.test/privacypolicy/'), urls.join())
    assert.ok(urls.includes('https://slash.test/terms/'), urls.join())
    assert.ok(!urls.includes('https://slash.test/terms') && !urls.includes('https://slash.test/privacypolicy'))
  })

  it('a sitemap that robots.txt names is read even where it disallows; pages it disallows are not added', async () => {
    site.set('/robots.txt', {
      body: 'User-agent: *\nDisallow: /\nAllow: /pricing\nSitemap: https://named.test/named-sitemap.xml\n',
      headers: { 'content-type': 'text/plain' }
    })
    site.set('/named-sitemap.xml', {
      body: '<?xml version="1.0"?><urlset><url><loc>https://named.test/pricing</loc></url>' +
        '<url><loc>https://named.test/secret</loc></url></urlset>',
      headers: { 'content-type': 'application/xml' }
    })
    site.page('/pricing', layout('Pricing', '<h1>Pricing</h1><p>Pro $49/month</p>'))
    const created = (await t.api.post('/api/domains', { domain: 'named.test' })).body.data
    await waitForJob(t.api, created.discoveryJobId)
    assert.equal(site.hitsOf('/named-sitemap.xml'), 1)
    assert.equal(site.hitsOf('/sitemap.xml'), 0, 'robots.txt disallows the unnamed one')
    assert.equal(site.hitsOf('/secret'), 0)
    const pages = (await t.api.get(`/api/domains/${created.id}/pages`)).body.data as any[]
    assert.deepEqual(pages.map(p => p.url), ['https://named.test/pricing'])
  })

  it('the same path over http and https is one page (https), also when added by hand', async () => {
    site.page('/', layout('Acme', '<h1>Acme</h1><a href="http://twins.test/pricing">Pricing</a> ' +
      '<a href="https://twins.test/pricing">Plans</a> <a href="http://twins.test/features">Features</a>'))
    site.set('/sitemap.xml', {
      body: '<?xml version="1.0"?><urlset><url><loc>https://twins.test/features</loc></url>' +
        '<url><loc>http://twins.test/pricing</loc></url><url><loc>http://twins.test/changelog</loc></url></urlset>',
      headers: { 'content-type': 'application/xml' }
    })
    site.page('/pricing', layout('Pricing', '<h1>Pricing</h1><p>Pro $49/month</p>'))
    site.page('/features', layout('Features', '<h1>Features</h1><p>Dashboards</p>'))
    site.page('/changelog', layout('Changelog', '<h1>Changelog</h1><p>v1.0</p>'))
    const created = (await t.api.post('/api/domains', { domain: 'twins.test' })).body.data
    await waitForJob(t.api, created.discoveryJobId)
    const urls = ((await t.api.get(`/api/domains/${created.id}/pages`)).body.data as any[]).map(p => p.url).sort()
    assert.deepEqual(urls, [
      'https://twins.test/',
      'https://twins.test/changelog',
      'https://twins.test/features',
      'https://twins.test/pricing'
    ])
    const twin = await t.api.post(`/api/domains/${created.id}/pages`, { url: 'http://twins.test/pricing' })
    assert.equal(twin.status, 409)
    assert.equal(twin.body.code, 'CONFLICT')
  })
})
