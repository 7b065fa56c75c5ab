import assert from 'node:assert/strict'
import type { ServerResponse } from 'node:http'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { addUser } from '../../src/services/accounts.js'
import { layout, pricingMain, termsMain } from '../helpers/fixtures.js'
import { drainJobs, freePort, startTestService, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'
import { launchBrowser, signedIn as signedInAs } from '../helpers/browser.js'

// An analyst's first week, as issue #54 ran it: domains and pages pasted (a page's address
// among them, a host that does not exist, pages that answer 404, lines pasted twice), then
// seven rounds of a competitor's revisions, each checked with "Crawl now" from the app. After
// every round: each edit is one change, a manual recheck was spent for each check queued and
// for nothing else, no banner speaks of a failure that is history, and no view is wider than
// 375 px. At the end, two versions chosen in the app are compared, and a change leads to its
// page's history and its prices over time.

const PASSWORD = 'a long enough password'
const REFERENCE = '/reference/pricing/plans'

/** The seven rounds: what the competitor's site says in each, and how many changes that makes. */
const ROUNDS: Array<{ what: string, pro: string, liability: string, nonce: string, changes: number }> = [
  { what: 'a price rise', pro: '$59', liability: 'the fees paid in the last 12 months', nonce: 'a1', changes: 1 },
  { what: 'a clause of the terms edited', pro: '$59', liability: 'the fees paid in the last 6 months', nonce: 'a1', changes: 1 },
  { what: 'nothing', pro: '$59', liability: 'the fees paid in the last 6 months', nonce: 'a1', changes: 0 },
  { what: 'a new build: only the markup moved', pro: '$59', liability: 'the fees paid in the last 6 months', nonce: 'b7', changes: 0 },
  { what: 'a price and a clause at once', pro: '$69', liability: 'the fees paid in the last 3 months', nonce: 'c2', changes: 2 },
  { what: 'the price back down', pro: '$49', liability: 'the fees paid in the last 3 months', nonce: 'c2', changes: 1 },
  { what: 'nothing again', pro: '$49', liability: 'the fees paid in the last 3 months', nonce: 'd9', changes: 0 }
]

describe("an analyst's first week: seven rounds of revisions", () => {
  const shop = new TestSite()
  const docs = new TestSite()
  let t: TestService
  let browser: Browser
  let wide: Page
  let narrow: Page
  let round = { pro: '$49', liability: 'the fees paid in the last 12 months', nonce: 'a1' }
  const ids: Record<string, string> = {}

  before(async () => {
    await shop.start()
    await docs.start()
    const mains: Record<string, () => string> = {
      pricing: () => pricingMain(round.pro),
      terms: () => termsMain(`Our total liability is limited to ${round.liability}.`)
    }
    const html = (title: string, main: string) => (_req: unknown, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      const body = mains[main]?.() ?? `<h1>${title}</h1><p>About ${title.toLowerCase()}.</p>`
      res.end(layout(title, body, { nonce: round.nonce }))
    }
    shop.set('/', html('Acme', 'home'))
    shop.set('/pricing', html('Pricing', 'pricing'))
    shop.set('/legal/terms', html('Terms of Service', 'terms'))
    for (const path of ['/features', '/privacy', '/security', '/changelog', '/blog']) shop.set(path, html(path.slice(1), 'other'))
    shop.fallback = () => ({ status: 404, body: '<h1>Not found</h1>', headers: { 'content-type': 'text/html' } })
    // The docs' host has no home page: only the address pasted answers.
    docs.set(REFERENCE, { body: layout('Plans reference', '<h1>Plans reference</h1><p>Team: 20 seats.</p>'), headers: { 'content-type': 'text/html' } })
    docs.fallback = () => ({ status: 404, body: 'nothing here' })
    const port = await freePort()
    t = await startTestService({
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      CRAWL_HOST_MAP: `acme.test=${shop.origin},docs.example.test=${docs.origin},ghost.test=http://127.0.0.1:${await freePort()}`
    })
    const db = t.service.store.db
    const org = (await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id
    // A plan with rechecks for the week: the trial's 10 would run out before the seventh round.
    await db.updateTable('orgs').set({ plan: 'enterprise' }).where('id', '=', org).execute()
    await addUser(db, org, { email: 'analyst@example.test', password: PASSWORD }, 'owner')
    browser = await launchBrowser()
    wide = await signedIn(1280, 'light')
    narrow = await signedIn(375, 'dark')
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
    await shop.close()
    await docs.close()
  })

  const signedIn = async (width: number, colorScheme: 'light' | 'dark'): Promise<Page> =>
    await signedInAs(browser, t.url, { email: 'analyst@example.test', password: PASSWORD }, width, colorScheme)
  const main = async (page: Page) => (await page.textContent('main')) ?? ''
  const rechecks = async () => (await t.api.get('/api/usage')).body.data.limits.manualRechecks.used as number
  const changeCount = async () => (await t.api.get('/api/changes?pageSize=100')).body.meta.total as number
  const pagesOf = async (domain: string) => (await t.api.get(`/api/domains/${ids[domain]}/pages`)).body.data as any[]

  /** Every view a person reaches, at 375 px: none scrolls sideways. */
  async function noViewTooWide (): Promise<void> {
    const views = ['/app/domains', '/app/changes', '/app/usage']
    for (const domain of Object.keys(ids)) {
      views.push(`/app/domains/${ids[domain]}`)
      for (const p of await pagesOf(domain)) views.push(`/app/domains/${ids[domain]}/pages/${p.id}`)
    }
    for (const c of (await t.api.get('/api/changes?pageSize=5')).body.data as any[]) views.push(`/app/changes/${c.id}`)
    for (const path of views) {
      await narrow.goto(`${t.url}${path}`)
      // What folds away (a page's settings, its deletion) is looked at open, as a person opens it.
      await narrow.locator('details').evaluateAll(all => { for (const d of all) d.setAttribute('open', '') })
      // What sticks out, named: its tag, its right edge (its text's, when the text overflows its box) and first words.
      const wider = await narrow.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth
        ? null
        : [...document.querySelectorAll('body *')]
            .map(e => ({ e, right: e.getBoundingClientRect().left + e.scrollWidth }))
            .filter(({ right }) => right > window.innerWidth + 1)
            .map(({ e, right }) => `<${e.tagName.toLowerCase()}> to ${Math.round(right)} px: ${(e.textContent ?? '').slice(0, 60)}`))
      assert.equal(wider, null, `${path} scrolls sideways at 375 px: ${wider?.join('; ')}`)
    }
  }

  it('the set-up: every pasted line is said what became of it, a page address keeps its page', async () => {
    await wide.getByText('Add several at once').click()
    const pasted = ['acme.test', `https://docs.example.test${REFERENCE}`, 'ghost.test', 'ACME.test', 'acme.test/',
      'https://acme.test/legal/terms', `docs.example.test${REFERENCE}#team`]
    await wide.getByLabel(/Several at once/).fill(pasted.join('\n'))
    await wide.getByRole('button', { name: 'Add these domains' }).click()
    const results = wide.locator('.results li')
    assert.equal(await results.count(), pasted.length, 'one result for each line pasted')
    assert.deepEqual(await results.locator('strong').allTextContents(),
      ['added', 'added', 'added', 'duplicate', 'duplicate', 'added', 'duplicate'])
    assert.match(await results.nth(1).innerText(), /docs\.example\.test: discovering its pages, starting with the page of the address pasted/)
    assert.match(await results.nth(3).innerText(), /acme\.test is on an earlier line of this list/)
    assert.match(await results.nth(5).innerText(), /https:\/\/acme\.test\/legal\/terms: watched with acme\.test, added on an earlier line/)
    assert.match(await results.nth(6).innerText(), /plans is on an earlier line of this list/)
    await drainJobs(t.api, 90_000)
    for (const d of (await t.api.get('/api/domains')).body.data as any[]) ids[d.domain] = d.id
    assert.deepEqual(Object.keys(ids).sort(), ['acme.test', 'docs.example.test', 'ghost.test'])
    const reference = (await pagesOf('docs.example.test')).find(p => p.url === `https://docs.example.test${REFERENCE}`)
    assert.ok(reference?.lastCheckAt, 'the pasted page is watched and checked')
    // A host already watched is told so; the address of one of its pages adds that page to it.
    await wide.goto(`${t.url}/app/domains`)
    await wide.getByText('Add several at once').click()
    await wide.getByLabel(/Several at once/).fill('acme.test\nacme.test/gone-1')
    await wide.getByRole('button', { name: 'Add these domains' }).click()
    assert.deepEqual(await results.locator('strong').allTextContents(), ['duplicate', 'added'])
    assert.match(await results.nth(0).innerText(), /acme\.test already exists/)
    assert.match(await results.nth(1).innerText(), /https:\/\/acme\.test\/gone-1: its first check is queued/)
    // Both lines lead to the domain watched already, not to a page id taken for a domain's.
    for (const i of [0, 1]) {
      assert.equal(await results.nth(i).locator('a').getAttribute('href'), `/app/domains/${ids['acme.test']}`)
    }
    // So does one address in the form's one field.
    await wide.getByLabel('Domain', { exact: true }).fill('https://acme.test/gone-2')
    await wide.getByRole('button', { name: 'Add domain' }).click()
    assert.deepEqual(await results.locator('strong').allTextContents(), ['added'])
    assert.match(await results.nth(0).innerText(), /https:\/\/acme\.test\/gone-2: its first check is queued/)

    await wide.goto(`${t.url}/app/domains/${ids['acme.test']}`)
    // The pages so added are the domain's: pasted again on its page, they are duplicates.
    await wide.getByLabel(/Page addresses/).fill('/gone-1\nhttps://acme.test/gone-2\n/pricing\n/gone-1')
    await wide.getByRole('button', { name: 'Add pages' }).click()
    assert.deepEqual(await wide.locator('.results li strong').allTextContents(),
      ['duplicate', 'duplicate', 'duplicate', 'duplicate'])
    await drainJobs(t.api, 60_000)
  })

  for (const [n, r] of ROUNDS.entries()) {
    it(`round ${n + 1}, ${r.what}: ${r.changes} change(s), a recheck per check queued, no stale banner, nothing too wide`, async () => {
      round = r
      const [changesBefore, rechecksBefore] = [await changeCount(), await rechecks()]
      await wide.goto(`${t.url}/app/domains/${ids['acme.test']}`)
      await wide.getByRole('button', { name: 'Crawl now' }).click()
      await wide.waitForURL(/done=crawl/)
      assert.match(await main(wide), /crawl of every monitored page is queued/i)
      // The host that does not exist has no page to crawl: nothing is offered, nothing spent.
      await wide.goto(`${t.url}/app/domains/${ids['ghost.test']}`)
      assert.equal(await wide.getByRole('button', { name: 'Crawl now' }).count(), 0)
      await drainJobs(t.api, 60_000)
      assert.equal(await rechecks(), rechecksBefore + 1, 'one recheck for the one check queued')
      const changes = (await t.api.get(`/api/changes?pageSize=${Math.max(1, r.changes)}`)).body.data as any[]
      assert.equal(await changeCount() - changesBefore, r.changes,
        `new changes: ${changes.map(c => `${c.changeType} ${c.summary}`).join('; ')}`)
      // A domain whose pages are checked shows no discovery failure; the one that never answered still says why.
      for (const domain of ['acme.test', 'docs.example.test']) {
        await wide.goto(`${t.url}/app/domains/${ids[domain]}`)
        assert.equal(await wide.getByRole('region', { name: 'Discovery failed' }).count(), 0, `${domain}'s banner`)
      }
      await wide.goto(`${t.url}/app/domains/${ids['ghost.test']}`)
      assert.equal(await wide.getByRole('region', { name: 'Discovery failed' }).count(), 1)
      // The pages that answer 404 are said as they are now, and nothing else on the domain is.
      await wide.goto(`${t.url}/app/domains/${ids['acme.test']}`)
      assert.match(await wide.getByRole('region', { name: 'Pages that fail' }).innerText(), /2 pages cannot be checked/)
      await noViewTooWide()
    })
  }

  it('at the end of the week: two versions chosen and compared, a change leads to its page\'s history and prices', async () => {
    const pricing = (await pagesOf('acme.test')).find(p => p.url === 'https://acme.test/pricing')
    const [rise] = ((await t.api.get(`/api/changes?pageId=${pricing.id}&pageSize=100`)).body.data as any[]).reverse()
    assert.equal(rise.changeType, 'price_change')
    assert.match(rise.summary, /Pro: \$49\/month → \$59\/month/)
    await wide.goto(`${t.url}/app/changes/${rise.id}`)
    await wide.getByRole('link', { name: "The page's history" }).click()
    await wide.waitForURL(new RegExp(`/app/domains/${ids['acme.test']}/pages/${pricing.id}#timeline$`))
    const chart = await wide.locator('svg[aria-label^="Prices in $/month"]').getAttribute('aria-label')
    assert.match(chart ?? '', /Pro from \$49\/month to \$49\/month/)
    const compare = wide.getByRole('form', { name: 'Compare two versions' })
    const versions = await compare.locator('#compare-from option').evaluateAll(os => os.map(o => (o as HTMLOptionElement).value))
    assert.ok(versions.length >= 4, `${versions.length} versions kept`)
    await compare.locator('#compare-from').selectOption(versions.at(-1)!)
    await compare.locator('#compare-to').selectOption(versions[1])
    await compare.getByRole('button', { name: 'Compare' }).click()
    await wide.waitForURL(/from=.*&to=.*#compared/)
    assert.match(await wide.locator('#compared').innerText(), /\$69\/month/)
    // The same two versions from the API.
    const api = await t.api.get(`/api/domains/${ids['acme.test']}/pages/${pricing.id}/compare?from=${versions.at(-1)}&to=${versions[1]}`)
    assert.equal(api.status, 200)
  })
})
