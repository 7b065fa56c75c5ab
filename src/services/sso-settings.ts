import { AppError, validation } from '../vocabulary/errors.js'
import { PLANS, type Org } from '../vocabulary/plans.js'
import { roleAllows, type Role } from '../vocabulary/core.js'
import type { SsoSettings, SsoSettingsInput } from '../vocabulary/sso.js'
import { deleteSessionsNotSignedOn, deleteSsoSessions } from '../store/accounts.js'
import type { Tx } from '../store/db.js'
import {
  deleteSso, domainsProvenElsewhere, findSso, putSso, setClientSecret, storedClientSecrets, type SsoRow
} from '../store/sso.js'
import { audited, recordAudit } from './audit.js'
import { backchannelLogoutUri, redirectUri, type SsoDeps } from './sso.js'
import { domainState, newProofToken } from './sso-domains.js'
import { providerOf } from './sso-provider.js'

// An organisation's single sign-on as its owner sets it (services/sso.ts signs people in
// through it): the provider, checked when it is named; the domains it vouches for; its
// client secret, sealed; and the sessions it opened, ended when it is replaced or removed.

function assertSsoPlan (org: Org): void {
  if (!PLANS[org.plan].features.singleSignOn) {
    throw new AppError('FORBIDDEN', `The ${org.plan} plan does not include single sign-on; it comes with enterprise`)
  }
}

const view = (s: SsoRow, baseUrl: string): SsoSettings => ({
  issuer: s.issuer,
  clientId: s.clientId,
  domains: s.domains.map(d => d.domain),
  domainProofs: s.domains.map(domainState),
  clientAuth: s.clientAuth,
  defaultRole: s.defaultRole as SsoSettings['defaultRole'],
  required: s.required,
  redirectUri: redirectUri(baseUrl),
  backchannelLogoutUri: backchannelLogoutUri(baseUrl)
})

/** The organisation's single sign-on, or null when it has none. */
export async function ssoSettings (deps: SsoDeps, org: Org): Promise<SsoSettings | null> {
  const s = await findSso(deps.db, org.id)
  return s ? view(s, deps.baseUrl) : null
}

/**
 * Sets the organisation's provider (an owner, on the enterprise plan). Its discovery
 * document is read first, so that settings that cannot work are a 400 now rather than a
 * failed sign-in later; a domain another organisation proved is a 409. The client secret
 * is sealed. A new provider (issuer or client) ends the sessions the old one opened.
 */
export async function configureSso (
  deps: SsoDeps, actor: { role: Role }, org: Org, input: SsoSettingsInput
): Promise<SsoSettings> {
  if (!roleAllows(actor.role, 'owner')) throw new AppError('FORBIDDEN', 'Only an owner sets single sign-on')
  assertSsoPlan(org)
  const saved = await findSso(deps.db, org.id)
  const clientSecret = input.clientSecret ?? (saved && deps.sealer.open(saved.clientSecret))
  if (!clientSecret) throw validation('clientSecret', 'clientSecret is required the first time')
  const domains = [...new Set(input.domains.map(d => d.trim().toLowerCase()))]
  // The issuer as the provider writes it: Discovery compares it exactly (a trailing slash included).
  const issuer = input.issuer.trim()
  const provider = await providerOf(deps, { issuer, clientId: input.clientId, clientSecret })
  const replaced = saved !== undefined && (saved.issuer !== issuer || saved.clientId !== input.clientId)
  await audited(deps.db, {
    action: 'sso.changed',
    objectId: org.id,
    objectLabel: issuer,
    details: {
      clientId: input.clientId,
      domains,
      defaultRole: input.defaultRole,
      required: input.required,
      clientAuth: provider.clientAuth
    }
  }, async tx => {
    const held = await domainsProvenElsewhere(tx, org.id, domains)
    if (held.length > 0) {
      throw new AppError('CONFLICT', `${held.join(', ')} is proven by another organisation: it signs in through ` +
        'that one\'s provider')
    }
    await putSso(tx, {
      orgId: org.id,
      issuer,
      clientId: input.clientId,
      clientSecret: deps.sealer.seal(clientSecret),
      clientAuth: provider.clientAuth,
      defaultRole: input.defaultRole,
      required: input.required,
      domains
    }, newProofToken)
    if (replaced) await endProviderSessions(tx, org.id, 'the identity provider was replaced')
    // Sessions their passwords started end with it: from now on the provider says who is still one of them.
    const proven = (await findSso(tx, org.id))!.domains.filter(d => d.verifiedAt).map(d => d.domain)
    if (input.required) await deleteSessionsNotSignedOn(tx, org.id, proven)
  })
  return view((await findSso(deps.db, org.id))!, deps.baseUrl)
}

/** Ends every session `orgId`'s provider opened, and logs it when there were any. */
async function endProviderSessions (tx: Tx, orgId: string, reason: string): Promise<void> {
  const ended = await deleteSsoSessions(tx, orgId)
  if (ended.length > 0) {
    await recordAudit(tx, {
      action: 'sso.sessions_ended', objectId: orgId, details: { sessions: ended.length, reason }
    })
  }
}

/** Turns single sign-on off: passwords work again, people who had none reset one, and its sessions end. */
export async function removeSso (deps: SsoDeps, actor: { role: Role }, org: Org): Promise<void> {
  if (!roleAllows(actor.role, 'owner')) throw new AppError('FORBIDDEN', 'Only an owner sets single sign-on')
  await audited(deps.db, { action: 'sso.changed', objectId: org.id, details: { removed: true } }, async tx => {
    if (!await deleteSso(tx, org.id)) throw new AppError('NOT_FOUND', 'This organisation has no single sign-on')
    await endProviderSessions(tx, org.id, 'single sign-on was turned off')
  })
}

/** Seals the client secrets saved before secrets were sealed (once, when the service starts). */
export async function sealLegacySecrets (deps: SsoDeps): Promise<number> {
  let sealed = 0
  for (const s of await storedClientSecrets(deps.db)) {
    if (deps.sealer.isSealed(s.clientSecret)) continue
    await setClientSecret(deps.db, s.orgId, deps.sealer.seal(s.clientSecret))
    sealed++
  }
  return sealed
}
