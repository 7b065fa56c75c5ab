import { createHash, randomBytes } from 'node:crypto'
import * as oidc from 'openid-client'
import { appBaseUrl, type Config } from '../config.js'
import { AppError, validation } from '../vocabulary/errors.js'
import { SIGNED_ON } from '../vocabulary/sso.js'
import {
  deleteSsoSessions, findUser, findUserByEmail, insertUser, memberRole, membershipsOf,
  takeInvitation, type User
} from '../store/accounts.js'
import { inTransaction, type Db, type Tx } from '../store/db.js'
import {
  findIdentity, findSso, insertIdentity, insertSsoAttempt, insertSsoLink, peekSsoLink, setSsoLinkMail, ssoOfDomain,
  ssoOfIssuer, takeSsoAttempt, takeSsoLink, type SsoRow
} from '../store/sso.js'
import { audited, recordAudit, recordEvent } from './audit.js'
import { checkPassword, join, normalizeEmail, signsOnOnly } from './accounts.js'
import { sealer, type Sealer } from './sealed.js'
import type { DomainProofDeps } from './sso-domains.js'
import {
  explainProviderError, logoutTokenIssuer, providerOf, verifyLogoutToken, type ProviderDeps, type ProviderSettings
} from './sso-provider.js'

// Single sign-on with OpenID Connect (authorization code with PKCE, openid-client), as the
// specs and RFC 9700 want it. An owner names the organisation's identity provider and the
// e-mail domains it vouches for; a domain counts once the organisation proved it owns it
// (sso-domains.ts). A sign-in is bound to the browser that started it (its state, nonce and
// verifier are found by the state and a cookie of that browser); the ID token's signature is
// checked against the provider's keys. A provider identity is (issuer, subject): a new
// person gets an account linked to it; an existing account is linked only once its person
// proved it (its password, or a link mailed to it), never on the `email` claim alone. A
// session the provider opened reaches its organisation only, and ends when the provider is
// removed or says so (back-channel logout). With SSO required, the members' passwords are
// refused; owners keep theirs, the way back in when the provider fails. The owner's side,
// setting the provider and its domains, is sso-settings.ts.

export interface SsoDeps extends ProviderDeps, DomainProofDeps {
  db: Db
  /** The app's address, which the redirect URI is made of. */
  baseUrl: string
  sealer: Sealer
}

export function ssoDeps (db: Db, config: Pick<Config, 'ssoAllowInsecureIssuers' | 'ssoDnsServers' | 'secretsKey' |
'dataDir' | 'publicBaseUrl' | 'port'>): SsoDeps {
  return {
    db,
    baseUrl: appBaseUrl(config),
    allowInsecure: config.ssoAllowInsecureIssuers,
    dnsServers: config.ssoDnsServers,
    sealer: sealer(config)
  }
}

/** How long a person has between leaving for the provider and coming back, or to prove an account. */
const ATTEMPT_MS = 10 * 60_000
const LINK_MS = 30 * 60_000

export const redirectUri = (baseUrl: string) => `${baseUrl}/app/sso/callback`
export const backchannelLogoutUri = (baseUrl: string) => `${baseUrl}/app/sso/backchannel-logout`
const digest = (s: string) => createHash('sha256').update(s).digest('base64url')
/** A secret for a browser's binding cookie or a link. */
export const newBinding = () => randomBytes(32).toString('base64url')

/** A provider's settings as a sign-in uses them: its client secret unsealed. */
export const providerSettings = (deps: SsoDeps, s: SsoRow): ProviderSettings =>
  ({ issuer: s.issuer, clientId: s.clientId, clientSecret: deps.sealer.open(s.clientSecret) })

/**
 * Where a person of `email`'s domain goes to sign in: the provider of the organisation that
 * proved the domain, with a state, a nonce and a PKCE challenge kept for the browser whose
 * binding cookie is `binding`. 404 when no organisation proved the domain.
 */
export async function startSsoSignIn (
  deps: SsoDeps, rawEmail: string, next: string | null, binding: string
): Promise<URL> {
  const email = normalizeEmail(rawEmail)
  if (!email) throw validation('email', 'Enter your work e-mail address')
  const domain = email.split('@')[1]
  const sso = await ssoOfDomain(deps.db, domain)
  if (!sso) {
    throw new AppError('NOT_FOUND', `No organisation signs in ${domain} through single sign-on: ` +
      'sign in with your password')
  }
  const { config } = await providerOf(deps, providerSettings(deps, sso))
  const state = oidc.randomState()
  const nonce = oidc.randomNonce()
  const codeVerifier = oidc.randomPKCECodeVerifier()
  await insertSsoAttempt(deps.db, digest(state), {
    orgId: sso.orgId, browserHash: digest(binding), codeVerifier, nonce, next
  }, new Date(Date.now() + ATTEMPT_MS))
  return oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(deps.baseUrl),
    scope: 'openid email profile',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    login_hint: email
  })
}

/** A sign-in the provider answered that cannot be taken: which check failed, said to the person and in the log. */
export class SsoRefused extends AppError {
  constructor (message: string, readonly orgId: string | null, readonly email: string | null) {
    super('UNAUTHORIZED', message)
  }
}

/** Whom a session single sign-on opens is for: the organisation and the provider's subject and session. */
export interface SsoSessionOf { orgId: string, subject: string, sid: string | null }

/** What the callback leads to: a session, or an existing account that must be proven before it is linked. */
export type SsoOutcome =
  | { kind: 'signed-in', user: User, orgId: string, next: string | null, sso: SsoSessionOf }
  | { kind: 'prove-account', token: string, email: string, hasPassword: boolean }

/**
 * Takes the provider's answer (`callback`: the address it sent the browser back to, whose
 * binding cookie is `binding`): the state must be one this service gave that browser and
 * not yet used; the code is exchanged with the PKCE verifier and the client authentication
 * the provider advertises; the ID token's signature, issuer, audience, nonce and times are
 * checked; the e-mail must be verified and of a domain the organisation proved.
 */
export async function finishSsoSignIn (
  deps: SsoDeps, callback: URL, binding: string | undefined, now = new Date()
): Promise<SsoOutcome> {
  const state = callback.searchParams.get('state') ?? ''
  if (!binding) {
    throw new SsoRefused('This sign-in was not started in this browser (or it blocks cookies): start it again ' +
      'from the sign-in page.', null, null)
  }
  const attempt = state.length > 0 && state.length <= 200
    ? await takeSsoAttempt(deps.db, digest(state), digest(binding), now)
    : undefined
  if (!attempt) {
    throw new SsoRefused('This sign-in link has expired, was used, or was started in another browser: sign in ' +
      'again.', null, null)
  }
  const refused = (why: string, email: string | null = null) => new SsoRefused(why, attempt.orgId, email)
  const sso = await findSso(deps.db, attempt.orgId)
  if (!sso) throw refused('Single sign-on was turned off for this organisation: sign in with your password.')
  const settings = providerSettings(deps, sso)
  const { config } = await providerOf(deps, settings)
  let claims: Record<string, unknown>
  try {
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: attempt.codeVerifier,
      expectedNonce: attempt.nonce,
      expectedState: state,
      idTokenExpected: true
    })
    claims = { ...tokens.claims() }
    if (typeof claims.email !== 'string') {
      claims = { ...claims, ...await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub)) }
    }
  } catch (err) {
    throw refused(`The identity provider's answer was refused: ${explainProviderError(err, settings)}.`)
  }
  const subject = String(claims.sub)
  const sid = typeof claims.sid === 'string' ? claims.sid : null
  const email = typeof claims.email === 'string' ? normalizeEmail(claims.email) : undefined
  if (!email) throw refused('The identity provider gave no e-mail address.')
  if (claims.email_verified !== true) throw refused(`The identity provider has not verified ${email}.`, email)
  const domain = email.split('@')[1]
  if (!sso.domains.some(d => d.domain === domain && d.verifiedAt)) {
    throw refused(`${email} is not of a domain this organisation proved it owns: its provider cannot sign it ` +
      'in.', email)
  }
  const name = typeof claims.name === 'string' ? claims.name.slice(0, 200) : null
  const who = { orgId: sso.orgId, subject, sid }
  return await inTransaction(deps.db, async tx => {
    const linked = await findIdentity(tx, sso.orgId, sso.issuer, subject)
    let user = linked && await findUser(tx, linked.user_id)
    if (!user) {
      const existing = await findUserByEmail(tx, email)
      if (existing) {
        // The provider vouches for an address, not for the account: its person proves it first.
        const token = newBinding()
        await insertSsoLink(tx, digest(token), {
          browserHash: digest(binding),
          orgId: sso.orgId,
          userId: existing.id,
          issuer: sso.issuer,
          subject,
          sid,
          next: attempt.next
        }, new Date(now.getTime() + LINK_MS))
        return { kind: 'prove-account' as const, token, email, hasPassword: existing.password_hash !== null }
      }
      user = await insertUser(tx, { email, name, passwordHash: null })
      await linkIdentity(tx, sso, user, subject, 'a new account')
    }
    await joinThroughProvider(tx, sso, user, now)
    return { kind: 'signed-in' as const, user, orgId: sso.orgId, next: attempt.next, sso: who }
  })
}

async function linkIdentity (tx: Tx, sso: SsoRow, user: User, subject: string, proof: string): Promise<void> {
  await insertIdentity(tx, { orgId: sso.orgId, issuer: sso.issuer, subject, userId: user.id })
  await recordAudit(tx, {
    action: 'sso.identity_linked',
    orgId: sso.orgId,
    actor: { kind: 'user', userId: user.id, label: user.email },
    objectId: user.id,
    objectLabel: user.email,
    details: { issuer: sso.issuer, subject, proof }
  })
}

/** Makes the person the provider signed in a member (a first sign-in: the invitation's role, or the default). */
async function joinThroughProvider (tx: Tx, sso: SsoRow, user: User, now: Date): Promise<void> {
  if (await memberRole(tx, sso.orgId, user.id)) return
  const invited = await takeInvitation(tx, sso.orgId, user.email, now)
  const by = invited ? `invitation, through ${SIGNED_ON}` : SIGNED_ON
  await join(tx, user, sso.orgId, invited ?? sso.defaultRole, by)
}

/** The account a link waiting for its proof is for; undefined when it expired or is another browser's. */
export async function pendingLink (deps: SsoDeps, token: string, binding: string | undefined) {
  const link = await peekSsoLink(deps.db, { tokenHash: digest(token) }, new Date())
  if (!link || !binding || link.browserHash !== digest(binding)) return undefined
  const user = await findUser(deps.db, link.userId)
  return user && { email: user.email, hasPassword: user.password_hash !== null, tokenHash: link.tokenHash }
}

/**
 * Links the provider identity of a waiting link to its account, proven by the account's
 * password (in the browser that signed in at the provider) or by the secret mailed to its
 * address (`mailed`), and opens the session.
 */
export async function proveAccount (
  deps: SsoDeps,
  proof: { token: string, binding: string | undefined, password: string } | { mailed: string },
  now = new Date()
): Promise<Extract<SsoOutcome, { kind: 'signed-in' }>> {
  const link = 'mailed' in proof
    ? await peekSsoLink(deps.db, { mailHash: digest(proof.mailed) }, now)
    : await peekSsoLink(deps.db, { tokenHash: digest(proof.token) }, now)
  const gone = new SsoRefused('This link has expired or was used: sign in through single sign-on again.', null, null)
  if (!link) throw gone
  const user = await findUser(deps.db, link.userId)
  if (!user) throw gone
  if (!('mailed' in proof)) {
    if (!proof.binding || digest(proof.binding) !== link.browserHash) throw gone
    if (!await checkPassword(deps.db, user.email, proof.password)) {
      throw new SsoRefused(`That is not the password of ${user.email}.`, link.orgId, user.email)
    }
  }
  const sso = await findSso(deps.db, link.orgId)
  if (!sso || sso.issuer !== link.issuer) throw gone
  return await inTransaction(deps.db, async tx => {
    if (!await takeSsoLink(tx, link.tokenHash)) throw gone
    await linkIdentity(tx, sso, user, link.subject, 'mailed' in proof ? 'a link mailed to the address' : 'its password')
    await joinThroughProvider(tx, sso, user, now)
    return {
      kind: 'signed-in' as const,
      user,
      orgId: sso.orgId,
      next: link.next,
      sso: { orgId: sso.orgId, subject: link.subject, sid: link.sid }
    }
  })
}

/** Makes the secret a link mailed to the account's address carries (the account-mail job sends it). */
export async function mailedLinkSecret (
  db: Db, tokenHash: string
): Promise<{ email: string, secret: string } | undefined> {
  const link = await peekSsoLink(db, { tokenHash }, new Date())
  const user = link && await findUser(db, link.userId)
  if (!link || !user) return undefined
  const secret = newBinding()
  await setSsoLinkMail(db, tokenHash, digest(secret))
  return { email: user.email, secret }
}

/** The account's address a mailed link is for, to show before it is used; undefined when it is gone. */
export async function mailedLinkEmail (db: Db, secret: string): Promise<string | undefined> {
  const link = await peekSsoLink(db, { mailHash: digest(secret) }, new Date())
  return link && (await findUser(db, link.userId))?.email
}

/**
 * A back-channel logout (OpenID Connect Back-Channel Logout 1.0): the token, checked against
 * the keys of the provider it names and the client it is for, ends the sessions that
 * provider opened for its subject or its session. Returns how many ended; a token that does
 * not check out is a 400 that says why.
 */
export async function backchannelLogout (deps: SsoDeps, token: string): Promise<number> {
  const issuer = logoutTokenIssuer(token)
  if (!issuer) throw validation('logout_token', 'logout_token is not a JWT that names its issuer')
  const candidates = await ssoOfIssuer(deps.db, issuer)
  let lastProblem = `no organisation signs in through ${issuer}`
  for (const sso of candidates) {
    let whom: { sub?: string, sid?: string }
    try {
      whom = await verifyLogoutToken(deps, providerSettings(deps, sso), token)
    } catch (err) {
      lastProblem = (err as Error).message
      continue
    }
    return await audited(deps.db, {
      action: 'session.ended_by_provider',
      orgId: sso.orgId,
      actor: { kind: 'anonymous', label: `identity provider ${issuer}` },
      objectLabel: whom.sub ?? whom.sid ?? null,
      details: { ...whom }
    }, async tx => (await deleteSsoSessions(tx, sso.orgId, { subject: whom.sub, sid: whom.sid })).length)
  }
  throw validation('logout_token', `logout_token refused: ${lastProblem}`)
}

/**
 * Why a password may not sign this person in, recorded as a failed sign-in: a member (not
 * an owner) of an organisation that requires single sign-on, of a domain it proved, signs
 * in through it. Undefined: it may.
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
