// Point and watch, through the API: a page's outline (its blocks, each with a selector that
// selects it alone and lasts), where each block moved, and rules tried before they are
// saved. Real shapes: a pricing page whose plans are cards (classes a build renames), a
// docs page rendered from Markdown (sections as runs of siblings), a legal page whose
// numbered sections are renumbered when one is inserted.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { issueKey } from '../../src/store/orgs.js'
import { layout } from '../helpers/fixtures.js'
import { createDatabase, drainJobs, onPostgres, startTestService, waitForJob, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

const card = (plan: string, price: string, build: string, seats: string) =>
  `<div class="c-${build}-card"><div class="c-${build}-head"><h3>${plan}</h3></div>` +
  `<p class="c-${build}-price">${price}/month</p><ul><li>${seats}</li><li>Email support</li></ul></div>`
const pricing = (build: string, plans: Array<[string, string, string]>) => layout('Pricing — Acme',
  `<h1>Pricing</h1><p>Plans for every team.</p><div class="c-${build}-grid">` +
  plans.map(([plan, price, seats]) => card(plan, price, build, seats)).join('') +
  '</div><p>Prices in USD.</p>')

// As a static-site generator renders Markdown: one article, headings and blocks as siblings.
const docs = (limit: number) => layout('Rate limits — Acme docs', `<article class="markdown-body">
<h1>Rate limits</h1><p>Every key is limited per minute.</p>
<h2 id="limits-by-plan">Limits by plan<a class="headerlink" href="#limits-by-plan">¶</a></h2>
<table><thead><tr><th>Plan</th><th>Requests per minute</th></tr></thead>
<tbody><tr><td>Free</td><td>${limit}</td></tr><tr><td>Pro</td><td>1000</td></tr></tbody></table>
<h2 id="errors">Errors<a class="headerlink" href="#errors">¶</a></h2><p>Over the limit, the API answers 429.</p>
<pre><code>HTTP/1.1 429 Too Many Requests</code></pre>
<h2 id="changelog">Changelog<a class="headerlink" href="#changelog">¶</a></h2><p>Last edited by the docs bot.</p>
</article>`)

const legal = (sections: Array<[string, string[]]>) => layout('Privacy policy — Acme',
  '<h1>Privacy policy</h1><p>This policy says what we do with your data.</p>' +
  sections.map(([title, paras], i) => `<h2 id="section-${i + 1}">${i + 1}. ${title}</h2>` +
    paras.map(p => `<p>${p}</p>`).join('')).join(''))

describe('a page\'s outline, its churn and rules tried before saving', () => {
  let site: TestSite
  let t: TestService
  let domainId = ''
  const pages: Record<string, string> = {}
  const outlines: Record<string, any> = {}

  const crawl = async (path: string) => {
    const { jobId } = (await t.api.post(`/api/domains/${domainId}/pages/${pages[path]}/crawl`)).body.data
    const job = await waitForJob(t.api, jobId)
    assert.equal(job.state, 'completed', job.failedReason)
  }
  const outline = async (path: string) => {
    const res = await t.api.get(`/api/domains/${domainId}/pages/${pages[path]}/outline`)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.data
  }
  const preview = async (path: string, noiseRules: object) =>
    await t.api.post(`/api/domains/${domainId}/pages/${pages[path]}/outline/preview`, { noiseRules })
  const blockOf = (o: any, kind: string, text: RegExp) => {
    const found = o.blocks.find((b: any) => b.kind === kind && text.test(b.text))
    assert.ok(found, `a ${kind} block /${text.source}/ in ${JSON.stringify(o.blocks.map((b: any) => [b.kind, b.text]))}`)
    return found
  }

  before(async () => {
    site = await new TestSite().start()
    site.page('/', layout('Acme', '<h1>Acme</h1><p>We ship.</p>'))
    site.page('/pricing', pricing('x1', [['Free', '$0', '1 seat'], ['Pro', '$20', '5 seats'], ['Team', '$50', '20 seats']]))
    site.page('/docs/rate-limits', docs(60))
    site.page('/privacy', legal([
      ['Scope', ['This policy covers acme.test.']],
      ['Data we collect', ['Your e-mail address.', 'How you use the app.']],
      ['Sharing', ['We share nothing with advertisers.']]
    ]))
    t = await startTestService({ CRAWL_HOST_MAP: `acme.test=${site.origin}`, LOG_LEVEL: 'error' })
    // A plan whose manual rechecks last the file's checks.
    await t.service.store.db.updateTable('orgs').set({ plan: 'enterprise' }).execute()
    domainId = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data.id
    await drainJobs(t.api)
    for (const path of ['/pricing', '/docs/rate-limits', '/privacy']) {
      const listed = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=500`)).body.data as any[]
      pages[path] = listed.find(p => p.url === `https://acme.test${path}`)?.id ??
        (await t.api.post(`/api/domains/${domainId}/pages`, { url: `https://acme.test${path}` })).body.data.id
    }
    await drainJobs(t.api)
    for (const path of Object.keys(pages)) outlines[path] = await outline(path)
  })
  after(async () => {
    await t?.stop()
    await site?.close()
  })

  it('reads each shape as a person sees it, with selectors named by ids, landmarks and headings, not builds', () => {
    const p = outlines['/pricing']
    assert.ok(p.snapshotId)
    assert.equal(p.note, null)
    const pro = blockOf(p, 'card', /^Pro \$20\/month/)
    assert.equal(pro.selector, 'div:has(> div > :heading("Pro"))', 'a card by its heading, not its build\'s class')
    assert.equal(pro.lines, 4)
    assert.equal(pro.box, null)
    assert.ok(p.blocks.every((b: any) => !/c-x1/.test(b.selector)), 'no generated class in any selector')
    assert.deepEqual(p.blocks.filter((b: any) => b.kind === 'card').map((b: any) => b.text.split(' ')[0]),
      ['Free', 'Pro', 'Team'])
    assert.ok(!p.blocks.some((b: any) => /cookies|Terms of Service/.test(b.text)), 'no banner, navigation or footer')

    const d = outlines['/docs/rate-limits']
    const limits = blockOf(d, 'section', /^Limits by plan/)
    assert.equal(limits.selector, ':section("Limits by plan")', 'a Markdown section: its heading and what follows')
    assert.equal(blockOf(d, 'table', /^Plan Requests per minute/).selector, ':heading("Limits by plan") + table')
    assert.ok(d.blocks.indexOf(limits) < d.blocks.indexOf(blockOf(d, 'section', /^Errors/)), 'in page order')

    const l = outlines['/privacy']
    assert.equal(blockOf(l, 'section', /^2\. Data we collect/).selector, ':section("Data we collect")',
      'a numbered section by its words, not its number or its numbered id')
  })

  it('the selectors still select the same blocks after a re-ordering, a renumbering and a class rename', async () => {
    const pro = blockOf(outlines['/pricing'], 'card', /^Pro /).selector
    const collect = blockOf(outlines['/privacy'], 'section', /^2\. Data we collect/).selector
    const limits = blockOf(outlines['/docs/rate-limits'], 'section', /^Limits by plan/).selector
    site.page('/pricing', pricing('q7', [['Team', '$50', '20 seats'], ['Pro', '$25', '5 seats'], ['Free', '$0', '1 seat']]))
    site.page('/privacy', legal([
      ['Scope', ['This policy covers acme.test.']],
      ['Cookies', ['We set one cookie to keep you signed in.']],
      ['Data we collect', ['Your e-mail address.', 'How you use the app, and your IP address.']],
      ['Sharing', ['We share nothing with advertisers.']]
    ]))
    site.page('/docs/rate-limits', docs(100))
    for (const path of Object.keys(pages)) await crawl(path)

    const watched = async (path: string, selector: string) => {
      const res = await preview(path, { includeSelectors: [selector] })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      return res.body.data.lines as string[]
    }
    assert.deepEqual(await watched('/pricing', pro), ['### Pro', '$25/month', '- 5 seats', '- Email support'])
    assert.deepEqual(await watched('/privacy', collect),
      ['## 3. Data we collect', 'Your e-mail address.', 'How you use the app, and your IP address.'])
    const table = await watched('/docs/rate-limits', limits)
    assert.equal(table[0], '## Limits by plan')
    assert.ok(table.some(l => /Free \| 100/.test(l)), table.join('\n'))
    assert.ok(!table.some(l => /429/.test(l)), 'the next section is not in it')
  })

  it('marks where each block moved in the last 30 days, and whether it came as a change', async () => {
    const p = await outline('/pricing')
    assert.equal(p.versions, 2)
    const churn = (re: RegExp) => blockOf(p, 'card', re).churn
    assert.deepEqual(churn(/^Pro /), { moves: 1, reported: 1, important: false })
    assert.deepEqual(churn(/^Free /), { moves: 0, reported: 0, important: false })
    const [change] = (await t.api.get(`/api/changes?pageId=${pages['/pricing']}`)).body.data
    assert.equal((await t.api.post(`/api/changes/${change.id}/feedback`, { verdict: 'important' })).status, 200)
    assert.equal(blockOf(await outline('/pricing'), 'card', /^Pro /).churn.important, true)
  })

  it('tries rules before they are saved: what the next check reads, and what the last changes would have been', async () => {
    const free = blockOf(await outline('/pricing'), 'card', /^Free /).selector
    const onlyFree = await preview('/pricing', { includeSelectors: [free] })
    assert.equal(onlyFree.status, 200, JSON.stringify(onlyFree.body))
    assert.deepEqual(onlyFree.body.data.changes, { considered: 1, kept: 0, changed: 0, muted: 1 },
      'watching Free alone, Pro\'s new price would not have been a change')
    const none = await preview('/pricing', {})
    assert.deepEqual(none.body.data.changes, { considered: 1, kept: 1, changed: 0, muted: 0 })
    const withoutPro = await preview('/pricing', { ignoreSelectors: ['div:has(> div > :heading("Pro"))'] })
    assert.deepEqual(withoutPro.body.data.changes, { considered: 1, kept: 0, changed: 1, muted: 0 },
      'with Pro left out, what is left of the change is the other plans\' new order')
    assert.ok(!withoutPro.body.data.lines.includes('### Pro'))
    assert.ok(withoutPro.body.data.lines.includes('### Team'))
    assert.equal(withoutPro.body.data.totalLines, withoutPro.body.data.lines.length)

    const page = (await t.api.get(`/api/domains/${domainId}/pages/${pages['/pricing']}`)).body.data
    assert.deepEqual(page.noiseRules, {}, 'trying rules saves nothing')
  })

  it('refuses rules that cannot run and pages that are not there; a read key may look but not try', async () => {
    const bad = await preview('/pricing', { includeSelectors: ['div:has(~ p:section("x"))'] })
    assert.equal(bad.status, 400)
    assert.equal(bad.body.code, 'VALIDATION_ERROR')
    const costly = await preview('/pricing', { ignoreSelectors: ['div:has(> :section("Pro"))'] })
    assert.equal(costly.status, 400)
    assert.match(costly.body.error, /:section\(\) within :has\(\)/)
    const missing = '00000000-0000-4000-8000-000000000000'
    assert.equal((await t.api.get(`/api/domains/${domainId}/pages/${missing}/outline`)).status, 404)
    assert.equal((await t.api.post(`/api/domains/${domainId}/pages/${missing}/outline/preview`,
      { noiseRules: {} })).status, 404)
    assert.equal((await preview('/pricing', { includeSelectors: 'div' } as any)).status, 400)

    const { org_id: orgId } = await t.service.store.db.selectFrom('domains').select('org_id')
      .where('id', '=', domainId).executeTakeFirstOrThrow()
    const reader = t.api.withKey((await issueKey(t.service.store.db, orgId, { scope: 'read' })).apiKey)
    assert.equal((await reader.get(`/api/domains/${domainId}/pages/${pages['/pricing']}/outline`)).status, 200)
    assert.equal((await reader.post(`/api/domains/${domainId}/pages/${pages['/pricing']}/outline/preview`,
      { noiseRules: {} })).status, 403)
  })

  it('saved, the selectors are the page\'s rules: a change outside the watched block is not one', async () => {
    const pro = blockOf(await outline('/pricing'), 'card', /^Pro /).selector
    const saved = await t.api.request('PATCH', `/api/domains/${domainId}/pages/${pages['/pricing']}`,
      { body: { noiseRules: { includeSelectors: [pro] } } })
    assert.equal(saved.status, 200, JSON.stringify(saved.body))
    await crawl('/pricing') // the new baseline, read under the rules
    const before = (await t.api.get(`/api/changes?pageId=${pages['/pricing']}`)).body.data.length
    site.page('/pricing', pricing('z9', [['Team', '$60', '20 seats'], ['Pro', '$25', '5 seats'], ['Free', '$0', '1 seat']]))
    await crawl('/pricing')
    assert.equal((await t.api.get(`/api/changes?pageId=${pages['/pricing']}`)).body.data.length, before,
      'Team\'s price is outside the watched card')
    site.page('/pricing', pricing('z9', [['Team', '$60', '20 seats'], ['Pro', '$29', '5 seats'], ['Free', '$0', '1 seat']]))
    await crawl('/pricing')
    const [latest] = (await t.api.get(`/api/changes?pageId=${pages['/pricing']}`)).body.data
    assert.match(latest.summary, /\$25.*\$29|Pro/)
  })
})

describe('a page too large to outline in the analysis deadline', () => {
  let site: TestSite
  let first: TestService | undefined
  let t: TestService | undefined
  let dataDir: string
  let database: Awaited<ReturnType<typeof createDatabase>> | undefined

  before(async () => {
    site = await new TestSite().start()
    site.page('/', layout('Acme', '<h1>Acme</h1><p>We ship.</p>'))
    // 30,000 cards alike but for their text: read in a tenth of a second, outlined in half a second.
    const cards = Array.from({ length: 30_000 }, (_, i) => `<div class="c"><h3>Clause</h3><p>Text ${i}</p></div>`)
    site.page('/huge', layout('Huge', cards.join('')))
    dataDir = mkdtempSync(join(tmpdir(), 'sitewatch-outline-'))
    database = onPostgres ? await createDatabase() : undefined
  })
  after(async () => {
    await first?.stop()
    await t?.stop()
    await site?.close()
    await database?.drop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('answers with no blocks and why, and the page is still checked', async () => {
    const env = { CRAWL_HOST_MAP: `acme.test=${site.origin}`, LOG_LEVEL: 'error', DATA_DIR: dataDir }
    const opts = database ? { databaseUrl: database.url } : {}
    first = await startTestService(env, opts)
    const domainId = (await first.api.post('/api/domains', { domain: 'acme.test' })).body.data.id
    await drainJobs(first.api)
    const page = (await first.api.post(`/api/domains/${domainId}/pages`, { url: 'https://acme.test/huge' })).body.data
    await drainJobs(first.api)
    const base = `/api/domains/${domainId}/pages/${page.id}`
    assert.equal((await first.api.get(base)).body.data.status, 'active', 'the check itself reads it in time')
    await first.stop()
    first = undefined
    // The same service with a deadline a hundredth of what the outline takes: it is stopped, and says so.
    t = await startTestService({ ...env, ANALYSIS_DEADLINE_MS: '10' }, opts)
    const { db } = t.service.store
    const domain = await db.selectFrom('domains').select('org_id').where('id', '=', domainId).executeTakeFirstOrThrow()
    const api = t.api.withKey((await issueKey(db, domain.org_id, { scope: 'read' })).apiKey)
    const outline = await api.get(`${base}/outline`)
    assert.equal(outline.status, 200, JSON.stringify(outline.body))
    assert.deepEqual(outline.body.data.blocks, [])
    assert.match(outline.body.data.note, /Reading the page's outline took longer than 0.01 s and was stopped: the page is too large/)
  })
})
