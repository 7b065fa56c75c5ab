import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { after, before, describe, it } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { addUser } from '../../src/services/accounts.js'
import { createOrg } from '../../src/services/orgs.js'
import { unsubscribeToken } from '../../src/services/mail-alerts.js'
import { createShareLink } from '../../src/services/share.js'
import { findOrg, setShareLinks } from '../../src/store/orgs.js'
import { serviceSecret } from '../../src/store/secrets.js'
import { layout, pricingMain } from '../helpers/fixtures.js'
import { eventually, freePort, sameOnEveryDatabase, startTestService, type TestService } from '../helpers/service.js'
import { wordsCut } from '../helpers/layout-checks.js'
import { TestSite } from '../helpers/site.js'
import { assertAccessible, launchBrowser, shot } from '../helpers/browser.js'
import { startSmtp } from '../helpers/smtp.js'

// The web app in the project's own Chromium against a real server, a local site and a
// real SMTP server: the first owner, a domain added and its change acknowledged, a viewer
// invited by e-mail, a starter organisation, and the app's security and accessibility.

const PASSWORD = 'correct horse battery'

describe('the web app, in a browser', () => {
  let site: TestSite
  let t: TestService
  let browser: Browser
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let hooks: Server
  const hookCalls: Array<{ event: string, body: string }> = []
  const problems: string[] = []

  before(async () => {
    site = await new TestSite().start()
    site.page('/', layout('Acme', '<h1>Acme</h1><p>We ship <b>fast</b>. &lt;script&gt;alert(1)&lt;/script&gt; is how we test.</p><a href="/pricing">Pricing</a>'))
    site.page('/pricing', layout('Pricing', pricingMain('$49')))
    smtp = await startSmtp()
    hooks = createServer((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => { body += c.toString() })
      req.on('end', () => { hookCalls.push({ event: String(req.headers['x-sitewatch-event']), body }); res.end('ok') })
    })
    await new Promise<void>(resolve => hooks.listen(0, '127.0.0.1', resolve))
    const hooksOrigin = `http://127.0.0.1:${(hooks.address() as { port: number }).port}`
    const port = await freePort()
    t = await startTestService({
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      CRAWL_HOST_MAP: `acme.test=${site.origin}`,
      ALERT_HOST_MAP: `hooks.test=${hooksOrigin}`,
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Sitewatch <sitewatch@example.test>'
    })
    // One process per page (not the single process @sparticuz/chromium suggests for Lambda): contexts come and go.
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
    await site?.close()
    hooks?.close()
    await smtp?.close()
  })

  /** A browser context that records console errors, page errors and CSP refusals. */
  const person = async (): Promise<{ context: BrowserContext, page: Page }> => {
    const context = await browser.newContext({ locale: 'en-GB', timezoneId: 'Europe/Paris' })
    const page = await context.newPage()
    // A refused page (401, 403, 404 on purpose) is logged as a failed load: the tests check those answers themselves.
    page.on('console', m => {
      if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) {
        problems.push(`${page.url()}: ${m.text()}`)
      }
    })
    page.on('pageerror', e => problems.push(`${page.url()}: ${e.message}`))
    page.on('dialog', d => { problems.push(`a dialog opened: ${d.message()}`); void d.dismiss() })
    return { context, page }
  }

  /** No serious or critical violation of axe-core's rules on the page as it is. */
  let owner: { context: BrowserContext, page: Page }
  let changeUrl = ''

  it('the first-start link makes an owner account; the owner signs in and out', async () => {
    owner = await person()
    const { page } = owner
    assert.match(t.setupLink, /\/app\/setup\/[\w-]{40,}$/)
    await page.goto(t.setupLink)
    await assertAccessible(page)
    await page.getByLabel('Email').fill('owner@example.test')
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.waitForURL('**/app/domains')
    const cookie = (await owner.context.cookies()).find(c => c.name === 'sw_session')!
    assert.equal(cookie.httpOnly, true)
    assert.equal(cookie.sameSite, 'Lax')
    // The link worked once.
    const again = await (await owner.context.newPage()).goto(t.setupLink)
    assert.equal(again?.status(), 404)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL('**/app/sign-in?done=out')
    await assertAccessible(page)
    await page.getByLabel('Email').fill('owner@example.test')
    await page.getByLabel('Password').fill('wrong password!')
    await page.getByRole('button', { name: 'Sign in' }).click()
    assert.match(await page.textContent('main') ?? '', /do not match an account/)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL('**/app/domains')
    assert.notEqual((await owner.context.cookies()).find(c => c.name === 'sw_session')!.value, cookie.value, 'a new session')
  })

  it('a domain added from the form is discovered, and a change of the site appears, with its diff', async () => {
    const { page } = owner
    await assertAccessible(page)
    await page.getByLabel('Domain').fill('acme.test')
    await page.getByRole('button', { name: 'Add domain' }).click()
    await page.waitForURL(/\/app\/domains\/[0-9a-f-]{36}/)
    await eventually(async () => {
      await page.reload()
      return /Status: active/.test(await page.textContent('main') ?? '') && /pricing/.test(await page.textContent('main') ?? '') ? true : undefined
    }, 30_000, 'discovery to finish')
    await assertAccessible(page)
    await shot(page, 'domain', { fullPage: true })
    // The first crawl is the baseline; the price moves; a crawl now finds it.
    await eventually(async () => (await t.service.store.db.selectFrom('snapshots').select('id').execute()).length >= 2 ? true : undefined,
      30_000, 'the first snapshots')
    site.page('/pricing', layout('Pricing', pricingMain('$59')))
    await page.getByRole('button', { name: 'Crawl now' }).click()
    assert.match(await page.textContent('main') ?? '', /crawl of every monitored page is queued/)
    await page.goto(`${t.url}/app/changes`)
    const link = await eventually(async () => {
      await page.reload()
      const l = page.getByRole('link', { name: /\$49\/month.*\$59\/month/ })
      return (await l.count()) > 0 ? l.first() : undefined
    }, 30_000, 'the change in the inbox')
    await assertAccessible(page)
    await page.goto(`${t.url}/app/domains`)
    await shot(page, 'domains', { docs: true, fullPage: true })
    await page.goBack()
    await link.click()
    changeUrl = page.url()
    const main = await page.textContent('main') ?? ''
    assert.match(main, /high/)
    assert.match(main, /price change/)
    // The pricing page is an intelligence page: its plans are shown as a table, before and after.
    assert.deepEqual(await page.getByRole('table', { name: 'Prices before and after' }).getByRole('row').allInnerTexts(), [
      'Plan\tBefore\tAfter', 'Starter\t$19/month\t$19/month', 'Pro\t$49/month\t$59/month',
      'Business\t$99/month\t$99/month'
    ])
    assert.equal(await page.locator('ul.moves li').textContent(), 'Pro: $49/month → $59/month (+20%)')
    // Whole words are marked, never a part of one.
    assert.equal(await page.locator('del').first().textContent(), '$49/month')
    assert.equal(await page.locator('ins').first().textContent(), '$59/month')
    await assertAccessible(page)
  })

  it('acknowledging names the person', async () => {
    const { page } = owner
    await page.getByRole('button', { name: 'Acknowledge' }).click()
    assert.match(await page.textContent('main') ?? '', /Acknowledged by owner@example\.test/)
    await shot(page, 'change', { docs: true, fullPage: true })
    const id = changeUrl.split('/').pop()
    const viaApi = (await t.api.get(`/api/changes/${id}`)).body.data
    assert.equal(viaApi.acknowledgedBy, 'owner@example.test')
    assert.equal(viaApi.acknowledgedByKind, 'person')
  })

  it('a page\'s settings (monitoring, priority, render mode, noise rules) are saved from the domain page', async () => {
    const { page } = owner
    const domain = (await t.api.get('/api/domains')).body.data[0]
    await page.goto(`${t.url}/app/domains/${domain.id}`)
    const settings = page.locator('details', { hasText: 'Settings of /pricing' })
    await settings.getByText('Settings of /pricing').click()
    await settings.getByLabel(/Priority/).selectOption('2')
    await settings.getByLabel('Render').selectOption('never')
    await settings.getByLabel(/Ignore text matching/).fill('Updated \\d+ minutes ago')
    await settings.getByLabel(/in a JSON document/).fill('$.plans[*].price')
    await settings.getByRole('button', { name: 'Save page settings' }).click()
    assert.match(await page.textContent('main') ?? '', /Page settings saved/)
    const details = (await t.api.get(`/api/domains/${domain.id}`)).body.data
    const pricingId = details.pages.find((p: any) => p.url.endsWith('/pricing')).id
    const pricing = (await t.api.get(`/api/domains/${domain.id}/pages/${pricingId}`)).body.data
    assert.equal(pricing.render, 'never')
    assert.equal(pricing.priority, 2)
    assert.equal(pricing.intelligence, true)
    assert.match(await page.locator('tr', { hasText: '/pricing' }).first().textContent() ?? '', /intelligence page/)
    assert.deepEqual(pricing.noiseRules.ignorePatterns, ['Updated \\d+ minutes ago'])
    assert.deepEqual(pricing.noiseRules.includePaths, ['$.plans[*].price'])
    assert.equal(pricing.monitoringEnabled, true)
  })

  it('a viewer invited through SMTP joins, may acknowledge, and may not add a domain', async () => {
    const { page } = owner
    await page.goto(`${t.url}/app/members`)
    await assertAccessible(page)
    await page.getByLabel('Email').fill('viewer@example.test')
    await page.getByLabel('Role', { exact: true }).selectOption('viewer')
    await page.getByRole('button', { name: 'Invite' }).click()
    assert.match(await page.textContent('main') ?? '', /Invitation sent/)
    const mail = await eventually(async () => smtp.find('viewer@example.test'), 10_000, 'the invitation')
    const link = /http\S+\/app\/invite\/[\w-]+/.exec(mail.text!)![0]
    const viewer = await person()
    await viewer.page.goto(link)
    await viewer.page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await viewer.page.getByRole('button', { name: 'Create account' }).click()
    await viewer.page.waitForURL('**/app/domains')
    assert.equal(await viewer.page.getByRole('button', { name: 'Add domain' }).count(), 0)
    assert.match(await viewer.page.textContent('main') ?? '', /You are a viewer/)
    // A post anyway, with a valid CSRF token: an explained refusal.
    const csrf = await viewer.page.locator('input[name=_csrf]').first().inputValue()
    const refused = await viewer.context.request.post(`${t.url}/app/domains`, { form: { _csrf: csrf, domain: 'other.test' } })
    assert.equal(refused.status(), 403)
    assert.match(await refused.text(), /needs the editor role/)
    // The viewer acknowledges from the inbox.
    await t.api.post(`/api/changes/${changeUrl.split('/').pop()}/acknowledge`)
    await t.api.request('DELETE', `/api/changes/${changeUrl.split('/').pop()}/acknowledge`)
    await viewer.page.goto(changeUrl)
    await viewer.page.getByRole('button', { name: 'Acknowledge' }).click()
    assert.match(await viewer.page.textContent('main') ?? '', /Acknowledged by viewer@example\.test/)
    await viewer.context.close()
  })

  it('a read key reads and may not write (403); keys are listed by name with who made them, and revoked after a confirmation', async () => {
    const { page } = owner
    await page.goto(`${t.url}/app/keys`)
    await page.getByLabel('Name').fill('CI pipeline')
    await page.getByLabel('Scope').selectOption('read')
    await page.getByRole('button', { name: 'Create key' }).click()
    const key = (await page.locator('.key').first().textContent())!.trim()
    assert.match(key, /^sw_live_/)
    await assertAccessible(page)
    const api = t.api.withKey(key)
    assert.equal((await api.get('/api/domains')).status, 200)
    const write = await api.post('/api/domains', { domain: 'beta.test' })
    assert.equal(write.status, 403)
    assert.equal(write.body.code, 'FORBIDDEN')
    await page.goto(`${t.url}/app/keys`)
    assert.match(await page.textContent('main') ?? '', /owner@example\.test/)
    assert.match(await page.textContent('main') ?? '', /CI pipeline/)
    // Revoking asks first: the button is inside its confirmation, which names the key.
    assert.equal(await page.getByRole('button', { name: 'Revoke CI pipeline for good' }).isVisible(), false)
    await page.getByText('Revoke CI pipeline', { exact: true }).click()
    await page.getByRole('button', { name: 'Revoke CI pipeline for good' }).click()
    await page.waitForURL(/done=revoked/)
    await eventually(async () => (await api.get('/api/domains')).status === 401, 5000, 'the revoked key refused')
  })

  it('an admin adds a webhook, sends it a test event and reads its delivery log', async () => {
    const { page } = owner
    await page.goto(`${t.url}/app/alerts`)
    assert.match(await page.textContent('main') ?? '', /No destinations yet/)
    await assertAccessible(page)
    await page.getByLabel('URL').fill('http://10.0.0.1/hook')
    await page.getByRole('button', { name: 'Add destination' }).click()
    assert.match(await page.textContent('[role=alert]') ?? '', /public address/)
    await page.getByLabel('URL').fill('http://hooks.test/sitewatch?token=secret')
    await page.getByLabel('Description').fill('Our incident channel')
    await page.getByRole('button', { name: 'Add destination' }).click()
    assert.match((await page.locator('[role=status] .key').textContent())!, /^whsec_/)
    assert.doesNotMatch(await page.textContent('main') ?? '', /token=secret/, 'a query string may hold a secret')
    await page.getByRole('link', { name: 'Our incident channel' }).click()
    await assertAccessible(page)
    await page.getByRole('button', { name: 'Send a test event' }).click()
    await eventually(async () => hookCalls.find(c => c.event === 'webhook.test'), 15_000, 'the test event')
    const row = await eventually(async () => {
      await page.reload()
      const r = page.locator('tbody tr', { hasText: 'webhook.test' })
      return /delivered/.test(await r.textContent() ?? '') ? r : undefined
    }, 15_000, 'the delivery in the log')
    assert.match(await row.textContent() ?? '', /200/)
    await shot(page, 'alerts', { fullPage: true })
    await page.getByRole('button', { name: 'Switch off' }).click()
    assert.match(await page.textContent('main') ?? '', /switched off/)
    const viaApi = (await t.api.get('/api/webhooks')).body.data
    assert.equal(viaApi.length, 1)
    assert.equal(viaApi[0].enabled, false)
  })

  it('a post without a CSRF token is refused; page text is shown as text', async () => {
    const refused = await owner.context.request.post(`${t.url}/app/domains`, { form: { domain: 'csrf.test' } })
    assert.equal(refused.status(), 403)
    // Its page leads back to the app's page it came from; another site's address is never offered as the way back.
    const from = async (referer: string) => await (await owner.context.request.post(`${t.url}/app/domains`,
      { form: { domain: 'csrf.test' }, headers: { referer } })).text()
    assert.match(await from(`${t.url}/app/usage?tab=1`), /<a href="\/app\/usage\?tab=1">Back to the page you were on<\/a>/)
    assert.match(await from('https://evil.test/app/usage'), /<a href="\/app\/domains">Back to your domains<\/a>/)
    const { page } = owner
    // The home page's text says <script>…</script>: shown as words, never run.
    const home = (await t.api.get('/api/domains')).body.data[0]
    const details = (await t.api.get(`/api/domains/${home.id}`)).body.data
    const homePage = details.pages.find((p: any) => new URL(p.url).pathname === '/')
    const snap = (await t.api.get(`/api/domains/${home.id}/pages/${homePage.id}/snapshots/latest`)).body.data
    assert.match(snap.text, /<script>alert\(1\)<\/script>/)
    await page.goto(`${t.url}/app/domains/${home.id}`)
    for (const path of ['/app/usage', '/app/account', '/app/members', '/app/changes']) {
      await page.goto(`${t.url}${path}`)
      await assertAccessible(page)
    }
  })

  let briefPath = ''

  it('the Research button spends a credit and opens the brief, which prints as a clean report', async () => {
    const { page } = owner
    await page.goto(`${t.url}/app/domains`)
    await page.getByRole('link', { name: 'acme.test' }).click()
    assert.match(await page.textContent('main') ?? '', /One research credit; 50 left in this period\./)
    await page.getByRole('button', { name: 'Research' }).click()
    await page.waitForURL(/\/app\/research\/[0-9a-f-]{36}$/)
    briefPath = new URL(page.url()).pathname
    // The page updates itself until the brief is ready.
    await page.getByRole('heading', { name: 'Release cadence' }).waitFor({ timeout: 30_000 })
    assert.match(await page.locator('h1').textContent() ?? '', /^Research brief: Acme/)
    // Its print button works, though it came in place of the page that was building (renew in static/assets.ts).
    await page.evaluate(() => { window.print = () => { (window as any).printed = true } })
    await page.getByRole('button', { name: 'Print or save as PDF' }).click()
    assert.equal(await page.evaluate(() => (window as any).printed), true)
    const pricing = page.locator('section', { has: page.getByRole('heading', { name: 'Pricing' }) })
    assert.match(await pricing.textContent() ?? '', /\$49\/month/)
    assert.ok(await pricing.locator('ol.sources li').count() >= 1, 'the pricing section lists its sources')
    await assertAccessible(page)
    await shot(page, 'research', { docs: true, fullPage: true })
    const markdown = await (await page.context().request.get(`${t.url}${briefPath}/markdown`)).text()
    assert.match(markdown, /^# Research brief: Acme/)
    // Printed: the report alone, black on white, the sources' addresses written out.
    await page.emulateMedia({ media: 'print', colorScheme: 'dark' })
    await shot(page, 'research-print', { fullPage: true })
    assert.equal(await page.locator('header.top').isVisible(), false)
    assert.equal(await page.getByRole('button', { name: 'Print or save as PDF' }).isVisible(), false)
    assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(255, 255, 255)')
    assert.match(await page.evaluate(() => getComputedStyle(document.querySelector('.sources a')!, '::after').content),
      /https?:\/\//)
    const pdf = await page.pdf({ format: 'A4' })
    assert.equal(pdf.subarray(0, 4).toString(), '%PDF')
    await page.emulateMedia({ media: 'screen', colorScheme: 'light' })
    await page.goto(`${t.url}/app/domains/${(await t.api.get('/api/domains')).body.data[0].id}`)
    assert.match(await page.textContent('main') ?? '', /One research credit; 49 left in this period\./)
    assert.match(await page.textContent('main') ?? '', /Brief of .* — ready/)
  })

  it('a starter organisation uses the app; its keys page explains why it has no API', async () => {
    const { org } = await createOrg(t.service.store.db, 'Small shop', 'starter')
    await addUser(t.service.store.db, org.id, { email: 'small@example.test', password: PASSWORD }, 'owner')
    const small = await person()
    await small.page.goto(`${t.url}/app/sign-in`)
    await small.page.getByLabel('Email').fill('small@example.test')
    await small.page.getByLabel('Password').fill(PASSWORD)
    await small.page.getByRole('button', { name: 'Sign in' }).click()
    await small.page.waitForURL('**/app/domains')
    await small.page.getByLabel('Domain').fill('acme.test')
    await small.page.getByRole('button', { name: 'Add domain' }).click()
    await small.page.waitForURL(/\/app\/domains\/[0-9a-f-]{36}/)
    // Without the API, research is in the app: ten credits a month.
    assert.match(await small.page.textContent('main') ?? '', /One research credit; 10 left in this period\./)
    await small.page.getByRole('button', { name: 'Research' }).click()
    await small.page.waitForURL(/\/app\/research\/[0-9a-f-]{36}$/)
    // Another organisation's brief is not found here.
    assert.equal((await small.page.goto(`${t.url}${briefPath}`))?.status(), 404)
    // Another organisation's change is not found here.
    assert.equal((await small.page.goto(changeUrl))?.status(), 404)
    await small.page.goto(`${t.url}/app/keys`)
    assert.match(await small.page.textContent('main') ?? '', /does not include API access/)
    await assertAccessible(small.page)
    // Deleting a domain takes two clicks: the button is behind its explanation.
    await small.page.goto(`${t.url}/app/domains`)
    await small.page.getByRole('link', { name: 'acme.test' }).click()
    await small.page.getByText('Delete this domain').click()
    await small.page.getByRole('button', { name: 'Delete acme.test and its history' }).click()
    await small.page.waitForURL('**/app/domains?done=deleted')
    assert.match(await small.page.textContent('main') ?? '', /No domains yet/)
    await small.context.close()
  })

  it('every page fits 375 px and reads in the dark scheme, without an accessibility violation', sameOnEveryDatabase, async () => {
    const domainId = (await t.api.get('/api/domains')).body.data[0].id
    const alertId = (await t.api.get('/api/webhooks')).body.data[0].id
    const domainOrg = (await t.api.get(`/api/domains/${domainId}`)).body.data.orgId
    await setShareLinks(t.service.store.db, domainOrg, true)
    const secret = await serviceSecret(t.service.store.db, 'image-links')
    const pages: Record<string, string> = {
      domains: '/app/domains',
      domain: `/app/domains/${domainId}`,
      changes: '/app/changes',
      change: new URL(changeUrl).pathname,
      usage: '/app/usage',
      alerts: '/app/alerts',
      destination: `/app/alerts/${alertId}`,
      audit: '/app/audit',
      sso: '/app/sso',
      members: '/app/members',
      keys: '/app/keys',
      account: '/app/account',
      research: briefPath,
      shared: new URL((await createShareLink(t.service.store.db, t.url, { orgId: domainOrg, userId: null },
        new URL(changeUrl).pathname.split('/').at(-1)!)).url).pathname,
      unsubscribe: `/app/unsubscribe/${unsubscribeToken(secret,
        (await t.service.store.db.selectFrom('users').select('id').where('email', '=', 'owner@example.test')
          .executeTakeFirstOrThrow()).id, domainOrg)}`
    }
    const storageState = await owner.context.storageState()
    for (const [scheme, viewport] of [['dark', { width: 375, height: 812 }], ['light', { width: 1280, height: 800 }]] as const) {
      const context = await browser.newContext({ storageState, viewport, colorScheme: scheme, locale: 'de-DE', timezoneId: 'America/New_York' })
      const page = await context.newPage()
      page.on('console', m => { if (m.type() === 'error') problems.push(`${page.url()}: ${m.text()}`) })
      for (const [name, path] of Object.entries(pages)) {
        await page.goto(`${t.url}${path}`)
        // What folds away (page settings, the share link) is looked at open.
        await page.locator('details').evaluateAll(all => { for (const d of all) d.setAttribute('open', '') })
        const wide = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth
          ? []
          : [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > window.innerWidth && !e.closest('.scroll'))
              .map(e => `${e.tagName}.${e.className}: ${(e.textContent ?? '').slice(0, 40)}`).slice(0, 5))
        assert.deepEqual(wide, [], `${path} is wider than ${viewport.width} px`)
        // With every setting open the settings' column takes most of a domain's table: its paths break at slashes.
        if (viewport.width === 1280) assert.deepEqual(await wordsCut(page), [], `${path}: words cut at 1280 px`)
        const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor)
        const [r, g, b] = background.match(/\d+/g)!.map(Number)
        assert.equal(r + g + b < 200, scheme === 'dark', `${path}: the ${scheme} scheme's background is ${background}`)
        await assertAccessible(page)
        await shot(page, `${name}-${scheme}-${viewport.width}`, { fullPage: true })
      }
      // Times are shown in the reader's zone and language.
      await page.goto(`${t.url}${pages.change}`)
      assert.match(await page.locator('time').first().textContent() ?? '', /\d{2}\.\d{2}\.\d{4}|\d{1,2}\. \w+/)
      await context.close()
    }
  })

  it('an owner changes the plan, hands the organisation over, and the new owner deletes it', async () => {
    const db = t.service.store.db
    const { org } = await createOrg(db, 'Owned & Co', 'starter')
    await addUser(db, org.id, { email: 'first@example.test', password: PASSWORD }, 'owner')
    await addUser(db, org.id, { email: 'second@example.test', password: PASSWORD }, 'viewer')
    const signIn = async (email: string) => {
      const p = await person()
      await p.page.goto(`${t.url}/app/sign-in`)
      await p.page.getByLabel('Email').fill(email)
      await p.page.getByLabel('Password').fill(PASSWORD)
      await p.page.getByRole('button', { name: 'Sign in' }).click()
      await p.page.waitForURL('**/app/domains')
      return p
    }
    const first = await signIn('first@example.test')
    await first.page.goto(`${t.url}/app/usage`)
    await assertAccessible(first.page)
    await first.page.getByLabel('Plan', { exact: true }).selectOption('pro')
    await first.page.getByRole('button', { name: 'Change plan' }).click()
    assert.match(await first.page.textContent('main') ?? '', /Plan changed/)
    assert.equal((await findOrg(db, org.id))?.plan, 'pro')
    await shot(first.page, 'usage', { fullPage: true })
    await first.page.goto(`${t.url}/app/members`)
    await first.page.getByLabel('New owner').selectOption({ label: 'second@example.test' })
    await first.page.getByRole('button', { name: 'Transfer ownership' }).click()
    assert.match(await first.page.textContent('main') ?? '', /you are an admin now/)
    assert.match(await first.page.textContent('header') ?? '', /\(admin\)/)
    await first.page.goto(`${t.url}/app/usage`)
    assert.equal(await first.page.getByRole('button', { name: 'Delete organisation' }).count(), 0)

    const second = await signIn('second@example.test')
    await second.page.goto(`${t.url}/app/usage`)
    await second.page.getByLabel(/Type the organisation/).fill('Owned and Co')
    await second.page.getByRole('button', { name: 'Delete organisation' }).click()
    assert.match(await second.page.textContent('[role=alert]') ?? '', /Type the organisation's name, Owned & Co/)
    assert.ok(await findOrg(db, org.id), 'a wrong name deletes nothing')
    await second.page.getByLabel(/Type the organisation/).fill('Owned & Co')
    await second.page.getByRole('button', { name: 'Delete organisation' }).click()
    await second.page.waitForURL('**/app/sign-in?done=org-deleted')
    assert.equal(await findOrg(db, org.id), undefined)
    await first.context.close()
    await second.context.close()
  })

  it('the API explorer at /swagger works under a policy of its own: never framed, nothing fetched elsewhere', async () => {
    const { context, page } = await person()
    const res = await page.goto(`${t.url}/swagger`)
    const csp = res!.headers()['content-security-policy']
    assert.match(csp, /frame-ancestors 'none'/)
    assert.doesNotMatch(csp, /validator\.swagger\.io|upgrade-insecure-requests/)
    await page.getByText('Re-run page discovery').first().waitFor()
    await context.close()
  })

  it('no console error and no CSP violation on any page', () => {
    assert.deepEqual(problems, [])
  })
})
