import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { addUser } from '../../src/services/accounts.js'
import { layout, pricingMain } from '../helpers/fixtures.js'
import { drainJobs, eventually, freePort, startTestService, type TestService } from '../helpers/service.js'
import { assertAccessible, launchBrowser, shot } from '../helpers/browser.js'
import { TestSite } from '../helpers/site.js'

// A long document's change as a person reads it in the app: a terms page of 45 numbered
// sections gains a section (every later heading renumbered) and ten clauses rewritten. The
// list of edits leads with the new section; every passage is reachable from it; the text
// between passages unfolds without script; search finds the new section's words; the
// page's own view shows its timeline, any version and two versions compared; a pricing
// page's prices over time are a chart with its table. Checked with axe at 375 and 1280 px.

const PASSWORD = 'a long enough password'
const SECTIONS = 45

/** Terms of 30 sections; `inserted`: with the new section after the 5th; `rewritten`: ten clauses changed. */
function terms (inserted: boolean, rewritten: boolean): string {
  const sections = Array.from({ length: SECTIONS }, (_, i) => ({
    title: `Topic ${String.fromCharCode(65 + (i % 26))}${i >= 26 ? '2' : ''} obligations`,
    body: [
      `Clause ${i + 1} explains how the obligations of topic ${i + 1} apply to every customer of the service.`,
      rewritten && i % 3 === 1
        ? `Notice for topic ${i + 1} must now be given within 60 days by registered mail.`
        : `Notice for topic ${i + 1} must be given within 30 days by e-mail.`
    ]
  }))
  if (inserted) {
    sections.splice(5, 0, {
      title: 'Safety policy for Texas residents',
      body: ['Texas residents must verify their age before messaging other members.', 'Reports of unsafe conduct are reviewed within 24 hours.',
        'Accounts that break this policy may be suspended at once.']
    })
  }
  const main = `<h1>Terms of Service</h1><p>Last updated: ${inserted ? '1 March 2025' : '12 March 2024'}</p>` +
    sections.map((s, i) => `<h2>${i + 1}. ${s.title}</h2>${s.body.map(p => `<p>${p}</p>`).join('')}`).join('')
  return layout('Terms of Service — Acme', main)
}

describe('a long change, the page it happened on, in a browser', () => {
  let site: TestSite
  let t: TestService
  let browser: Browser
  let domainId = ''
  let termsId = ''
  let pricingId = ''
  let changeId = ''
  let price = 49

  before(async () => {
    site = await new TestSite().start()
    site.page('/', layout('Acme', '<h1>Acme</h1><p>We ship fast.</p>'))
    site.page('/legal/terms', terms(false, false))
    site.set('/pricing', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(layout('Pricing', pricingMain(`$${price}`)))
    })
    const port = await freePort()
    t = await startTestService({ PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, CRAWL_HOST_MAP: `acme.test=${site.origin}` })
    const db = t.service.store.db
    const org = (await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id
    await addUser(db, org, { email: 'reader@example.test', password: PASSWORD }, 'owner')
    domainId = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data.id
    await drainJobs(t.api)
    const add = async (path: string, pageType: string) => {
      const pages = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=500`)).body.data as any[]
      const found = pages.find(p => new URL(p.url).pathname === path)
      if (found) {
        await t.api.request('PATCH', `/api/domains/${domainId}/pages/${found.id}`, { body: { pageType } })
        return found.id as string
      }
      return (await t.api.post(`/api/domains/${domainId}/pages`, { url: `https://acme.test${path}`, pageType })).body.data.id as string
    }
    termsId = await add('/legal/terms', 'terms')
    pricingId = await add('/pricing', 'pricing')
    await t.api.post(`/api/domains/${domainId}/crawl`)
    await drainJobs(t.api)
    site.page('/legal/terms', terms(true, true))
    for (const next of [59, 69]) {
      price = next
      await t.api.post(`/api/domains/${domainId}/crawl`)
      await drainJobs(t.api)
    }
    changeId = await eventually(async () => ((await t.api.get(`/api/changes?pageId=${termsId}`)).body.data as any[])[0]?.id, 30_000, 'the terms change')
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
    await site?.close()
  })

  const signedIn = async (viewport: { width: number, height: number }, colorScheme: 'light' | 'dark') => {
    const context = await browser.newContext({ viewport, colorScheme, locale: 'en-GB', timezoneId: 'Europe/London' })
    const page = await context.newPage()
    await page.goto(`${t.url}/app/sign-in`)
    await page.fill('#email', 'reader@example.test')
    await page.fill('#password', PASSWORD)
    await page.click('button[type=submit]')
    await page.waitForURL(/\/app\/domains/)
    return { context, page }
  }
  const fits = async (page: Page) =>
    await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)

  it('the summary leads with the new section and counts the rest by kind', async () => {
    const change = (await t.api.get(`/api/changes/${changeId}`)).body.data
    assert.match(change.summary, /^Terms of Service, 6\. Safety policy for Texas residents: new section \(3 paragraphs\)/)
    assert.match(change.summary, /; also \d+ renumbered references?, updated 2025-03-01$/)
    assert.equal(change.changeType, 'terms_update')
    assert.ok(change.diffData.edits.kinds.renumbering >= 20, JSON.stringify(change.diffData.edits))
    // Its passages were read when it was found, and recorded with it: the change's page shows these.
    const passages = change.diffData.passages as Array<{ kind: string, section?: string, headline: string }>
    assert.ok(passages.length >= 40, `${passages.length} passages`)
    assert.deepEqual(passages.filter(p => p.section).map(p => p.headline), ['6. Safety policy for Texas residents: new section'])
    assert.ok(passages.filter(p => p.kind === 'renumbering').length >= 20)
  })

  it('every passage is reachable from the list of edits, the new section first; the unchanged text unfolds; axe finds nothing serious', async () => {
    for (const [viewport, scheme] of [[{ width: 1280, height: 900 }, 'light'], [{ width: 375, height: 812 }, 'dark']] as const) {
      const { context, page } = await signedIn(viewport, scheme)
      await page.goto(`${t.url}/app/changes/${changeId}`)
      const listed = await page.locator('nav.edits ol li a').allTextContents()
      assert.match(listed[0], /^6\. Safety policy for Texas residents: new section$/)
      // An edit is named by the heading it is under; the trivial edits are counted as the summary counts them.
      assert.ok(listed.includes('2. Topic B obligations: Notice for topic 2 must now be given within 60 days by registered mail.'), listed.join('\n'))
      const renumbered = /also (\d+) renumbered references/.exec((await t.api.get(`/api/changes/${changeId}`)).body.data.summary)![1]
      assert.match(await page.locator('nav.edits').innerText(), new RegExp(`\\b${renumbered} renumbered references`))
      // Every passage, on this page or another, is named by a link of the list (the trivial ones under their kind).
      const total = Number(/(\d+) passages? changed/.exec(await page.locator('nav.edits').innerText())![1])
      assert.ok(total >= 40, `${total} passages`)
      await page.locator('nav.edits details').evaluateAll(all => { for (const d of all) d.setAttribute('open', '') })
      const targets = new Set((await page.locator('nav.edits a').evaluateAll(as => as.map(a => (a as HTMLAnchorElement).hash)))
        .map(h => h.replace('#edit-', '')))
      for (let n = 1; n <= total; n++) assert.ok(targets.has(String(n)), `edit ${n} has a link`)
      for (const hash of [...targets].slice(0, 5)) {
        await page.click(`nav.edits a[href$="#edit-${hash}"]`)
        assert.ok(await page.locator(`#edit-${hash}`).isVisible(), `edit ${hash} is on the page`)
      }
      // The text between two passages is folded, and opens without script.
      const gap = page.locator('details.gap').first()
      assert.match(await gap.locator('summary').innerText(), /unchanged paragraphs?/)
      await gap.locator('summary').click()
      assert.ok(await gap.locator('.unchanged p').first().isVisible())
      // Headings read as headings; marks are whole words.
      assert.ok(await page.locator('.passage h4, .passage h3').count() > 0)
      assert.ok(await page.locator('.passage ins', { hasText: '60' }).count() > 0)
      assert.ok(await fits(page), 'no horizontal scroll')
      await assertAccessible(page)
      await page.evaluate(() => window.scrollTo(0, 0))
      if (viewport.width === 1280) await shot(page, 'long-change', { docs: true })
      else await shot(page, 'long-change-375')
      await context.close()
    }
  })

  it('search finds the words of the whole diff, in the inbox and the API', async () => {
    const found = (await t.api.get('/api/changes?q=Texas')).body.data as any[]
    assert.deepEqual(found.map(c => c.id), [changeId])
    assert.deepEqual((await t.api.get('/api/changes?q=registered%20mail')).body.data.map((c: any) => c.id), [changeId])
    const { context, page } = await signedIn({ width: 1280, height: 900 }, 'light')
    await page.goto(`${t.url}/app/changes?q=Texas`)
    assert.equal(await page.locator(`a[href="/app/changes/${changeId}"]`).count(), 1)
    await context.close()
  })

  it('a page of its own: its timeline, a version, two versions compared, its type set by a person, its prices as a chart', async () => {
    for (const [viewport, scheme] of [[{ width: 1280, height: 900 }, 'light'], [{ width: 375, height: 812 }, 'dark']] as const) {
      const { context, page } = await signedIn(viewport, scheme)
      // A change leads to its page's history.
      await page.goto(`${t.url}/app/changes/${changeId}`)
      await page.getByRole('link', { name: "The page's history" }).click()
      await page.waitForURL(`${t.url}/app/domains/${domainId}/pages/${termsId}#timeline`)
      assert.equal(await page.locator(`.timeline a[href="/app/changes/${changeId}"]`).count(), 1)
      await page.goto(`${t.url}/app/domains/${domainId}`)
      await page.click(`a[href="/app/domains/${domainId}/pages/${termsId}"]`)
      assert.match(await page.locator('h1').innerText(), /acme\.test\/legal\/terms/)
      assert.equal(await page.locator(`.timeline a[href="/app/changes/${changeId}"]`).count(), 1)
      await page.click('.timeline a:has-text("compare with the one before")')
      assert.ok(await page.locator('#compared nav.edits').isVisible())
      // Any two versions, chosen from the timeline: here the first against the last.
      const compare = page.getByRole('form', { name: 'Compare two versions' })
      const versions = await compare.locator('#compare-from option').evaluateAll(os => os.map(o => (o as HTMLOptionElement).value))
      assert.ok(versions.length >= 2)
      await compare.locator('#compare-from').selectOption(versions.at(-1)!)
      await compare.locator('#compare-to').selectOption(versions[0])
      await compare.getByRole('button', { name: 'Compare' }).click()
      await page.waitForURL(`${t.url}/app/domains/${domainId}/pages/${termsId}?from=${versions.at(-1)}&to=${versions[0]}#compared`)
      assert.ok(await page.locator('#compared nav.edits').isVisible())
      assert.equal(await compare.locator('#compare-from').inputValue(), versions.at(-1), 'the choice is kept')
      await page.click('.timeline a:has-text("read it")')
      assert.match(await page.locator('#version').innerText(), /Safety policy for Texas residents/)
      await assertAccessible(page)
      assert.ok(await fits(page))
      await page.goto(`${t.url}/app/domains/${domainId}/pages/${pricingId}`)
      const chart = page.locator('svg.price-chart')
      assert.ok(await chart.isVisible())
      assert.match(await chart.getAttribute('aria-label') ?? '', /Pro from \$49\/month to \$69\/month/)
      assert.ok(await page.locator('.chart table tbody tr').count() >= 3)
      await assertAccessible(page)
      assert.ok(await fits(page))
      if (viewport.width === 1280) await shot(page, 'page', { docs: true, fullPage: true })
      await context.close()
    }
    // A type a person sets is kept.
    const { context, page } = await signedIn({ width: 1280, height: 900 }, 'light')
    await page.goto(`${t.url}/app/domains/${domainId}/pages/${termsId}`)
    await page.selectOption('#pageType', 'security')
    await page.click('button:has-text("Save the type")')
    await page.waitForURL(/done=typed/)
    const typed = (await t.api.get(`/api/domains/${domainId}/pages/${termsId}`)).body.data
    assert.deepEqual([typed.pageType, typed.pageTypeSource], ['security', 'person'])
    // And a page is deleted from its own view.
    await page.click('summary:has-text("Delete this page")')
    await page.click('button:has-text("Delete this page and its history")')
    await page.waitForURL(/done=page-deleted/)
    assert.equal((await t.api.get(`/api/domains/${domainId}/pages/${termsId}`)).status, 404)
    await context.close()
  })
})
