import { createHash } from 'node:crypto'
import * as oidc from 'openid-client'
import { LRUCache } from 'lru-cache'
import { pointsToPublicAddress } from '../crawl/address.js'
import { AppError, validation } from '../vocabulary/errors.js'
import { PLANS, type Org } from '../vocabulary/plans.js'
import { roleAllows, type Role } from '../vocabulary/core.js'
import { SIGNED_ON, type SsoSettings, type SsoSettingsInput } from '../vocabulary/sso.js'
import {
  deleteSessionsNotSignedOn, findUserByEmail, insertUser, memberRole, membershipsOf, takeInvitation
} from '../store/accounts.js'
import { inTransaction, type Db } from '../store/db.js'
import {
  deleteSso, domainsHeldElsewhere, findSso, insertSsoAttempt, putSso, ssoOfDomain, takeSsoAttempt,
  type SsoRow
} from '../store/sso.js'
import { audited, recordEvent } from './audit.js'
import { join, normalizeEmail, signsOnOnly } from './accounts.js'

// Single sign-on with OpenID Connect (authorization code with PKCE, openid-client): an
// owner names the organisation's identity provider and the e-mail domains it vouches for;
// a person of those domains signs in through it, and their first sign-in joins the
// organisation with the role the owner chose. With SSO required, the members' passwords
// are refused; owners keep theirs, the way back in when the provider fails.

export interface SsoDeps {
  db: Db
  /** The app's address, which the redirect URI is made of. */
  baseUrl: string
  /** http:// issuers on private addresses (development and tests). */
  allowInsecure: boolean
}

/** How long a person has between leaving for the provider and coming back. */
const ATTEMPT_MS = 10 * 60_000
const CALLBACK = '/app/sso/callback'

export const redirectUri = (baseUrl: string) => `${baseUrl}${CALLBACK}`
const hashState = (state: string) => createHash('sha256').update(state).digest('base64url')

/** Providers' configurations (discovery reads the network): kept a while per organisation and settings. */
const discovered = new LRUCache<string, oidc.Configuration>({ max: 1000, ttl: 10 * 60_000 })

/** The provider's configuration, read from its discovery document; a 400 that says why when it cannot be. */
async function providerOf (deps: SsoDeps, s: Pick<SsoRow, 'issuer' | 'clientId' | 'clientSecret'>) {
  const cacheKey = `${s.issuer}\n${s.clientId}\n${hashState(s.clientSecret)}`
  const known = discovered.get(cacheKey)
  if (known) return known
  let issuer: URL
  try {
    issuer = new URL(s.issuer)
  } catch {
    throw validation('issuer', 'issuer must be an absolute URL')
  }
  if (issuer.protocol !== 'https:' && !(deps.allowInsecure && issuer.protocol === 'http:')) {
    throw validation('issuer', 'issuer must be an https:// address')
  }
  if (!(await pointsToPublicAddress(issuer, { hostMap: new Map(), allowPrivateNetworks: deps.allowInsecure }))) {
    throw validation('issuer', 'issuer must point to a public address')
  }
  try {
    const config = await oidc.discovery(issuer, s.clientId, s.clientSecret, undefined, {
      timeout: 10,
      [oidc.customFetch]: providerFetch(deps.allowInsecure),
      ...(deps.allowInsecure ? { execute: [oidc.allowInsecureRequests] } : {})
    })
    discovered.set(cacheKey, config)
    return config
  } catch (err) {
    throw validation('issuer', `The identity provider at ${issuer.origin} could not be read: ${reasonOf(err)}`)
  }
}

/**
 * The fetch the client library talks to a provider with: each request (discovery, token,
 * user info, keys) must go to a public address, as the issuer must, unless insecure
 * issuers are allowed. A discovery document cannot point the service at its own network.
 */
export function providerFetch (allowInsecure: boolean): oidc.CustomFetch {
  return async (url, options) => {
    if (!(await pointsToPublicAddress(new URL(url), { hostMap: new Map(), allowPrivateNetworks: allowInsecure }))) {
      throw new Error(`${new URL(url).origin} is not a public address`)
    }
    return await fetch(url, options as RequestInit)
  }
}

const reasonOf = (err: unknown) => ((err as Error).message ?? String(err)).slice(0, 300)

function assertSsoPlan (org: Org): void {
  if (!PLANS[org.plan].features.singleSignOn) {
    throw new AppError('FORBIDDEN', `The ${org.plan} plan does not include single sign-on; it comes with enterprise`)
  }
}

const view = (s: SsoRow, baseUrl: string): SsoSettings => ({
  issuer: s.issuer,
  clientId: s.clientId,
  domains: s.domains,
  defaultRole: s.defaultRole as SsoSettings['defaultRole'],
  required: s.required,
  redirectUri: redirectUri(baseUrl)
})

/** The organisation's single sign-on, or null when it has none. */
export async function ssoSettings (deps: SsoDeps, org: Org): Promise<SsoSettings | null> {
  const s = await findSso(deps.db, org.id)
  return s ? view(s, deps.baseUrl) : null
}

/**
 * Sets the organisation's provider (an owner, on the enterprise plan). Its discovery
 * document is read first, so that settings that cannot work are a 400 now rather than a
 * failed sign-in later; a domain another organisation's provider vouches for is a 409.
 */
export async function configureSso (
  deps: SsoDeps, actor: { role: Role }, org: Org, input: SsoSettingsInput
): Promise<SsoSettings> {
  if (!roleAllows(actor.role, 'owner')) throw new AppError('FORBIDDEN', 'Only an owner sets single sign-on')
  assertSsoPlan(org)
  const saved = await findSso(deps.db, org.id)
  const clientSecret = input.clientSecret ?? saved?.clientSecret
  if (!clientSecret) throw validation('clientSecret', 'clientSecret is required the first time')
  const domains = [...new Set(input.domains.map(d => d.trim().toLowerCase()))]
  const row: SsoRow = {
    orgId: org.id,
    issuer: input.issuer.replace(/\/$/, ''),
    clientId: input.clientId,
    clientSecret,
    defaultRole: input.defaultRole,
    required: input.required,
    domains
  }
  await providerOf(deps, row)
  await audited(deps.db, {
    action: 'sso.changed',
    objectId: org.id,
    objectLabel: row.issuer,
    details: { clientId: row.clientId, domains, defaultRole: row.defaultRole, required: row.required }
  }, async tx => {
    const held = await domainsHeldElsewhere(tx, org.id, domains)
    if (held.length > 0) {
      throw new AppError('CONFLICT', `${held.join(', ')} already signs in through another organisation's provider`)
    }
    await putSso(tx, row)
    // Sessions their passwords started end with it: from now on the provider says who is still one of them.
    if (row.required) await deleteSessionsNotSignedOn(tx, org.id, domains)
  })
  return view(row, deps.baseUrl)
}

/** Turns single sign-on off: passwords work again, and people who had none reset one. */
export async function removeSso (deps: SsoDeps, actor: { role: Role }, org: Org): Promise<void> {
  if (!roleAllows(actor.role, 'owner')) throw new AppError('FORBIDDEN', 'Only an owner sets single sign-on')
  await audited(deps.db, { action: 'sso.changed', objectId: org.id, details: { removed: true } }, async tx => {
    if (!await deleteSso(tx, org.id)) throw new AppError('NOT_FOUND', 'This organisation has no single sign-on')
  })
}

/**
 * Where a person of `email`'s domain goes to sign in: their organisation's provider, with
 * a state (kept by its hash, used once), a nonce and a PKCE challenge. 404 when no
 * organisation's provider vouches for the domain.
 */
export async function startSsoSignIn (deps: SsoDeps, rawEmail: string, next: string | null): Promise<URL> {
  const email = normalizeEmail(rawEmail)
  if (!email) throw validation('email', 'Enter your work e-mail address')
  const sso = await ssoOfDomain(deps.db, email.split('@')[1])
  if (!sso) {
    throw new AppError('NOT_FOUND', `No organisation signs in ${email.split('@')[1]} through single sign-on: ` +
      'sign in with your password')
  }
  const provider = await providerOf(deps, sso)
  const state = oidc.randomState()
  const nonce = oidc.randomNonce()
  const codeVerifier = oidc.randomPKCECodeVerifier()
  await insertSsoAttempt(deps.db, hashState(state), { orgId: sso.orgId, codeVerifier, nonce, next },
    new Date(Date.now() + ATTEMPT_MS))
  return oidc.buildAuthorizationUrl(provider, {
    redirect_uri: redirectUri(deps.baseUrl),
    scope: 'openid email profile',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    login_hint: email
  })
}

/** A sign-in the provider answered that cannot be taken: why, said to the person and in the log. */
export class SsoRefused extends AppError {
  constructor (message: string, readonly orgId: string | null, readonly email: string | null) {
    super('UNAUTHORIZED', message)
  }
}

/**
 * Takes the provider's answer (`callback`: the address it sent the person back to): the
 * state must be one this service gave and not yet used, the code is exchanged with the
 * PKCE verifier, the ID token checked (issuer, audience, nonce, signature), and the
 * e-mail must be verified and of a domain the organisation's provider vouches for. The
 * person, made or found, is a member then (a first sign-in joins with the default role).
 */
export async function finishSsoSignIn (deps: SsoDeps, callback: URL, now = new Date()) {
  const state = callback.searchParams.get('state') ?? ''
  const attempt = state.length > 0 && state.length <= 200
    ? await takeSsoAttempt(deps.db, hashState(state), now)
    : undefined
  if (!attempt) throw new SsoRefused('This sign-in link has expired or was used: sign in again.', null, null)
  const refused = (why: string, email: string | null = null) => new SsoRefused(why, attempt.orgId, email)
  const sso = await findSso(deps.db, attempt.orgId)
  if (!sso) throw refused('Single sign-on was turned off for this organisation: sign in with your password.')
  const provider = await providerOf(deps, sso)
  let claims: Record<string, unknown>
  try {
    const tokens = await oidc.authorizationCodeGrant(provider, callback, {
      pkceCodeVerifier: attempt.codeVerifier,
      expectedNonce: attempt.nonce,
      expectedState: state,
      idTokenExpected: true
    })
    claims = { ...tokens.claims() }
    if (typeof claims.email !== 'string') {
      claims = { ...claims, ...await oidc.fetchUserInfo(provider, tokens.access_token, String(claims.sub)) }
    }
  } catch (err) {
    throw refused(`The identity provider did not sign you in: ${reasonOf(err)}`)
  }
  const email = typeof claims.email === 'string' ? normalizeEmail(claims.email) : undefined
  if (!email) throw refused('The identity provider gave no e-mail address.')
  if (claims.email_verified !== true) throw refused(`The identity provider has not verified ${email}.`, email)
  if (!sso.domains.includes(email.split('@')[1])) {
    throw refused(`${email} is not of a domain this organisation's provider vouches for.`, email)
  }
  const name = typeof claims.name === 'string' ? claims.name.slice(0, 200) : null
  return await inTransaction(deps.db, async tx => {
    const user = await findUserByEmail(tx, email) ?? await insertUser(tx, { email, name, passwordHash: null })
    if (!await memberRole(tx, sso.orgId, user.id)) {
      // An invitation pending for the address gives its role; otherwise the owner's default.
      const invited = await takeInvitation(tx, sso.orgId, email, now)
      const by = invited ? `invitation, through ${SIGNED_ON}` : SIGNED_ON
      await join(tx, user, sso.orgId, invited ?? sso.defaultRole, by)
    }
    return { user, orgId: sso.orgId, next: attempt.next }
  })
}

/**
 * Why a password may not sign this person in, recorded as a failed sign-in: a member (not
 * an owner) of an organisation that requires single sign-on, of a domain its provider
 * vouches for, signs in through it. Undefined: it may.
 */
export async function passwordRefusal (db: Db, user: { id: string, email: string }): Promise<string | undefined> {
  const memberships = await membershipsOf(db, user.id)
  let bound: (typeof memberships)[number] | undefined
  for (const m of memberships) {
    if (await signsOnOnly(db, user.email, m.org.id, m.role)) { bound = m; break }
  }
  if (!bound) return undefined
  await recordEvent(db, {
    action: 'session.sign_in_failed',
    orgId: bound.org.id,
    actor: { kind: 'user', userId: user.id, label: user.email },
    objectId: user.id,
    objectLabel: user.email,
    details: { reason: 'single sign-on required' }
  })
  return `${bound.org.name} signs its people in through its identity provider: use "Continue with ` +
    'single sign-on" on the sign-in page.'
}

/** Records a refused single sign-on in the organisation's log (or the operator's, when the state named none). */
export async function recordSsoRefusal (db: Db, refusal: SsoRefused): Promise<void> {
  await recordEvent(db, {
    action: 'session.sign_in_failed',
    orgId: refusal.orgId,
    actor: { kind: 'anonymous', label: 'anonymous' },
    objectLabel: refusal.email,
    details: { via: SIGNED_ON, reason: refusal.message }
  })
}
