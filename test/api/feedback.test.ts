// Feedback that learns: "not important" on a passage that keeps moving offers its pattern,
// and once taken the same noise is silent while a real edit still speaks; "important" pins
// a change and raises the later ones of its type; every learned rule is listed with where
// it came from, and removing one undoes it. A price is never learned as noise.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { learnedSeverity } from '../../src/vocabulary/learned.js'
import { layout, pricingMain } from '../helpers/fixtures.js'
import { drainJobs, startTestService, waitForJob, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

const status = (tickets: number, extra = '') => layout('Status — Acme', `<main><h1>Status</h1>
  <p>All systems operational.</p><p>Tickets answered this week: ${tickets} by our support team</p>${extra}
  <p>Write to support@acme.test for anything else.</p></main>`)

describe('feedback that learns', () => {
  let site: TestSite
  let t: TestService
  let domainId = ''
  const pages: Record<string, string> = {}
  let noisy: any
  let pattern = ''

  const crawl = async (path: string) => {
    const { jobId } = (await t.api.post(`/api/domains/${domainId}/pages/${pages[path]}/crawl`)).body.data
    const job = await waitForJob(t.api, jobId)
    assert.equal(job.state, 'completed', job.failedReason)
  }
  const changesOf = async (path: string) => (await t.api.get(`/api/changes?pageId=${pages[path]}`)).body.data as any[]

  before(async () => {
    site = await new TestSite().start()
    site.page('/', layout('Acme', '<main><h1>Acme</h1><p>We ship.</p></main>'))
    site.page('/status', status(1204))
    site.page('/pricing', layout('Pricing — Acme', pricingMain('$49')))
    t = await startTestService({ CRAWL_HOST_MAP: `acme.test=${site.origin}`, LOG_LEVEL: 'error' })
    domainId = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data.id
    await drainJobs(t.api)
    for (const path of ['/status', '/pricing']) {
      const listed = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=500`)).body.data as any[]
      pages[path] = listed.find(p => p.url === `https://acme.test${path}`)?.id ??
        (await t.api.post(`/api/domains/${domainId}/pages`, { url: `https://acme.test${path}` })).body.data.id
    }
    await drainJobs(t.api)
  })
  after(async () => {
    await t.stop()
    await site.close()
  })

  it('"not important" acknowledges the change, keeps it searchable and offers its pattern and a lower severity', async () => {
    site.page('/status', status(1311))
    await crawl('/status')
    ;[noisy] = await changesOf('/status')
    assert.ok(noisy, 'the counter moved: a change')
    const res = await t.api.post(`/api/changes/${noisy.id}/feedback`, { verdict: 'not_important' })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    const { change, offers, learned } = res.body.data
    assert.equal(change.verdict, 'not_important')
    assert.ok(change.acknowledgedAt)
    assert.equal(change.pinnedAt, null)
    assert.deepEqual(learned, [])
    assert.deepEqual(offers.map((o: any) => o.kind), ['mute', 'lower'])
    pattern = offers[0].pattern
    assert.match(offers[0].description, /Mute "Tickets answered this week: … by our support team" on this page/)
    assert.match('Tickets answered this week: 98765 by our support team', new RegExp(pattern, 'i'))
    assert.doesNotMatch('Tickets answered this month: 98765 by our support team', new RegExp(pattern, 'i'))
    const found = await t.api.get('/api/changes?q=tickets%20answered')
    assert.deepEqual(found.body.data.map((c: any) => c.id), [noisy.id], 'still stored and searchable')
    assert.equal((await t.api.post(`/api/changes/${noisy.id}/feedback`, { verdict: 'meh' })).status, 400)
    assert.equal((await t.api.post('/api/changes/00000000-0000-4000-8000-000000000000/feedback',
      { verdict: 'important' })).status, 404)
  })

  it('the muting rule, once taken, is listed with its origin; the same noise is silent, a real edit is not', async () => {
    const taken = await t.api.post(`/api/changes/${noisy.id}/learned-rules`, { kind: 'mute' })
    assert.equal(taken.status, 201, JSON.stringify(taken.body))
    assert.equal(taken.body.data.kind, 'mute')
    assert.equal(taken.body.data.pattern, pattern)
    assert.equal(taken.body.data.fromChangeId, noisy.id)
    assert.equal(taken.body.data.url, 'https://acme.test/status')
    const again = await t.api.post(`/api/changes/${noisy.id}/learned-rules`, { kind: 'mute' })
    assert.equal(again.body.data.id, taken.body.data.id, 'taking it twice learns it once')
    const page = (await t.api.get(`/api/domains/${domainId}/pages/${pages['/status']}`)).body.data
    assert.deepEqual(page.noiseRules.ignorePatterns, [pattern], 'the rule is a noise rule of the page, shown')
    const rules = (await t.api.get('/api/learned-rules')).body.data
    assert.deepEqual(rules.map((r: any) => [r.kind, r.fromChangeId]), [['mute', noisy.id]])

    for (const tickets of [1402, 1517]) {
      site.page('/status', status(tickets))
      await crawl('/status')
    }
    assert.equal((await changesOf('/status')).length, 1, 'the same noise, twice more: silent')
    site.page('/status', status(1620, '<p>New: status alerts by SMS</p>'))
    await crawl('/status')
    const [edit] = await changesOf('/status')
    assert.notEqual(edit.id, noisy.id)
    assert.match(edit.summary, /status alerts by SMS/)
    assert.doesNotMatch(edit.summary, /Tickets/, 'the muted passage is not part of the real edit')
  })

  it('"important" pins the change and raises the later ones of its type on that page', async () => {
    const [edit] = await changesOf('/status')
    const res = await t.api.post(`/api/changes/${edit.id}/feedback`, { verdict: 'important' })
    assert.equal(res.status, 200)
    assert.ok(res.body.data.change.pinnedAt)
    assert.equal(res.body.data.change.acknowledgedAt, null)
    assert.deepEqual(res.body.data.learned.map((r: any) => [r.kind, r.changeType, r.fromChangeId]),
      [['raise', edit.changeType, edit.id]])
    site.page('/status', status(1700, '<p>New: status alerts by SMS and by voice call</p>'))
    await crawl('/status')
    const [later] = await changesOf('/status')
    assert.equal(later.changeType, edit.changeType)
    assert.equal(later.severity, 'high')
    assert.deepEqual(later.learnedSeverity, { from: edit.severity, ruleId: res.body.data.learned[0].id })
  })

  it('removing a learned rule undoes it', async () => {
    const rules = (await t.api.get(`/api/learned-rules?pageId=${pages['/status']}`)).body.data as any[]
    for (const r of rules) assert.equal((await t.api.delete(`/api/learned-rules/${r.id}`)).status, 200)
    assert.deepEqual((await t.api.get('/api/learned-rules')).body.data, [])
    const page = (await t.api.get(`/api/domains/${domainId}/pages/${pages['/status']}`)).body.data
    assert.deepEqual(page.noiseRules.ignorePatterns ?? [], [])
    assert.equal((await t.api.delete(`/api/learned-rules/${rules[0].id}`)).status, 404)
    const before = (await changesOf('/status')).length
    for (const tickets of [1800, 1900]) {
      site.page('/status', status(tickets, '<p>New: status alerts by SMS and by voice call</p>'))
      await crawl('/status')
    }
    const changes = await changesOf('/status')
    assert.equal(changes.length, before + 1, 'the counter speaks again')
    assert.equal(changes[0].severity, 'low', 'and its type is no longer raised')
  })

  it('a price is never learned as a text pattern: its plan\'s price moves are muted, and no other plan\'s', async () => {
    site.page('/pricing', layout('Pricing — Acme', pricingMain('$59')))
    await crawl('/pricing')
    const [price] = await changesOf('/pricing')
    assert.equal(price.changeType, 'price_change')
    const res = await t.api.post(`/api/changes/${price.id}/feedback`, { verdict: 'not_important' })
    const offers = res.body.data.offers as any[]
    assert.deepEqual(offers.map(o => o.kind), ['mute'], 'its plan\'s moves, never every later price of the page')
    assert.deepEqual(offers[0].fact, { kind: 'price', subject: 'Pro' })
    const lowered = await t.api.post(`/api/changes/${price.id}/learned-rules`, { kind: 'lower' })
    assert.equal(lowered.status, 400)
    assert.match(lowered.body.error, /would hide the next real rise/)
    assert.equal(offers[0].description, 'Mute price moves of "Pro" on this page')
    const refused = await t.api.post(`/api/changes/${price.id}/learned-rules`, { kind: 'mute' })
    assert.equal(refused.status, 400)
    assert.match(refused.body.error, /teaches no pattern/)
    const unknown = await t.api.post(`/api/changes/${price.id}/learned-rules`, { kind: 'mute', fact: { kind: 'price', subject: 'Business' } })
    assert.equal(unknown.status, 400)
    const taken = await t.api.post(`/api/changes/${price.id}/learned-rules`, { kind: 'mute', fact: offers[0].fact })
    assert.equal(taken.status, 201, JSON.stringify(taken.body))
    assert.deepEqual(taken.body.data.fact, { kind: 'price', subject: 'Pro' })
    const page = (await t.api.get(`/api/domains/${domainId}/pages/${pages['/pricing']}`)).body.data
    assert.deepEqual(page.noiseRules.ignoreFacts, [{ kind: 'price', subject: 'Pro' }])
    // Pro's price moves again: nothing is told. Then Business moves beside it: Business alone is told.
    const count = (await changesOf('/pricing')).length
    site.page('/pricing', layout('Pricing — Acme', pricingMain('$69')))
    await crawl('/pricing')
    assert.equal((await changesOf('/pricing')).length, count, 'a muted plan\'s price move is not told')
    site.page('/pricing', layout('Pricing — Acme', pricingMain('$79', '$119')))
    await crawl('/pricing')
    const [next] = await changesOf('/pricing')
    assert.equal((await changesOf('/pricing')).length, count + 1)
    assert.match(next.summary, /Business: \$99\/month → \$119\/month \(\+20%\)/)
    assert.doesNotMatch(next.summary, /Pro|\$79/)
    // Removing the rule gives the plan its voice back.
    assert.equal((await t.api.delete(`/api/learned-rules/${taken.body.data.id}`)).status, 200)
    const after = (await t.api.get(`/api/domains/${domainId}/pages/${pages['/pricing']}`)).body.data
    assert.deepEqual(after.noiseRules.ignoreFacts ?? [], [])
  })

  it('the newest severity rule of a type decides; lower sets low, raise sets high at least', () => {
    const rules = [
      { id: 'b', kind: 'lower' as const, changeType: 'terms_update' as const },
      { id: 'a', kind: 'raise' as const, changeType: 'terms_update' as const },
      { id: 'c', kind: 'raise' as const, changeType: 'content_change' as const }
    ]
    assert.deepEqual(learnedSeverity({ changeType: 'terms_update', severity: 'high' }, rules), { severity: 'low', ruleId: 'b' })
    assert.deepEqual(learnedSeverity({ changeType: 'content_change', severity: 'low' }, rules), { severity: 'high', ruleId: 'c' })
    assert.deepEqual(learnedSeverity({ changeType: 'content_change', severity: 'critical' }, rules), { severity: 'critical' })
    assert.deepEqual(learnedSeverity({ changeType: 'price_change', severity: 'medium' }, rules), { severity: 'medium' })
  })
})
