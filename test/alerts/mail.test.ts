import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { parseFeed } from '@rowanmanning/feed-parser'
import { sql } from 'kysely'
import { runMailDigests } from '../../src/alerts/mail-outbox.js'
import { localClock } from '../../src/vocabulary/mail-alerts.js'
import { addUser } from '../../src/services/accounts.js'
import { createOrg } from '../../src/services/orgs.js'
import { issueKey, revokeKey } from '../../src/store/orgs.js'
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
    site.page('/pricing', layout('Pricing — Acme', pricingMain('$59', '$129')))
    await waitForJob(t.api, (await t.api.post(`/api/domains/${created.body.data.id}/crawl`)).body.data.jobIds[0])
    const mail = await eventually(async () => mailTo('owner@example.test', /\$49\/month → \$59\/month/), 20_000, 'the change e-mail')
    assert.match(mail.subject!, /^\[high\] acme\.test — .*\$49\/month → \$59\/month/)
    assert.match(mail.text!, /Severity: high · price change/)
    // The pricing page's moves, one a line (an intelligence page read as a table).
    assert.match(mail.text!, /• Business: \$99\/month → \$129\/month \(\+30%\)\n• Pro: \$49\/month → \$59\/month \(\+20%\)/)
    assert.match(String(mail.html), /<li>Business: \$99\/month → \$129\/month \(\+30%\)<\/li><li>Pro: /)
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
    // The member's hour is two hours from now: the service's own digest schedule (every quarter
    // hour, at the real time) never finds it due while the test asks for it at that hour.
    const now = new Date()
    const at = new Date(now.getTime() + 2 * 3_600_000)
    const tokyo = localClock('Asia/Tokyo', at)
    const put = await t.api.request('PUT', `/api/alert-settings/${ownerId}`, { body: { mode: 'daily', timeZone: 'Asia/Tokyo', hour: tokyo.hour } })
    assert.equal(put.status, 200)
    assert.equal(put.body.data.chosen, true)
    // Bad input: the contract's envelope, and nothing saved.
    for (const body of [{ timeZone: 'Mars/Olympus' }, { hour: 25 }, { weekday: 7 }, { mode: 'hourly' }, { minSeverity: 'dire' }]) {
      const refused = await t.api.request('PUT', `/api/alert-settings/${ownerId}`, { body })
      assert.equal(refused.status, 400, JSON.stringify(body))
      assert.equal(refused.body.code, 'VALIDATION_ERROR')
    }
    assert.equal((await t.api.request('PUT', '/api/alert-settings/00000000-0000-4000-8000-000000000000', { body: { mode: 'off' } })).status, 404)
    const kept = (await t.api.get('/api/alert-settings')).body.data.find((s: any) => s.userId === ownerId)
    assert.deepEqual([kept.mode, kept.hour, kept.timeZone], ['daily', tokyo.hour, 'Asia/Tokyo'])
    assert.equal((await t.api.request('PUT', `/api/alert-settings/${ownerId}`, { body: { changeTypes: ['price_change'] } })).status, 403)
    const deps = { db: t.service.store.db, queue: t.service.queue, appBase: t.url }
    // An hour that is not the member's: nothing.
    assert.equal(await runMailDigests(deps, now), 0)
    assert.equal(await runMailDigests(deps, new Date(at.getTime() + 3_600_000)), 0)
    assert.equal(await runMailDigests(deps, at), 1)
    assert.equal(await runMailDigests(deps, at), 0, 'once a day')
    const digest = await eventually(async () => mailTo('owner@example.test', /change.* today on Sitewatch/), 20_000, 'the digest')
    assert.match(digest.text!, /acme\.test \(1 price change\)/)
    assert.match(String(digest.html), /<h2[^>]*>acme\.test<\/h2>/)
    // Nothing since: no message, but the day is done.
    assert.equal(await runMailDigests(deps, new Date(at.getTime() + 24 * 3_600_000)), 0)
  })

  it('a starter organisation, which has no API, gets its daily digest by e-mail', async () => {
    const db = t.service.store.db
    const { org } = await createOrg(db, 'Corner shop', 'starter')
    await addUser(db, org.id, { email: 'shop@example.test', password: PASSWORD }, 'owner')
    const shop = new FormClient(t.url)
    await shop.signIn('shop@example.test', PASSWORD)
    const added = await shop.submit('/app/domains', '/app/domains', { domain: 'acme.test' })
    assert.equal(added.status, 303, added.text.slice(0, 500))
    const domainPage = added.location!.replace(/\?.*$/, '')
    const pricing = () => db.selectFrom('pages').select(['last_check_at']).where('org_id', '=', org.id)
      .where('url', 'like', '%/pricing').executeTakeFirst()
    await eventually(async () => (await pricing())?.last_check_at ?? undefined, 30_000, 'the first crawl')
    site.page('/pricing', layout('Pricing — Acme', pricingMain('$69')))
    assert.equal((await shop.submit(domainPage, `${domainPage}/crawl`, {})).status, 303)
    await eventually(async () => await db.selectFrom('changes').select('id').where('org_id', '=', org.id).executeTakeFirst(),
      30_000, 'the change')
    // Starter's default: a daily digest at 08:00 UTC. Nothing is sent as the change is found.
    assert.equal(smtp.find('shop@example.test'), undefined)
    // The next 08:05 UTC: the digest covers the day before it, so "tomorrow" would miss a
    // change found before 08:05 today.
    const eight = new Date()
    eight.setUTCHours(8, 5, 0, 0)
    if (eight.getTime() <= Date.now()) eight.setUTCDate(eight.getUTCDate() + 1)
    const deps = { db, queue: t.service.queue, appBase: t.url }
    assert.ok(await runMailDigests(deps, eight) >= 1)
    const digest = await eventually(async () => mailTo('shop@example.test', /on Sitewatch/), 20_000, 'the digest')
    assert.match(digest.text!, /acme\.test \(1 price change\)/)
    assert.match(digest.text!, /\$59\/month → \$69\/month/)
    assert.match(String(digest.html), /Corner shop/)
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

  it('Atom feeds of the organisation and of a domain, filtered, with stable ids and the validators', async () => {
    const links = (await t.api.get('/api/feeds')).body.data
    const res = await fetch(links.changes)
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type')!, /application\/atom\+xml/)
    const feed = parseFeed(await res.text())
    assert.equal(feed.meta.type, 'atom')
    const changes = (await t.api.get('/api/changes')).body.data
    assert.equal(feed.items.length, changes.length)
    assert.deepEqual(feed.items.map(i => i.id), changes.map((c: any) => `tag:127.0.0.1,2026:change/${c.id}`))
    assert.deepEqual(feed.items.map(i => i.url), changes.map((c: any) => `${t.url}/app/changes/${c.id}`))
    assert.match(feed.items[0].title!, /\$49\/month → \$59\/month/)
    assert.match(feed.items[0].content!, /<del>.*\$49\/month<\/del>/)
    // Every entry names the domain and the page.
    assert.match(feed.items[0].title!, /^\[high\] acme\.test: /)
    assert.match(feed.items[0].content!, /On <a href="https:\/\/acme\.test\/pricing">https:\/\/acme\.test\/pricing<\/a> \(acme\.test\)/)
    // The person who follows an entry's link signs in and lands on that change.
    const person = new FormClient(t.url)
    const entry = new URL(feed.items[0].url!).pathname
    const away = await person.request('GET', entry)
    assert.equal(away.status, 303)
    assert.equal(away.location, `/app/sign-in?next=${encodeURIComponent(entry)}`)
    const signedIn = await person.submit(away.location!, '/app/sign-in', { email: 'busy@example.test', password: PASSWORD, next: entry })
    assert.equal(signedIn.location, entry)
    assert.match((await person.request('GET', entry)).text, /\$59\/month/)
    // Readers that poll: either validator gives a 304 while nothing changed.
    const modified = res.headers.get('last-modified')!
    assert.ok(!Number.isNaN(Date.parse(modified)))
    assert.equal((await fetch(links.changes, { headers: { 'if-none-match': res.headers.get('etag')! } })).status, 304)
    // A proxy that weakens the ETag (W/"…") still gets its 304: the API's one weak comparison.
    assert.equal((await fetch(links.changes, { headers: { 'if-none-match': `W/${res.headers.get('etag')!}` } })).status, 304)
    assert.equal((await fetch(links.changes, { headers: { 'if-modified-since': modified } })).status, 304)
    const older = new Date(Date.parse(modified) - 1000).toUTCString()
    assert.equal((await fetch(links.changes, { headers: { 'if-modified-since': older } })).status, 200)
    assert.equal((await fetch(links.changes, { headers: { 'if-none-match': '"other"', 'if-modified-since': modified } })).status, 200)
    assert.equal(parseFeed(await (await fetch(`${links.changes}?severity=critical`)).text()).items.length, 0)
    assert.equal((await fetch(`${links.changes}?severity=urgent`)).status, 400)
    const domainId = (await t.api.get('/api/domains')).body.data[0].id
    const one = parseFeed(await (await fetch(links.domain.replace('{domainId}', domainId))).text())
    assert.equal(one.title, 'acme.test — changes on Sitewatch')
    assert.equal(one.items.length, changes.length)
    const rotated = (await t.api.post('/api/feeds/rotate')).body.data
    const revoked = await fetch(links.changes)
    assert.equal(revoked.status, 404)
    assert.equal((await revoked.json()).code, 'NOT_FOUND')
    assert.equal((await fetch(rotated.changes)).status, 200)
    // The addresses a key asks for are that key's: a read key's end when it is revoked; another key's go on.
    const db = t.service.store.db
    const orgId = (await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id
    const reader = await issueKey(db, orgId, { scope: 'read', name: 'a dashboard' })
    const its = (await t.api.withKey(reader.apiKey).get('/api/feeds')).body.data
    assert.notEqual(its.changes, rotated.changes)
    assert.equal((await fetch(its.changes)).status, 200)
    await revokeKey(db, reader.id, orgId)
    assert.equal((await fetch(its.changes)).status, 404)
    assert.equal((await fetch(rotated.changes)).status, 200)
  })

  it('a watched page\'s words are text in a feed: hostile markup and "]]>" stay text to a real feed parser', async () => {
    const db = t.service.store.db
    const hostile = 'Pricing: <img src=x onerror=alert(1)> ]]><script>alert(2)</script> & "quotes"'
    const [one] = await db.selectFrom('changes').select('id').orderBy('created_at', 'desc').limit(1).execute()
    const was = (await db.selectFrom('changes').select('summary').where('id', '=', one.id).executeTakeFirstOrThrow()).summary
    await db.updateTable('changes').set({ summary: hostile }).where('id', '=', one.id).execute()
    try {
      const links = (await t.api.get('/api/feeds')).body.data
      const xml = await (await fetch(links.changes)).text()
      assert.doesNotMatch(xml, /<img|<script/, 'no markup of the page reaches the feed')
      const entry = parseFeed(xml).items.find(i => i.id?.endsWith(one.id))!
      // The parser reads the title as text that shows the page's words as they were written.
      assert.equal(entry.title, `[high] acme.test: ${hostile}`)
    } finally {
      await db.updateTable('changes').set({ summary: was }).where('id', '=', one.id).execute()
    }
  })

  it('each member has feed addresses of their own, gone with the membership; the organisation\'s are an admin\'s', async () => {
    const viewer = new FormClient(t.url)
    await viewer.signIn('busy@example.test', PASSWORD)
    const page = (await viewer.request('GET', '/app/alerts')).text
    const mine = /<p class="key">([^<]+changes\.atom)<\/p>/.exec(page)![1]
    const orgLinks = (await t.api.get('/api/feeds')).body.data
    assert.notEqual(mine, orgLinks.changes)
    assert.doesNotMatch(page, new RegExp(orgLinks.changes.split('/feeds/')[1].split('/')[0]), 'a viewer sees only their own')
    assert.equal((await fetch(mine)).status, 200)
    // Their own new addresses: the old ones stop.
    assert.equal((await viewer.submit('/app/alerts', '/app/alerts/feeds/rotate', { which: 'mine' })).status, 303)
    assert.equal((await fetch(mine)).status, 404)
    const renewed = /<p class="key">([^<]+changes\.atom)<\/p>/.exec((await viewer.request('GET', '/app/alerts')).text)![1]
    assert.equal((await fetch(renewed)).status, 200)
    // A viewer cannot renew the organisation's addresses.
    assert.equal((await viewer.submit('/app/alerts', '/app/alerts/feeds/rotate', { which: 'organisation' })).status, 403)
    assert.equal((await fetch(orgLinks.changes)).status, 200)
    // Removed from the organisation: their addresses stop; the organisation's go on.
    const db = t.service.store.db
    const user = await db.selectFrom('users').select('id').where('email', '=', 'busy@example.test').executeTakeFirstOrThrow()
    const row = await db.selectFrom('memberships').selectAll().where('user_id', '=', user.id).executeTakeFirstOrThrow()
    await db.deleteFrom('memberships').where('user_id', '=', user.id).where('org_id', '=', row.org_id).execute()
    try {
      assert.equal((await fetch(renewed)).status, 404)
      assert.equal((await fetch(orgLinks.changes)).status, 200)
    } finally {
      await db.insertInto('memberships').values({ user_id: user.id, org_id: row.org_id, role: row.role }).execute()
    }
  })

  it('a change shared by a link made on purpose shows that change to anyone, until it is revoked, expires or sharing stops', async () => {
    const owner = new FormClient(t.url)
    await owner.signIn('busy@example.test', PASSWORD)
    const changeId = (await t.api.get('/api/changes')).body.data[0].id
    assert.doesNotMatch((await owner.request('GET', `/app/changes/${changeId}`)).text, /Share this change/, 'off by default')
    // A viewer cannot turn it on; an admin can.
    assert.equal((await owner.submit('/app/usage', '/app/org/share-links', { on: '1' })).status, 403)
    const db = t.service.store.db
    await db.updateTable('memberships').set({ role: 'admin' })
      .where('user_id', '=', (await db.selectFrom('users').select('id').where('email', '=', 'busy@example.test').executeTakeFirstOrThrow()).id)
      .execute()
    assert.equal((await owner.submit('/app/usage', '/app/org/share-links', { on: '1' })).status, 303)
    // Viewing the change makes no link; making one shows it once.
    assert.doesNotMatch((await owner.request('GET', `/app/changes/${changeId}`)).text, /id="share-link"/)
    const made = async () => {
      const page = (await owner.submit(`/app/changes/${changeId}`, `/app/changes/${changeId}/share`, {})).text
      const link = /id="share-link"[^>]* value="([^"]+)"/.exec(page)?.[1] ?? /value="([^"]+)" id="share-link"/.exec(page)?.[1]
      assert.ok(link, 'the answer shows the new link')
      return link
    }
    const link = await made()
    const second = await made()
    assert.match(link, new RegExp(`^${t.url}/app/shared/${changeId}/[\\w-]{40,}$`))
    assert.doesNotMatch((await owner.request('GET', `/app/changes/${changeId}`)).text, new RegExp(link.split('/').at(-1)!),
      'a link is shown once')
    const shared = await fetch(link, { redirect: 'manual' })
    assert.equal(shared.status, 200)
    assert.equal(shared.headers.get('x-robots-tag'), 'noindex, nofollow')
    const text = await shared.text()
    assert.match(text, /\$59\/month/)
    assert.doesNotMatch(text, /Sign out|Acknowledge|\/app\/domains/, 'nothing of the app')
    // The link names one change: not another (the starter organisation's), not a tampered one.
    const otherId = (await db.selectFrom('changes').select('id').where('id', '!=', changeId).executeTakeFirstOrThrow()).id
    assert.equal((await fetch(link.replace(changeId, otherId), { redirect: 'manual' })).status, 404)
    assert.equal((await fetch(link.replace(/.$/, c => c === 'A' ? 'B' : 'A'), { redirect: 'manual' })).status, 404)
    // Revoked one by one: the first stops, the second still works.
    const ids = (await db.selectFrom('share_links').select(['id', 'created_at']).where('change_id', '=', changeId)
      .orderBy('created_at').execute()).map(r => r.id)
    assert.equal((await owner.submit(`/app/changes/${changeId}`, `/app/changes/${changeId}/share/${ids[0]}/revoke`, {})).status, 303)
    assert.equal((await fetch(link, { redirect: 'manual' })).status, 404)
    assert.equal((await fetch(second, { redirect: 'manual' })).status, 200)
    // It works for 7 days, not after.
    const expires = (await db.selectFrom('share_links').select('expires_at').where('id', '=', ids[1]).executeTakeFirstOrThrow()).expires_at
    assert.ok(Math.abs(new Date(expires).getTime() - Date.now() - 7 * 86_400_000) < 60_000)
    await db.updateTable('share_links').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', ids[1]).execute()
    assert.equal((await fetch(second, { redirect: 'manual' })).status, 404)
    // Sharing off: every link stops, and so do its pictures.
    const third = await made()
    assert.equal((await owner.submit('/app/usage', '/app/org/share-links', {})).status, 303)
    assert.equal((await fetch(third, { redirect: 'manual' })).status, 404)
    assert.equal((await fetch(`${third}/images/diff`, { redirect: 'manual' })).status, 404)
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
