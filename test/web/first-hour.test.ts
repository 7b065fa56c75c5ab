import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { addUser } from '../../src/services/accounts.js'
import { layout, pricingMain } from '../helpers/fixtures.js'
import { drainJobs, eventually, freePort, sameOnEveryDatabase, startTestService, type TestService } from '../helpers/service.js'
import { wordsCut } from '../helpers/layout-checks.js'
import { assertAccessible, launchBrowser, shot, takingShots } from '../helpers/browser.js'
import { TestSite } from '../helpers/site.js'

// A new user's first hour in the app, where it used to stop: a pasted address taken as its
// host, several domains and pages pasted at once with what became of each, a discovery
// that failed saying why with a button to try again, pages blocked or broken said so with
// what to do and a check again, a quota that ran out said so beside a button that is off
// (and a refused form that returns to its page), usage that explains its counters, an
// inbox with a date range, CSV and "not reviewed", an invitation's link shown when mail is
// not configured; at 375 px no page scrolls sideways, and axe finds nothing serious.

const PASSWORD = 'a long enough password'
const CHALLENGE = '<html><head><title>Just a moment...</title></head><body>Checking your browser before accessing ' +
  'the site.</body></html>'

describe('no dead ends in the first hour, in a browser', () => {
  let site: TestSite
  let dead: TestSite
  let t: TestService
  let browser: Browser
  let owner: { context: BrowserContext, page: Page }
  let acmeId = ''
  let price = 49
  // Discovery waits for robots.txt until the test lets it go: the domain's page is seen while it discovers.
  let letRobotsGo = () => {}
  const robotsHeld = new Promise<void>(resolve => { letRobotsGo = resolve })

  before(async () => {
    site = await new TestSite().start()
    site.set('/robots.txt', (_req, res) => {
      void robotsHeld.then(() => {
        res.writeHead(200, { 'content-type': 'text/plain' })
        res.end('User-agent: *\nAllow: /\n')
      })
    })
    site.page('/', layout('Acme', '<h1>Acme</h1><p>We ship fast.</p><a href="/pricing">Pricing</a>'))
    site.set('/pricing', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(layout('Pricing', pricingMain(`$${price}`)))
    })
    // Linked from nowhere: only the address a person pastes finds it.
    site.page('/docs/reference/pricing-and-plans-for-enterprise-customers-in-europe-and-north-america', layout('Plans reference', '<h1>Plans reference</h1><p>Team: 20 seats.</p>'))
    site.set('/members-only', { status: 403, body: CHALLENGE, headers: { 'content-type': 'text/html' } })
    site.set('/old-page', { status: 404, body: '<h1>Not found</h1>', headers: { 'content-type': 'text/html' } })
    dead = await new TestSite().start()
    dead.fallback = () => ({ status: 404, body: 'nothing here' })
    const port = await freePort()
    t = await startTestService({
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      CRAWL_HOST_MAP: `acme.test=${site.origin},beta.test=${site.origin},dead.test=${dead.origin}`
    })
    const db = t.service.store.db
    const org = (await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id
    await addUser(db, org, { email: 'owner@example.test', password: PASSWORD }, 'owner')
    browser = await launchBrowser()
    owner = await signedIn({ width: 1280, height: 900 }, 'light')
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
    await site?.close()
    await dead?.close()
  })

  async function signedIn (viewport: { width: number, height: number }, colorScheme: 'light' | 'dark') {
    const context = await browser.newContext({ viewport, colorScheme, locale: 'en-GB', timezoneId: 'Europe/London' })
    const page = await context.newPage()
    // The way in: the server's address leads to the app.
    await page.goto(`${t.url}/`)
    await page.waitForURL(/\/app\/sign-in/)
    await page.fill('#email', 'owner@example.test')
    await page.fill('#password', PASSWORD)
    await page.click('button[type=submit]')
    await page.waitForURL(/\/app\/domains/)
    return { context, page }
  }
  const fits = async (page: Page) =>
    await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)
  const main = async (page: Page) => (await page.textContent('main')) ?? ''

  it('a pasted address adds its host; several domains pasted at once are each said what became of them', async () => {
    const { page } = owner
    await page.getByLabel('Domain', { exact: true }).fill('https://acme.test/docs/reference/pricing-and-plans-for-enterprise-customers-in-europe-and-north-america#team')
    await page.getByRole('button', { name: 'Add domain' }).click()
    await page.waitForURL(/\/app\/domains\/[0-9a-f-]{36}\?done=added-page/)
    assert.match(await main(page), /starting with the page of the address you pasted/)
    acmeId = /domains\/([0-9a-f-]{36})/.exec(page.url())![1]
    assert.match(await page.title(), /^acme\.test · Sitewatch$/)
    // While it discovers, the page follows discovery in place (no meta refresh: axe's, and it
    // threw away what was being typed): the settings typed meanwhile stay, the pages come in.
    assert.match(await page.locator('#domain-status').innerText(), /discovering its pages/)
    await assertAccessible(page)
    await page.evaluate(() => { (window as any).sameDocument = true })
    await page.getByLabel('Tags').fill('direct competitors')
    letRobotsGo()
    await page.locator('#domain-status', { hasText: 'Status: active' }).waitFor({ timeout: 60_000 })
    await page.locator('#domain-pages').getByRole('link', { name: '/pricing', exact: true }).waitFor()
    assert.equal(await page.evaluate(() => (window as any).sameDocument), true, 'not reloaded')
    assert.equal(await page.getByLabel('Tags').inputValue(), 'direct competitors')
    assert.equal(await page.locator('body[data-live-every]').count(), 0, 'it asks no more once discovery ended')
    await page.goto(`${t.url}/app/domains`)
    await page.getByText('Add several at once').click()
    await page.getByLabel(/Several at once/).fill('beta.test\nacme.test\nnot_a_domain!\nnot a domain\nhttps://dead.test/\nBeta.test')
    await page.getByRole('button', { name: 'Add these domains' }).click()
    const results = page.locator('.results li')
    // A line with spaces is one line, invalid, not three entries.
    assert.deepEqual((await results.locator('strong').allTextContents()), ['added', 'duplicate', 'invalid', 'invalid', 'added', 'duplicate'])
    assert.match(await main(page), /Domains pasted: 2 of 6 added/)
    assert.match(await results.nth(1).innerText(), /acme\.test already exists/)
    assert.match(await results.nth(3).innerText(), /not a domain/)
    // A line pasted twice is said so on its line, not dropped.
    assert.match(await results.nth(5).innerText(), /Beta\.test[\s\S]*beta\.test is on an earlier line of this list/)
    await assertAccessible(page)
    await drainJobs(t.api, 60_000)
    // The page of the address pasted is watched beside what discovery found, typed and checked.
    const pages = (await t.api.get(`/api/domains/${acmeId}/pages`)).body.data as any[]
    const asked = pages.find(p => p.url === 'https://acme.test/docs/reference/pricing-and-plans-for-enterprise-customers-in-europe-and-north-america')
    assert.ok(asked, pages.map(p => p.url).join(', '))
    assert.notEqual(asked.lastCheckAt, null)
    assert.ok(pages.some(p => p.url === 'https://acme.test/pricing'))
  })

  it('a failed discovery says why and what it tried, and offers to run it again', async () => {
    const { page } = owner
    await eventually(async () => ((await t.api.get('/api/domains')).body.data as any[])
      .find(d => d.domain === 'dead.test' && d.status === 'error'), 60_000, 'the discovery of dead.test to fail')
    await page.goto(`${t.url}/app/domains`)
    assert.match(await main(page), /discovery failed: nothing could be read/)
    await page.getByRole('link', { name: 'dead.test' }).click()
    const problem = page.getByRole('region', { name: 'Discovery failed' })
    assert.match(await problem.innerText(), /Discovery found no page[\s\S]*no page of dead\.test could be read: HTTP 404[\s\S]*tried its home page over https and http/)
    // What to do is said of the site, with the way on: no page to "delete this one".
    assert.match(await problem.innerText(), /Check that the domain is spelled right, or add the pages you want watched by their address/)
    assert.doesNotMatch(await problem.innerText(), /delete this one/)
    await assertAccessible(page)
    // No page is monitored: "Crawl now" is not offered; sent all the same, it takes no recheck and says so.
    assert.equal(await page.getByRole('button', { name: 'Crawl now' }).count(), 0)
    assert.match(await main(page), /No page of this domain is monitored: there is nothing to crawl now/)
    const rechecks = async () => (await t.api.get('/api/usage')).body.data.limits.manualRechecks.used as number
    const before = await rechecks()
    await page.evaluate(() => {
      const form = document.createElement('form')
      form.method = 'post'
      form.action = `${location.pathname}/crawl`
      form.append(document.querySelector('input[name=_csrf]')!.cloneNode())
      document.body.append(form)
      form.submit()
    })
    await page.waitForURL(/done=crawl-nothing/)
    assert.match(await main(page), /nothing to crawl, and no recheck was taken/)
    assert.equal(await rechecks(), before)
    await problem.getByRole('button', { name: 'Run discovery again' }).click()
    await page.waitForURL(/done=discover/)
    assert.match(await main(page), /Discovery is queued/)
    await drainJobs(t.api, 60_000)
  })

  it('pages pasted at once, each said what became of it; a blocked and a broken page say so, with what to do and a check again', async () => {
    const { page } = owner
    await page.goto(`${t.url}/app/domains/${acmeId}`)
    await page.getByLabel(/Page addresses/).fill('/members-only\nhttps://acme.test/old-page\nhttps://other.test/x\nhttps://acme.test/\nhttps://acme.test/members-only#top')
    await page.getByRole('button', { name: 'Add pages' }).click()
    assert.deepEqual(await page.locator('.results li strong').allTextContents(), ['added', 'added', 'not on this domain', 'duplicate', 'duplicate'])
    assert.match(await page.locator('.results li').nth(4).innerText(), /https:\/\/acme\.test\/members-only is on an earlier line of this list/)
    await drainJobs(t.api, 60_000)
    await page.goto(`${t.url}/app/domains/${acmeId}`)
    const failing = page.getByRole('region', { name: 'Pages that fail' })
    const text = await failing.innerText()
    assert.match(text, /2 pages cannot be checked/)
    assert.match(text, /\/members-only\s+Blocked by the site since .+?\): .*bot wall's challenge in the browser\. Even Sitewatch's browser is shown the site's challenge/)
    assert.match(text, /\/old-page\s+Failing since .*HTTP 404.*The page is gone; it may have moved\. Run discovery again/)
    await page.goto(`${t.url}/app/domains`)
    assert.match(await main(page), /1 page blocked, 1 page failing/)
    // The page's own view: why, and what to do next.
    await page.goto(`${t.url}/app/domains/${acmeId}`)
    await page.getByRole('link', { name: '/members-only' }).first().click()
    assert.match(await page.getByRole('region', { name: 'Why this page cannot be checked' }).innerText(), /Blocked by the site/)
    assert.ok(await page.getByRole('link', { name: "Change the page's settings" }).isVisible())
    await assertAccessible(page)
    await page.getByRole('button', { name: 'Check again' }).click()
    await page.waitForURL(/done=page-crawl/)
    assert.match(await main(page), /A check of this page is queued/)
    await drainJobs(t.api, 60_000)
  })

  it('a quota that ran out turns its buttons off with why; a refused form returns to its page and says it once', async () => {
    const { page } = owner
    const db = t.service.store.db
    await db.updateTable('billing_periods').set({ manual_rechecks_used: 10 }).execute()
    await page.goto(`${t.url}/app/domains/${acmeId}`)
    const crawl = page.getByRole('button', { name: 'Crawl now' })
    assert.equal(await crawl.isDisabled(), true)
    assert.match(await page.locator('#rechecks').innerText(), /all 10 are used\. The trial ends on \d{4}-\d\d-\d\d; the organisation's owner can change the plan under Usage and plan/)
    // Sent anyway (a page left open before the quota ran out): back to the domain's page, which says why.
    await crawl.evaluate(b => { (b as HTMLButtonElement).disabled = false })
    await crawl.click()
    await page.waitForLoadState()
    assert.equal(new URL(page.url()).pathname, `/app/domains/${acmeId}`)
    assert.match(await page.locator('[role=alert]').innerText(), /The trial allows 10 manual rechecks/)
    await page.reload()
    assert.equal(await page.locator('main [role=alert]').count(), 0, 'said once')
    // One page checked again is not a domain-wide recheck: its button stays on, and takes none.
    await page.locator('#domain-pages').getByRole('link', { name: '/pricing', exact: true }).click()
    const check = page.getByRole('button', { name: /Check (now|again)/ })
    assert.equal(await check.isDisabled(), false)
    assert.match(await page.locator('#check-help').innerText(), /takes no manual recheck/)
    await check.click()
    await page.waitForURL(/done=page-(crawl|pending)/)
    assert.deepEqual([...new Set((await db.selectFrom('billing_periods').select('manual_rechecks_used').execute()).map(r => r.manual_rechecks_used))], [10])
    await drainJobs(t.api, 60_000)
    await db.updateTable('billing_periods').set({ manual_rechecks_used: 0 }).execute()
  })

  it('usage says what each counter counts and when it starts again, beside what is watched now', async () => {
    const { page } = owner
    await page.goto(`${t.url}/app/usage`)
    const text = await main(page)
    assert.match(text, /Watched now: 3 domains, \d+ pages \(\d+ monitored\)/)
    assert.match(text, /Domains added: 3 of 25 taken/)
    assert.match(text, /Each "Crawl now" of a domain takes one; a page's "Check now" takes none\./)
    assert.match(text, /Research credits: 0 of \d+ taken/)
    assert.match(text, /A trial's counters do not start again: the trial ends on \d{4}-\d\d-\d\d/)
    await assertAccessible(page)
  })

  it('the inbox: a date range, CSV of the filter, and a change marked back as not reviewed', async () => {
    const { page } = owner
    price = 59
    await t.api.post(`/api/domains/${acmeId}/crawl`)
    await drainJobs(t.api, 60_000)
    await page.goto(`${t.url}/app/changes`)
    const first = page.locator('table.inbox tbody tr').first()
    assert.match(await first.innerText(), /\$49\/month → \$59\/month/)
    // CSV of what the inbox shows, as the browser downloads it.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: /as CSV/ }).click()])
    assert.match(download.suggestedFilename(), /^sitewatch-changes-\d{4}-\d\d-\d\d\.csv$/)
    const csv = await (await import('node:fs/promises')).readFile((await download.path())!, 'utf8')
    assert.match(csv.split('\r\n')[1], /acme\.test,https:\/\/acme\.test\/pricing,pricing,price_change/)
    // A range that ends before today shows nothing; one that holds today shows the change.
    await page.getByLabel('To', { exact: true }).fill('2020-01-31')
    await page.getByRole('button', { name: 'Filter' }).click()
    assert.match(await main(page), /No changes match these filters/)
    const today = new Date().toISOString().slice(0, 10)
    await page.goto(`${t.url}/app/changes?from=${today}&to=${today}`)
    assert.ok(await page.locator('table.inbox tbody tr').count() >= 1)
    await page.goto(`${t.url}/app/changes?from=2030-01-02&to=2030-01-01`)
    assert.match(await page.locator('[role=alert]').innerText(), /"From" \(2030-01-02\) is after "To"/)
    // Acknowledged, then marked back as not reviewed.
    await page.goto(`${t.url}/app/changes`)
    await page.locator('table.inbox tbody tr').first().getByRole('link').click()
    await page.getByRole('button', { name: 'Acknowledge' }).click()
    await page.waitForURL(/done=acknowledged/)
    await page.getByRole('button', { name: 'Mark as not reviewed' }).click()
    await page.waitForURL(/done=unacknowledged/)
    assert.ok(await page.getByRole('button', { name: 'Acknowledge' }).isVisible())
  })

  it('without SMTP_URL an invitation says no mail was sent and shows its link once', async () => {
    const { page } = owner
    await page.goto(`${t.url}/app/members`)
    assert.match(await main(page), /Mail is not configured on this server/)
    await page.getByLabel('Email').fill('colleague@example.test')
    await page.getByRole('button', { name: 'Invite' }).click()
    assert.match(await page.getByRole('status').innerText(), /No e-mail was sent: mail is not configured/)
    const link = await page.getByLabel('Invitation link for colleague@example.test').inputValue()
    assert.match(link, /\/app\/invite\/[\w-]{20,}$/)
    await page.goto(`${t.url}/app/members`)
    assert.equal(await page.getByLabel('Invitation link for colleague@example.test').count(), 0, 'shown once')
    await eventually(async () => (await t.api.get('/api/jobs?limit=5')).status === 200 || undefined)
  })

  it('at 375 px, in the dark, no page scrolls sideways and axe finds nothing serious; at 1280 px no word breaks', sameOnEveryDatabase, async () => {
    const small = await signedIn({ width: 375, height: 812 }, 'dark')
    // Every view a person reaches, with the longest address of the domain in the page's heading.
    const pages = (await t.api.get(`/api/domains/${acmeId}/pages`)).body.data as any[]
    const longest = pages.reduce((a, b) => b.url.length > a.url.length ? b : a)
    const [change] = (await t.api.get(`/api/changes?domainId=${acmeId}`)).body.data as any[]
    assert.ok(change, 'a change of acme.test to show')
    const views = ['/app/domains', `/app/domains/${acmeId}`, `/app/domains/${acmeId}/pages/${longest.id}`, '/app/changes',
      `/app/changes/${change.id}`, '/app/alerts', '/app/account', '/app/usage', '/app/members', '/app/keys']
    for (const path of views) {
      await small.page.goto(`${t.url}${path}`)
      assert.ok(await fits(small.page), `${path} scrolls sideways at 375 px`)
      await assertAccessible(small.page)
      await shot(small.page, `375${path.replace(/\//g, '-')}`, { fullPage: true })
      await owner.page.goto(`${t.url}${path}`)
      assert.ok(await fits(owner.page), `${path} scrolls sideways at 1280 px`)
      // A severity, a host or a path in a table is never cut mid-word ("medi-um", "/pricin-g") where the table has
      // room: a line ends only after a space, a slash, a dot or a hyphen.
      const cut = await wordsCut(owner.page)
      assert.deepEqual(cut, [], `${path}: words cut at 1280 px`)
    }
    if (takingShots) {
      await small.page.goto(`${t.url}/app/domains/${acmeId}`)
      await shot(small.page, 'failing-375', { docs: true })
      await owner.page.goto(`${t.url}/app/domains/${acmeId}`)
      await shot(owner.page, 'failing', { docs: true })
    }
    await small.context.close()
  })
})
