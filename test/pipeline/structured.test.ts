import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { eventually, drainJobs, startTestService, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

// The structured readers end to end: a site's pricing page (plan cards) and changelog
// (Keep a Changelog) found by discovery, crawled plainly, edited; the changes in the API
// and in a webhook's payload carry the plans and the new entry (PGlite, or PostgreSQL).

const fixture = (name: string) =>
  readFileSync(new URL(`../detection/fixtures/${name}.html`, import.meta.url), 'utf8')

describe('structured readers in the pipeline', () => {
  let site: TestSite
  let hooks: TestSite
  let t: TestService
  let domainId = ''
  const deliveries: any[] = []

  before(async () => {
    site = await new TestSite().start()
    hooks = await new TestSite().start()
    hooks.receive('/hook', deliveries)
    site.page('/', '<html><head><title>Relay</title></head><body><h1>Relay</h1><p>Relay moves your events.</p>' +
      '<a href="/pricing">Pricing</a> <a href="/changelog">Changelog</a></body></html>')
    site.page('/pricing', fixture('pricing/cards'))
    site.page('/changelog', fixture('changelog/keep-a-changelog'))
    t = await startTestService({ CRAWL_HOST_MAP: `relay.test=${site.origin}`, ALERT_HOST_MAP: `hooks.test=${hooks.origin}` })
    assert.equal((await t.api.post('/api/webhooks', { url: 'https://hooks.test/hook' })).status, 201)
    domainId = (await t.api.post('/api/domains', { domain: 'relay.test' })).body.data.id
    await drainJobs(t.api)
  })
  after(async () => {
    await t?.stop()
    await site?.close()
    await hooks?.close()
  })

  const changesOf = async (path: string) => {
    const pages = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=100`)).body.data as any[]
    const page = pages.find(p => new URL(p.url).pathname === path)
    return (await t.api.get(`/api/changes?pageId=${page.id}`)).body.data as any[]
  }

  it('finds both pages, typed and intelligence pages', async () => {
    const pages = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=100`)).body.data as any[]
    const typed = Object.fromEntries(pages.map(p => [new URL(p.url).pathname, [p.pageType, p.intelligence]]))
    assert.deepEqual(typed['/pricing'], ['pricing', true])
    assert.deepEqual(typed['/changelog'], ['changelog', true])
  })

  it('a price rise, a plan removed and a release: each with its structure, in the API and the webhook', async () => {
    const cards = fixture('pricing/cards')
    const start = cards.indexOf('    <div class="plan-card">')
    const end = cards.indexOf('    <div class="plan-card featured">')
    site.page('/pricing', (cards.slice(0, start) + cards.slice(end)).replace('<span class="amount">49</span>', '<span class="amount">59</span>'))
    const log = fixture('changelog/keep-a-changelog')
    site.page('/changelog', log.replace('<h2>[2.3.0]', '<h2>[2.4.0] - 2026-11-20</h2><h3>Added</h3><ul><li>Event replay.</li></ul>\n<h2>[2.3.0]'))
    await t.api.post(`/api/domains/${domainId}/crawl`)
    const [price] = await eventually(async () => { const c = await changesOf('/pricing'); return c.length ? c : undefined },
      30_000, 'the pricing change')
    assert.equal(price.changeType, 'price_change')
    assert.equal(price.severity, 'high')
    assert.equal(price.summary, 'Pro: $49/month → $59/month (+20%); Starter plan removed ($19/month)')
    assert.deepEqual(price.diffData.pricing.changes.map((c: any) => c.kind), ['price_up', 'plan_removed'])
    assert.deepEqual(price.diffData.pricing.before.plans.map((p: any) => p.name), ['Starter', 'Pro', 'Enterprise'])
    const [release] = await eventually(async () => { const c = await changesOf('/changelog'); return c.length ? c : undefined },
      30_000, 'the changelog change')
    assert.deepEqual([release.changeType, release.severity], ['feature_added', 'medium'])
    assert.equal(release.summary, 'Changelog 2.4.0 (2026-11-20): Added: Event replay.')
    assert.deepEqual(release.diffData.changelog, { version: '2.4.0', date: '2026-11-20', title: '2.4.0', items: ['Added: Event replay.'] })
    const one = (await t.api.get(`/api/changes/${price.id}`)).body.data
    assert.deepEqual(one.diffData.pricing, price.diffData.pricing)
    const delivered = await eventually(async () => {
      const got = deliveries.filter(d => d.type === 'change.detected')
      return got.length >= 2 ? got : undefined
    }, 30_000, 'the webhooks')
    const byId = new Map(delivered.map(d => [d.data.change.id, d.data.change]))
    assert.deepEqual(byId.get(price.id).diffData.pricing.changes, price.diffData.pricing.changes)
    assert.deepEqual(byId.get(release.id).diffData.changelog, release.diffData.changelog)
  })

  it('plans re-ordered report nothing; a badge re-worded is a low text change, never hidden by the plans', async () => {
    const before = (await t.api.get(`/api/changes?domainId=${domainId}`)).body.data.length
    const page = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=100`)).body.data
      .find((p: any) => p.url.endsWith('/pricing'))
    const checked = page.lastCheckAt
    const current = (await t.service.store.db.selectFrom('snapshots').select('content').where('page_id', '=', page.id)
      .orderBy('created_at', 'desc').executeTakeFirstOrThrow()).content
    assert.match(current, /\$59\/month/)
    // The Pro card after the Enterprise card, with another badge.
    const cards = fixture('pricing/cards').replace('<span class="amount">49</span>', '<span class="amount">59</span>')
    const start = cards.indexOf('    <div class="plan-card">')
    const pro = cards.indexOf('    <div class="plan-card featured">')
    const enterprise = cards.indexOf('    <div class="plan-card">', pro)
    const close = cards.indexOf('  </div>\n  <h2>')
    site.page('/pricing', cards.slice(0, start) + cards.slice(enterprise, close) +
      cards.slice(pro, enterprise).replace('Most popular', 'Best value') + cards.slice(close))
    await t.api.post(`/api/domains/${domainId}/crawl`)
    await eventually(async () => {
      const p = (await t.api.get(`/api/domains/${domainId}/pages/${page.id}`)).body.data
      return p.lastCheckAt !== checked ? true : undefined
    }, 30_000, 'the next check')
    await drainJobs(t.api)
    const now = (await t.api.get(`/api/changes?domainId=${domainId}`)).body.data as any[]
    assert.equal(now.length, before + 1)
    assert.deepEqual([now[0].changeType, now[0].severity], ['content_change', 'low'])
    assert.match(now[0].summary, /"Most popular"/)
    assert.match(now[0].diffData.after, /Best value/)
    assert.equal(now[0].diffData.pricing, undefined)
    assert.equal((await t.api.get(`/api/domains/${domainId}/pages/${page.id}`)).body.data.readingNote, null)
  })

  it('a pricing page its reader cannot read any more: compared as text, and the page says so until it reads again', async () => {
    const page = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=100`)).body.data
      .find((p: any) => p.url.endsWith('/pricing'))
    const checkOnce = async () => {
      const checked = (await t.api.get(`/api/domains/${domainId}/pages/${page.id}`)).body.data.lastCheckAt
      await t.api.post(`/api/domains/${domainId}/pages/${page.id}/crawl`)
      return await eventually(async () => {
        const p = (await t.api.get(`/api/domains/${domainId}/pages/${page.id}`)).body.data
        return p.lastCheckAt !== checked ? p : undefined
      }, 30_000, 'the check')
    }
    site.page('/pricing', '<html><head><title>Pricing — Relay</title></head><body><main><h1>Pricing</h1>' +
      '<p>Our prices moved to the sales team: write to sales@relay.test.</p></main></body></html>')
    const unread = await checkOnce()
    assert.equal(unread.readingNote, 'The plans and prices could not be read: compared as text')
    assert.match((await t.api.get(`/api/domains/${domainId}/pages/${page.id}`)).body.data.readingNote, /compared as text/)
    const [change] = (await t.api.get(`/api/changes?pageId=${page.id}`)).body.data
    assert.ok(change.summary.length > 0, 'what moved is still told, as text')
    const metrics = await (await fetch(`${t.url}/metrics`)).text()
    assert.match(metrics, /^sitewatch_reader_failures_total\{reader="pricing",error="false"\} [1-9]/m)
    site.page('/pricing', fixture('pricing/cards'))
    assert.equal((await checkOnce()).readingNote, null)
  })
})
