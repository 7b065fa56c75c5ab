import assert from 'node:assert/strict'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import { pagesCsv } from '../../src/services/exports.js'
import { layout, pricingMain } from '../helpers/fixtures.js'
import { drainJobs, eventually, startTestService, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

// The first hour through the API: the way in, methods and sizes answered as HTTP says,
// compressed answers, a failure that says whether the site blocks Sitewatch or is broken
// and what to do, a failed discovery that says what it tried, one page checked now, a
// quota's refusal that says when it comes back, usage that says what it counts, CSV out.

const CHALLENGE = '<html><head><title>Just a moment...</title></head><body>Checking your browser before accessing ' +
  'the site. <div id="cf-chl-widget"></div></body></html>'

describe('no dead ends in the first hour, through the API', () => {
  let site: TestSite
  let dead: TestSite
  let t: TestService
  let domainId = ''
  let price = 49
  let release: () => void = () => {}
  const pageIds: Record<string, string> = {}

  before(async () => {
    site = await new TestSite().start()
    site.page('/', layout('Acme', '<h1>Acme</h1><p>We ship fast.</p>'))
    site.set('/pricing', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(layout('Pricing', pricingMain(`$${price}`)))
    })
    site.set('/challenge', { status: 403, body: CHALLENGE, headers: { 'content-type': 'text/html' } })
    // A CDN's challenge by its header alone: a 503 without it would be the server failing.
    site.set('/cdn-challenge', { status: 503, body: 'wait', headers: { 'content-type': 'text/plain', 'cf-mitigated': 'challenge' } })
    // A challenge the browser never passes: a 200 whose page is still the challenge.
    site.set('/stuck', { status: 200, body: CHALLENGE, headers: { 'content-type': 'text/html' } })
    site.set('/gone', { status: 404, body: '<h1>Not found</h1>', headers: { 'content-type': 'text/html' } })
    // A page whose answer waits until the test lets it go: its crawl is running meanwhile.
    site.set('/slow', (_req, res) => {
      new Promise<void>(resolve => { release = resolve }).then(() => {
        res.writeHead(200, { 'content-type': 'text/html' })
        res.end(layout('Slow', '<h1>Slow</h1><p>Here at last.</p>'))
      }, () => {})
    })
    dead = await new TestSite().start()
    dead.fallback = () => ({ status: 404, body: 'nothing here' })
    t = await startTestService({ CRAWL_HOST_MAP: `acme.test=${site.origin},dead.test=${dead.origin}` })
    domainId = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data.id
    await drainJobs(t.api)
    for (const path of ['/pricing', '/challenge', '/cdn-challenge', '/stuck', '/gone', '/slow']) {
      const listed = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=500`)).body.data as any[]
      const known = listed.find(p => new URL(p.url).pathname === path)
      pageIds[path] = known?.id ?? (await t.api.post(`/api/domains/${domainId}/pages`, { url: `https://acme.test${path}` })).body.data.id
    }
    await t.api.request('PATCH', `/api/domains/${domainId}/pages/${pageIds['/stuck']}`, { body: { render: 'always' } })
    await t.api.post(`/api/domains/${domainId}/pages/${pageIds['/stuck']}/crawl`)
    await drainJobs(t.api, 60_000)
    // Read without a browser, a challenge is a bot wall; with one that does not pass it, a challenge unpassed.
    await t.api.request('PATCH', `/api/domains/${domainId}/pages/${pageIds['/challenge']}`, { body: { render: 'never' } })
    await t.api.post(`/api/domains/${domainId}/pages/${pageIds['/challenge']}/crawl`)
    release()
    await drainJobs(t.api, 60_000)
  })
  after(async () => {
    release()
    await t?.stop()
    await site?.close()
    await dead?.close()
  })

  it('the way in: a browser at / goes to the app; a program reads where things are', async () => {
    const browser = await fetch(`${t.url}/`, { headers: { accept: 'text/html,application/xhtml+xml' }, redirect: 'manual' })
    assert.equal(browser.status, 302)
    assert.equal(browser.headers.get('location'), '/app')
    const program = await fetch(`${t.url}/`)
    assert.equal(program.status, 200)
    assert.deepEqual(await program.json(), { data: { app: '/app', api: '/api', docs: '/swagger', openapi: '/openapi.json' } })
  })

  it('a known path with another method is 405 with Allow; answers are compressed for clients that accept it', async () => {
    const put = await t.api.request('PUT', '/api/domains', { body: { domain: 'x.test' } })
    assert.equal(put.status, 405)
    assert.equal(put.body.code, 'METHOD_NOT_ALLOWED')
    assert.equal(put.headers.get('allow'), 'GET, HEAD, POST')
    const onPage = await t.api.request('PATCH', `/api/domains/${domainId}/pages/${pageIds['/gone']}/crawl`)
    assert.equal(onPage.status, 405)
    assert.equal(onPage.headers.get('allow'), 'POST')
    assert.equal((await t.api.request('PUT', '/api/nothing-here')).status, 404)
    const plain = await (await fetch(`${t.url}/openapi.json`)).text()
    for (const [encoding, decode] of [['gzip', gunzipSync], ['br', brotliDecompressSync]] as const) {
      const res = await fetch(`${t.url}/openapi.json`, { headers: { 'accept-encoding': encoding } })
      // fetch decodes what it asked for: read the raw bytes through a request that does not.
      assert.equal(res.headers.get('content-encoding'), encoding)
      const raw = await new Promise<Buffer>((resolve, reject) => {
        import('node:http').then(http => http.get(`${t.url}/openapi.json`, { headers: { 'accept-encoding': encoding } }, r => {
          const chunks: Buffer[] = []
          r.on('data', c => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject)
        }), reject)
      })
      assert.ok(raw.length < plain.length / 3, `${encoding}: ${raw.length} of ${plain.length} bytes`)
      assert.equal(decode(raw).toString(), plain)
    }
  })

  it('a failing page says whether the site blocks Sitewatch or the page is broken, since when, and what to do', async () => {
    const pages = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=500`)).body.data as any[]
    const of = (path: string) => pages.find(p => p.id === pageIds[path])
    const advice: Record<string, RegExp> = {
      '/challenge': /^The site answers automated visitors with a challenge\. Set the page's render to "always"/,
      '/cdn-challenge': /^Even Sitewatch's browser is shown the site's challenge/
    }
    for (const [path, nextStep] of Object.entries(advice)) {
      const failure = of(path).failure
      assert.equal(failure?.kind, 'blocked', `${path}: ${JSON.stringify(of(path))}`)
      assert.match(failure.nextStep, nextStep)
      assert.match(failure.reason, /bot wall's challenge/)
      assert.ok(failure.failedChecks >= 1)
      assert.ok(!Number.isNaN(Date.parse(failure.since)))
    }
    // The browser's page is still the challenge: blocked, and never recorded as the page's text.
    assert.equal(of('/stuck').failure?.kind, 'blocked', JSON.stringify(of('/stuck')))
    assert.match(of('/stuck').failure.reason, /still showed a bot wall's challenge in the browser/)
    assert.match(of('/stuck').failure.nextStep, /^Even Sitewatch's browser is shown the site's challenge/)
    const stuck = await t.api.get(`/api/domains/${domainId}/pages/${pageIds['/stuck']}/snapshots`)
    assert.deepEqual(stuck.body.data, [])
    const gone = of('/gone').failure
    assert.equal(gone.kind, 'error')
    assert.match(gone.reason, /HTTP 404/)
    assert.match(gone.nextStep, /Run discovery again/)
    assert.equal(of('/pricing').failure, null)
    // A page that works again has no failure.
    site.page('/gone', layout('Back', '<h1>Back</h1><p>Here again.</p>'))
    const checked = await t.api.post(`/api/domains/${domainId}/pages/${pageIds['/gone']}/crawl`)
    assert.equal(checked.status, 200)
    await drainJobs(t.api)
    const back = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=500`)).body.data.find((p: any) => p.id === pageIds['/gone'])
    assert.equal(back.failure, null)
    assert.equal(back.status, 'active')
  })

  it('a discovery that finds nothing says what it tried, and what to do', async () => {
    const id = (await t.api.post('/api/domains', { domain: 'dead.test' })).body.data.id
    const failed = await eventually(async () => {
      const d = (await t.api.get(`/api/domains/${id}`)).body.data
      return d.status === 'error' ? d : undefined
    }, 60_000, 'the discovery to fail')
    assert.equal(failed.discoveryFailure.kind, 'error')
    assert.match(failed.discoveryFailure.reason,
      /no page of dead\.test could be read: HTTP 404 .*tried its home page over https and http, \d+ sitemaps? .* and \d+ common paths \(\/pricing, \/plans, \/features, …\)/)
    // Said of the site, not of a page: nothing to "delete this one" for.
    assert.match(failed.discoveryFailure.nextStep,
      /^The site's home page and its usual pages answer "not found"\. Check that the domain is spelled right, or add the pages you want watched by their address/)
    // Found in the list too, and gone once a discovery finds its pages.
    const listed = (await t.api.get('/api/domains')).body.data.find((d: any) => d.id === id)
    assert.equal(listed.discoveryFailure.kind, 'error')
    dead.fallback = path => path === '/' ? { body: layout('Dead no more', '<h1>Alive</h1>'), headers: { 'content-type': 'text/html' } } : { status: 404, body: 'no' }
    await t.api.post(`/api/domains/${id}/discover`)
    await drainJobs(t.api)
    const alive = (await t.api.get(`/api/domains/${id}`)).body.data
    assert.equal(alive.status, 'active')
    assert.equal(alive.discoveryFailure, null)
    await t.api.delete(`/api/domains/${id}`)
  })

  it('a page added by hand to a domain whose discovery failed: once it is read, the failure is history', async () => {
    // An address no discovery tries: the site answers nothing else.
    dead.fallback = path => path === '/our-offer'
      ? { body: layout('Our offer', '<h1>Our offer</h1><p>Plans from $9 per month.</p>'), headers: { 'content-type': 'text/html' } }
      : { status: 404, body: 'no' }
    const id = (await t.api.post('/api/domains', { domain: 'dead.test' })).body.data.id
    await eventually(async () => (await t.api.get(`/api/domains/${id}`)).body.data.discoveryFailure ?? undefined,
      60_000, 'the discovery to fail')
    const added = await t.api.post(`/api/domains/${id}/pages`, { url: 'https://dead.test/our-offer' })
    assert.equal(added.status, 201)
    await drainJobs(t.api)
    const page = (await t.api.get(`/api/domains/${id}/pages`)).body.data[0]
    assert.equal(page.status, 'active')
    const domain = (await t.api.get(`/api/domains/${id}`)).body.data
    assert.equal(domain.status, 'active')
    assert.equal(domain.discoveryFailure, null)
    assert.equal((await t.api.get('/api/domains')).body.data.find((d: any) => d.id === id).discoveryFailure, null)
    await t.api.delete(`/api/domains/${id}`)
  })

  it('one page checked now: a crawl queued and no manual recheck taken (not a domain-wide recheck), none queued while its check is already running; a page not monitored is a 409', async () => {
    const used = async () => (await t.api.get('/api/usage')).body.data.limits.manualRechecks.used as number
    const start = await used()
    const first = await t.api.post(`/api/domains/${domainId}/pages/${pageIds['/slow']}/crawl`)
    assert.equal(first.status, 200)
    assert.equal(first.body.data.queued, 1)
    assert.match(first.body.data.jobId, /.+/)
    assert.equal(await used(), start)
    // Its crawl waits on the site: asked again meanwhile, nothing more is queued nor taken.
    await eventually(async () => site.hitsOf('/slow') >= 2 || undefined, 20_000, 'the second visit to /slow')
    const again = await t.api.post(`/api/domains/${domainId}/pages/${pageIds['/slow']}/crawl`)
    assert.deepEqual({ queued: again.body.data.queued, jobId: again.body.data.jobId }, { queued: 0, jobId: null })
    assert.match(again.body.data.message, /already waiting or running: nothing more was queued/)
    assert.equal(await used(), start)
    release()
    await drainJobs(t.api)
    await t.api.request('PATCH', `/api/domains/${domainId}/pages/${pageIds['/slow']}`, { body: { monitoringEnabled: false } })
    const off = await t.api.post(`/api/domains/${domainId}/pages/${pageIds['/slow']}/crawl`)
    assert.equal(off.status, 409)
    assert.match(off.body.error, /Monitoring is off/)
    assert.equal(await used(), start)
  })

  it('a quota that ran out says what, when it comes back and who can change the plan; one page is still checked', async () => {
    const db = t.service.store.db
    await db.updateTable('billing_periods').set({ manual_rechecks_used: 10 }).execute()
    const refused = await t.api.post(`/api/domains/${domainId}/crawl`)
    assert.equal(refused.status, 402)
    assert.equal(refused.body.code, 'QUOTA_EXCEEDED')
    assert.match(refused.body.error, /^The trial allows 10 manual rechecks, and all 10 are used\. The trial ends on \d{4}-\d\d-\d\d; the organisation's owner can change the plan under Usage and plan \(\/app\/usage\) to get more now\.$/)
    assert.equal(refused.body.details.changedBy, 'owner')
    const one = await t.api.post(`/api/domains/${domainId}/pages/${pageIds['/pricing']}/crawl`)
    assert.equal(one.status, 200)
    assert.equal(one.body.data.queued, 1)
    await drainJobs(t.api)
    await db.updateTable('billing_periods').set({ manual_rechecks_used: 0 }).execute()
  })

  it('usage says what is watched now beside what the period took', async () => {
    const usage = (await t.api.get('/api/usage')).body.data
    const pages = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=500`)).body.data as any[]
    assert.deepEqual(usage.watching, {
      domains: 1, pages: pages.length, monitoredPages: pages.filter(p => p.monitoringEnabled).length
    })
    assert.ok(usage.limits.domains.used >= 2, 'the deleted domain still counts in the period')
  })

  it('changes leave as CSV, by format=csv or Accept: text/csv, with the same filters', async () => {
    price = 59
    await t.api.post(`/api/domains/${domainId}/pages/${pageIds['/pricing']}/crawl`)
    await drainJobs(t.api)
    const change = (await t.api.get(`/api/changes?pageId=${pageIds['/pricing']}`)).body.data[0]
    assert.ok(change, 'a price change')
    const asks: Array<{ query: string, headers: Record<string, string> }> = [
      { query: '&format=csv', headers: {} }, { query: '', headers: { accept: 'text/csv' } }
    ]
    for (const ask of asks) {
      const res = await fetch(`${t.url}/api/changes?pageId=${pageIds['/pricing']}${ask.query}`, {
        headers: { authorization: `Bearer ${t.key}`, ...ask.headers }
      })
      assert.equal(res.status, 200)
      assert.match(res.headers.get('content-type') ?? '', /^text\/csv/)
      assert.match(res.headers.get('content-disposition') ?? '', /attachment; filename="sitewatch-changes-\d{4}-\d\d-\d\d\.csv"/)
      const [header, row, end] = (await res.text()).split('\r\n')
      assert.equal(header, 'createdAt,domain,pageUrl,pageType,changeType,severity,confidence,summary,acknowledgedAt,link,' +
        'leadKind,leadSubject,leadBefore,leadAfter,leadPercent')
      assert.ok(row.includes(change.id) && row.includes('acme.test') && row.includes('price_change'), row)
      // The price's move as the alert told it, in cells of its own.
      const lead = change.diffData.facts[0]
      assert.equal(lead.kind, 'price_up')
      assert.ok(row.endsWith(`,price_up,${lead.subject},${lead.before},${lead.after},${lead.percent}`), row)
      assert.equal(end, '')
    }
    // A filter that matches nothing gives the header alone.
    const none = await fetch(`${t.url}/api/changes?format=csv&severity=low&pageId=${pageIds['/pricing']}&q=zzzz`, {
      headers: { authorization: `Bearer ${t.key}` }
    })
    assert.equal((await none.text()).trim().split('\r\n').length, 1)
    // A cell a spreadsheet would run as a formula is written as text.
    const csv = pagesCsv([{
      url: 'https://acme.test/x',
      pageType: 'other',
      status: 'error',
      monitoringEnabled: true,
      priority: 5,
      lastCheckAt: null,
      lastChangeAt: null,
      lastError: '=HYPERLINK("http://evil.test")',
      failure: { kind: 'error' }
    }])
    assert.match(csv, /'=HYPERLINK/)
  })
})
