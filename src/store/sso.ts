import type { Role } from '../vocabulary/core.js'
import type { Db } from './db.js'

// Single sign-on's rows: an organisation's provider and its e-mail domains, and the
// sign-ins under way (services/sso.ts).

export interface SsoRow {
  orgId: string
  issuer: string
  clientId: string
  clientSecret: string
  defaultRole: Role
  required: boolean
  domains: string[]
}

export async function findSso (db: Db, orgId: string): Promise<SsoRow | undefined> {
  const row = await db.selectFrom('sso_settings').selectAll().where('org_id', '=', orgId).executeTakeFirst()
  if (!row) return undefined
  const domains = await db.selectFrom('sso_domains').select('domain').where('org_id', '=', orgId)
    .orderBy('domain').execute()
  return {
    orgId: row.org_id,
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecret: row.client_secret,
    defaultRole: row.default_role,
    required: row.required,
    domains: domains.map(d => d.domain)
  }
}

/** The organisation whose provider vouches for `domain`, if one does. */
export async function ssoOfDomain (db: Db, domain: string): Promise<SsoRow | undefined> {
  const row = await db.selectFrom('sso_domains').select('org_id').where('domain', '=', domain).executeTakeFirst()
  return row && await findSso(db, row.org_id)
}

/** Saves the settings and their domains; the caller checked that no other organisation holds one. */
export async function putSso (db: Db, s: SsoRow): Promise<void> {
  const values = {
    org_id: s.orgId,
    issuer: s.issuer,
    client_id: s.clientId,
    client_secret: s.clientSecret,
    default_role: s.defaultRole,
    required: s.required,
    updated_at: new Date()
  }
  await db.insertInto('sso_settings').values(values)
    .onConflict(oc => oc.column('org_id').doUpdateSet(values)).execute()
  await db.deleteFrom('sso_domains').where('org_id', '=', s.orgId).execute()
  await db.insertInto('sso_domains').values(s.domains.map(domain => ({ domain, org_id: s.orgId }))).execute()
}

export async function deleteSso (db: Db, orgId: string): Promise<boolean> {
  const r = await db.deleteFrom('sso_settings').where('org_id', '=', orgId).executeTakeFirst()
  return Number(r.numDeletedRows) > 0
}

/** Of `domains`, those another organisation's provider vouches for. */
export async function domainsHeldElsewhere (db: Db, orgId: string, domains: readonly string[]): Promise<string[]> {
  if (domains.length === 0) return []
  const rows = await db.selectFrom('sso_domains').select('domain')
    .where('domain', 'in', domains).where('org_id', '<>', orgId).execute()
  return rows.map(r => r.domain)
}

export interface SsoAttempt { orgId: string, codeVerifier: string, nonce: string, next: string | null }

export async function insertSsoAttempt (
  db: Db, stateHash: string, a: SsoAttempt, expiresAt: Date
): Promise<void> {
  await db.insertInto('sso_attempts').values({
    state_hash: stateHash,
    org_id: a.orgId,
    code_verifier: a.codeVerifier,
    nonce: a.nonce,
    next: a.next,
    expires_at: expiresAt
  }).execute()
  await db.deleteFrom('sso_attempts').where('expires_at', '<', new Date()).execute()
}

/** The sign-in under way whose state hashes to `stateHash`, used up: a state works once, until it expires. */
export async function takeSsoAttempt (db: Db, stateHash: string, now: Date): Promise<SsoAttempt | undefined> {
  const row = await db.deleteFrom('sso_attempts').where('state_hash', '=', stateHash)
    .returningAll().executeTakeFirst()
  if (!row || row.expires_at <= now) return undefined
  return { orgId: row.org_id, codeVerifier: row.code_verifier, nonce: row.nonce, next: row.next }
}
