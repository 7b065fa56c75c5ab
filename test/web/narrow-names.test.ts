// Every view a person reaches from /app, at 375 px, light and dark, with the names the web
// uses: a 51-character host, a 100-character e-mail, a documentation path of CamelCase
// words with no break in it, a long webhook URL, tag and key names. The walk follows every
// link of the app it finds (once per path pattern), opens what folds away, and lists each
// view that scrolls sideways with what sticks out.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser } from 'playwright-core'
import { addUser, invite } from '../../src/services/accounts.js'
import { launchBrowser, shot, signedIn } from '../helpers/browser.js'
import { layout, pricingMain } from '../helpers/fixtures.js'
import { drainJobs, sameOnEveryDatabase, startTestService, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

const PASSWORD = 'a long enough password'
const HOST = 'documentation-and-pricing.enterprise-platforms.test'
const LONG_EMAIL = `${'firstname.middlename.lastname'.repeat(2)}.department@${'subsidiary-'.repeat(3)}group.example.test`
const DOC_PATH = '/documentation/ConfigurationManagementForEnterpriseDeploymentsAndClusterAdministration'

/** A path's pattern: its ids as :id, so that one domain's page stands for every domain's. */
const patternOf = (path: string) => path.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, ':id')

describe('every view at 375 px with the web\'s long names', () => {
  let site: TestSite
  let t: TestService
  let browser: Browser

  before(async () => {
    site = await new TestSite().start()
    site.page('/', layout('Platform', `<h1>Platform</h1><a href="/pricing">Pricing</a><a href="${DOC_PATH}">Docs</a>`))
    site.page('/pricing', layout('Pricing', pricingMain('$49')))
    site.page(DOC_PATH, layout('Configuration', '<h1>ConfigurationManagementForEnterpriseDeployments</h1><p>Set it up.</p>'))
    t = await startTestService({ CRAWL_HOST_MAP: `${HOST}=${site.origin}` })
    assert.equal(LONG_EMAIL.length >= 100, true, LONG_EMAIL)
    assert.equal(HOST.length, 51)
    const db = t.service.store.db
    const orgId = (await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id
    await db.updateTable('orgs').set({ plan: 'enterprise' }).execute()
    await addUser(db, orgId, { email: LONG_EMAIL, password: PASSWORD }, 'owner')
    await invite(db, { role: 'owner' }, orgId, `invited.${LONG_EMAIL}`, 'viewer')
    const created = (await t.api.post('/api/domains', { domain: HOST })).body.data
    await drainJobs(t.api)
    await t.api.post(`/api/domains/${created.id}/pages`, { url: `https://${HOST}${DOC_PATH}?tab=AdvancedSettings` })
    await t.api.post('/api/webhooks', {
      url: `https://hooks.${'integration-'.repeat(4)}example.test/services/T000000/B000000/${'x'.repeat(60)}`,
      events: ['change.detected']
    })
    site.page('/pricing', layout('Pricing', pricingMain('$59')))
    await t.api.post(`/api/domains/${created.id}/crawl`)
    await drainJobs(t.api)
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
    await site?.close()
  })

  it('no view scrolls sideways, in either scheme', sameOnEveryDatabase, async () => {
    const tooWide: string[] = []
    for (const scheme of ['dark', 'light'] as const) {
      const page = await signedIn(browser, t.url, { email: LONG_EMAIL, password: PASSWORD }, 375, scheme)
      const seen = new Set<string>()
      const queue = ['/app/domains']
      while (queue.length > 0 && seen.size < 60) {
        const path = queue.shift()!
        if (seen.has(patternOf(path))) continue
        seen.add(patternOf(path))
        const res = await page.goto(`${t.url}${path}`)
        if (!res || res.status() >= 400) continue
        await page.locator('details').evaluateAll(all => { for (const d of all) d.setAttribute('open', '') })
        const wider = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth
          ? []
          : [...document.querySelectorAll('body *')]
              .filter(e => e.getBoundingClientRect().left + e.scrollWidth > window.innerWidth + 1 && !e.closest('.scroll'))
              .map(e => `<${e.tagName.toLowerCase()}>: ${(e.textContent ?? '').trim().slice(0, 50)}`).slice(-3))
        await shot(page, `narrow-${scheme}${patternOf(path.split('?')[0]).replace(/[/:]+/g, '-')}`, { fullPage: true })
        if (wider.length > 0) tooWide.push(`${scheme} ${path} (${await page.evaluate(() => document.documentElement.scrollWidth)} px): ${wider.join('; ')}`)
        const links = await page.locator('a[href^="/app/"]').evaluateAll(all => all.map(a => a.getAttribute('href')!))
        for (const href of links) {
          const next = href.split('#')[0]
          if (!/\/(sign-out|static)\b|\.csv|\/export/.test(next) && !seen.has(patternOf(next))) queue.push(next)
        }
      }
      assert.ok(seen.size >= 12, `walked ${[...seen].join(', ')}`)
      await page.context().close()
    }
    assert.deepEqual(tooWide, [])
  })
})
