// Single sign-on against two OpenID providers written apart from Sitewatch (oidc-provider,
// which prefers client_secret_basic, and oauth2-mock-server, which advertises none), a DNS
// server of the test's own for the domains' proofs, and Chromium for the flows a person
// starts: an owner sets it and proves the domain; a person signs in from the sign-in page and
// the invitation page in the browser, under the app's CSP; an existing account is linked
// only once its person proves it; another organisation's claim, an unproven domain, a
// callback opened in another browser, a replayed state and tokens signed with another key,
// for another client, without a nonce or unsigned each open nothing, with a message naming
// the check; a session single sign-on opened reaches its organisation only; the provider's
// back-channel logout, and turning SSO off, end its sessions; every step is in the audit log.
import assert from 'node:assert/strict'
import { generateKeyPairSync, sign as signWith } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { OAuth2Server } from 'oauth2-mock-server'
import Provider from 'oidc-provider'
import type { Browser } from 'playwright-core'
import { addUser, invite } from '../../src/services/accounts.js'
import { createOrg } from '../../src/services/orgs.js'
import { providerFetch, providerOf } from '../../src/services/sso-provider.js'
import { recheckProvenDomains } from '../../src/services/sso-domains.js'
import { launchBrowser } from '../helpers/browser.js'
import { startDns } from '../helpers/dns.js'
import { freePort, startTestService, type TestService } from '../helpers/service.js'
import { startSmtp } from '../helpers/smtp.js'
import { TestSite } from '../helpers/site.js'
import { FormClient } from '../helpers/web-client.js'

const PASSWORD = 'correct horse battery staple'
/** A secret long enough to sign a client assertion with HS256 (client_secret_jwt). */
const LONG_SECRET = 'provider-secret-long-enough-for-hs256-0123456789'

/** The people oidc-provider knows, by subject; `verified` false: an address it has not verified. */
const accounts = new Map<string, { email: string, name: string, verified: boolean }>()
/** Who is at the provider's keyboard now: the next login signs them in (a removed one is refused). */
let atKeyboard = ''

/** oidc-provider on 127.0.0.1, whose login signs in `atKeyboard` and consents for them, as a person would. */
async function startProvider (
  redirectUri: string, clientAuth: 'client_secret_basic' | 'client_secret_post' | 'client_secret_jwt' = 'client_secret_basic'
): Promise<{ issuer: string, server: Server }> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const provider = new Provider(issuer, {
    clients: [{
      client_id: 'sitewatch',
      client_secret: clientAuth === 'client_secret_basic' ? 'provider-secret' : LONG_SECRET,
      redirect_uris: [redirectUri],
      response_types: ['code'],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: clientAuth
    }],
    clientAuthMethods: [clientAuth],
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
async function follow (start: string, jar: Map<string, Map<string, string>>, stopAt?: string) {
  let url = start
  for (let hop = 0; hop < 20; hop++) {
    const origin = new URL(url).origin
    const cookies = [...(jar.get(origin) ?? new Map())].map(([k, v]) => `${k}=${v}`).join('; ')
    const res = await fetch(url, { redirect: 'manual', headers: cookies ? { cookie: cookies } : {} })
    const kept = jar.get(origin) ?? new Map<string, string>()
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';')
      kept.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1))
    }
    jar.set(origin, kept)
    const location = res.headers.get('location')
    if (res.status < 300 || res.status >= 400 || !location) return { res, url }
    const next = new URL(location, url).href
    if (stopAt && next.startsWith(stopAt)) return { res, url: next }
    url = next
  }
  throw new Error('too many redirects')
}

/** Where the page that answers the single sign-on form goes on to (its meta refresh). */
const leavingFor = (html: string) => {
  const to = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(html)?.[1]
  assert.ok(to, `no way on to the provider in: ${html.slice(0, 400)}`)
  return to.replaceAll('&amp;', '&')
}

describe('single sign-on', () => {
  let t: TestService
  let idp: { issuer: string, server: Server }
  let mock: OAuth2Server
  let mockIssuer = ''
  let dns: Awaited<ReturnType<typeof startDns>>
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let browser: Browser
  let owner: FormClient
  let base = ''
  let callback = ''
  let mockOrg: { id: string, apiKey: string }
  /** Who the mock provider signs in, and what a test does to the ID token it is about to sign. */
  const mockPerson = { sub: 'mia-1', email: 'mia@mock.test', sid: 'mock-session-1' }
  let tweakIdToken: ((token: { header: Record<string, unknown>, payload: Record<string, unknown> }) => void) | undefined
  let swapIdToken: ((idToken: string) => string) | undefined

  /** A person's way in without a browser: the form, the provider, and back; the callback's address, unfollowed. */
  const toCallback = async (email: string, from = '/app/sign-in', person = new FormClient(t.url)) => {
    const started = await person.submit(from, '/app/sso/start', { email })
    assert.equal(started.status, 200, started.text.slice(0, 300))
    const { url } = await follow(leavingFor(started.text), new Map(), callback)
    assert.ok(url.startsWith(callback), `back at ${url}`)
    return { person, url }
  }
  const atCallback = async (person: FormClient, url: string) =>
    await person.request('GET', new URL(url).pathname + new URL(url).search)
  const audit = async (action: string, api = t.api) =>
    (await api.get(`/api/audit-events?action=${action}&pageSize=200`)).body.data as any[]
  /** Publishes the TXT record the settings ask for, and asks the app to look. */
  const prove = async (domain: string, api = t.api) => {
    const proof = (await api.get('/api/sso')).body.data.domainProofs.find((d: any) => d.domain === domain)
    dns.txt.set(proof.txtName, [proof.txtValue])
    return await api.request('POST', `/api/sso/domains/${domain}/check`, {})
  }

  before(async () => {
    const port = await freePort()
    base = `http://127.0.0.1:${port}`
    callback = `${base}/app/sso/callback`
    idp = await startProvider(callback)
    dns = await startDns()
    smtp = await startSmtp()
    mock = new OAuth2Server()
    await mock.issuer.keys.generate('RS256')
    await mock.start(0, '127.0.0.1')
    // As authentik writes issuers: with a trailing slash, which Discovery compares exactly.
    mockIssuer = `http://127.0.0.1:${(mock.address() as AddressInfo).port}/`
    mock.issuer.url = mockIssuer
    mock.service.on('beforeTokenSigning', (token: { header: Record<string, unknown>, payload: Record<string, unknown> }) => {
      if (!('aud' in token.payload)) return
      const { sub, email, sid } = mockPerson
      Object.assign(token.payload, { sub, email, email_verified: true, sid })
      tweakIdToken?.(token)
    })
    mock.service.on('beforeResponse', (response: { body: Record<string, unknown> }) => {
      if (swapIdToken && typeof response.body.id_token === 'string') response.body.id_token = swapIdToken(response.body.id_token)
    })
    t = await startTestService({
      PORT: String(port),
      PUBLIC_BASE_URL: base,
      SSO_ALLOW_INSECURE_ISSUERS: 'true',
      SSO_DNS_SERVERS: dns.server,
      SECRETS_KEY: 'a-key-for-this-test-only-0123456789abcdef',
      SMTP_URL: smtp.url,
      LOG_LEVEL: 'error'
    })
    owner = new FormClient(t.url)
    const setup = new URL(t.setupLink).pathname
    assert.equal((await owner.submit(setup, setup, { email: 'olive@corp.test', password: PASSWORD })).status, 303)
    await t.service.store.db.updateTable('orgs').set({ plan: 'enterprise' }).execute()
    accounts.set('pat-1', { email: 'pat@corp.test', name: 'Pat', verified: true })
    accounts.set('una-1', { email: 'una@corp.test', name: 'Una', verified: false })
    accounts.set('olive-1', { email: 'olive@corp.test', name: 'Olive', verified: true })
    const made = await createOrg(t.service.store.db, 'Mock Co', 'enterprise')
    mockOrg = { id: made.org.id, apiKey: made.apiKey }
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await t?.stop()
    await new Promise(resolve => idp.server.close(resolve))
    await mock.stop()
    await dns.close()
    await smtp.close()
  })

  it('an owner sets it in the app: the provider is read first, its refusals say what was read and why', async () => {
    const liar = await new TestSite().start()
    liar.set('/.well-known/openid-configuration', {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ issuer: 'https://evil.test', authorization_endpoint: 'https://evil.test/auth' })
    })
    const form = { clientId: 'sitewatch', clientSecret: 'provider-secret', domains: 'corp.test', defaultRole: 'editor' }
    const wrong = await owner.submit('/app/sso', '/app/sso', { ...form, issuer: liar.origin })
    assert.equal(wrong.status, 400)
    assert.match(wrong.text, /names itself &quot;https:\/\/evil\.test&quot;/)
    const missing = await owner.submit('/app/sso', '/app/sso', { ...form, issuer: `${liar.origin}/nowhere` })
    assert.equal(missing.status, 400)
    assert.match(missing.text, /nowhere\/\.well-known\/openid-configuration answered HTTP 404/)
    await liar.close()
    const saved = await owner.submit('/app/sso', '/app/sso', { ...form, issuer: idp.issuer })
    assert.equal(saved.status, 303, saved.text.slice(0, 500))
    const shown = (await t.api.get('/api/sso')).body.data
    assert.deepEqual([shown.issuer, shown.domains, shown.clientAuth, shown.redirectUri, shown.backchannelLogoutUri],
      [idp.issuer, ['corp.test'], 'client_secret_basic', callback, `${base}/app/sso/backchannel-logout`])
    assert.equal(JSON.stringify(shown).includes('provider-secret'), false, 'the secret is never shown')
    const stored = await t.service.store.db.selectFrom('sso_settings').select('client_secret').executeTakeFirstOrThrow()
    assert.match(stored.client_secret, /^sealed:v1:/)
    assert.equal(stored.client_secret.includes('provider-secret'), false, 'the secret is sealed at rest')
    const [changed] = await audit('sso.changed')
    assert.equal(changed.actor.label, 'olive@corp.test')
  })

  it('a domain signs nobody in until its TXT record proves it, and then only for its prover', async () => {
    const [claim] = (await t.api.get('/api/sso')).body.data.domainProofs
    assert.deepEqual([claim.domain, claim.verified, claim.txtName], ['corp.test', false, '_sitewatch-challenge.corp.test'])
    const unproven = await new FormClient(t.url).submit('/app/sign-in', '/app/sso/start', { email: 'pat@corp.test' })
    assert.equal(unproven.status, 404)
    assert.match(unproven.text, /No organisation signs in corp\.test through single sign-on/)
    const notYet = await t.api.request('POST', '/api/sso/domains/corp.test/check', {})
    assert.deepEqual([notYet.status, notYet.body.data.verified, notYet.body.data.problem],
      [200, false, '_sitewatch-challenge.corp.test has no TXT record'])
    // In the app: the record to publish, and the look that proves it.
    const page = await owner.request('GET', '/app/sso')
    assert.match(page.text, new RegExp(claim.txtValue))
    dns.txt.set(claim.txtName, ['v=spf1 -all', claim.txtValue])
    const checked = await owner.submit('/app/sso', '/app/sso/domains/check', { domain: 'corp.test' })
    assert.equal(checked.location, '/app/sso?done=proven')
    const [proven] = await audit('sso.domain_verified')
    assert.equal(proven.object.label, 'corp.test')

    // Another organisation may claim it, and prove nothing: its provider signs nobody of corp.test in.
    const other = t.api.withKey(mockOrg.apiKey)
    const claimed = await other.request('PUT', '/api/sso', {
      body: { issuer: mockIssuer, clientId: 'sitewatch-mock', clientSecret: 'unused', domains: ['mock.test', 'partner.test'], defaultRole: 'viewer', required: false }
    })
    assert.equal(claimed.status, 200, JSON.stringify(claimed.body))
    assert.equal(claimed.body.data.clientAuth, 'none', 'oauth2-mock-server advertises none only')
    const takeover = await other.request('PUT', '/api/sso', {
      body: { issuer: mockIssuer, clientId: 'sitewatch-mock', domains: ['mock.test', 'corp.test'], defaultRole: 'viewer', required: true }
    })
    assert.equal(takeover.status, 409, JSON.stringify(takeover.body))
    assert.match(takeover.body.error, /corp\.test is proven by another organisation/)
    assert.equal((await prove('mock.test', other)).body.data.verified, true)
  })

  it('a person signs in from the sign-in page in Chromium, under the app\'s CSP, and from an invitation', async () => {
    atKeyboard = 'pat-1'
    const context = await browser.newContext()
    const page = await context.newPage()
    const problems: string[] = []
    page.on('console', m => { if (m.type() === 'error') problems.push(m.text()) })
    await page.goto(`${base}/app/sign-in`)
    await page.fill('#sso-email', 'pat@corp.test')
    await page.click('button:has-text("Continue with single sign-on")')
    await page.waitForURL(`${base}/app/domains`)
    assert.match(await page.textContent('body') ?? '', /Pat \(editor\)/)
    assert.equal(problems.join('\n'), '', 'no CSP violation or other error on the way')
    const [joined] = await audit('member.joined')
    assert.deepEqual([joined.actor.label, joined.details], ['pat@corp.test', { role: 'editor', by: 'single sign-on' }])
    const [linked] = await audit('sso.identity_linked')
    assert.deepEqual([linked.object.label, linked.details.proof], ['pat@corp.test', 'a new account'])
    await context.close()

    // An invitation to an address of a proven domain of a required SSO: the invitation page's button, in the browser.
    const db = t.service.store.db
    const orgId = (await db.selectFrom('orgs').select('id').where('name', '<>', 'Mock Co').executeTakeFirstOrThrow()).id
    const settings = { issuer: idp.issuer, clientId: 'sitewatch', domains: ['corp.test'], defaultRole: 'editor' }
    assert.equal((await t.api.request('PUT', '/api/sso', { body: { ...settings, required: true } })).status, 200)
    accounts.set('ivy-1', { email: 'ivy@corp.test', name: 'Ivy', verified: true })
    const ivy = await invite(db, { role: 'owner' }, orgId, 'ivy@corp.test', 'admin')
    atKeyboard = 'ivy-1'
    const invited = await (await browser.newContext()).newPage()
    invited.on('console', m => { if (m.type() === 'error') problems.push(m.text()) })
    await invited.goto(`${base}/app/invite/${ivy.secret}`)
    await invited.click('button:has-text("Continue with single sign-on")')
    await invited.waitForURL(`${base}/app/domains`, { timeout: 10_000 }).catch(async err => {
      throw new Error(`${err.message}\nat ${invited.url()}: ${(await invited.textContent('body'))?.slice(0, 400)}`)
    })
    assert.match(await invited.textContent('body') ?? '', /Ivy \(admin\)/)
    assert.equal(problems.join('\n'), '')
    await invited.context().close()
    const ivyJoined = (await audit('member.joined')).find(e => e.actor.label === 'ivy@corp.test')
    assert.deepEqual(ivyJoined.details, { role: 'admin', by: 'invitation, through single sign-on' })
    assert.equal((await t.api.request('PUT', '/api/sso', { body: { ...settings, required: false } })).status, 200)
  })

  it('a callback opened in another browser opens nothing, and leaves the sign-in to the browser that started it', async () => {
    atKeyboard = 'pat-1'
    const { person, url } = await toCallback('pat@corp.test')
    // The attacker's browser never started a sign-in: no binding cookie.
    const attacker = new FormClient(t.url)
    const csrf = await atCallback(attacker, url)
    assert.equal(csrf.status, 401)
    assert.match(csrf.text, /not started in this browser/)
    // Another browser that started a sign-in of its own: its cookie is not this state's.
    const other = await toCallback('pat@corp.test')
    const crossed = await atCallback(other.person, url)
    assert.equal(crossed.status, 401)
    assert.match(crossed.text, /started in another browser/)
    assert.equal((await attacker.request('GET', '/app/domains')).status, 303, 'no session')
    // The person's own browser still finishes, once.
    assert.equal((await atCallback(person, url)).status, 303)
    assert.equal((await atCallback(person, url)).status, 401, 'a state works once')
    const tampered = new URL(other.url)
    tampered.searchParams.set('iss', 'https://evil.test')
    const wrongIssuer = await atCallback(other.person, tampered.href)
    assert.equal(wrongIssuer.status, 401)
    assert.match(wrongIssuer.text, /names another issuer/)
  })

  it('an existing account is linked only once its person proves it: a password, or a link mailed to it', async () => {
    // Olive, the owner, has a password account: the provider vouching for her address is not enough.
    atKeyboard = 'olive-1'
    const { person, url } = await toCallback('olive@corp.test')
    const asked = await atCallback(person, url)
    assert.equal(asked.status, 200)
    assert.match(asked.text, /Link your account/)
    assert.equal((await person.request('GET', '/app/domains')).status, 303, 'no session before the proof')
    const token = /name="token" value="([^"]+)"/.exec(asked.text)![1]
    const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1]
    const wrong = await person.request('POST', '/app/sso/link', { token, password: 'not her password', _csrf: csrfOf(asked.text) })
    assert.equal(wrong.status, 401)
    assert.match(wrong.text, /not the password of olive@corp\.test/)
    // The link page of one browser does not work in another.
    const elsewhere = new FormClient(t.url)
    const stolen = await elsewhere.submit('/app/sign-in', '/app/sso/link', { token, password: PASSWORD })
    assert.equal(stolen.status, 404)
    const right = await person.request('POST', '/app/sso/link', {
      token, password: PASSWORD, _csrf: csrfOf(wrong.text)
    })
    assert.equal(right.status, 303, right.text.slice(0, 300))
    assert.equal((await person.request('GET', '/app/domains')).status, 200)
    const linked = (await audit('sso.identity_linked')).find(e => e.object.label === 'olive@corp.test')
    assert.equal(linked.details.proof, 'its password')
    // From now on the provider signs her in at once.
    const again = await toCallback('olive@corp.test')
    assert.equal((await atCallback(again.person, again.url)).status, 303)

    // Gus has an account of his own, another organisation's: a link mailed to his address proves it too.
    const db = t.service.store.db
    await addUser(db, mockOrg.id, { email: 'gus@corp.test', password: PASSWORD }, 'viewer')
    accounts.set('gus-1', { email: 'gus@corp.test', name: 'Gus', verified: true })
    atKeyboard = 'gus-1'
    const gus = await toCallback('gus@corp.test')
    const gusAsked = await atCallback(gus.person, gus.url)
    const gusToken = /name="token" value="([^"]+)"/.exec(gusAsked.text)![1]
    const mailed = await gus.person.request('POST', '/app/sso/link/mail', {
      token: gusToken, _csrf: /name="_csrf" value="([^"]+)"/.exec(gusAsked.text)![1]
    })
    assert.equal(mailed.status, 200)
    let mail
    for (let i = 0; i < 200 && !(mail = smtp.find('gus@corp.test', /Link your Sitewatch account/)); i++) {
      await new Promise(resolve => setTimeout(resolve, 100))
    }
    assert.ok(mail, 'the link was mailed')
    const link = new URL(/http\S+\/app\/sso\/link\/\S+/.exec(mail.text ?? '')![0])
    const reader = new FormClient(t.url)
    assert.equal((await reader.request('GET', link.pathname)).status, 200, 'a visit alone uses nothing')
    const used = await reader.submit(link.pathname, link.pathname, {})
    assert.equal(used.status, 303)
    assert.equal((await reader.request('GET', link.pathname)).status, 404, 'the link works once')
    const gusLinked = (await audit('sso.identity_linked')).find(e => e.object.label === 'gus@corp.test')
    assert.equal(gusLinked.details.proof, 'a link mailed to the address')

    // Gus's session, opened by this organisation's provider, reaches this organisation only.
    const home = await reader.request('GET', '/app/domains')
    assert.doesNotMatch(home.text, /Mock Co/, 'the other organisation is not offered')
    const switched = await reader.submit('/app/domains', '/app/org', { orgId: mockOrg.id })
    assert.equal(switched.status, 403)
    assert.match(switched.text, /reaches that organisation only/)
    const byPassword = new FormClient(t.url)
    assert.equal((await byPassword.signIn('gus@corp.test', PASSWORD)).status, 303)
    assert.match((await byPassword.request('GET', '/app/domains')).text, /Mock Co/, 'his password reaches both')
  })

  it('the second provider (oauth2-mock-server, no client secret, an issuer ending in /) signs in; forged tokens open nothing and say why', async () => {
    const other = t.api.withKey(mockOrg.apiKey)
    const refusedWith = async (why: RegExp) => {
      const { person, url } = await toCallback(mockPerson.email)
      const res = await atCallback(person, url)
      assert.equal(res.status, 401, res.text.slice(0, 300))
      assert.match(res.text, why)
      assert.equal((await person.request('GET', '/app/domains')).status, 303, 'no session')
    }
    const { person, url } = await toCallback(mockPerson.email)
    assert.equal((await atCallback(person, url)).status, 303)
    assert.match((await person.request('GET', '/app/domains')).text, /mia@mock\.test|Mock Co/)

    // Signed with another key under the provider's own key id.
    const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 })
    swapIdToken = token => {
      const [header, payload] = token.split('.')
      return `${header}.${payload}.${signWith('sha256', Buffer.from(`${header}.${payload}`), foreign.privateKey).toString('base64url')}`
    }
    await refusedWith(/signature does not match the provider.{1,6}s published keys/)
    // Unsigned (alg none).
    swapIdToken = token => {
      const [, payload] = token.split('.')
      return `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`
    }
    await refusedWith(/unsigned or signed with an algorithm the provider does not announce/)
    swapIdToken = undefined
    tweakIdToken = token => { token.payload.aud = 'someone-else' }
    await refusedWith(/issued to another client/)
    tweakIdToken = token => { delete token.payload.nonce }
    await refusedWith(/nonce is missing or is not this sign-in/)
    tweakIdToken = undefined
    const failed = await audit('session.sign_in_failed', other)
    assert.ok(failed.filter(e => e.details.via === 'single sign-on').length >= 4, JSON.stringify(failed))

    // The provider's back-channel logout ends its session; a token signed with another key ends nothing.
    const signedIn = await toCallback(mockPerson.email)
    assert.equal((await atCallback(signedIn.person, signedIn.url)).status, 303)
    const logoutToken = async (claims: Record<string, unknown>) => await mock.issuer.buildToken({
      scopesOrTransform: (_header, payload) => {
        Object.assign(payload, {
          aud: 'sitewatch-mock', jti: `j-${Math.random()}`, events: { 'http://schemas.openid.net/event/backchannel-logout': {} }, ...claims
        })
      }
    })
    const post = async (token: string) => await fetch(`${base}/app/sso/backchannel-logout`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ logout_token: token })
    })
    const good = await logoutToken({ sub: mockPerson.sub, sid: mockPerson.sid })
    const [h, p] = good.split('.')
    const forged = await post(`${h}.${p}.${signWith('sha256', Buffer.from(`${h}.${p}`), foreign.privateKey).toString('base64url')}`)
    assert.equal(forged.status, 400)
    assert.equal((await signedIn.person.request('GET', '/app/domains')).status, 200, 'a forged logout ends nothing')
    const logout = await post(good)
    assert.equal(logout.status, 200)
    assert.ok((await logout.json()).ended >= 1)
    assert.equal((await signedIn.person.request('GET', '/app/domains')).status, 303, 'signed out by the provider')
    const [ended] = await audit('session.ended_by_provider', other)
    assert.deepEqual(ended.details, { sub: mockPerson.sub, sid: mockPerson.sid })

    // Turning single sign-on off ends the sessions it opened.
    const last = await toCallback(mockPerson.email)
    assert.equal((await atCallback(last.person, last.url)).status, 303)
    assert.equal((await other.request('DELETE', '/api/sso')).status, 200)
    assert.equal((await last.person.request('GET', '/app/domains')).status, 303)
    const [off] = await audit('sso.sessions_ended', other)
    assert.equal(off.details.reason, 'single sign-on was turned off')
  })

  it('a provider that advertises client_secret_post or client_secret_jwt only is authenticated its way', async () => {
    for (const [clientAuth, domain] of [['client_secret_post', 'post.test'], ['client_secret_jwt', 'jwt.test']] as const) {
      const provider = await startProvider(callback, clientAuth)
      try {
        const org = await createOrg(t.service.store.db, `Org of ${domain}`, 'enterprise')
        const api = t.api.withKey(org.apiKey)
        const put = await api.request('PUT', '/api/sso', {
          body: {
            issuer: provider.issuer,
            clientId: 'sitewatch',
            clientSecret: LONG_SECRET,
            domains: [domain],
            defaultRole: 'viewer',
            required: false
          }
        })
        assert.equal(put.status, 200, JSON.stringify(put.body))
        assert.equal(put.body.data.clientAuth, clientAuth)
        assert.equal((await prove(domain, api)).body.data.verified, true)
        accounts.set(`sam-${domain}`, { email: `sam@${domain}`, name: 'Sam', verified: true })
        atKeyboard = `sam-${domain}`
        const { person, url } = await toCallback(`sam@${domain}`)
        const landed = await atCallback(person, url)
        assert.equal(landed.status, 303, `${clientAuth}: ${landed.text.slice(0, 400)}`)
        assert.match((await person.request('GET', '/app/domains')).text, new RegExp(`Org of ${domain}`))
      } finally {
        await new Promise(resolve => provider.server.close(resolve))
      }
    }
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
    assert.match(gone.text, /refused the sign-in: access_denied \(no such user\)/)
    accounts.set('pat-1', { email: 'pat@corp.test', name: 'Pat', verified: true })
  })

  it('required: a member\'s password is refused, an owner\'s signs in, and sessions passwords started end', async () => {
    const db = t.service.store.db
    const settings = { issuer: idp.issuer, clientId: 'sitewatch', domains: ['corp.test'], defaultRole: 'editor' }
    const userId = (await db.selectFrom('users').select('id').where('email', '=', 'pat@corp.test').executeTakeFirstOrThrow()).id
    const hash = (await db.selectFrom('users').select('password_hash').where('email', '=', 'olive@corp.test')
      .executeTakeFirstOrThrow()).password_hash
    await db.updateTable('users').set({ password_hash: hash }).where('id', '=', userId).execute()
    const byPassword = new FormClient(t.url)
    assert.equal((await byPassword.signIn('pat@corp.test', PASSWORD)).status, 303)
    atKeyboard = 'pat-1'
    const byProvider = await toCallback('pat@corp.test')
    assert.equal((await atCallback(byProvider.person, byProvider.url)).status, 303)
    const put = await t.api.request('PUT', '/api/sso', { body: { ...settings, required: true } })
    assert.equal(put.status, 200, JSON.stringify(put.body))
    assert.equal((await byPassword.request('GET', '/app/domains')).status, 303, 'the session the password started ended')
    assert.equal((await byProvider.person.request('GET', '/app/domains')).status, 200, 'the provider\'s stays')
    const member = await new FormClient(t.url).signIn('pat@corp.test', PASSWORD)
    assert.equal(member.status, 403)
    assert.match(member.text, /signs its people in through its identity provider/)
    assert.match(member.text, /id="sso-email" name="email" type="email" value="pat@corp.test"/)
    assert.equal((await new FormClient(t.url).signIn('olive@corp.test', PASSWORD)).status, 303, 'the owner\'s way back in')
    const pro = await createOrg(db, 'Pro & Co', 'pro')
    const proPlan = await t.api.withKey(pro.apiKey).request('PUT', '/api/sso', { body: { ...settings, required: false } })
    assert.equal(proPlan.status, 403)
    assert.equal((await t.api.request('PUT', '/api/sso', { body: { ...settings, required: false } })).status, 200)
  })

  it('a proof whose record is gone is lost at the daily look, and its domain signs nobody in', async () => {
    const db = t.service.store.db
    dns.txt.delete('_sitewatch-challenge.corp.test')
    const inTwoDays = new Date(Date.now() + 2 * 86_400_000)
    const { lost } = await recheckProvenDomains({ db, dnsServers: [dns.server] }, inTwoDays)
    assert.equal(lost, 1)
    const proof = (await t.api.get('/api/sso')).body.data.domainProofs[0]
    assert.deepEqual([proof.verified, proof.problem], [false, '_sitewatch-challenge.corp.test has no TXT record'])
    const [lostEvent] = await audit('sso.domain_lost')
    assert.equal(lostEvent.object.label, 'corp.test')
    const start = await new FormClient(t.url).submit('/app/sign-in', '/app/sso/start', { email: 'pat@corp.test' })
    assert.equal(start.status, 404)
  })

  it('a key acts with its maker\'s role now: a write key of a maker made viewer reads no audit log and writes nothing', async () => {
    const db = t.service.store.db
    const orgId = (await db.selectFrom('orgs').select('id').where('name', '<>', 'Mock Co').where('name', '<>', 'Pro & Co')
      .executeTakeFirstOrThrow()).id
    const adam = await addUser(db, orgId, { email: 'adam@corp.test', password: PASSWORD }, 'admin')
    const { makeApiKey } = await import('../../src/services/keys.js')
    const key = await makeApiKey(db, orgId, { scope: 'write', createdBy: adam.id, name: 'adam' })
    const api = t.api.withKey(key.apiKey)
    assert.equal((await api.get('/api/audit-events')).status, 200)
    await db.updateTable('memberships').set({ role: 'viewer' }).where('user_id', '=', adam.id).execute()
    let status = 0
    for (let i = 0; i < 60 && status !== 403; i++) {
      status = (await api.get('/api/audit-events')).status
      if (status !== 403) await new Promise(resolve => setTimeout(resolve, 100))
    }
    assert.equal(status, 403)
    assert.equal((await api.request('POST', '/api/domains', { body: { domain: 'example.org' } })).status, 403)
  })

  it('the client library reaches public addresses only, checked at the connection; a name that does not resolve reaches nothing', async () => {
    const strict = providerFetch(false)
    const get = { body: undefined, headers: {}, method: 'GET', redirect: 'manual' } as any
    // Every refusal names the address it tried to reach; its cause says why.
    const refused = (url: string, why: RegExp) => (e: any) => {
      assert.equal(e.message, `${new URL(url).origin}${new URL(url).pathname} could not be reached`)
      assert.match(`${e.cause?.message} ${e.cause?.cause?.message ?? ''} ${e.cause?.cause?.code ?? ''}`, why)
      return true
    }
    for (const url of ['https://10.1.2.3/token', `${idp.issuer}/.well-known/openid-configuration`, 'https://localhost/jwks']) {
      await assert.rejects(strict(url, get), refused(url, /is not a public address/))
    }
    const nowhere = 'https://no-such-provider.invalid/jwks'
    await assert.rejects(strict(nowhere, get), refused(nowhere, /fetch failed|ENOTFOUND/))
    // An admin is told which address got no answer, and why (not "fetch failed").
    const closed = await freePort()
    await assert.rejects(providerOf({ allowInsecure: true }, { issuer: `http://127.0.0.1:${closed}/idp`, clientId: 'c', clientSecret: 's' }),
      (e: any) => e.message.includes(`http://127.0.0.1:${closed}/idp/.well-known/openid-configuration could not be reached (ECONNREFUSED`))
    const lax = await providerFetch(true)(`${idp.issuer}/.well-known/openid-configuration`, get)
    assert.equal(lax.status, 200)
  })
})
