import { createHash } from 'node:crypto'
import { isIP } from 'node:net'
import * as oidc from 'openid-client'
import { createRemoteJWKSet, customFetch, decodeJwt, jwtVerify, type FetchImplementation } from 'jose'
import { LRUCache } from 'lru-cache'
import { Agent, fetch as undiciFetch } from 'undici'
import { isLocalName, isPublicAddress, publicOnlyLookup } from '../crawl/address.js'
import { validation } from '../vocabulary/errors.js'

// An organisation's identity provider as a client of it sees it: its configuration read
// from its discovery document, the client authentication it advertises, its keys, and the
// network it is reached over (public addresses only, checked when each connection is made,
// as the crawler reaches sites). Why a provider's answer was refused, said in words an
// admin can act on.

export interface ProviderDeps {
  /** http:// issuers on private addresses (development and tests). */
  allowInsecure: boolean
}

export interface ProviderSettings { issuer: string, clientId: string, clientSecret: string }

/** Client authentication methods, in the order chosen among those the provider advertises. */
const CLIENT_AUTH = [
  ['client_secret_basic', (secret: string) => oidc.ClientSecretBasic(secret)],
  ['client_secret_post', (secret: string) => oidc.ClientSecretPost(secret)],
  ['client_secret_jwt', (secret: string) => oidc.ClientSecretJwt(secret)],
  ['none', () => oidc.None()]
] as const
export type ClientAuthMethod = typeof CLIENT_AUTH[number][0]

export interface Provider { config: oidc.Configuration, clientAuth: ClientAuthMethod }

const TIMEOUT_S = 10
const publicAgent = new Agent({ connect: { timeout: TIMEOUT_S * 1000, lookup: publicOnlyLookup as any } })

/**
 * The fetch the client library talks to a provider with: discovery, token, user info and
 * keys go to public addresses only (unless insecure issuers are allowed), the address
 * checked at the connection itself, and a name that does not resolve reaches nothing.
 */
export function providerFetch (allowInsecure: boolean): oidc.CustomFetch {
  return async (url, options) => {
    const target = new URL(url)
    const host = target.hostname.replace(/^\[|\]$/g, '')
    if (!allowInsecure && (isLocalName(host) || (isIP(host) !== 0 && !isPublicAddress(host)))) {
      throw new ProviderUnreachable(target, new Error(`${target.origin} is not a public address`))
    }
    try {
      return await undiciFetch(url, {
        ...(options as object),
        ...(allowInsecure ? {} : { dispatcher: publicAgent })
      }) as unknown as Response
    } catch (err) {
      throw new ProviderUnreachable(target, err)
    }
  }
}

/** A request to the provider that got no answer: which address it was (its discovery, token or keys endpoint). */
class ProviderUnreachable extends Error {
  readonly address: string
  constructor (target: URL, cause: unknown) {
    super(`${target.origin}${target.pathname} could not be reached`, { cause })
    this.address = `${target.origin}${target.pathname}`
  }
}

/** The ProviderUnreachable in an error's chain of causes, if any. */
function unreachableIn (err: unknown): ProviderUnreachable | undefined {
  let e: any = err
  for (let depth = 0; depth < 6 && e; depth++, e = e.cause) if (e instanceof ProviderUnreachable) return e
  return undefined
}

const digest = (s: string) => createHash('sha256').update(s).digest('base64url')

/** Providers' configurations (discovery reads the network): kept a while per settings. */
const discovered = new LRUCache<string, Provider>({ max: 1000, ttl: 10 * 60_000 })

/** The provider's configuration, read from its discovery document; a 400 that says why when it cannot be. */
export async function providerOf (deps: ProviderDeps, s: ProviderSettings): Promise<Provider> {
  const cacheKey = `${s.issuer}\n${s.clientId}\n${digest(s.clientSecret)}\n${deps.allowInsecure}`
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
  const fetch = providerFetch(deps.allowInsecure)
  let metadata: oidc.ServerMetadata
  try {
    const found = await oidc.discovery(issuer, s.clientId, undefined, oidc.None(), {
      timeout: TIMEOUT_S,
      [oidc.customFetch]: fetch,
      ...(deps.allowInsecure ? { execute: [oidc.allowInsecureRequests] } : {})
    })
    metadata = found.serverMetadata()
  } catch (err) {
    throw validation('issuer', `The identity provider's discovery document, ${wellKnown(issuer)}, could not be ` +
      `read: ${explainProviderError(err, s)}`)
  }
  if (!metadata.jwks_uri) {
    throw validation('issuer', `${s.issuer} publishes no signing keys (no jwks_uri in its discovery document): ` +
      'the ID tokens it signs could not be checked')
  }
  // The OAuth default, when the document names none, is client_secret_basic (RFC 8414 §2).
  const offered = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic']
  const auth = CLIENT_AUTH.find(([name]) => offered.includes(name))
  if (!auth) {
    throw validation('issuer', `${s.issuer} offers only ${offered.join(', ')} to authenticate a client; Sitewatch ` +
      `authenticates with ${CLIENT_AUTH.map(a => a[0]).join(', ')}`)
  }
  const config = new oidc.Configuration(
    metadata, s.clientId, { client_secret: s.clientSecret }, auth[1](s.clientSecret)
  )
  config[oidc.customFetch] = fetch
  config.timeout = TIMEOUT_S
  if (deps.allowInsecure) oidc.allowInsecureRequests(config)
  // The ID token's signature is checked against the provider's published keys, TLS or not.
  oidc.enableNonRepudiationChecks(config)
  const provider = { config, clientAuth: auth[0] }
  discovered.set(cacheKey, provider)
  return provider
}

const wellKnown = (issuer: URL) =>
  `${issuer.href.replace(/\/$/, '')}/.well-known/openid-configuration`

/** The innermost error of a chain of causes that carries a message of the protocol library's. */
function rootOf (err: unknown): { message: string, code?: string, cause?: any, error?: string, description?: string } {
  let e: any = err
  for (let depth = 0; depth < 5 && e?.cause instanceof Error; depth++) e = e.cause
  return {
    message: String(e?.message ?? e),
    code: e?.code,
    cause: e?.cause,
    error: (err as any)?.error ?? e?.error,
    description: (err as any)?.error_description ?? e?.error_description
  }
}

type Explainer = (root: ReturnType<typeof rootOf>, err: any, s: ProviderSettings) => string | undefined

/** Why the provider's answer was refused: the first rule that knows the failure says it. */
const EXPLAINERS: Explainer[] = [
  (r, err) => err instanceof oidc.AuthorizationResponseError || err?.name === 'AuthorizationResponseError'
    ? `the provider refused the sign-in: ${r.error ?? 'error'}${r.description ? ` (${r.description})` : ''}`
    : undefined,
  (r, err, s) => err instanceof oidc.ResponseBodyError || err?.name === 'ResponseBodyError'
    ? `the provider's token endpoint refused: ${r.error ?? 'error'}${r.description ? ` (${r.description})` : ''}` +
      (r.error === 'invalid_client' ? ` — check the client ID (${s.clientId}) and its secret` : '')
    : undefined,
  r => /"aud"/.test(r.message)
    ? 'the ID token was issued to another client (its audience is not this client ID): check the client ID'
    : undefined,
  r => /"iss" \(issuer\) response parameter|response parameter "iss"/.test(r.message)
    ? 'the answer at the callback names another issuer than the one set (its iss parameter)'
    : undefined,
  (r, _e, s) => /"iss"/.test(r.message) || (r.code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED' && r.cause?.attribute === 'issuer') ||
    /issuer does not match/.test(r.message)
    ? `the provider names itself ${JSON.stringify(r.cause?.body?.issuer ?? r.cause?.claims?.iss ?? '?')}, not ` +
      `${JSON.stringify(s.issuer)} as set: the issuer must be written exactly as the provider writes it`
    : undefined,
  r => /"nonce"/.test(r.message)
    ? 'the ID token\'s nonce is missing or is not this sign-in\'s (a token replayed from another sign-in?)'
    : undefined,
  r => /signature verification failed/.test(r.message)
    ? 'the ID token\'s signature does not match the provider\'s published keys (jwks_uri)'
    : undefined,
  r => /no applicable keys found|multiple applicable keys/.test(r.message)
    ? 'the ID token is signed with a key the provider does not publish ' +
      `(kid ${JSON.stringify(r.cause?.header?.kid ?? null)})`
    : undefined,
  r => /"alg"|unsupported JWS algorithm|Invalid JWT/.test(r.message)
    ? 'the ID token is unsigned or signed with an algorithm the provider does not announce (alg ' +
      `${JSON.stringify(r.cause?.header?.alg ?? r.cause?.alg ?? null)}); only the provider's asymmetric ` +
      'signatures are accepted'
    : undefined,
  r => r.code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED'
    ? `the ID token's ${r.cause?.claim ?? 'time'} is out of range (expired, or issued in the future): check the ` +
      'provider\'s clock'
    : undefined,
  r => /does not contain an ID Token|"id_token"/.test(r.message) ? 'the provider sent no ID token' : undefined,
  (r, err) => {
    const res = err?.cause instanceof Object && typeof err.cause.status === 'number' ? err.cause : undefined
    return res ? `${res.url || 'the provider'} answered HTTP ${res.status}` : undefined
  },
  r => /unexpected response content-type|RESPONSE_IS_NOT_JSON/.test(r.message + (r.code ?? ''))
    ? 'the provider answered something that is not JSON'
    : undefined,
  (r, err) => {
    const unreachable = unreachableIn(err)
    const why = `${r.code && r.code !== 'OAUTH_TIMEOUT' ? `${r.code}: ` : ''}${r.message}`
    if (unreachable) return `${unreachable.address} could not be reached (${why})`
    return /fetch failed|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EBLOCKEDADDRESS|not a public address|timed out/i
      .test(`${err?.message} ${r.message} ${r.code}`)
      ? `it could not be reached (${why})`
      : undefined
  }
]

/** Why a provider's answer (or its absence) was refused, in one sentence an admin can act on. */
export function explainProviderError (err: unknown, s: ProviderSettings): string {
  const root = rootOf(err)
  for (const explain of EXPLAINERS) {
    const said = explain(root, err, s)
    if (said) return said.slice(0, 400)
  }
  return root.message.slice(0, 300)
}

const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout'
/** Provider keys for logout tokens, per key set address (jose's resolver, which caches and refreshes them). */
const keySets = new LRUCache<string, ReturnType<typeof createRemoteJWKSet>>({ max: 200, ttl: 60 * 60_000 })

/** The issuer a logout token says it comes from, unchecked: which provider's keys to check it with. */
export function logoutTokenIssuer (token: string): string | undefined {
  try {
    const iss = decodeJwt(token).iss
    return typeof iss === 'string' ? iss : undefined
  } catch {
    return undefined
  }
}

/**
 * A back-channel logout token (OpenID Connect Back-Channel Logout 1.0 §2.6) checked against
 * the provider's keys, issuer and client: whom it logs out (a subject, a provider session, or both).
 */
export async function verifyLogoutToken (
  deps: ProviderDeps, s: ProviderSettings, token: string
): Promise<{ sub?: string, sid?: string }> {
  const { config } = await providerOf(deps, s)
  const meta = config.serverMetadata()
  const jwksUri = meta.jwks_uri!
  // jose keeps the provider's keys, and reads them again for a key id it does not know (with a cooldown).
  const keys = keySets.get(jwksUri) ?? createRemoteJWKSet(new URL(jwksUri), {
    timeoutDuration: TIMEOUT_S * 1000,
    [customFetch]: providerFetch(deps.allowInsecure) as unknown as FetchImplementation
  })
  keySets.set(jwksUri, keys)
  const { payload } = await jwtVerify(token, keys, {
    issuer: meta.issuer,
    audience: s.clientId,
    algorithms: meta.id_token_signing_alg_values_supported?.filter(a => !a.startsWith('HS') && a !== 'none') ??
      ['RS256'],
    maxTokenAge: '10 minutes'
  })
  const events = payload.events as Record<string, unknown> | undefined
  if (!events || typeof events[BACKCHANNEL_EVENT] !== 'object') throw new Error('the token is no logout token')
  if ('nonce' in payload) throw new Error('a logout token carries no nonce')
  const sub = typeof payload.sub === 'string' ? payload.sub : undefined
  const sid = typeof payload.sid === 'string' ? payload.sid : undefined
  if (!sub && !sid) throw new Error('the logout token names no subject and no session')
  return { ...(sub ? { sub } : {}), ...(sid ? { sid } : {}) }
}
