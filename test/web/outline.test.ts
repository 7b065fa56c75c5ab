import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { addUser } from '../../src/services/accounts.js'
import { layout } from '../helpers/fixtures.js'
import { drainJobs, freePort, sameOnEveryDatabase, startTestService, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'
import { assertAccessible, launchBrowser, shot, signedIn as signedInAs, takingShots } from '../helpers/browser.js'

// Point and watch in the app (#55): from a page's view, a person narrows a noisy page to
// one part in three clicks (tick it, preview, save) and sees before saving what will be
// compared and what the last 30 days would have reported; blocks that keep moving are
// marked. A client-rendered page is outlined as the browser built it. At 375 px and
// 1280 px, light and dark, nothing is wider than the screen and axe finds nothing.

const PASSWORD = 'a long enough password'

const pricing = (pro: string, visitors: number) => layout('Pricing — Acme', `<h1>Pricing</h1>
<p class="live-counter">${visitors} teams are looking at this page right now</p>
<div class="grid-x1">
<div class="plan-x1"><h3>Free</h3><p>$0/month</p><ul><li>1 seat</li></ul></div>
<div class="plan-x1"><h3>Pro</h3><p>${pro}/month</p><ul><li>5 seats</li></ul></div>
</div>`)

// An app shell: empty until its script runs.
const shell = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Status — Acme</title></head>
<body><div id="app"></div><script>
document.getElementById('app').innerHTML = '<main><h1>System status</h1><section><h2>API</h2><p>Operational</p></section>' +
  '<section><h2>Dashboard</h2><p>Degraded performance</p></section></main>'
</script></body></html>`

describe('point and watch in the app', () => {
  const site = new TestSite()
  let t: TestService
  let browser: Browser
  let domainId = ''
  const pageIds: Record<string, string> = {}

  const signedIn = async (width: number, colorScheme: 'light' | 'dark'): Promise<Page> =>
    await signedInAs(browser, t.url, { email: 'analyst@example.test', password: PASSWORD }, width, colorScheme)
  const crawl = async (path: string) => {
    const { jobId } = (await t.api.post(`/api/domains/${domainId}/pages/${pageIds[path]}/crawl`)).body.data
    await drainJobs(t.api)
    return jobId
  }

  before(async () => {
    await site.start()
    site.page('/', layout('Acme', '<h1>Acme</h1><p>We ship.</p>'))
    site.page('/pricing', pricing('$20', 12))
    site.page('/status', shell)
    const port = await freePort()
    // Each view waits for its outline here (the view before it is read is the next describe's).
    t = await startTestService({ PORT: String(port), CRAWL_HOST_MAP: `acme.test=${site.origin}`, OUTLINE_WAIT_MS: '600000' })
    const db = t.service.store.db
    const org = (await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id
    await db.updateTable('orgs').set({ plan: 'enterprise' }).where('id', '=', org).execute()
    await addUser(db, org, { email: 'analyst@example.test', password: PASSWORD }, 'owner')
    domainId = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data.id
    await drainJobs(t.api)
    for (const path of ['/pricing', '/status']) {
      const listed = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=500`)).body.data as any[]
      pageIds[path] = listed.find(p => p.url === `https://acme.test${path}`)?.id ??
        (await t.api.post(`/api/domains/${domainId}/pages`, { url: `https://acme.test${path}` })).body.data.id
    }
    const rendered = await t.api.request('PATCH', `/api/domains/${domainId}/pages/${pageIds['/status']}`,
      { body: { render: 'always' } })
    assert.equal(rendered.status, 200, JSON.stringify(rendered.body))
    const pictured = await t.api.request('PATCH', `/api/domains/${domainId}/pages/${pageIds['/pricing']}`,
      { body: { screenshots: true } })
    assert.equal(pictured.status, 200, JSON.stringify(pictured.body))
    await drainJobs(t.api)
    // Three noisy weeks: the counter moves at every check, the price once.
    for (const [pro, visitors] of [['$20', 31], ['$20', 7], ['$25', 19]] as const) {
      site.page('/pricing', pricing(pro, visitors))
      await crawl('/pricing')
    }
    await crawl('/status')
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
    await site.close()
  })

  it('narrows a noisy page to one part in three clicks, with what will be compared shown before saving', async () => {
    const page = await signedIn(1280, 'light')
    const view = `${t.url}/app/domains/${domainId}/pages/${pageIds['/pricing']}`
    await page.goto(view)
    const outline = page.locator('ol.outline li')
    const counter = outline.filter({ hasText: /^\d+\. paragraph \d+ teams are looking at this page/ })
    assert.match(await counter.innerText(), /moved 3 times in 30 days/, 'a block that keeps moving is shown unfolded')
    assert.equal(await counter.getAttribute('class'), 'depth-1 churning', 'the churning block is marked, not the section around it')
    // Sections first: the plans are folded in the block that holds them until it is opened.
    const pro = outline.filter({ hasText: /^\d+\. card Pro/ })
    const proWatch = pro.locator(':scope > .picks').getByLabel(/^Watch only: Pro/)
    assert.equal(await proWatch.isVisible(), false, 'the cards are folded')
    const grid = outline.filter({ has: pro }).last()
    assert.match(await grid.locator(':scope > details > summary').innerText(), /^Its 2 blocks \(8 in all\)$/)
    await grid.locator(':scope > details > summary').click()
    assert.match(await pro.innerText(), /div:has\(> :heading\("Pro"\)\)/, 'its selector is shown')
    // The picture with each block's box, numbered as the list is.
    const o = (await t.api.get(`/api/domains/${domainId}/pages/${pageIds['/pricing']}/outline`)).body.data
    assert.ok(o.picture, 'the page has a picture with its blocks\' places')
    const proBlock = o.blocks.find((b: any) => b.kind === 'card' && b.text.startsWith('Pro'))
    const freeBlock = o.blocks.find((b: any) => b.kind === 'card' && b.text.startsWith('Free'))
    assert.ok(proBlock.box && freeBlock.box, JSON.stringify(o.blocks))
    assert.ok(proBlock.box.width > 0 && proBlock.box.height > 20)
    assert.notDeepEqual(proBlock.box, freeBlock.box)
    await page.click('text=The picture with each block\'s box')
    const picture = page.locator('.outline-picture img')
    await picture.waitFor()
    // A lazy picture loads once shown: wait for it, not for a clock.
    assert.equal(await picture.evaluate(async (img: any) => { await img.decode(); return img.naturalWidth }), 1280,
      'the picture loads')
    assert.ok(await page.locator('.outline-picture rect').count() >= 3)

    // Preview stays in reach on a small screen: the outline runs on below the screen, its button does not.
    const size = page.viewportSize()!
    await page.setViewportSize({ width: 375, height: 480 })
    await outline.first().evaluate(el => { el.scrollIntoView({ block: 'start' }) })
    const list = (await page.locator('ol.outline').first().boundingBox())!
    const button = (await page.getByRole('button', { name: 'Preview what will be compared' }).boundingBox())!
    assert.ok(list.y + list.height > 480, 'the outline runs on below the screen')
    assert.ok(button.y >= 0 && button.y + button.height <= 480, `the Preview button is on the screen (at ${button.y} px)`)
    await page.setViewportSize(size)

    await proWatch.check() // 1 (with its section opened)
    await page.click('text=Preview what will be compared') // 2
    const preview = page.locator('#preview')
    assert.match(await preview.innerText(), /Of its 3 changes of the last 30 days, 0 would still be reported as they were, 1 reported with part of it left out, and 2 not reported/)
    assert.match(await preview.innerText(), /compares these 3 lines/)
    assert.equal(await page.inputValue('textarea[name=includeSelectors]'), 'div:has(> :heading("Pro"))')
    await page.click('text=The picture with each block\'s box')
    await page.locator('.outline-picture img').evaluate((img: any) => img.decode())
    await page.evaluate(() => window.scrollTo(0, 0)) // boxes in the page's coordinates
    // The docs' picture shows the whole outline: its Preview bar in its place, not stuck over the top of it.
    if (takingShots) await page.locator('.outline-actions').evaluate((bar: HTMLElement) => { bar.style.position = 'static' })
    const shown = await page.locator('#outline').boundingBox()
    const tried = await preview.boundingBox()
    await shot(page, 'outline', {
      docs: true,
      fullPage: true,
      clip: { x: 0, y: shown!.y - 8, width: 1280, height: tried!.y + tried!.height - shown!.y + 16 }
    })
    assert.equal((await t.api.get(`/api/domains/${domainId}/pages/${pageIds['/pricing']}`)).body.data.noiseRules
      .includeSelectors, undefined, 'nothing saved by the preview')
    await page.click('text=Save page settings') // 3
    await page.waitForURL(/done=saved/)
    const saved = (await t.api.get(`/api/domains/${domainId}/pages/${pageIds['/pricing']}`)).body.data.noiseRules
    assert.deepEqual(saved.includeSelectors, ['div:has(> :heading("Pro"))'])

    await crawl('/pricing') // the baseline under the rules
    const before = (await t.api.get(`/api/changes?pageId=${pageIds['/pricing']}`)).body.meta.total
    site.page('/pricing', pricing('$25', 44))
    await crawl('/pricing')
    assert.equal((await t.api.get(`/api/changes?pageId=${pageIds['/pricing']}`)).body.meta.total, before,
      'the counter moved, outside what is watched: no change')
    await page.context().close()
  })

  it('says what is wrong with picks it cannot try, and saves nothing', async () => {
    const page = await signedIn(1280, 'light')
    const view = `${t.url}/app/domains/${domainId}/pages/${pageIds['/pricing']}`
    const broken = await page.goto(`${view}?ignore=${encodeURIComponent('div:has(')}`)
    assert.equal(broken!.status(), 200)
    assert.match(await page.locator('main').innerText(), /is not a valid CSS selector/)
    const many = Array.from({ length: 21 }, (_, i) => `ignore=${encodeURIComponent(`p:nth-of-type(${i + 1})`)}`).join('&')
    await page.goto(`${view}?${many}`)
    assert.match(await page.locator('main').innerText(), /at most 20 selectors/)
    assert.equal(await page.locator('#preview').count(), 0)
    await page.context().close()
  })

  it('outlines a client-rendered page as the browser built it', async () => {
    const o = (await t.api.get(`/api/domains/${domainId}/pages/${pageIds['/status']}/outline`)).body.data
    const dashboard = o.blocks.find((b: any) => b.text.startsWith('Dashboard'))
    assert.ok(dashboard, JSON.stringify(o))
    assert.equal(dashboard.selector, 'section:has(> :heading("Dashboard"))')
  })

  it('is usable at 375 px and 1280 px, light and dark: nothing wider than the screen, nothing axe finds', sameOnEveryDatabase, async () => {
    for (const [width, scheme] of [[375, 'dark'], [1280, 'dark'], [375, 'light'], [1280, 'light']] as const) {
      const page = await signedIn(width, scheme)
      const view = `${t.url}/app/domains/${domainId}/pages/${pageIds['/pricing']}`
      await page.goto(`${view}?ignore=${encodeURIComponent('p.live-counter')}#preview`)
      assert.match(await page.locator('#preview').innerText(), /With these rules/)
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth)
      assert.ok(overflow <= width, `${width} px ${scheme}: the view is ${overflow} px wide`)
      await shot(page, `outline-${width}-${scheme}`, { fullPage: true })
      await assertAccessible(page, { every: true })
      await page.context().close()
    }
  })
})

// A page's view does not wait for its outline past OUTLINE_WAIT_MS (here 0: never): it is
// shown at once, and the outline follows, loaded by the page's own script under the app's
// CSP, or by its link where scripts do not run.
describe("a page's view before its outline is read", () => {
  const site = new TestSite()
  let t: TestService
  let browser: Browser
  let view = ''

  before(async () => {
    await site.start()
    site.page('/', layout('Acme', '<h1>Acme</h1><p>We ship.</p>'))
    site.page('/pricing', pricing('$20', 12))
    t = await startTestService({ CRAWL_HOST_MAP: `acme.test=${site.origin}`, OUTLINE_WAIT_MS: '0' })
    const db = t.service.store.db
    const org = (await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id
    await addUser(db, org, { email: 'analyst@example.test', password: PASSWORD }, 'owner')
    const domainId = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data.id
    await drainJobs(t.api)
    const listed = (await t.api.get(`/api/domains/${domainId}/pages?pageSize=500`)).body.data as any[]
    const pageId = listed.find(p => p.url === 'https://acme.test/pricing')?.id ??
      (await t.api.post(`/api/domains/${domainId}/pages`, { url: 'https://acme.test/pricing' })).body.data.id
    await drainJobs(t.api)
    view = `${t.url}/app/domains/${domainId}/pages/${pageId}`
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
    await site.close()
  })

  it('shows the view at once, and its script loads the outline in its place, under the CSP', async () => {
    const page = await signedInAs(browser, t.url, { email: 'analyst@example.test', password: PASSWORD }, 1280, 'light')
    const problems: string[] = []
    page.on('console', m => { if (m.type() === 'error') problems.push(m.text()) })
    page.on('pageerror', e => problems.push(e.message))
    const cookie = (await page.context().cookies()).map(c => `${c.name}=${c.value}`).join('; ')
    // As the server sends it: the place of the outline, and where it comes from.
    const sent = await (await fetch(view, { headers: { cookie } })).text()
    assert.match(sent, /data-load-from="[^"]*outline=wait/)
    assert.doesNotMatch(sent, /<ol class="outline"/)
    // Asked to wait (the link a person without scripts follows): the outline itself.
    const waited = await (await fetch(`${view}?outline=wait`, { headers: { cookie } })).text()
    assert.match(waited, /<ol class="outline"/)
    assert.doesNotMatch(waited, /data-load-from/)
    await page.goto(view)
    await page.locator('ol.outline li', { hasText: /Pro/ }).first().waitFor()
    assert.equal(await page.locator('[data-load-from]').count(), 0)
    assert.equal(await page.locator('#outline-picker time').first().innerText().then(s => /T\d\d:/.test(s)), false,
      'its times are shown in the reader\'s locale')
    await page.getByLabel('Ignore: 12 teams are looking at this page right now').check()
    await page.getByRole('button', { name: 'Preview what will be compared' }).click()
    assert.match(await page.locator('#preview').innerText(), /With these rules/)
    assert.deepEqual(problems, [])
    await assertAccessible(page, { every: true })
    await page.context().close()
  })
})
