// Single sign-on with a real OpenID Connect provider (oidc-provider) on 127.0.0.1: an owner
// sets it; a person of a vouched domain signs in through it and joins with the default
// role; with SSO required a member's password is refused and an owner's and a guest's are not,
// the sessions passwords opened end, and an invitation joins through the provider; a person
// removed at the provider, an unverified e-mail, a replayed or forged state and a wrong
// issuer start no session; every step is in the audit log.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import Provider from 'oidc-provider'
import { invite } from '../../src/services/accounts.js'
import { createOrg } from '../../src/services/orgs.js'
import { providerFetch } from '../../src/services/sso.js'
import { freePort, startTestService, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'
import { FormClient } from '../helpers/web-client.js'

const PASSWORD = 'correct horse battery staple'

/** The people the provider knows, by subject; `verified` false: an address it has not verified. */
const accounts = new Map<string, { email: string, name: string, verified: boolean }>()
/** Who is at the provider's keyboard now: the next login signs them in (a removed one is refused). */
let atKeyboard = ''

/** A provider on 127.0.0.1 whose login signs in `atKeyboard` and consents for them, as a person would. */
async function startProvider (redirectUri: string): Promise<{ issuer: string, server: Server }> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const provider = new Provider(issuer, {
    clients: [{
      client_id: 'sitewatch',
      client_secret: 'provider-secret',
      redirect_uris: [redirectUri],
      response_types: ['code'],
      grant_types: ['authorization_code']
    }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: async (_ctx: unknown, sub: string) => {
      const a = accounts.get(sub)
      const claims = async () => ({ sub, email: a?.email, email_verified: a?.verified, name: a?.name })
      return a && { accountId: sub, claims }
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
    cookies: { keys: ['test-cookie-key'] }
  })
  const handle = provider.callback()
  server.on('request', (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return handle(req, res)
    void (async () => {
      const details = await provider.interactionDetails(req, res)
      if (!accounts.has(atKeyboard)) {
        await provider.interactionFinished(req, res,
          { error: 'access_denied', error_description: 'no such user' }, { mergeWithLastSubmission: false })
        return
      }
      if (details.prompt.name === 'login') {
        await provider.interactionFinished(req, res, { login: { accountId: atKeyboard } },
          { mergeWithLastSubmission: false })
        return
      }
      const grant = new provider.Grant({ accountId: atKeyboard, clientId: String(details.params.client_id) })
      grant.addOIDCScope(String(details.params.scope))
      await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } },
        { mergeWithLastSubmission: true })
    })().catch(err => { res.statusCode = 500; res.end(String(err)) })
  })
  return { issuer, server }
}

/**
 * A browser's way through the redirects: cookies kept per origin, 3xx followed, until an
 * answer that is not a redirect, or one that leads to `stopAt` (returned unfollowed).
 */
async function follow (start: Response | string, jar: Map<string, Map<string, string>>, stopAt?: string) {
  let res = typeof start === 'string' ? undefined : start
  let url = typeof start === 'string' ? start : ''
  for (let hop = 0; hop < 20; hop++) {
    if (!res) {
      const origin = new URL(url).origin
      const cookies = [...(jar.get(origin) ?? new Map())].map(([k, v]) => `${k}=${v}`).join('; ')
      res = await fetch(url, { redirect: 'manual', headers: cookies ? { cookie: cookies } : {} })
      const kept = jar.get(origin) ?? new Map<string, string>()
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';')
        kept.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1))
      }
      jar.set(origin, kept)
    }
    const location = res.headers.get('location')
    if (res.status < 300 || res.status >= 400 || !location) return { res, url }
    const next = new URL(location, url || undefined).href
    if (stopAt && next.startsWith(stopAt)) return { res, url: next }
    url = next
    res = undefined
  }
  throw new Error('too many redirects')
}

describe('single sign-on', () => {
  let t: TestService
  let idp: { issuer: string, server: Server }
  let owner: FormClient
  let callback = ''

  /** A person's way in: the sign-in page's SSO form, the provider, and back; the answer at the callback, unfollowed. */
  const toCallback = async (email: string, from = '/app/sign-in', person = new FormClient(t.url)) => {
    const started = await person.submit(from, '/app/sso/start', { email })
    assert.equal(started.status, 303, started.text.slice(0, 300))
    const jar = new Map<string, Map<string, string>>()
    const { url } = await follow(started.location!, jar, callback)
    assert.ok(url.startsWith(callback), `back at ${url}`)
    return { person, url }
  }
  /** The callback opened by the person's browser: where it leads, and the person's client, signed in or not. */
  const atCallback = async (person: FormClient, url: string) => {
    const res = await person.request('GET', new URL(url).pathname + new URL(url).search)
    return res
  }
  const audit = async (action: string) =>
    (await t.api.get(`/api/audit-events?action=${action}&pageSize=200`)).body.data as any[]

  before(async () => {
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    callback = `${base}/app/sso/callback`
    idp = await startProvider(callback)
    t = await startTestService({ PORT: String(port), PUBLIC_BASE_URL: base, SSO_ALLOW_INSECURE_ISSUERS: 'true', LOG_LEVEL: 'error' })
    owner = new FormClient(t.url)
    const setup = new URL(t.setupLink).pathname
    assert.equal((await owner.submit(setup, setup, { email: 'olive@corp.test', password: PASSWORD })).status, 303)
    await t.service.store.db.updateTable('orgs').set({ plan: 'enterprise' }).execute()
    accounts.set('pat-1', { email: 'pat@corp.test', name: 'Pat', verified: true })
    accounts.set('una-1', { email: 'una@corp.test', name: 'Una', verified: false })
  })
  after(async () => {
    await t.stop()
    await new Promise(resolve => idp.server.close(resolve))
  })

  it('an owner sets it in the app: the provider is read first, and a wrong issuer is refused', async () => {
    // A discovery document that names another issuer is no provider of this one.
    const liar = await new TestSite().start()
    liar.set('/.well-known/openid-configuration', {
      status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ issuer: 'https://evil.test', authorization_endpoint: 'https://evil.test/auth' })
    })
    const wrong = await owner.submit('/app/sso', '/app/sso', {
      issuer: liar.origin, clientId: 'sitewatch', clientSecret: 'provider-secret', domains: 'corp.test', defaultRole: 'editor'
    })
    assert.equal(wrong.status, 400)
    assert.match(wrong.text, /could not be read/)
    await liar.close()
    const saved = await owner.submit('/app/sso', '/app/sso', {
      issuer: idp.issuer, clientId: 'sitewatch', clientSecret: 'provider-secret', domains: 'corp.test', defaultRole: 'editor'
    })
    assert.equal(saved.status, 303, saved.text.slice(0, 500))
    const shown = (await t.api.get('/api/sso')).body.data
    assert.deepEqual({ ...shown, redirectUri: undefined }, {
      issuer: idp.issuer, clientId: 'sitewatch', domains: ['corp.test'], defaultRole: 'editor', required: false, redirectUri: undefined
    })
    assert.equal(shown.redirectUri, callback)
    assert.equal(JSON.stringify(shown).includes('provider-secret'), false, 'the secret is never shown')
    const [changed] = await audit('sso.changed')
    assert.equal(changed.actor.label, 'olive@corp.test')
  })

  it('a person of a vouched domain signs in through the provider and joins with the default role', async () => {
    atKeyboard = 'pat-1'
    const { person, url } = await toCallback('pat@corp.test')
    const landed = await atCallback(person, url)
    assert.equal(landed.status, 303)
    assert.equal(landed.location, '/app/domains')
    const home = await person.request('GET', '/app/domains')
    assert.equal(home.status, 200)
    assert.match(home.text, /Pat \(editor\)/)
    const [joined] = await audit('member.joined')
    assert.deepEqual([joined.actor.label, joined.details], ['pat@corp.test', { role: 'editor', by: 'single sign-on' }])
    const signedIn = (await audit('session.signed_in')).find(e => e.actor.label === 'pat@corp.test')
    assert.deepEqual(signedIn.details, { via: 'single sign-on' })
    // Sign-out ends the Sitewatch session.
    assert.equal((await person.submit('/app/domains', '/app/sign-out', {})).status, 303)
    assert.equal((await person.request('GET', '/app/domains')).status, 303)
  })

  it('a state is used once, a forged one opens nothing, and an answer naming another issuer is refused', async () => {
    atKeyboard = 'pat-1'
    const { person, url } = await toCallback('pat@corp.test')
    const tampered = new URL(url)
    tampered.searchParams.set('iss', 'https://evil.test')
    const wrongIssuer = await atCallback(person, tampered.href)
    assert.equal(wrongIssuer.status, 401)
    // The state was taken by that refused answer: the true one, replayed, opens nothing either.
    const replayed = await atCallback(person, url)
    assert.equal(replayed.status, 401)
    assert.match(replayed.text, /expired or was used/)
    const forged = await atCallback(person, `${callback}?code=abc&state=forged-state`)
    assert.equal(forged.status, 401)
    assert.equal((await person.request('GET', '/app/domains')).status, 303, 'no session')
    const again = await toCallback('pat@corp.test')
    assert.equal((await atCallback(again.person, again.url)).status, 303)
    assert.equal((await atCallback(again.person, again.url)).status, 401, 'the same answer twice: the second is refused')
  })

  it('an unverified e-mail, and a person removed at the provider, start no session', async () => {
    atKeyboard = 'una-1'
    const una = await toCallback('una@corp.test')
    const refused = await atCallback(una.person, una.url)
    assert.equal(refused.status, 401)
    assert.match(refused.text, /has not verified una@corp\.test/)
    accounts.delete('pat-1')
    atKeyboard = 'pat-1'
    const pat = await toCallback('pat@corp.test')
    const gone = await atCallback(pat.person, pat.url)
    assert.equal(gone.status, 401)
    assert.match(gone.text, /did not sign you in/)
    assert.equal((await pat.person.request('GET', '/app/domains')).status, 303)
    const failed = await audit('session.sign_in_failed')
    assert.ok(failed.some(e => e.object.label === 'una@corp.test'), JSON.stringify(failed))
    assert.ok(failed.filter(e => e.details.via === 'single sign-on').length >= 3)
  })

  it('required: a member\'s password is refused, an owner\'s still signs in; only an enterprise plan has it', async () => {
    const ada = await t.api.request('POST', '/api/sso', {})
    assert.equal(ada.status, 405)
    const put = await t.api.request('PUT', '/api/sso', {
      body: { issuer: idp.issuer, clientId: 'sitewatch', domains: ['corp.test'], defaultRole: 'editor', required: true }
    })
    assert.equal(put.status, 200, JSON.stringify(put.body))
    assert.equal(put.body.data.required, true)
    const userId = (await t.service.store.db.selectFrom('users').select('id').where('email', '=', 'pat@corp.test')
      .executeTakeFirstOrThrow()).id
    await t.service.store.db.updateTable('users').set({
      password_hash: (await t.service.store.db.selectFrom('users')
        .select('password_hash').where('email', '=', 'olive@corp.test').executeTakeFirstOrThrow()).password_hash
    })
      .where('id', '=', userId).execute()
    const member = await new FormClient(t.url).signIn('pat@corp.test', PASSWORD)
    assert.equal(member.status, 403)
    assert.match(member.text, /signs its people in through its identity provider/)
    // The way it points to is one click away: the single sign-on form has the address already.
    assert.match(member.text, /id="sso-email" name="email" type="email" value="pat@corp.test"/)
    assert.equal((await new FormClient(t.url).signIn('olive@corp.test', PASSWORD)).status, 303, 'the owner\'s way back in')
    const pro = await createOrg(t.service.store.db, 'Pro & Co', 'pro')
    const proPlan = await t.api.withKey(pro.apiKey).request('PUT', '/api/sso', {
      body: { issuer: idp.issuer, clientId: 'sitewatch', domains: ['corp.test'], defaultRole: 'editor', required: false }
    })
    assert.equal(proPlan.status, 403)
  })

  it('required: sessions a password started end, a guest of another domain keeps a password, an invitation joins through the provider', async () => {
    const db = t.service.store.db
    const orgId = (await db.selectFrom('orgs').select('id').where('plan', '=', 'enterprise').executeTakeFirstOrThrow()).id
    const settings = { issuer: idp.issuer, clientId: 'sitewatch', domains: ['corp.test'], defaultRole: 'editor' }
    assert.equal((await t.api.request('PUT', '/api/sso', { body: { ...settings, required: false } })).status, 200)
    // Before it is required: Pat signs in once with the password and once through the provider; Gus, of
    // another domain, joins by invitation with a password.
    const byPassword = new FormClient(t.url)
    assert.equal((await byPassword.signIn('pat@corp.test', PASSWORD)).status, 303)
    accounts.set('pat-1', { email: 'pat@corp.test', name: 'Pat', verified: true })
    atKeyboard = 'pat-1'
    const byProvider = await toCallback('pat@corp.test')
    assert.equal((await atCallback(byProvider.person, byProvider.url)).status, 303)
    const gus = await invite(db, { role: 'owner' }, orgId, 'gus@guest.test', 'viewer')
    const guest = new FormClient(t.url)
    const gusJoined = await guest.submit(`/app/invite/${gus.secret}`, `/app/invite/${gus.secret}`,
      { email: 'gus@guest.test', password: PASSWORD })
    assert.equal(gusJoined.status, 303, gusJoined.text.slice(0, 300))

    assert.equal((await t.api.request('PUT', '/api/sso', { body: { ...settings, required: true } })).status, 200)
    assert.equal((await byPassword.request('GET', '/app/domains')).status, 303, 'the session the password started ended')
    assert.equal((await byProvider.person.request('GET', '/app/domains')).status, 200, 'the provider\'s session stays')
    assert.equal((await guest.request('GET', '/app/domains')).status, 200, 'a guest of another domain is not bound')
    assert.equal((await owner.request('GET', '/app/domains')).status, 200, 'nor is an owner')
    assert.equal((await new FormClient(t.url).signIn('gus@guest.test', PASSWORD)).status, 303)

    // An invitation to an address of the provider's domain sets no password: the first sign-in takes it.
    accounts.set('ivy-1', { email: 'ivy@corp.test', name: 'Ivy', verified: true })
    const ivy = await invite(db, { role: 'owner' }, orgId, 'ivy@corp.test', 'admin')
    const invitation = `/app/invite/${ivy.secret}`
    const invitee = new FormClient(t.url)
    const shown = await invitee.request('GET', invitation)
    assert.equal(shown.status, 200)
    assert.match(shown.text, /Continue with single sign-on/)
    assert.doesNotMatch(shown.text, /type="password"/)
    const withPassword = await invitee.submit(invitation, invitation, { email: 'ivy@corp.test', password: PASSWORD })
    assert.equal(withPassword.status, 403)
    assert.equal(await db.selectFrom('users').select('id').where('email', '=', 'ivy@corp.test').executeTakeFirst(),
      undefined, 'no account was made with a password')
    atKeyboard = 'ivy-1'
    const joining = await toCallback('ivy@corp.test', invitation, invitee)
    assert.equal((await atCallback(joining.person, joining.url)).status, 303)
    assert.match((await invitee.request('GET', '/app/domains')).text, /Ivy \(admin\)/)
    assert.equal((await new FormClient(t.url).request('GET', invitation)).status, 404, 'the invitation is used')
    const joined = (await audit('member.joined')).find(e => e.actor.label === 'ivy@corp.test')
    assert.deepEqual(joined.details, { role: 'admin', by: 'invitation, through single sign-on' })
  })

  it('the client library talks to public addresses only, unless insecure issuers are allowed', async () => {
    const strict = providerFetch(false)
    for (const url of ['https://10.1.2.3/token', `${idp.issuer}/.well-known/openid-configuration`, 'https://localhost/jwks']) {
      await assert.rejects(strict(url, { body: undefined, headers: {}, method: 'GET', redirect: 'manual' } as any),
        /is not a public address/)
    }
    const lax = await providerFetch(true)(`${idp.issuer}/.well-known/openid-configuration`,
      { body: undefined, headers: {}, method: 'GET', redirect: 'manual' } as any)
    assert.equal(lax.status, 200)
  })
})
