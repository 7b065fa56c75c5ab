import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import type { Browser, Page } from 'playwright-core'
import { addUser } from '../../src/services/accounts.js'
import { assertAccessible, launchBrowser, shot } from '../helpers/browser.js'
import { drainJobs, startTestService, type TestService } from '../helpers/service.js'

// Organising what matters, in the app: a domain's tags written on its page, shown in the
// domain list as links to the domains that share them, and a filter of the inbox; a
// change said important or not, what Sitewatch offers to learn from it, and the learned
// rules listed under Alerts, where removing one undoes it.

const PASSWORD = 'a long enough password'
const OPERATOR = 'operator-token-of-the-tests'

describe('tags and feedback in the app, in a browser', () => {
  let t: TestService
  let browser: Browser
  let page: Page
  const ids: Record<string, string> = {}

  before(async () => {
    t = await startTestService({
      CRAWL_HOST_MAP: 'rival.test=http://127.0.0.1:9,vendor.test=http://127.0.0.1:9', ADMIN_TOKEN: OPERATOR
    })
    const db = t.service.store.db
    const org = (await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id
    await addUser(db, org, { email: 'owner@example.test', password: PASSWORD }, 'owner')
    for (const domain of ['rival.test', 'vendor.test']) {
      const id = (await t.api.post('/api/domains', { domain })).body.data.id as string
      ids[domain] = id
      await sql`WITH p AS (
          INSERT INTO pages (domain_id, org_id, url, url_hash, page_type)
          SELECT id, org_id, 'https://' || hostname || '/pricing', hostname, 'pricing' FROM domains WHERE id = ${id}::uuid
          RETURNING id, org_id, domain_id),
        s AS (INSERT INTO snapshots (page_id, org_id, content_hash, content, http_status)
          SELECT id, org_id, 'h', 'text', 200 FROM p RETURNING id, page_id)
        INSERT INTO changes (page_id, domain_id, org_id, change_type, severity, confidence, summary, diff_data,
          snapshot_before_id, snapshot_after_id, alerted_at)
        SELECT p.id, p.domain_id, p.org_id, 'price_change', 'high', 0.9, 'Pro plan price on ' || ${domain},
          '{"before":"","after":"","stats":{"additions":0,"deletions":0,"changes":0},"hunks":[],"facts":[{"kind":"price_up","subject":"Pro","before":"$49/month","after":"$59/month","percent":20}]}'::jsonb,
          s.id, s.id, now()
        FROM p JOIN s ON s.page_id = p.id`.execute(db)
      await sql`INSERT INTO changes (page_id, domain_id, org_id, change_type, severity, confidence, summary, diff_data,
          snapshot_before_id, snapshot_after_id, alerted_at)
        SELECT page_id, domain_id, org_id, 'content_change', 'low', 0.7, 'Tickets answered: 1204 → 1311 on ' || ${domain},
          jsonb_build_object('before', '', 'after', '', 'stats', jsonb_build_object('additions', 1, 'deletions', 1, 'changes', 1),
            'hunks', jsonb_build_array(jsonb_build_object('oldStart', 2, 'oldLines', 1, 'newStart', 2, 'newLines', 1,
              'lines', jsonb_build_array(
                jsonb_build_object('type', 'deletion', 'content', 'Tickets answered this week: 1204'),
                jsonb_build_object('type', 'addition', 'content', 'Tickets answered this week: 1311'))))),
          snapshot_before_id, snapshot_after_id, now()
        FROM changes WHERE domain_id = ${id}::uuid`.execute(db)
    }
    await drainJobs(t.api, 60_000) // their discoveries: a page that is still discovering refreshes itself
    browser = await launchBrowser()
    const context = await browser.newContext({ viewport: { width: 375, height: 800 }, colorScheme: 'dark' })
    page = await context.newPage()
    await page.goto(`${t.url}/app/sign-in`)
    await page.fill('#email', 'owner@example.test')
    await page.fill('#password', PASSWORD)
    await page.click('button[type=submit]')
    await page.waitForURL(/\/app\/domains/)
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
  })

  const accessible = async () => {
    await assertAccessible(page)
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${page.url()} fits`)
  }

  it("a domain's tags are written on its page and kept as people mean them", async () => {
    await page.goto(`${t.url}/app/domains/${ids['rival.test']}`)
    await page.getByLabel('Tags').fill(' Direct competitors, EU ,eu')
    await page.getByRole('button', { name: 'Save tags' }).click()
    await page.waitForURL(/done=tagged/)
    assert.match(await page.textContent('main') ?? '', /Tags saved/)
    assert.equal(await page.getByLabel('Tags').inputValue(), 'direct competitors, eu')
    assert.deepEqual((await t.api.get(`/api/domains/${ids['rival.test']}`)).body.data.tags, ['direct competitors', 'eu'])
    await page.getByLabel('Tags').fill('x'.repeat(41))
    await page.getByRole('button', { name: 'Save tags' }).click()
    assert.match(await page.textContent('main') ?? '', /is not a tag: at most 40 characters/)
    assert.deepEqual((await t.api.get(`/api/domains/${ids['rival.test']}`)).body.data.tags, ['direct competitors', 'eu'])
    await accessible()
  })

  it('the domain list shows the tags; one opens the domains that have it, and their changes', async () => {
    await page.goto(`${t.url}/app/domains`)
    await page.getByRole('link', { name: 'direct competitors' }).click()
    await page.waitForURL(/\/app\/domains\?tag=direct/)
    const main = await page.textContent('main') ?? ''
    assert.match(main, /Domains tagged direct competitors/)
    assert.match(main, /rival\.test/)
    assert.doesNotMatch(main, /vendor\.test/)
    await accessible()
    await page.getByRole('link', { name: 'Their changes' }).click()
    await page.waitForURL(/\/app\/changes\?tag=/)
    assert.equal(await page.getByLabel('Tag').inputValue(), 'direct competitors')
    const inbox = await page.textContent('main') ?? ''
    assert.match(inbox, /Pro plan price on rival\.test/)
    // Each change names its page, not only its domain.
    const row = page.getByRole('row').filter({ hasText: 'Pro plan price on rival.test' })
    assert.equal((await row.locator('td[data-label="Page"]').innerText()).replace(/\s+/g, ' ').trim(), 'rival.test /pricing')
    assert.doesNotMatch(inbox, /on vendor\.test/)
    await page.getByLabel('Tag').selectOption('')
    await page.getByRole('button', { name: 'Filter' }).click()
    assert.match(await page.textContent('main') ?? '', /on vendor\.test/)
    await accessible()
  })

  it('"not important" offers what it can learn; the rule taken is listed under Alerts and removed there', async () => {
    await page.goto(`${t.url}/app/changes`)
    await page.getByRole('link', { name: /Tickets answered: 1204 → 1311 on rival\.test/ }).click()
    await page.getByRole('button', { name: 'Not important' }).click()
    await page.waitForURL(/done=not-important/)
    const main = await page.textContent('main') ?? ''
    assert.match(main, /Marked as not important/)
    assert.match(main, /Mute "Tickets answered this week: …" on this page/)
    await accessible()
    await page.getByRole('button', { name: 'Mute it' }).click()
    await page.waitForURL(/done=learned/)
    assert.match(await page.textContent('main') ?? '', /Learned from this change[\s\S]*Mutes text matching Tickets/)
    const rival = (await t.api.get(`/api/domains/${ids['rival.test']}`)).body.data.pages[0].id
    const rules = (await t.api.get(`/api/domains/${ids['rival.test']}/pages/${rival}`)).body.data.noiseRules
    assert.equal(rules.ignorePatterns.length, 1)
    await page.getByRole('link', { name: 'everything learned' }).click()
    const learned = page.locator('#learned + ul')
    assert.match(await learned.innerText(), /Mutes text matching Tickets.* on https:\/\/rival\.test\/pricing/)
    await accessible()
    await learned.getByRole('button', { name: /Remove/ }).click()
    await page.waitForURL(/done=forgotten/)
    assert.match(await page.textContent('main') ?? '', /The learned rule is removed[\s\S]*Nothing yet/)
    assert.deepEqual((await t.api.get(`/api/domains/${ids['rival.test']}/pages/${rival}`)).body.data.noiseRules.ignorePatterns, [])
  })

  it('"not important" on a price offers to mute that plan\'s price moves, not every price of the page', async () => {
    await page.goto(`${t.url}/app/changes`)
    await page.getByRole('link', { name: 'Pro plan price on vendor.test' }).click()
    await page.getByRole('button', { name: 'Not important' }).click()
    await page.waitForURL(/done=not-important/)
    const offer = page.locator('ul.offers li').filter({ hasText: 'Mute price moves of "Pro" on this page' })
    assert.equal(await offer.count(), 1)
    assert.doesNotMatch(await page.locator('ul.offers').innerText(), /Lower later price changes/)
    await accessible()
    await offer.getByRole('button', { name: 'Mute it' }).click()
    await page.waitForURL(/done=learned/)
    assert.match(await page.textContent('main') ?? '', /Learned from this change[\s\S]*Mutes price moves of "Pro"/)
    const vendor = (await t.api.get(`/api/domains/${ids['vendor.test']}`)).body.data.pages[0].id
    const rules = (await t.api.get(`/api/domains/${ids['vendor.test']}/pages/${vendor}`)).body.data.noiseRules
    assert.deepEqual(rules.ignoreFacts, [{ kind: 'price', subject: 'Pro' }])
    // The page's settings show it, and saving them keeps it.
    await page.goto(`${t.url}/app/domains/${ids['vendor.test']}`)
    const facts = page.locator('textarea[name="ignoreFacts"]').first()
    assert.equal(await facts.inputValue(), 'price: Pro')
    await facts.evaluate(el => el.closest('form')!.requestSubmit())
    await page.waitForURL(/done=saved/)
    const saved = (await t.api.get(`/api/domains/${ids['vendor.test']}/pages/${vendor}`)).body.data.noiseRules
    assert.deepEqual(saved.ignoreFacts, [{ kind: 'price', subject: 'Pro' }])
  })

  it('the inbox tells of new and removed pages; one found and not watched is watched from there', async () => {
    await sql`INSERT INTO page_events (org_id, domain_id, kind, url, page_type, watched)
      SELECT org_id, id, 'discovered', 'https://rival.test/security', 'security', false FROM domains
      WHERE id = ${ids['rival.test']}::uuid`.execute(t.service.store.db)
    await page.goto(`${t.url}/app/changes`)
    const section = page.getByRole('region', { name: 'New and removed pages' })
    assert.match(await section.innerText(), /New security page on rival\.test: https:\/\/rival\.test\/security/)
    await accessible()
    await section.getByRole('button', { name: 'Watch https://rival.test/security' }).click()
    const pages = (await t.api.get(`/api/domains/${ids['rival.test']}/pages`)).body.data as any[]
    assert.ok(pages.some(p => p.url === 'https://rival.test/security'))
  })

  it('an alert rule is written in a form, tried on the last 30 days, saved and deleted', async () => {
    // As an operator changes a plan: the API's cached keys learn it at once (a row changed behind the
    // service's back would be seen only once the key's lookup expires).
    const org = (await t.service.store.db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id
    const planned = await fetch(`${t.url}/admin/orgs/${org}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'enterprise' })
    })
    assert.equal(planned.status, 200)
    await page.goto(`${t.url}/app/alerts#rules`)
    const form = page.getByRole('form', { name: 'Write an alert rule' })
    await form.getByLabel('Name', { exact: true }).fill('Quiet counters')
    await form.getByRole('group', { name: /Of type/ }).getByLabel('content change').check()
    await form.getByRole('group', { name: /Of domains/ }).getByLabel('rival.test').check()
    await form.getByLabel(/lines mention/).fill('tickets answered')
    // A new rule starts on alerting: muting is a choice made on purpose.
    assert.equal(await form.getByLabel('Then').inputValue(), 'alert')
    await form.getByLabel('Then').selectOption('mute')
    await form.getByRole('button', { name: 'Try it on the last 30 days' }).click()
    const status = await page.getByRole('status').filter({ hasText: 'On the last 30 days' }).innerText()
    assert.match(status, /this rule would have decided 1 of 4 changes \(mute\)[\s\S]*3 alerted, 0 for the digest, 1 muted/)
    assert.equal(await form.getByLabel('Name', { exact: true }).inputValue(), 'Quiet counters', 'the form keeps what was written')
    await accessible()
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.emulateMedia({ colorScheme: 'light' })
    await shot(form, 'alert-rules', { docs: true })
    await page.setViewportSize({ width: 375, height: 800 })
    await page.emulateMedia({ colorScheme: 'dark' })
    await form.getByRole('button', { name: 'Save rule' }).click()
    await page.waitForURL(/done=rule/)
    assert.match(await page.textContent('main') ?? '',
      /Quiet counters: type content change, of rival\.test, mentioning "tickets answered" → mute/)
    const [rule] = (await t.api.get('/api/alert-rules')).body.data
    assert.deepEqual(rule.match, { changeTypes: ['content_change'], domainIds: [ids['rival.test']], words: ['tickets answered'] })
    await page.getByRole('button', { name: 'Delete the rule Quiet counters' }).click()
    await page.waitForURL(/done=rule-deleted/)
    assert.deepEqual((await t.api.get('/api/alert-rules')).body.data, [])
    // The digest, too, narrows to tags.
    await page.getByLabel(/Only domains tagged/).fill('Direct competitors')
    await page.getByRole('button', { name: 'Save e-mail alerts' }).click()
    await page.waitForURL(/done=email/)
    const [mine] = (await t.api.get('/api/alert-settings')).body.data
    assert.deepEqual(mine.tags, ['direct competitors'])
    assert.equal(await page.getByLabel(/Only domains tagged/).inputValue(), 'direct competitors')
  })

  it('"important" pins the change, said in the inbox', async () => {
    await page.goto(`${t.url}/app/changes`)
    await page.getByRole('link', { name: /Tickets answered: 1204 → 1311 on vendor\.test/ }).click()
    await page.getByRole('button', { name: 'Important', exact: true }).click()
    await page.waitForURL(/done=pinned/)
    assert.match(await page.textContent('main') ?? '', /Pinned as important/)
    await page.goto(`${t.url}/app/changes`)
    assert.match(await page.locator('tr', { hasText: 'on vendor.test' }).first().innerText(), /pinned as important/)
  })
})
