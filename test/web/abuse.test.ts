import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ATTEMPT_RULES, delayAfter } from '../../src/services/attempts.js'
import { addUser, firstOwnerLink, requestReset, sweepExpiredAccess } from '../../src/services/accounts.js'
import { eventually, freePort, startTestService, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'
import { startSmtp } from '../helpers/smtp.js'
import { FormClient } from '../helpers/web-client.js'

// The security review's findings on accounts and links, each reproduced: a setup link
// after accounts exist, a reset answer that waits for its e-mail, a person locked out by
// strangers, reset links that outlive a new password, an invitation that tells of other
// accounts, unlimited invitations, links and sessions never swept, CSRF tokens that work in
// another session, and webhooks that reach the crawler's mapped hosts.

const ADMIN = 'admin-secret-token'
const PASSWORD = 'a long enough password'

describe('accounts closed to abuse', () => {
  let t: TestService
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let hold = false
  let orgId = ''

  const internal = new TestSite()
  before(async () => {
    await internal.start()
    internal.page('/hook', 'the operator\'s internal server')
    smtp = await startSmtp(undefined, () => hold)
    const port = await freePort()
    t = await startTestService({
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      ADMIN_TOKEN: ADMIN,
      SMTP_URL: smtp.url,
      // People come from several addresses, through the proxy the tests stand in for.
      TRUST_PROXY: 'true',
      CRAWL_HOST_MAP: `internal.test=${internal.origin}`
    })
    orgId = (await t.service.store.db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id
  })
  after(async () => {
    await t?.stop()
    await smtp?.close()
    await internal.close()
  })

  it('the first-owner link stops working once accounts exist, and a new one revokes the old', async () => {
    const db = t.service.store.db
    const firstPath = new URL(t.setupLink).pathname
    // A restart while nobody has an account prints a new link: the earlier one stops.
    const second = await firstOwnerLink(db, orgId)
    assert.ok(second)
    const person = new FormClient(t.url)
    assert.equal((await person.request('GET', firstPath)).status, 404)
    // An account made another way (the operator's admin API): the printed link makes no owner.
    const made = await fetch(`${t.url}/admin/orgs/${orgId}/members`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@example.test', password: PASSWORD, role: 'owner' })
    })
    assert.equal(made.status, 201, await made.text())
    assert.equal((await person.request('GET', `/app/setup/${second}`)).status, 404)
    // Even posted with a good CSRF token (from the sign-in page), the link is checked when used.
    const csrf = /name="_csrf" value="([^"]+)"/.exec((await person.request('GET', '/app/sign-in')).text)![1]
    const attempt = await person.request('POST', `/app/setup/${second}`, { email: 'mallory@example.test', password: PASSWORD, _csrf: csrf })
    assert.equal(attempt.status, 404)
    assert.equal(await db.selectFrom('users').select('id').where('email', '=', 'mallory@example.test').executeTakeFirst(), undefined)
  })

  it('a reset request answers at once, the same for any address: the e-mail is made and sent by a job', async () => {
    const db = t.service.store.db
    await addUser(db, orgId, { email: 'known@example.test', password: PASSWORD }, 'viewer')
    // The mail server holds every message: a request that waited for it would not answer.
    hold = true
    const person = new FormClient(t.url)
    const known = await person.submit('/app/reset', '/app/reset', { email: 'known@example.test' })
    const unknown = await person.submit('/app/reset', '/app/reset', { email: 'nobody@example.test' })
    assert.equal(known.status, 200)
    assert.equal(unknown.status, 200)
    const notice = (html: string) => /If this e-mail has an account[^<]*/.exec(html)?.[0]
    assert.equal(notice(known.text), notice(unknown.text))
    assert.ok(notice(known.text))
    hold = false
    const mail = await eventually(async () => smtp.find('known@example.test', /Reset your Sitewatch password/), 30_000, 'the reset e-mail')
    assert.match(mail.text!, /\/app\/reset\/[\w-]+/)
    assert.equal(smtp.find('nobody@example.test'), undefined)
  })

  it('ten wrong passwords from ten addresses lock nobody out: the right one signs in, reset still works', async () => {
    const db = t.service.store.db
    await addUser(db, orgId, { email: 'victim@example.test', password: PASSWORD }, 'viewer')
    const attackers = Array.from({ length: 10 }, (_, i) => {
      const c = new FormClient(t.url)
      c.headers['x-forwarded-for'] = `203.0.113.${i + 1}`
      return c
    })
    const tries = await Promise.all(attackers.map(async c => await c.signIn('victim@example.test', 'wrong password here')))
    assert.ok(tries.every(r => r.status === 401), tries.map(r => r.status).join())
    const victim = new FormClient(t.url)
    victim.headers['x-forwarded-for'] = '198.51.100.7'
    const signedIn = await victim.signIn('victim@example.test', PASSWORD)
    assert.equal(signedIn.status, 303, 'a right password is never refused by the account\'s failures')
    assert.equal(signedIn.location, '/app/domains')
    // The account's reset has a limit of its own: the failed sign-ins did not use it up.
    const reset = await victim.submit('/app/reset', '/app/reset', { email: 'victim@example.test' })
    assert.equal(reset.status, 200)
    // Failures slow the next tries; a success forgets the account's.
    assert.ok(delayAfter(10, ATTEMPT_RULES.signIn) > 0)
    assert.equal(await db.selectFrom('auth_failures').select('failures').where('key', '=', 'account:victim@example.test')
      .executeTakeFirst(), undefined)
  })

  it('successful sign-ins do not count against an address; too many failures from one address are refused', async () => {
    const db = t.service.store.db
    await addUser(db, orgId, { email: 'busy@example.test', password: PASSWORD }, 'viewer')
    for (let i = 0; i < ATTEMPT_RULES.signIn.addressRefusesAfter + 5; i++) {
      const c = new FormClient(t.url)
      c.headers['x-forwarded-for'] = '192.0.2.50'
      assert.equal((await c.signIn('busy@example.test', PASSWORD)).status, 303, `sign-in ${i + 1}`)
    }
    // An address's failures: past the limit it is refused, whatever the account.
    await db.insertInto('auth_failures')
      .values({ key: 'address:192.0.2.99', failures: ATTEMPT_RULES.signIn.addressRefusesAfter, window_start: new Date() }).execute()
    const refused = new FormClient(t.url)
    refused.headers['x-forwarded-for'] = '192.0.2.99'
    const answer = await refused.signIn('busy@example.test', PASSWORD)
    assert.equal(answer.status, 429)
    assert.match(answer.text, /Too many failed sign-ins from your address/)
  })

  it('a reset or a password change ends every open reset link', async () => {
    const db = t.service.store.db
    const user = await addUser(db, orgId, { email: 'resets@example.test', password: PASSWORD }, 'viewer')
    const [first, second, third] = [
      await requestReset(db, 'resets@example.test'),
      await requestReset(db, 'resets@example.test'),
      await requestReset(db, 'resets@example.test')
    ]
    const person = new FormClient(t.url)
    assert.equal((await person.submit(`/app/reset/${second}`, `/app/reset/${second}`, { password: 'another long password' })).status, 303)
    assert.equal((await person.request('GET', `/app/reset/${first}`)).status, 404)
    assert.equal((await person.request('GET', `/app/reset/${third}`)).status, 404)
    // A change of password, signed in, ends the links asked for before it.
    const fourth = await requestReset(db, 'resets@example.test')
    await person.signIn('resets@example.test', 'another long password')
    const changed = await person.submit('/app/account', '/app/account/password', {
      currentPassword: 'another long password', password: 'a third long password'
    })
    assert.equal(changed.status, 303, changed.text.slice(0, 300))
    assert.equal((await person.request('GET', `/app/reset/${fourth}`)).status, 404)
    // Wrong current passwords are counted, and slow the next try.
    const wrong = await person.submit('/app/account', '/app/account/password', { currentPassword: 'not it at all', password: 'whatever long enough' })
    assert.equal(wrong.status, 400)
    assert.equal((await db.selectFrom('auth_failures').select('failures').where('key', '=', `password:${user.id}`)
      .executeTakeFirstOrThrow()).failures, 1)
  })

  it('an invitation\'s address is compared first; invitations are limited, and a new one replaces the pending one', async () => {
    const db = t.service.store.db
    await addUser(db, orgId, { email: 'bystander@example.test', password: PASSWORD }, 'viewer')
    const admin = new FormClient(t.url)
    assert.equal((await admin.signIn('owner@example.test', PASSWORD)).status, 303)
    const invite = async (email: string) => await admin.submit('/app/members', '/app/members/invite', { email, role: 'viewer' })
    assert.equal((await invite('guest@example.test')).status, 303)
    const link = () => eventually(async () => {
      const mails = smtp.mails.filter(m => (m.to as { text: string }).text === 'guest@example.test')
      return mails.length > 0 ? /\/app\/invite\/[\w-]+/.exec(mails.at(-1)!.text!)?.[0] : undefined
    }, 20_000, 'the invitation')
    const first = await link()
    const stranger = new FormClient(t.url)
    // Another address with an account, and a wrong password: told only that the invitation is another's.
    const other = await stranger.submit(first, first, { email: 'bystander@example.test', password: 'not the password at all' })
    assert.equal(other.status, 400)
    assert.equal(/role="alert">([^<]*)</.exec(other.text)?.[1], 'This invitation is for another e-mail address')
    // A second invitation to the address replaces the first.
    const before = smtp.mails.length
    assert.equal((await invite('guest@example.test')).status, 303)
    await eventually(async () => smtp.mails.length > before ? true : undefined, 20_000, 'the second invitation')
    const second = await link()
    assert.notEqual(second, first)
    assert.equal((await stranger.request('GET', first)).status, 404)
    assert.equal((await stranger.request('GET', second)).status, 200)
    // An organisation sends a limited number an hour.
    const sent = await db.selectFrom('auth_failures').select('failures').where('key', '=', `invitations:${orgId}`).executeTakeFirstOrThrow()
    await db.updateTable('auth_failures').set({ failures: ATTEMPT_RULES.invitations.perOrg }).where('key', '=', `invitations:${orgId}`).execute()
    assert.ok(sent.failures >= 2)
    const refused = await invite('one-too-many@example.test')
    assert.equal(refused.status, 429)
    assert.match(refused.text, /invitations an hour/)
  })

  it('a CSRF token works only in the session that made it; sign-in starts a new one', async () => {
    const person = new FormClient(t.url)
    const signIn = await person.request('GET', '/app/sign-in')
    const before = /name="_csrf" value="([^"]+)"/.exec(signIn.text)![1]
    assert.equal((await person.signIn('owner@example.test', PASSWORD)).status, 303)
    // The token of the page seen before signing in is no good after it.
    const stale = await person.request('POST', '/app/alerts/feeds/rotate', { which: 'mine', _csrf: before })
    assert.equal(stale.status, 403)
    // Another person's token does not work in this session.
    const other = new FormClient(t.url)
    await other.signIn('busy@example.test', PASSWORD)
    const theirs = /name="_csrf" value="([^"]+)"/.exec((await other.request('GET', '/app/alerts')).text)![1]
    const mine = /name="_csrf" value="([^"]+)"/.exec((await person.request('GET', '/app/alerts')).text)![1]
    assert.equal((await person.request('POST', '/app/alerts/feeds/rotate', { which: 'mine', _csrf: theirs })).status, 403)
    assert.equal((await person.request('POST', '/app/alerts/feeds/rotate', { which: 'mine', _csrf: mine })).status, 303)
  })

  it('expired sessions and used or expired links are swept by the retention job', async () => {
    const db = t.service.store.db
    const user = await db.selectFrom('users').select('id').where('email', '=', 'owner@example.test').executeTakeFirstOrThrow()
    const old = new Date(Date.now() - 40 * 86_400_000)
    await db.insertInto('sessions').values({ token_hash: 'expired-session', user_id: user.id, expires_at: old }).execute()
    await db.insertInto('account_tokens').values({ token_hash: 'spent-link', purpose: 'reset', expires_at: old }).execute()
    const swept = await sweepExpiredAccess(db, new Date(), 12 * 3600_000)
    assert.ok(swept.sessions >= 1 && swept.links >= 1, JSON.stringify(swept))
    assert.equal(await db.selectFrom('sessions').select('id').where('token_hash', '=', 'expired-session').executeTakeFirst(), undefined)
    assert.equal(await db.selectFrom('account_tokens').select('id').where('token_hash', '=', 'spent-link').executeTakeFirst(), undefined)
  })

  it("a viewer's heavy actions, refused, spend none of the organisation's heavy calls", async () => {
    await addUser(t.service.store.db, orgId, { email: 'looker@example.test', password: PASSWORD }, 'viewer')
    const person = new FormClient(t.url)
    await person.signIn('looker@example.test', PASSWORD)
    const listed = (await t.api.get('/api/domains')).body.data as any[]
    const domain = listed.find(d => d.domain === 'internal.test') ??
      (await t.api.post('/api/domains', { domain: 'internal.test' })).body.data
    const heavyLeft = async () =>
      Number((await t.api.post(`/api/domains/${domain.id}/discover`)).headers.get('x-ratelimit-remaining'))
    const before = await heavyLeft()
    const csrf = /name="_csrf" value="([^"]+)"/.exec((await person.request('GET', `/app/domains/${domain.id}`)).text)![1]
    for (let i = 0; i < 12; i++) {
      const refused = await person.request('POST', `/app/domains/${domain.id}/crawl`, { _csrf: csrf })
      assert.equal(refused.status, 403)
      assert.match(refused.text, /This needs the editor role or higher; you are a viewer/)
    }
    assert.equal(await heavyLeft(), before - 1, 'only the API\'s two calls were counted')
  })

  it('webhooks and Slack never reach the hosts CRAWL_HOST_MAP maps for crawling', async () => {
    const created = await t.api.post('/api/webhooks', { url: 'https://internal.test/hook' })
    // The name resolves nowhere public: accepted, or refused; either way nothing reaches the mapped server.
    if (created.status === 400) return assert.match(created.body.error, /public address/)
    assert.equal(created.status, 201)
    const id = created.body.data.id
    assert.equal((await t.api.post(`/api/webhooks/${id}/test`)).status, 200)
    const delivery = await eventually(async () => {
      const list = (await t.api.get(`/api/webhooks/${id}/deliveries`)).body.data as any[]
      return list.find(d => d.error) ?? undefined
    }, 30_000, 'the failed delivery')
    assert.doesNotMatch(delivery.error, /HTTP \d/, 'no answer came from the mapped server')
    assert.equal(internal.hitsOf('/hook'), 0)
  })
})

describe('cookies on HTTPS', () => {
  it('are __Host- prefixed, Secure, for the whole host', async () => {
    const t = await startTestService({ PUBLIC_BASE_URL: 'https://sitewatch.example.test' })
    try {
      const res = await fetch(`${t.url}/app/sign-in`)
      const cookies = res.headers.getSetCookie()
      assert.ok(cookies.some(c => /^__Host-sw_csrf=[^;]+;.*Path=\/(;|$).*Secure/i.test(c)), cookies.join(' | '))
    } finally {
      await t.stop()
    }
  })
})
