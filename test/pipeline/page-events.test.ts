// New and removed pages: a domain's sitemap gains a pricing page and a blog post and loses
// its legal page. The weekly discovery (queued by the scheduler) tells of each new page
// once, watches the pricing page within the plan, leaves the post for a person, and tells
// of the legal page as gone from the sitemap; a page that answers 404 for a week is gone
// too; webhooks, the feeds and the digest hear of them.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { runMailDigests } from '../../src/alerts/mail-outbox.js'
import { digestMail } from '../../src/mail/alert-messages.js'
import { runSchedulerTick } from '../../src/pipeline/scheduler-tick.js'
import { recordDiscovered } from '../../src/store/page-events.js'
import { addUser } from '../../src/services/accounts.js'
import { layout, pricingMain, termsMain } from '../helpers/fixtures.js'
import { drainJobs, eventually, startTestService, waitForJob, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

/** A sitemap of `paths`, each modified on 2026-11-20 unless `modified` says otherwise (then <lastmod> comes first). */
const sitemap = (paths: string[], modified: Record<string, string> = {}) => ({
  body: `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${
    paths.map(p => modified[p]
      ? `<url><lastmod>${modified[p]}</lastmod><loc>https://shop.test${p}</loc></url>`
      : `<url><loc>https://shop.test${p}</loc><lastmod>2026-11-20</lastmod></url>`).join('')}</urlset>`,
  headers: { 'content-type': 'application/xml' }
})

describe('new and removed pages', () => {
  let site: TestSite
  let hooks: TestSite
  let t: TestService
  let domainId = ''
  const deliveries: any[] = []
  const events = async () => (await t.api.get(`/api/page-events?domainId=${domainId}`)).body.data as any[]

  before(async () => {
    site = await new TestSite().start()
    hooks = await new TestSite().start()
    hooks.receive('/hook', deliveries)
    site.set('/robots.txt', { body: 'User-agent: *\nAllow: /\nSitemap: https://shop.test/sitemap.xml\n', headers: { 'content-type': 'text/plain' } })
    site.set('/sitemap.xml', sitemap(['/', '/pricing', '/legal/terms']))
    site.page('/', layout('Shop', '<main><h1>Shop</h1><p>We sell things.</p></main>'))
    site.page('/pricing', layout('Pricing — Shop', pricingMain('$49')))
    site.page('/legal/terms', layout('Terms of Service — Shop', termsMain('We may end your account at any time.')))
    t = await startTestService({ CRAWL_HOST_MAP: `shop.test=${site.origin}`, ALERT_HOST_MAP: `hooks.test=${hooks.origin}` })
    const hook = await t.api.post('/api/webhooks', { url: 'https://hooks.test/hook', events: ['page.discovered', 'page.removed'] })
    assert.equal(hook.status, 201, JSON.stringify(hook.body))
    domainId = (await t.api.post('/api/domains', { domain: 'shop.test' })).body.data.id
    await drainJobs(t.api)
  })
  after(async () => {
    await t?.stop()
    await site?.close()
    await hooks?.close()
  })

  it('the first discovery is the baseline: no page is told of as new', async () => {
    const pages = (await t.api.get(`/api/domains/${domainId}/pages`)).body.data as any[]
    assert.deepEqual(pages.map(p => new URL(p.url).pathname).sort(), ['/', '/legal/terms', '/pricing'])
    assert.deepEqual(await events(), [])
  })

  it('the weekly discovery tells of each new page once, and watches the one of a type that matters', async () => {
    site.set('/sitemap.xml', sitemap(['/', '/pricing', '/pricing/enterprise', '/blog/hello-world']))
    site.page('/pricing/enterprise', layout('Enterprise pricing — Shop', pricingMain('$490')))
    site.page('/blog/hello-world', layout('Hello world — Shop blog', '<main><h1>Hello world</h1><p>Our first post.</p></main>'))
    // A week on: the scheduler's turn finds the discovery due and queues it.
    const weekOn = new Date(Date.now() + 7 * 86_400_000 + 60_000)
    const tick = await runSchedulerTick(t.service.store.db, t.service.queue, weekOn)
    assert.equal(tick.discoveries, 1)
    assert.equal((await runSchedulerTick(t.service.store.db, t.service.queue, weekOn)).discoveries, 0, 'once a week')
    await drainJobs(t.api)
    const listed = ((await t.api.get('/api/jobs?type=discover')).body.data as any[])[0]
    assert.equal((await t.api.get(`/api/jobs/${listed.id}`)).body.data.returnValue.pagesTold, 3)
    const found = await events()
    const removed = found.filter(e => e.kind === 'removed')
    assert.deepEqual(removed.map(e => [new URL(e.url).pathname, e.reason]), [['/legal/terms', 'it left the sitemap']])
    const byPath = Object.fromEntries(found.filter(e => e.kind === 'discovered').map(e => [new URL(e.url).pathname, e]))
    assert.deepEqual(Object.keys(byPath).sort(), ['/blog/hello-world', '/pricing/enterprise'])
    assert.equal(byPath['/pricing/enterprise'].pageType, 'pricing')
    assert.equal(byPath['/pricing/enterprise'].sitemapLastmod, '2026-11-20T00:00:00.000Z')
    assert.equal(byPath['/pricing/enterprise'].watched, true)
    assert.equal(byPath['/blog/hello-world'].watched, false, 'a page of no type that matters waits for a person')
    const pages = (await t.api.get(`/api/domains/${domainId}/pages`)).body.data as any[]
    assert.ok(pages.some(p => p.url === 'https://shop.test/pricing/enterprise'))
    assert.ok(!pages.some(p => p.url.endsWith('/blog/hello-world')))
    const sent = await eventually(async () => deliveries.length > 1 ? deliveries : undefined, 20_000, 'the webhooks')
    assert.deepEqual(sent.map(d => [d.type, new URL(d.data.event.url).pathname]).sort(),
      [['page.discovered', '/pricing/enterprise'], ['page.removed', '/legal/terms']])
    // Discovered again: nothing new to tell. The pricing page's <lastmod> says it changed since its last
    // check, half a day ago (half its domain's interval): it is checked at the scheduler's next turn.
    await t.service.store.db.updateTable('pages').set({ last_check_at: new Date(Date.now() - 13 * 3_600_000) })
      .where('url', '=', 'https://shop.test/pricing').execute()
    site.set('/sitemap.xml', sitemap(['/', '/pricing', '/pricing/enterprise', '/blog/hello-world'],
      { '/pricing': new Date().toISOString() }))
    const again = (await t.api.post(`/api/domains/${domainId}/discover`)).body.data
    const rediscovery = await waitForJob(t.api, again.discoveryJobId)
    assert.equal(rediscovery.returnValue.pagesDueSooner, 1)
    assert.equal(rediscovery.returnValue.pagesTold, undefined)
    const due = await t.service.store.db.selectFrom('pages').select('next_crawl_at')
      .where('url', '=', 'https://shop.test/pricing').executeTakeFirstOrThrow()
    assert.ok(due.next_crawl_at!.getTime() <= Date.now(), 'due at the next turn')
    await drainJobs(t.api)
    assert.equal((await events()).length, 3)
    assert.equal(deliveries.length, 2)
  })

  it("the Atom feed and a member's daily digest tell of the new page of a type that matters", async () => {
    const token = (await t.api.get('/api/feeds')).body.data.changes.split('/feeds/')[1].split('/')[0]
    const feed = await (await fetch(`${t.url}/feeds/${token}/changes.atom`)).text()
    assert.match(feed, /New pricing page on shop\.test, now watched: https:\/\/shop\.test\/pricing\/enterprise/)
    assert.doesNotMatch(feed, /hello-world/, 'a page of no type that matters is listed, not told')
    assert.doesNotMatch(await (await fetch(`${t.url}/feeds/${token}/changes.atom?severity=high`)).text(), /New pricing page/)
    const db = t.service.store.db
    const org = (await db.selectFrom('domains').select('org_id').where('id', '=', domainId).executeTakeFirstOrThrow()).org_id
    const user = await addUser(db, org, { email: 'analyst@shop.test', password: 'a long enough password' }, 'owner')
    // A digest due within the hour to come, so that it covers the events just recorded.
    const soon = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 300_000)
    const set = await t.api.request('PUT', `/api/alert-settings/${user.id}`, { body: { mode: 'daily', hour: soon.getUTCHours(), timeZone: 'UTC' } })
    assert.equal(set.status, 200, JSON.stringify(set.body))
    await runMailDigests({ db, queue: t.service.queue, appBase: t.url }, soon)
    const [digest] = (await t.api.get('/api/email-deliveries')).body.data
    assert.match(digest.subject, /new or removed page/)
    const mail = digestMail({
      to: 'analyst@shop.test',
      orgName: 'Shop',
      period: { from: new Date(), to: soon, mode: 'daily' },
      total: 0,
      groups: [],
      more: null,
      links: { unsubscribe: 'u', settings: 's' },
      pages: [{ kind: 'discovered', url: 'https://shop.test/pricing/enterprise', domain: 'shop.test', pageType: 'pricing', watched: true }]
    })
    assert.match(mail.text, /New and removed pages\n {2}New pricing page on shop\.test, now watched: https:\/\/shop\.test\/pricing\/enterprise/)
    assert.match(mail.subject, /^1 new or removed page today/)
  })

  it('a watched page that has answered 404 for a week is told of once as removed', async () => {
    site.set('/pricing', { status: 404, body: '<h1>Not found</h1>', headers: { 'content-type': 'text/html' } })
    const terms = ((await t.api.get(`/api/domains/${domainId}/pages`)).body.data as any[])
      .find(p => p.url === 'https://shop.test/pricing')
    const crawl = async () => {
      const { jobId } = (await t.api.post(`/api/domains/${domainId}/pages/${terms.id}/crawl`)).body.data
      await waitForJob(t.api, jobId)
    }
    await crawl()
    assert.equal((await events()).filter(e => e.kind === 'removed' && e.pageId === terms.id).length, 0,
      'gone a moment is not gone')
    await sql`UPDATE pages SET failing_since = now() - interval '8 days' WHERE id = ${terms.id}::uuid`
      .execute(t.service.store.db)
    await crawl()
    await crawl()
    const removed = (await events()).filter(e => e.kind === 'removed' && e.pageId === terms.id)
    assert.equal(removed.length, 1)
    assert.match(removed[0].reason, /answered 404 since/)
    const told = await eventually(async () =>
      deliveries.find(d => d.type === 'page.removed' && d.data.event.url === 'https://shop.test/pricing'), 20_000, 'page.removed')
    assert.ok(told)
  })

  it('ten thousand new pages (the most a discovery finds) are told in statements PostgreSQL takes, each once', async () => {
    const db = t.service.store.db
    const org = (await db.selectFrom('domains').select('org_id').where('id', '=', domainId).executeTakeFirstOrThrow()).org_id
    const found = Array.from({ length: 10_000 }, (_, i) =>
      ({ url: `https://shop.test/blog/post-${i}`, pageType: 'other' as const, pageId: null }))
    const record = async () =>
      await db.transaction().execute(async tx => await recordDiscovered(tx, org, domainId, found))
    assert.equal((await record()).length, 10_000)
    assert.equal((await record()).length, 0)
  })
})
