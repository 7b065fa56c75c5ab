import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { runMailDigests } from '../../src/alerts/mail.js'
import { localClock } from '../../src/domain/mail-alerts.js'
import { addUser } from '../../src/services/accounts.js'
import { layout, pricingMain, startAcmeSite, acmeHostMap } from '../helpers/fixtures.js'
import { drainJobs, eventually, freePort, startTestService, waitForJob, type TestService } from '../helpers/service.js'
import type { TestSite } from '../helpers/site.js'
import { startSmtp } from '../helpers/smtp.js'
import { FormClient } from '../helpers/web-client.js'

// Alert e-mails through a real SMTP server: a change as it is found, digests at the
// member's local hour, one-click unsubscribe, retries on 4xx, a pause after bounces; and
// the Atom feeds.

const PASSWORD = 'mail test password'

describe('alerts by e-mail and Atom feeds', () => {
  let site: TestSite
  let t: TestService
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  const refusedOnce = new Set<string>()
  let ownerId = ''

  before(async () => {
    site = await startAcmeSite()
    smtp = await startSmtp(to => {
      if (to.startsWith('bounce@')) return { code: 550, message: '5.1.1 No such user' }
      if (to.startsWith('busy@') && !refusedOnce.has(to)) {
        refusedOnce.add(to)
        return { code: 451, message: '4.2.1 Try again later' }
      }
      return undefined
    })
    const port = await freePort()
    t = await startTestService({
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      CRAWL_HOST_MAP: acmeHostMap(site),
      SMTP_URL: smtp.url
    })
    const db = t.service.store.db
    const org = (await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id
    ownerId = (await addUser(db, org, { email: 'owner@example.test', password: PASSWORD }, 'owner')).id
    await addUser(db, org, { email: 'busy@example.test', password: PASSWORD }, 'viewer')
  })
  after(async () => {
    await t?.stop()
    await site?.close()
    await smtp?.close()
  })

  const mailTo = (to: string, subject: RegExp) => smtp.find(to, subject)

  it('a change found is e-mailed at once to members on realtime, with a diff excerpt and one-click unsubscribe', async () => {
    const created = await t.api.post('/api/domains', { domain: 'acme.test' })
    assert.equal(created.status, 201)
    await waitForJob(t.api, created.body.data.discoveryJobId)
    await drainJobs(t.api)
    site.page('/pricing', layout('Pricing — Acme', pricingMain('$59')))
    await waitForJob(t.api, (await t.api.post(`/api/domains/${created.body.data.id}/crawl`)).body.data.jobIds[0])
    const mail = await eventually(async () => mailTo('owner@example.test', /\$49\/month → \$59\/month/), 20_000, 'the change e-mail')
    assert.match(mail.subject!, /^\[high\] acme\.test — .*\$49\/month → \$59\/month/)
    assert.match(mail.text!, /Severity: high · price change/)
    assert.match(mail.text!, /- .*\$49\/month/)
    assert.match(mail.text!, /\+ .*\$59\/month/)
    assert.match(String(mail.html), /<del[^>]*>[^<]*\$49\/month<\/del>/)
    assert.match(String(mail.html), /<ins[^>]*>[^<]*\$59\/month<\/ins>/)
    const changeLink = /See the change: (\S+)/.exec(mail.text!)![1]
    assert.match(changeLink, new RegExp(`^${t.url}/app/changes/[0-9a-f-]{36}$`))
    const header = (name: string) => mail.headerLines.find(h => h.key === name)?.line.replace(/^[^:]+:\s*/, '')
    assert.equal(header('list-unsubscribe-post'), 'List-Unsubscribe=One-Click')
    const unsubscribe = /^<([^>]+)>$/.exec(header('list-unsubscribe') ?? '')![1]
    assert.match(unsubscribe, new RegExp(`^${t.url}/app/unsubscribe/`))
    // The viewer whose server said 451 first got it on the retry.
    await eventually(async () => mailTo('busy@example.test', /\$59\/month/), 20_000, 'the retried e-mail')
    const log = (await t.api.get('/api/email-deliveries')).body
    const busy = log.data.find((e: any) => e.to === 'busy@example.test')
    assert.equal(busy.status, 'delivered')
    assert.equal(busy.attempts, 2)
    assert.ok(log.data.every((e: any) => e.kind === 'change'))

    // One click, as a mail client does it: no session, no CSRF token.
    const res = await fetch(unsubscribe, {
      method: 'POST', body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' }
    })
    assert.equal(res.status, 200)
    const settings = (await t.api.get('/api/alert-settings')).body.data
    assert.equal(settings.find((s: any) => s.email === 'owner@example.test').mode, 'off')
    const forged = await fetch(unsubscribe.replace(/.$/, (c: string) => c === 'A' ? 'B' : 'A'), { method: 'POST', body: 'List-Unsubscribe=One-Click' })
    assert.equal(forged.status, 404)
  })

  it('a daily digest comes at the member\'s local hour, grouped by domain; an empty one is not sent', async () => {
    const now = new Date()
    const tokyo = localClock('Asia/Tokyo', now)
    const put = await t.api.request('PUT', `/api/alert-settings/${ownerId}`, { body: { mode: 'daily', timeZone: 'Asia/Tokyo', hour: tokyo.hour } })
    assert.equal(put.status, 200)
    assert.equal(put.body.data.chosen, true)
    assert.equal((await t.api.request('PUT', `/api/alert-settings/${ownerId}`, { body: { timeZone: 'Mars/Olympus' } })).status, 400)
    assert.equal((await t.api.request('PUT', `/api/alert-settings/${ownerId}`, { body: { changeTypes: ['price_change'] } })).status, 403)
    const deps = { db: t.service.store.db, queue: t.service.queue, appBase: t.url }
    // An hour that is not the member's: nothing.
    assert.equal(await runMailDigests(deps, new Date(now.getTime() + 3_600_000)), 0)
    assert.equal(await runMailDigests(deps, now), 1)
    assert.equal(await runMailDigests(deps, now), 0, 'once a day')
    const digest = await eventually(async () => mailTo('owner@example.test', /change.* today on Sitewatch/), 20_000, 'the digest')
    assert.match(digest.text!, /acme\.test \(1 price change\)/)
    assert.match(String(digest.html), /<h2[^>]*>acme\.test<\/h2>/)
    // Nothing since: no message, but the day is done.
    assert.equal(await runMailDigests(deps, new Date(now.getTime() + 24 * 3_600_000)), 0)
  })

  it('an address that keeps bouncing is paused, with the reason', async () => {
    const db = t.service.store.db
    const org = (await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id
    const bounce = await addUser(db, org, { email: 'bounce@example.test', password: PASSWORD }, 'viewer')
    const deps = { db, queue: t.service.queue, appBase: t.url }
    // Five hours off the owner's digest hour, so that only this member's digest is due.
    const start = Date.now() + 3 * 24 * 3_600_000 + 5 * 3_600_000
    for (let day = 0; day < 3; day++) {
      const now = new Date(start + day * 24 * 3_600_000)
      // Saving settings resumes paused alerts: they are saved once, before the first bounce.
      if (day === 0) await t.api.request('PUT', `/api/alert-settings/${bounce.id}`, { body: { mode: 'daily', timeZone: 'UTC', hour: now.getUTCHours() } })
      // A change in each period, so that each digest has something to say.
      await sql`UPDATE changes SET created_at = ${new Date(now.getTime() - 3_600_000)} WHERE org_id = ${org}`.execute(db)
      assert.equal(await runMailDigests(deps, now), 1)
      await drainJobs(t.api)
      await eventually(async () => {
        const rows = (await t.api.get('/api/email-deliveries')).body.data.filter((e: any) => e.to === 'bounce@example.test')
        return rows.length === day + 1 && rows.every((e: any) => e.status === 'failed') ? rows : undefined
      }, 20_000, `bounce ${day + 1}`)
    }
    const settings = (await t.api.get('/api/alert-settings')).body.data.find((s: any) => s.email === 'bounce@example.test')
    assert.match(settings.pausedReason, /refused 3 times in a row .*550|No such user/)
    assert.equal(await runMailDigests(deps, new Date(start + 3 * 24 * 3_600_000)), 0, 'paused: no more')
  })

  it('Atom feeds of the organisation and of a domain, filtered, with stable ids and an ETag', async () => {
    const links = (await t.api.get('/api/feeds')).body.data
    const res = await fetch(links.changes)
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type')!, /application\/atom\+xml/)
    const xml = await res.text()
    assert.match(xml, /<feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom">/)
    assert.match(xml, /<id>tag:127\.0\.0\.1,2026:change\/[0-9a-f-]{36}<\/id>/)
    assert.match(xml, /\$49\/month → \$59\/month/)
    assert.ok(!Number.isNaN(Date.parse(res.headers.get('last-modified')!)))
    const again = await fetch(links.changes, { headers: { 'if-none-match': res.headers.get('etag')! } })
    assert.equal(again.status, 304)
    assert.doesNotMatch(await (await fetch(`${links.changes}?severity=critical`)).text(), /<entry>/)
    assert.equal((await fetch(`${links.changes}?severity=urgent`)).status, 400)
    const domainId = (await t.api.get('/api/domains')).body.data[0].id
    const one = await fetch(links.domain.replace('{domainId}', domainId))
    assert.match(await one.text(), /<title[^>]*>acme\.test — changes on Sitewatch<\/title>/)
    const rotated = (await t.api.post('/api/feeds/rotate')).body.data
    assert.equal((await fetch(links.changes)).status, 404)
    assert.equal((await fetch(rotated.changes)).status, 200)
  })

  it('a member sets their e-mail alerts in the app; starter offers no realtime', async () => {
    const person = new FormClient(t.url)
    assert.equal((await person.signIn('busy@example.test', PASSWORD)).status, 303)
    const page = (await person.request('GET', '/app/alerts')).text
    assert.match(page, /each change as it is found/)
    const saved = await person.submit('/app/alerts', '/app/alerts/email', {
      mode: 'weekly', minSeverity: 'high', hour: '9', weekday: '5', timeZone: 'Europe/Paris'
    })
    assert.equal(saved.status, 303)
    const mine = (await t.api.get('/api/alert-settings')).body.data.find((s: any) => s.email === 'busy@example.test')
    assert.deepEqual([mine.mode, mine.minSeverity, mine.hour, mine.weekday, mine.timeZone], ['weekly', 'high', 9, 5, 'Europe/Paris'])
  })
})
