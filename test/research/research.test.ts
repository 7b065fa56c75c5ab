import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { mdText } from '../../src/research/markdown.js'
import { createOrg } from '../../src/services/orgs.js'
import { settleAbandonedBriefs } from '../../src/pipeline/research-job.js'
import { addUsage } from '../../src/store/billing.js'
import { researchInputs } from '../../src/store/research.js'
import { drainJobs, eventually, startTestService, waitForJob, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

// Research briefs end to end: a local site crawled twice, its first crawl moved 60 days
// back, so that prices, features, the API description, the changelog and the terms have a
// history; the brief bought with a credit holds exactly what was seeded, with sources.
// Credits: a race for the last one, 402, a failed job's refund; tenancy (PGlite, or PostgreSQL).

const DAY = 86_400_000
const isoDay = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10)
const cards = readFileSync(new URL('../detection/fixtures/pricing/cards.html', import.meta.url), 'utf8')

const home = '<html lang="en"><head><title>Acme Relay | Event delivery</title>' +
  '<meta property="og:site_name" content="Acme Relay"></head><body><h1>Acme Relay</h1>' +
  '<p>Acme Relay delivers your events to every endpoint, reliably and on time, wherever your customers are.</p>' +
  '<a href="/pricing">Pricing</a> <a href="/features">Features</a> <a href="/changelog">Changelog</a> ' +
  '<a href="/docs/api">API docs</a> <a href="/security">Security</a> <a href="/terms">Terms of service</a></body></html>'

const features = (items: { delivery: string[], security: string[] }) =>
  '<html lang="en"><head><title>Features | Acme Relay</title></head><body><h1>Features</h1>' +
  `<h2>Delivery</h2><ul>${items.delivery.map(i => `<li>${i}</li>`).join('')}</ul>` +
  `<h2>Security</h2><ul>${items.security.map(i => `<li>${i}</li>`).join('')}</ul></body></html>`

const changelog = (entries: Array<[string, string, string]>) =>
  '<html lang="en"><head><title>Changelog | Acme Relay</title></head><body><h1>Changelog</h1>' +
  entries.map(([v, d, item]) => `<h2>[${v}] - ${d}</h2><h3>Added</h3><ul><li>${item}</li></ul>`).join('') +
  '</body></html>'

const spec = (paths: string[]) => JSON.stringify({
  openapi: '3.1.0',
  info: { title: 'Acme Relay API', version: '2.0' },
  paths: Object.fromEntries(paths.map(p => [p, {
    get: { responses: { 200: { description: 'ok' } } },
    delete: { responses: { 204: { description: 'gone' } } }
  }]))
})

const terms = (clause: string) => '<html lang="en"><head><title>Terms of service | Acme Relay</title></head><body>' +
  '<h1>Terms of service</h1><p>These terms are an agreement between you and Acme Relay GmbH, Berlin.</p>' +
  `<h2>Liability</h2><p>${clause}</p></body></html>`

const security = '<html lang="en"><head><title>Security | Acme Relay</title></head><body><h1>Security</h1>' +
  '<p>Acme Relay is SOC 2 Type II audited every year. Our platform is GDPR compliant.</p>' +
  '<p>Enterprise customers sign in with SAML single sign-on.</p></body></html>'

describe('research briefs', () => {
  let site: TestSite
  let t: TestService
  let domainId = ''
  let emptyId = ''
  let brief: any
  const url = (path: string) => `https://acme.test${path}`

  before(async () => {
    site = await new TestSite().start()
    site.page('/', home)
    site.page('/pricing', cards.replace('</main>', '<p>Start your 14-day free trial, no card needed.</p></main>'))
    site.page('/features', features({
      delivery: ['Retries with backoff', 'Event replay'],
      security: ['Signed payloads', 'IP allow-lists']
    }))
    site.page('/changelog', changelog([['2.0.0', isoDay(70), 'Version 2 of the API.']]))
    site.page('/docs/api', '<html lang="en"><head><title>API | Acme Relay</title></head><body><h1>API reference</h1>' +
      '<p>Our REST API sends and replays events.</p><a href="/openapi.json">OpenAPI description</a></body></html>')
    site.set('/openapi.json', { body: spec(['/events', '/endpoints', '/replays']), headers: { 'content-type': 'application/json' } })
    site.page('/security', security)
    site.page('/terms', terms('Our liability is limited to the fees you paid in the last twelve months.'))
    site.page('/blog', '<html lang="en"><head><title>Blog | Empty Co</title></head><body><h1>Blog</h1>' +
      '<p>Thoughts on nothing in particular, written now and then by the people who work here.</p></body></html>')
    t = await startTestService({
      CRAWL_HOST_MAP: `acme.test=${site.origin},empty.test=${site.origin}`,
      RATE_LIMIT_HEAVY_PER_HOUR: '5000'
    })
    domainId = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data.id
    await drainJobs(t.api)
    // The first crawl, 60 days ago: its snapshots (and any change) move back.
    const db = t.service.store.db
    await sql`UPDATE snapshots SET created_at = created_at - interval '60 days'`.execute(db)
    await sql`UPDATE changes SET created_at = created_at - interval '60 days'`.execute(db)

    site.page('/pricing', cards.replace('<span class="amount">49</span>', '<span class="amount">59</span>')
      .replace('</main>', '<p>Start your 14-day free trial, no card needed.</p></main>'))
    site.page('/features', features({
      delivery: ['Retries with backoff', 'Event replay', 'Dead-letter queue'],
      security: ['Signed payloads']
    }))
    site.page('/changelog', changelog([
      ['2.2.0', isoDay(3), 'Dead-letter queue.'],
      ['2.1.0', isoDay(40), 'Event filters.'],
      ['2.0.0', isoDay(70), 'Version 2 of the API.']
    ]))
    site.set('/openapi.json', { body: spec(['/events', '/endpoints']), headers: { 'content-type': 'application/json' } })
    site.page('/terms', terms('We may terminate your account at any time without notice, and our liability is excluded.'))
    assert.equal((await t.api.post(`/api/domains/${domainId}/crawl`)).status, 200)
    await drainJobs(t.api)
  })
  after(async () => {
    await t?.stop()
    await site?.close()
  })

  const research = async (id: string, api = t.api) => await api.post(`/api/domains/${id}/research`)
  const built = async (id: string, api = t.api) => {
    const res = await research(id, api)
    assert.equal(res.status, 202, JSON.stringify(res.body))
    const job = await waitForJob(api, res.body.data.jobId)
    assert.equal(job.state, 'completed', job.failedReason)
    return (await api.get(`/api/research/${res.body.data.briefId}`)).body.data
  }

  it('costs one credit, is a research job, and holds the company with its sources', async () => {
    const before = (await t.api.get('/api/usage')).body.data.limits.researchCredits
    const res = await research(domainId)
    assert.equal(res.status, 202)
    assert.equal(res.headers.get('x-ratelimit-limit'), '5000', 'the heavy tier')
    assert.deepEqual(Object.keys(res.body.data).sort(), ['briefId', 'domain', 'jobId', 'message', 'status'])
    const job = await waitForJob(t.api, res.body.data.jobId)
    assert.deepEqual([job.name, job.type, job.state, job.returnValue?.briefId],
      ['research.domain', 'research', 'completed', res.body.data.briefId])
    // The list narrowed to research jobs, among the crawls and discoveries.
    const all = (await t.api.get('/api/jobs?limit=100')).body.data
    assert.ok(all.some((j: any) => j.type === 'crawl'))
    const listed = await t.api.get('/api/jobs?type=research&limit=100')
    assert.deepEqual(listed.body.data.map((j: any) => j.id), [job.id])
    assert.equal(listed.body.meta.total, 1)
    assert.equal((await t.api.get('/api/jobs?type=crawl&status=completed&limit=100')).body.data
      .every((j: any) => j.type === 'crawl' && j.state === 'completed'), true)
    assert.equal((await t.api.get('/api/jobs?type=brief')).status, 400)
    const after = (await t.api.get('/api/usage')).body.data.limits.researchCredits
    assert.equal(after.used, before.used + 1)
    brief = (await t.api.get(`/api/research/${res.body.data.briefId}`)).body.data
    assert.equal(brief.status, 'ready')
    assert.equal(brief.domain, 'acme.test')
    const c = brief.sections.company
    assert.deepEqual([c.included, c.name, c.nameFrom, c.legalName.name], [true, 'Acme Relay', 'og:site_name', 'Acme Relay GmbH'])
    assert.equal(c.legalName.source.url, url('/terms'))
    assert.equal(c.sources[0].url, url('/'))
    assert.deepEqual(c.languages, [{ language: 'en', pages: c.monitoredPages }])
    assert.deepEqual(c.pagesByType,
      { pricing: 1, features: 1, terms: 1, security: 1, api_docs: 1, changelog: 1, other: 1 })
  })

  it('pricing: the plans, the trial, and the price rise with its date and percentage', async () => {
    const p = brief.sections.pricing
    assert.equal(p.included, true)
    assert.deepEqual(p.plans.map((x: any) => [x.name, x.prices.map((y: any) => y.text)]),
      [['Starter', ['$19/month']], ['Pro', ['$59/month']], ['Enterprise', []]])
    assert.ok(p.plans.every((x: any) => x.source.url === url('/pricing') && x.source.snapshotId))
    assert.equal(p.currency, '$')
    assert.equal(p.freeTier, null)
    assert.deepEqual([p.trial.text, p.trial.days, p.trial.source.url],
      ['Start your 14-day free trial, no card needed.', 14, url('/pricing')])
    assert.deepEqual(p.priceChanges.map((x: any) => [x.kind, x.plan, x.before, x.after, x.percent]),
      [['price_up', 'Pro', '$49/month', '$59/month', 20]])
    assert.equal(p.priceChanges[0].source.url, url('/pricing'))
    assert.ok(p.priceChanges[0].source.changeId)
    assert.ok(Date.now() - new Date(p.priceChanges[0].at).getTime() < DAY, 'dated when it moved')
  })

  it('features: the inventory as the site groups it, and what moved in 30 and 90 days', async () => {
    const f = brief.sections.features
    assert.deepEqual(f.groups.map((g: any) => [g.name, g.features]),
      [['Delivery', ['Retries with backoff', 'Event replay', 'Dead-letter queue']], ['Security', ['Signed payloads']]])
    const [d30, d90] = f.windows
    assert.deepEqual([d30.days, d90.days], [30, 90])
    for (const w of [d30, d90]) {
      assert.deepEqual(w.added.map((a: any) => [a.feature, a.group]), [['Dead-letter queue', 'Delivery']])
      assert.deepEqual(w.removed.map((a: any) => [a.feature, a.group]), [['IP allow-lists', 'Security']])
      assert.equal(w.removed[0].source.url, url('/features'))
    }
    // 30 days ago the first snapshot (60 days old) was in force; 90 days ago Sitewatch had not read the page yet.
    assert.ok(Math.abs(Date.now() - 30 * DAY - new Date(d30.since).getTime()) < DAY)
    assert.ok(Math.abs(Date.now() - 60 * DAY - new Date(d90.since).getTime()) < DAY)
  })

  it('security claims: each with its sentence and page, the security page first', async () => {
    const s = brief.sections.security
    const claims = s.claims.map((c: any) => [c.claim, c.sentence, new URL(c.source.url).pathname])
    assert.deepEqual(claims.filter((c: any) => c[2] === '/security'), [
      ['SOC 2', 'Acme Relay is SOC 2 Type II audited every year.', '/security'],
      ['GDPR', 'Our platform is GDPR compliant.', '/security'],
      ['SSO', 'Enterprise customers sign in with SAML single sign-on.', '/security'],
      ['SAML', 'Enterprise customers sign in with SAML single sign-on.', '/security']
    ])
    assert.deepEqual(claims.filter((c: any) => c[2] !== '/security'), [['SSO', 'SSO', '/pricing']])
  })

  it('legal: each legal page with its changes, and the high-severity terms edit', async () => {
    const l = brief.sections.legal
    const pages = Object.fromEntries(l.pages.map((p: any) => [new URL(p.url).pathname, p]))
    assert.deepEqual(Object.keys(pages).sort(), ['/security', '/terms'])
    assert.equal(pages['/terms'].changes, 1)
    assert.equal(pages['/security'].changes, 0)
    assert.equal(pages['/security'].lastChange, null)
    const edit = pages['/terms'].lastChange
    assert.ok(['high', 'critical'].includes(edit.severity), edit.severity)
    assert.deepEqual(l.highSeverity.map((c: any) => [c.url, c.summary]), [[url('/terms'), edit.summary]])
  })

  it('API: the description found, its operations, and the removed operations as breaking', async () => {
    const a = brief.sections.api
    assert.deepEqual(a.specification && [a.specification.url, a.specification.format, a.specification.title,
      a.specification.version, a.specification.operations, a.specification.source.url],
    [url('/openapi.json'), 'OpenAPI 3.1.0', 'Acme Relay API', '2.0', 4, url('/docs/api')])
    assert.deepEqual(a.breaking.map((b: any) => `${b.method} ${b.path} ${b.change}`).sort(),
      ['DELETE /replays removed', 'GET /replays removed'])
  })

  it('release cadence: entries per month over 90 days, and the latest entries', async () => {
    const r = brief.sections.releases
    assert.deepEqual(r.latest.map((e: any) => [e.version, e.date]),
      [['2.2.0', isoDay(3)], ['2.1.0', isoDay(40)], ['2.0.0', isoDay(70)]])
    assert.equal(r.months.reduce((n: number, m: any) => n + m.entries, 0), 3)
    for (const days of [3, 40, 70]) {
      assert.ok(r.months.find((m: any) => m.month === isoDay(days).slice(0, 7)).entries >= 1)
    }
    assert.equal(r.sources[0].url, url('/changelog'))
  })

  it('activity: the changes by window, type and severity, and the pages that change most', async () => {
    const a = brief.sections.activity
    const changes = (await t.api.get(`/api/changes?domainId=${domainId}&pageSize=100`)).body.data as any[]
    const [d7, d30, d90] = a.windows
    assert.equal(d7.total, changes.length)
    assert.equal(d30.total, changes.length)
    assert.equal(d90.total, changes.length)
    for (const c of changes) assert.ok(d7.byType[c.changeType] >= 1 && d7.bySeverity[c.severity] >= 1)
    const changedPages = new Set(changes.map(c => c.pageId))
    assert.equal(a.mostChanged.length, changedPages.size)
  })

  it('the Markdown says what the JSON says', async () => {
    const res = await fetch(`${t.url}/api/research/${brief.id}?format=markdown`, { headers: { authorization: `Bearer ${t.key}` } })
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type') ?? '', /^text\/markdown/)
    const md = await res.text()
    assert.match(md, /^# Research brief: Acme Relay \(acme\.test\)/)
    const s = brief.sections
    const facts = [
      s.company.legalName.name,
      ...s.pricing.plans.flatMap((p: any) => [p.name, ...p.prices.map((x: any) => x.text)]),
      s.pricing.trial.text,
      ...s.pricing.priceChanges.map((c: any) => c.summary),
      ...s.features.groups.flatMap((g: any) => [g.name, ...g.features]),
      ...s.features.windows.flatMap((w: any) => [...w.added, ...w.removed].map((x: any) => x.feature)),
      ...s.security.claims.map((c: any) => c.sentence),
      ...s.legal.highSeverity.map((c: any) => c.summary),
      s.api.specification.title,
      ...s.api.breaking.map((b: any) => b.path),
      ...s.releases.latest.map((e: any) => e.title)
    ]
    for (const fact of facts) assert.ok(md.includes(mdText(fact)), `the Markdown lacks ${fact}`)
    for (const section of Object.values<any>(s)) {
      for (const source of section.sources) assert.ok(md.includes(source.url), `the Markdown lacks the source ${source.url}`)
    }
    assert.ok(md.includes(`| **Changes** | ${s.activity.windows.map((w: any) => w.total).join(' | ')} |`))
  })

  it("reads a bounded amount of the pages' text: in rank order, each page cut, none past the budget", async () => {
    const db = t.service.store.db
    const domain = { id: domainId, hostname: 'acme.test' }
    const all = await researchInputs(db, domain, null, new Date())
    const urlOf = new Map(all.pages.map(p => [p.id, p.url]))
    // Discovered pages share one priority, so they rank by type.
    assert.deepEqual(all.texts.map(x => urlOf.get(x.pageId)),
      ['/pricing', '/features', '/docs/api', '/changelog', '/terms', '/security', '/'].map(url))
    const lengths = all.texts.map(x => x.text.length)
    const cut = await researchInputs(db, domain, null, new Date(),
      { pages: 5, charsPerPage: 40, chars: 40 * 3 + 20 })
    assert.deepEqual(cut.texts.map(x => x.pageId), all.texts.slice(0, 3).map(x => x.pageId),
      'the highest-ranked pages first, and no page that would pass the budget')
    assert.ok(lengths.slice(0, 4).every(n => n > 40), 'the pages are longer than the cut')
    assert.deepEqual(cut.texts.map(x => x.text), all.texts.slice(0, 3).map(x => x.text.slice(0, 40)))
    const few = await researchInputs(db, domain, null, new Date(), { pages: 2, charsPerPage: 1e6, chars: 1e9 })
    assert.deepEqual(few.texts.map(x => x.pageId), all.texts.slice(0, 2).map(x => x.pageId))
  })

  it('a domain with nothing typed gets a brief that says so, section by section', async () => {
    emptyId = (await t.api.post('/api/domains', { domain: 'empty.test' })).body.data.id
    await drainJobs(t.api)
    // Only its blog: the pages it shares with acme.test (one test site serves both) are taken out.
    await sql`DELETE FROM pages WHERE domain_id = ${emptyId}`.execute(t.service.store.db)
    assert.equal((await t.api.post(`/api/domains/${emptyId}/pages`, { url: 'https://empty.test/blog' })).status, 201)
    await drainJobs(t.api)
    const empty = await built(emptyId)
    const s = empty.sections
    assert.deepEqual(s.company.pagesByType,
      { pricing: 0, features: 0, terms: 0, security: 0, api_docs: 0, changelog: 0, other: 1 })
    assert.equal(s.company.name, 'Empty Co')
    for (const name of ['pricing', 'features', 'security', 'legal', 'api', 'releases']) {
      assert.equal(s[name].included, false, name)
      assert.ok(s[name].reason.length > 10, name)
      assert.deepEqual(s[name].sources, [], name)
    }
    assert.equal(s.pricing.reason, 'no pricing page is among its 1 monitored page')
    assert.equal(s.activity.included, true)
    const res = await fetch(`${t.url}/api/research/${empty.id}?format=markdown`, { headers: { authorization: `Bearer ${t.key}` } })
    const md = await res.text()
    assert.equal(md.match(/_Left out: /g)?.length, 6)
    assert.ok(md.includes('_Left out: no pricing page is among its 1 monitored page._'))
  })

  it("lists a domain's briefs; another organisation's are 404", async () => {
    const list = await t.api.get(`/api/domains/${domainId}/research`)
    assert.equal(list.status, 200)
    assert.ok(list.body.data.some((b: any) => b.id === brief.id && b.status === 'ready' && !('sections' in b)))
    const { apiKey } = await createOrg(t.service.store.db, 'Globex', 'pro')
    const other = t.api.withKey(apiKey)
    assert.equal((await other.get(`/api/research/${brief.id}`)).status, 404)
    assert.equal((await other.get(`/api/domains/${domainId}/research`)).status, 404)
    assert.equal((await other.post(`/api/domains/${domainId}/research`)).status, 404)
    assert.equal((await other.get('/api/usage')).body.data.limits.researchCredits.used, 0)
  })

  it('two requests for the last credit: one brief, one 402, and nothing more queued', async () => {
    const db = t.service.store.db
    const usage = (await t.api.get('/api/usage')).body.data.limits.researchCredits
    await sql`UPDATE billing_periods SET research_credits_used = ${usage.limit - 1} WHERE org_id = (SELECT org_id FROM domains WHERE id = ${domainId})`.execute(db)
    const briefsBefore = (await t.api.get(`/api/domains/${domainId}/research?pageSize=100`)).body.meta.total
    const answers = await Promise.all([research(domainId), research(domainId)])
    assert.deepEqual(answers.map(a => a.status).sort(), [202, 402])
    const refused = answers.find(a => a.status === 402)!
    const trialEndsAt = (await t.api.get('/api/usage')).body.data.trial.expiresAt
    assert.deepEqual([refused.body.code, refused.body.details], ['QUOTA_EXCEEDED', {
      resource: 'researchCredits', used: usage.limit, limit: usage.limit, trialEndsAt, changedBy: 'owner'
    }])
    assert.match(refused.body.error, new RegExp(`^The trial allows ${usage.limit} research credits, and all ${usage.limit} are used\\.`))
    const again = await research(domainId)
    assert.equal(again.status, 402)
    assert.equal((await t.api.get(`/api/domains/${domainId}/research?pageSize=100`)).body.meta.total, briefsBefore + 1)
    await waitForJob(t.api, answers.find(a => a.status === 202)!.body.data.jobId)
    await sql`UPDATE billing_periods SET research_credits_used = 0 WHERE org_id = (SELECT org_id FROM domains WHERE id = ${domainId})`.execute(db)
  })

  it('a job that fails for good gives its credit back, also when no worker saw its last attempt end', async () => {
    const db = t.service.store.db
    // A pricing snapshot damaged on disk: its page cannot be read, on every attempt.
    const saved = await sql<{ id: string, raw: Uint8Array }>`
      SELECT s.id, s.raw_html_gzip AS raw FROM snapshots s JOIN pages p ON p.id = s.page_id
      WHERE p.domain_id = ${domainId} AND p.url LIKE '%/pricing' ORDER BY s.created_at DESC LIMIT 1`.execute(db)
    const { id, raw } = saved.rows[0]
    await sql`UPDATE snapshots SET raw_html_gzip = ${Buffer.from('not gzip')} WHERE id = ${id}`.execute(db)
    try {
      const before = (await t.api.get('/api/usage')).body.data.limits.researchCredits.used
      const res = await research(domainId)
      assert.equal(res.status, 202)
      assert.equal((await t.api.get('/api/usage')).body.data.limits.researchCredits.used, before + 1)
      const job = await waitForJob(t.api, res.body.data.jobId, 60_000)
      assert.equal(job.state, 'failed')
      assert.equal(job.attemptsMade, 3)
      const failed = await eventually(async () => {
        const b = (await t.api.get(`/api/research/${res.body.data.briefId}`)).body.data
        return b.creditRefunded ? b : undefined
      }, 10_000, 'the refund')
      assert.deepEqual([failed.status, failed.sections], ['failed', null])
      assert.match(failed.failedReason, /incorrect header check|gzip|unexpected end/i)
      assert.equal((await t.api.get('/api/usage')).body.data.limits.researchCredits.used, before)

      // The same failure where no worker saw the last attempt end (it expired, or its process
      // died): the brief still building, its credit spent. The scheduler's sweep settles it, once.
      const briefId = res.body.data.briefId
      await sql`UPDATE research_briefs SET status = 'building', refunded_at = NULL, completed_at = NULL,
        failed_reason = NULL WHERE id = ${briefId}`.execute(db)
      const paid = await db.selectFrom('research_briefs').select('period_id').where('id', '=', briefId)
        .executeTakeFirstOrThrow()
      await addUsage(db, paid.period_id!, 'researchCredits', 1)
      assert.equal((await t.api.get(`/api/research/${briefId}`)).body.data.status, 'building')
      assert.equal(await settleAbandonedBriefs(db), 1)
      assert.equal(await settleAbandonedBriefs(db), 0, 'refunded once')
      const swept = (await t.api.get(`/api/research/${briefId}`)).body.data
      assert.deepEqual([swept.status, swept.creditRefunded], ['failed', true])
      assert.match(swept.failedReason, /incorrect header check|gzip|unexpected end/i)
      assert.equal((await t.api.get('/api/usage')).body.data.limits.researchCredits.used, before)
    } finally {
      await sql`UPDATE snapshots SET raw_html_gzip = ${Buffer.from(raw)} WHERE id = ${id}`.execute(db)
    }
  })

  it('bad input changes nothing: 400 and 404 in the envelope', async () => {
    assert.equal((await t.api.get('/api/research/not-a-uuid')).status, 400)
    assert.equal((await t.api.get(`/api/research/${brief.id}?format=pdf`)).status, 400)
    assert.equal((await t.api.get('/api/research/00000000-0000-4000-8000-000000000000')).status, 404)
    assert.equal((await t.api.post('/api/domains/00000000-0000-4000-8000-000000000000/research')).status, 404)
  })
})
