// Longer than 300 lines on purpose: the pipeline end to end against one local site, each stage
// (discovery, crawls, changes, scheduling, retention, hostile pages, wake-up) building on the last.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { deleteExpired } from '../../src/store/retention.js'
import { runSchedulerTick } from '../../src/pipeline/scheduler-tick.js'
import { acmeHostMap, layout, pricingMain, startAcmeSite } from '../helpers/fixtures.js'
import { drainJobs, eventually, startTestService, waitForJob as waitFor, type TestService } from '../helpers/service.js'
import type { TestSite } from '../helpers/site.js'

const waitForJob = async (t: TestService, id: string, ms?: number) => await waitFor(t.api, id, ms)
const drain = async (t: TestService) => {
  await drainJobs(t.api)
}

describe('discovery and crawling against a local site', () => {
  let site: TestSite
  let t: TestService
  let domainId = ''
  let pages: any[] = []
  const byPath = (path: string) =>
    pages.find(p => new URL(p.url).pathname === path && new URL(p.url).hostname === 'acme.test')

  before(async () => {
    site = await startAcmeSite()
    t = await startTestService({ CRAWL_HOST_MAP: acmeHostMap(site) })
  })
  after(async () => {
    await t.stop()
    await site.close()
  })

  it('discovery finds the pages that matter through robots.txt, sitemaps (index and gzip), links and subdomains, and types them', async () => {
    const created = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data
    domainId = created.id
    const job = await waitForJob(t, created.discoveryJobId)
    assert.equal(job.state, 'completed', job.failedReason)
    pages = (await t.api.get(`/api/domains/${domainId}/pages`)).body.data
    const types = Object.fromEntries(pages.map(p => [new URL(p.url).hostname + new URL(p.url).pathname, p.pageType]))
    assert.equal(types['acme.test/pricing'], 'pricing')
    assert.equal(types['acme.test/features'], 'features')
    assert.equal(types['acme.test/legal/terms'], 'terms')
    assert.equal(types['acme.test/privacy'], 'terms')
    assert.equal(types['acme.test/security'], 'security')
    assert.equal(types['docs.acme.test/api'], 'api_docs')
    assert.equal(types['acme.test/changelog'], 'changelog')
    assert.equal(types['acme.test/about'], 'other', 'found only in the plain sitemap')
    assert.equal(types['acme.test/'], 'other')
    assert.equal(types['acme.test/private/roadmap'], undefined, 'robots.txt disallows it')
    assert.equal(
      pages.filter(p => p.url.startsWith('https://acme.test/pricing')).length,
      1,
      'the utm variant is the same page'
    )
    assert.ok(site.hitsOf('/private/roadmap') === 0, 'a disallowed page is never fetched')
    assert.ok(Number(byPath('/pricing').pageTypeConfidence) >= 0.7)
    assert.equal(job.returnValue.pagesAdded, pages.length)
    assert.ok(job.returnValue.pagesDiscovered >= pages.length)
    const domain = (await t.api.get(`/api/domains/${domainId}`)).body.data
    assert.equal(domain.status, 'active')
  })

  it('the first crawl of each page records its baseline and no change', async () => {
    await drain(t)
    const snapshots = await t.service.store.db.selectFrom('snapshots').select(['page_id']).execute()
    assert.equal(new Set(snapshots.map(s => s.page_id)).size, pages.length)
    const domain = (await t.api.get(`/api/domains/${domainId}`)).body.data
    assert.deepEqual(domain.recentChanges, [])
    assert.ok(domain.pages.every((p: any) => p.lastCheckAt !== null && p.lastChangeAt === null))
    const raw = await t.service.store.db
      .selectFrom('snapshots')
      .select(['raw_html_gzip', 'content'])
      .where('page_id', '=', byPath('/pricing').id)
      .executeTakeFirstOrThrow()
    assert.ok(raw.raw_html_gzip && raw.raw_html_gzip.length > 0, 'the raw HTML is kept, compressed')
    assert.match(raw.content, /^# Plans and pricing/m)
  })

  it('a page added by hand is typed like a discovered one: from its address, then from its content; a type a person chose stays', async () => {
    const policy = layout('Privacy — Acme', '<h1>Privacy Policy</h1><p>We process personal data to run the service. ' +
      'You may request deletion of your personal data. We keep personal data for 30 days after your account closes. ' +
      'We never sell personal data to third parties without consent.</p>')
    site.page('/p/4711', policy)
    site.page('/legal/privacypolicy/', policy)
    site.page('/cookies-by-hand', policy)
    const add = async (body: object) => (await t.api.post(`/api/domains/${domainId}/pages`, body)).body.data
    const opaque = await add({ url: 'https://acme.test/p/4711' })
    assert.deepEqual([opaque.pageType, opaque.pageTypeSource], ['other', 'address'], 'the address says nothing')
    const named = await add({ url: 'https://acme.test/legal/privacypolicy/' })
    assert.equal(named.pageType, 'terms', 'the address names a privacy policy')
    const chosen = await add({ url: 'https://acme.test/cookies-by-hand', pageType: 'features' })
    assert.deepEqual([chosen.pageType, chosen.pageTypeSource], ['features', 'person'])
    await drain(t)
    const now = new Map<string, any>(
      (await t.api.get(`/api/domains/${domainId}/pages?pageSize=500`)).body.data.map((p: any) => [p.id, p])
    )
    const typed = now.get(opaque.id)
    assert.deepEqual([typed.pageType, typed.pageTypeSource], ['terms', 'content'], 'typed from what it says')
    assert.ok(Number(typed.pageTypeConfidence) > 0.3 && Number(typed.pageTypeConfidence) < 1, typed.pageTypeConfidence)
    assert.deepEqual([now.get(chosen.id).pageType, now.get(chosen.id).pageTypeConfidence], ['features', '1.00'])
    for (const p of [opaque, named, chosen]) await t.api.request('DELETE', `/api/domains/${domainId}/pages/${p.id}`)
  })

  it('a price rise is reported with type, severity, summary and diff; noise in the same crawl is not', async () => {
    site.page('/pricing', layout('Pricing — Acme', pricingMain('$59'), { nonce: 'rotated-2', footerYear: 2026 }))
    site.page(
      '/features',
      layout('Features — Acme', (await import('../helpers/fixtures.js')).featuresMain, {
        nonce: 'rotated-2',
        footerYear: 2026
      })
    )
    const crawl = (await t.api.post(`/api/domains/${domainId}/crawl`)).body.data
    assert.equal(crawl.queued, pages.length)
    for (const id of crawl.jobIds) await waitForJob(t, id)
    const domain = (await t.api.get(`/api/domains/${domainId}`)).body.data
    assert.equal(domain.recentChanges.length, 1, JSON.stringify(domain.recentChanges.map((c: any) => c.summary)))
    const c = domain.recentChanges[0]
    assert.deepEqual(Object.keys(c).sort(), [
      'acknowledgedAt',
      'acknowledgedBy',
      'acknowledgedByKind',
      'alertRule',
      'changeType',
      'confidence',
      'createdAt',
      'diffData',
      'domainId',
      'id',
      'learnedSeverity',
      'orgId',
      'pageId',
      'pinnedAt',
      'severity',
      'snapshotAfterId',
      'snapshotBeforeId',
      'summary',
      'verdict'
    ])
    assert.equal(c.changeType, 'price_change')
    assert.equal(c.severity, 'high')
    assert.equal(c.summary, 'Pro: $49/month → $59/month (+20%)')
    assert.match(c.confidence, /^0\.9\d$/)
    assert.equal(c.pageId, byPath('/pricing').id)
    assert.equal(c.acknowledgedAt, null)
    assert.equal(c.acknowledgedBy, null)
    assert.notEqual(c.snapshotBeforeId, c.snapshotAfterId)
    assert.deepEqual(c.diffData.stats, { additions: 1, deletions: 1, changes: 1 })
    assert.ok(c.diffData.hunks[0].lines.some((l: any) => l.type === 'addition' && l.content === '$59/month'))
    const pricing = domain.pages.find((p: any) => p.id === byPath('/pricing').id)
    assert.ok(pricing.lastChangeAt)
    const features = domain.pages.find((p: any) => p.id === byPath('/features').id)
    assert.equal(features.lastChangeAt, null, 'markup and token churn on /features is no change')
    const crawlJob = (await t.api.get(`/api/jobs/${crawl.jobIds[0]}`)).body.data
    assert.equal(crawlJob.type, 'crawl')
    assert.ok(crawlJob.url && crawlJob.pageId)
    assert.equal(typeof crawlJob.returnValue.changed, 'boolean')
  })

  it('an unchanged page costs a conditional request (304) and records no snapshot', async () => {
    const before = await t.service.store.db.selectFrom('snapshots').select('id').execute()
    const crawl = (await t.api.post(`/api/domains/${domainId}/crawl`)).body.data
    const results = await Promise.all(crawl.jobIds.map((id: string) => waitForJob(t, id)))
    assert.ok(
      results.some(j => j.returnValue.notModified === true),
      'the ETag gave a 304'
    )
    const afterCount = await t.service.store.db.selectFrom('snapshots').select('id').execute()
    assert.equal(afterCount.length, before.length)
  })

  it('a page that answers 500 then 200 is retried and ends in a correct snapshot, its error recorded', async () => {
    let calls = 0
    site.set('/features', (_req, res) => {
      calls++
      if (calls === 1) {
        res.writeHead(500)
        res.end('oops')
        return
      }
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(
        layout(
          'Features',
          '<h1>Features</h1><h2>Automation</h2><ul><li>Workflow builder</li><li>Scheduled ' +
          'jobs</li><li>Webhooks</li></ul>'
        )
      )
    })
    const page = byPath('/features')
    const crawl = (await t.api.post(`/api/domains/${domainId}/crawl`)).body.data
    const jobs = await Promise.all(crawl.jobIds.map((id: string) => t.api.get(`/api/jobs/${id}`)))
    const jobId = jobs.find(j => j.body.data.pageId === page.id)!.body.data.id
    const job = await waitForJob(t, jobId)
    assert.equal(job.state, 'completed')
    assert.equal(job.attemptsMade, 2)
    const updated = (await t.api.get(`/api/domains/${domainId}/pages`)).body.data.find((p: any) => p.id === page.id)
    assert.equal(updated.errorCount, 1)
    assert.equal(updated.lastError, null, 'cleared by the successful crawl')
    assert.equal(updated.status, 'active')
    assert.ok(updated.lastChangeAt, 'the new content was compared')
  })

  it('a page that keeps failing ends failed after 3 attempts with failedReason; the page goes to error', async () => {
    site.set('/changelog', { status: 500, body: 'down' })
    const page = byPath('/changelog')
    const crawl = (await t.api.post(`/api/domains/${domainId}/crawl`)).body.data
    const jobs = await Promise.all(crawl.jobIds.map((id: string) => t.api.get(`/api/jobs/${id}`)))
    const jobId = jobs.find(j => j.body.data.pageId === page.id)!.body.data.id
    const seen = new Set<string>()
    const job = await eventually(
      async () => {
        const j = (await t.api.get(`/api/jobs/${jobId}`)).body.data
        seen.add(j.state)
        return j.state === 'failed' ? j : undefined
      },
      40_000,
      'the job to fail'
    )
    assert.equal(job.attemptsMade, 3)
    assert.equal(job.maxAttempts, 3)
    assert.match(job.failedReason, /HTTP 500/)
    assert.ok(seen.has('delayed'), `a failed attempt waits (delayed) before its retry; saw ${[...seen].join(', ')}`)
    const updated = (await t.api.get(`/api/domains/${domainId}/pages`)).body.data.find((p: any) => p.id === page.id)
    assert.equal(updated.status, 'error')
    assert.equal(updated.errorCount, 3)
    assert.match(updated.lastError, /HTTP 500/)
    assert.equal((await t.api.get('/api/jobs?status=failed')).body.data[0].id, jobId)
  })

  it('an error that trying again cannot change (404, not HTML, too large) fails the job at once', async () => {
    site.set('/gone', { status: 404, body: 'no such page' })
    site.set('/brochure', { body: 'PK\u0003\u0004 ...', headers: { 'content-type': 'application/zip' } })
    site.set('/huge', `<html><body><p>${'big '.repeat(1_500_000)}</p></body></html>`)
    for (const [path, reason] of [['/gone', /HTTP 404/], ['/brochure', /neither an HTML page nor a document/], ['/huge', /larger than/]] as const) {
      const added = (await t.api.post(`/api/domains/${domainId}/pages`, { url: `https://acme.test${path}` })).body.data
      const jobs = (await t.api.get('/api/jobs?limit=100')).body.data as any[]
      const jobId = jobs.find(j => j.pageId === added.id).id
      const job = await waitForJob(t, jobId)
      assert.equal(job.state, 'failed', path)
      assert.equal(job.attemptsMade, 1, `${path}: no retry`)
      assert.match(job.failedReason, reason)
      const page = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=500`)).body.data.find((p: any) => p.id === added.id)
      assert.match(page.lastError, reason)
      assert.equal(page.status, 'error', `${path}: in error at once`)
      await t.api.delete(`/api/domains/${domainId}/pages/${added.id}`)
    }
  })

  it('a 304 answered to a request that named no version is an error, not an empty snapshot', async () => {
    site.set('/always-304', { status: 304 })
    const added = (await t.api.post(`/api/domains/${domainId}/pages`, { url: 'https://acme.test/always-304' })).body.data
    const page = await eventually(async () => {
      const p = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=500`)).body.data.find((x: any) => x.id === added.id)
      return p.lastError ? p : undefined
    }, 20_000, 'the crawl to fail')
    assert.match(page.lastError, /304/)
    const snapshots = await t.service.store.db.selectFrom('snapshots').select('id').where('page_id', '=', added.id).execute()
    assert.equal(snapshots.length, 0)
    await t.api.delete(`/api/domains/${domainId}/pages/${added.id}`)
  })

  it('the scheduler queues due pages of active domains once, and moves nextCrawlAt a period on', async () => {
    await drain(t)
    const later = new Date(Date.now() + 40 * 3_600_000)
    const ticked = new Date()
    const first = await runSchedulerTick(t.service.store.db, t.service.queue, later)
    assert.equal(first.queued, pages.length)
    const second = await runSchedulerTick(t.service.store.db, t.service.queue, later)
    assert.equal(second.queued, 0, 'nothing is queued twice')
    const next = await t.service.store.db
      .selectFrom('pages')
      .select(['next_crawl_at', 'last_check_at'])
      .where('domain_id', '=', domainId)
      .execute()
    // A period on from the tick's slot; unless the check the tick queued has already run (on the real clock) and
    // set its own next.
    for (const p of next) {
      assert.ok(p.next_crawl_at.getTime() > later.getTime() + 12 * 3_600_000 ||
        (p.last_check_at !== null && p.last_check_at >= ticked), String(p.next_crawl_at))
    }
    const domain = (await t.api.get(`/api/domains/${domainId}`)).body.data
    assert.ok(new Date(domain.nextCrawlAt).getTime() > Date.now())
  })

  it("retention deletes changes and snapshots past the plan's history, keeping each page's latest snapshot", async () => {
    await drain(t)
    const db = t.service.store.db
    const changesBefore = await db.selectFrom('changes').select('id').execute()
    assert.ok(changesBefore.length > 0)
    const r = await deleteExpired(db, new Date(Date.now() + 181 * 86_400_000))
    assert.equal(r.changes, changesBefore.length)
    assert.equal((await db.selectFrom('changes').select('id').execute()).length, 0)
    const snaps = await db.selectFrom('snapshots').select(['page_id']).execute()
    assert.equal(snaps.length, new Set(snaps.map(s => s.page_id)).size, 'one snapshot per page is left: the baseline')
  })
})

describe('jobs start once they are committed, not at the next poll', () => {
  let site: TestSite
  let t: TestService
  before(async () => {
    site = await startAcmeSite()
    // Idle workers would look for jobs only every two minutes: longer than any wait below.
    t = await startTestService({ CRAWL_HOST_MAP: acmeHostMap(site), JOB_POLLING_SECONDS: '120' })
  })
  after(async () => {
    await t.stop()
    await site.close()
  })

  it("a new domain's discovery, the crawls it queues and a crawl asked for run at once", async () => {
    const created = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data
    assert.equal((await waitForJob(t, created.discoveryJobId)).state, 'completed')
    await drain(t)
    const pages = (await t.api.get(`/api/domains/${created.id}/pages`)).body.data
    assert.ok(pages.length > 5 && pages.every((p: any) => p.lastCheckAt !== null), 'every discovered page was crawled')
    const crawl = (await t.api.post(`/api/domains/${created.id}/crawl`)).body.data
    assert.equal(crawl.queued, pages.length)
    const job = await waitForJob(t, crawl.jobIds[0])
    assert.equal(job.state, 'completed', job.failedReason)
    await drain(t)
  })
})

describe('discovery at scale and within the plan cap', () => {
  let site: TestSite
  let t: TestService
  before(async () => {
    const extra = Array.from({ length: 600 }, (_, i) => `https://acme.test/blog/post-${i}`)
    site = await startAcmeSite({ extraSitemapUrls: extra })
    site.fallback = path =>
      path.startsWith('/blog/post-') ? `<html><body><h1>${path}</h1><p>A post.</p></body></html>` : undefined
    t = await startTestService({ CRAWL_HOST_MAP: acmeHostMap(site), WORKER_CONCURRENCY: '32' })
  })
  after(async () => {
    await t.stop()
    await site.close()
  })

  it('adds the most valuable pages first, leaves a tenth of the cap for people, never more (trial: 500 per domain)', async () => {
    const created = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data
    const job = await waitForJob(t, created.discoveryJobId)
    assert.equal(job.state, 'completed')
    assert.equal(job.returnValue.pagesAdded, 450, 'discovery leaves 50 places for pages a person adds')
    assert.ok(job.returnValue.pagesDiscovered > 600)
    const all = []
    for (let page = 1; page <= 2; page++) {
      all.push(...(await t.api.get(`/api/domains/${created.id}/pages?pageSize=500&page=${page}`)).body.data)
    }
    assert.equal(all.length, 450)
    for (const type of ['pricing', 'features', 'terms', 'security', 'api_docs', 'changelog']) {
      assert.ok(
        all.some(p => p.pageType === type),
        `a ${type} page made the cut`
      )
    }
    // A person may take the places discovery left, up to the cap.
    const urls = Array.from({ length: 50 }, (_, i) => `https://acme.test/by-hand-${i}`)
    for (const url of urls) assert.equal((await t.api.post(`/api/domains/${created.id}/pages`, { url })).status, 201)
    const manual = await t.api.post(`/api/domains/${created.id}/pages`, { url: 'https://acme.test/one-more' })
    assert.equal(manual.status, 402)
    assert.deepEqual(manual.body.details, { resource: 'pages', used: 500, limit: 500, changedBy: 'owner' })
    assert.match(manual.body.error, /^The trial allows 500 pages per domain, and this domain has taken 500\. A deleted page does not give its place back/)
    assert.equal((await t.api.get('/api/usage')).body.data.limits.domains.used, 1)
  })
})

describe('discovery of a site with 100,000 URLs in its sitemaps', () => {
  let site: TestSite
  let t: TestService
  before(async () => {
    site = await startAcmeSite()
    const urls = (from: number, kind: string) =>
      Array.from({ length: 50_000 }, (_, i) => `<url><loc>https://acme.test/${kind}/${from + i}</loc></url>`).join('')
    site.set('/robots.txt', {
      body: 'User-agent: *\nAllow: /\nSitemap: https://acme.test/big-index.xml\n',
      headers: { 'content-type': 'text/plain' }
    })
    site.set('/big-index.xml', {
      body: '<?xml version="1.0"?><sitemapindex><sitemap><loc>https://acme.test/big-1.xml</loc></sitemap><sitemap><loc>https://acme.test/big-2.xml</loc></sitemap></sitemapindex>',
      headers: { 'content-type': 'application/xml' }
    })
    site.set('/big-1.xml', {
      body: `<?xml version="1.0"?><urlset>${urls(0, 'blog')}</urlset>`,
      headers: { 'content-type': 'application/xml' }
    })
    site.set('/big-2.xml', {
      body: `<?xml version="1.0"?><urlset>${urls(0, 'docs')}</urlset>`,
      headers: { 'content-type': 'application/xml' }
    })
    site.fallback = path =>
      /^\/(blog|docs)\/\d+$/.test(path) ? `<html><body><h1>${path}</h1><p>Text.</p></body></html>` : undefined
    t = await startTestService({
      CRAWL_HOST_MAP: acmeHostMap(site),
      WORKER_CONCURRENCY: '32',
      DISCOVERY_MAX_FETCHES: '30',
      // The cap is what is tested, not the time: a 50,000-address sitemap took over 2 s to read on a loaded machine.
      CRAWL_TIMEOUT_MS: '30000'
    })
  })
  after(async () => {
    await t.stop()
    await site.close()
  })

  it('reads the first 100,000, says it stopped there, keeps the typed pages, and stays within the cap', async () => {
    const created = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data
    // The job's end is awaited, not timed: reading 100,000 addresses took over 30 s on a machine busy beside it.
    const job = await waitForJob(t, created.discoveryJobId, 180_000)
    assert.equal(job.state, 'completed', job.failedReason)
    assert.equal(job.returnValue.pagesDiscovered, 100_000)
    assert.match(job.returnValue.stopped, /^Discovery stopped early: the site lists more than 100,000 addresses; the first were read\. The pages found by then were kept\.$/)
    assert.equal((await t.api.get(`/api/domains/${created.id}`)).body.data.discoveryNote, job.returnValue.stopped)
    assert.equal(job.returnValue.pagesAdded, 450)
    const pages = []
    for (let page = 1; page <= 2; page++) {
      pages.push(...(await t.api.get(`/api/domains/${created.id}/pages?pageSize=500&page=${page}`)).body.data)
    }
    assert.equal(pages.length, 450)
    assert.ok(
      pages.filter(p => p.pageType === 'other').length <= 1,
      'typed pages (docs → api_docs) fill the cap before blog posts'
    )
    assert.ok(pages.some(p => p.url === 'https://acme.test/pricing'))
  })
})

describe('hostile pages end in a recorded error or a correct snapshot, never a hung job', () => {
  let site: TestSite
  let t: TestService
  before(async () => {
    site = await startAcmeSite()
    site.set('/hang', () => {
      /* never answers */
    })
    site.set('/huge', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(Buffer.alloc(10 * 1024 * 1024, 'a'))
    })
    site.set('/loop', { status: 302, headers: { location: '/loop2' } })
    site.set('/loop2', { status: 302, headers: { location: '/loop' } })
    site.set('/nul', {
      body: '<title>Plans\u0000</title><h1>Pri\u0000cing</h1><ul><li>SSO\u0000\u0007 included</li></ul>',
      headers: { 'content-type': 'text/html' }
    })
    site.set('/latin', {
      body: Buffer.from('<meta charset="windows-1252"><h1>Tarifs</h1><p>Caf\xe9 \x80 5</p>', 'latin1'),
      headers: { 'content-type': 'text/html; charset=utf-8' }
    })
    t = await startTestService({ CRAWL_HOST_MAP: acmeHostMap(site), CRAWL_TIMEOUT_MS: '1000' })
  })
  after(async () => {
    await t.stop()
    await site.close()
  })

  it('timeouts (three attempts), 10 MB bodies and redirect loops (one) fail with their reason on the page; a lying charset and NUL bytes are read right', async () => {
    const domain = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data
    await drainJobs(t.api)
    const expected: Record<string, [RegExp, number]> = {
      '/hang': [/timed out/, 3],
      '/huge': [/larger than/, 1],
      '/loop': [/more than 5 redirects/, 1]
    }
    const added: Record<string, string> = {}
    for (const path of [...Object.keys(expected), '/latin', '/nul']) {
      added[path] = (
        await t.api.post(`/api/domains/${domain.id}/pages`, { url: `https://acme.test${path}` })
      ).body.data.id
    }
    await drainJobs(t.api, 60_000)
    for (const [path, [reason, attempts]] of Object.entries(expected)) {
      const page = await eventually(
        async () => {
          const p = (await t.api.get(`/api/domains/${domain.id}/pages`)).body.data.find(
            (x: any) => x.id === added[path]
          )
          return p.errorCount === attempts ? p : undefined
        },
        20_000,
        `${attempts} recorded failures of ${path}`
      )
      assert.match(page.lastError, reason, path)
      assert.equal(page.status, 'error', path)
    }
    await eventually(
      async () => ((await t.api.get('/api/jobs?status=failed&limit=100')).body.data.length === 3 ? true : undefined),
      10_000,
      'three failed jobs'
    )
    const latin = await t.service.store.db
      .selectFrom('snapshots')
      .select('content')
      .where('page_id', '=', added['/latin'])
      .executeTakeFirstOrThrow()
    assert.match(latin.content, /Café € 5/)
    // PostgreSQL's text cannot hold U+0000: a page with NUL bytes is read as a browser shows it.
    const nul = await t.service.store.db
      .selectFrom('snapshots')
      .select('content')
      .where('page_id', '=', added['/nul'])
      .executeTakeFirstOrThrow()
    assert.equal(nul.content, '# Pricing\n- SSO included')
    assert.equal(
      (await t.api.get(`/api/domains/${domain.id}`)).body.data.status,
      'active',
      'the domain lives on: other pages are fine'
    )
  })
})
