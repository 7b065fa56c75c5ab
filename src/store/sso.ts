import type { Role } from '../vocabulary/core.js'
import type { Db } from './db.js'
import type { Database } from './schema.js'

// Single sign-on's rows (services/sso.ts): an organisation's provider, the e-mail domains it
// claims and which of them it proved, the identities linked to accounts, the links waiting
// for a person's proof, and the sign-ins under way.

export interface SsoRow {
  orgId: string
  issuer: string
  clientId: string
  /** Sealed (services/sealed.ts); a row from before sealing holds it plain. */
  clientSecret: string
  /** The client authentication the provider advertised when the settings were saved. */
  clientAuth: string
  defaultRole: Role
  required: boolean
  domains: SsoDomainRow[]
}

export interface SsoDomainRow {
  domain: string
  token: string
  verifiedAt: Date | null
  checkedAt: Date | null
  checkError: string | null
}

export async function findSso (db: Db, orgId: string): Promise<SsoRow | undefined> {
  const row = await db.selectFrom('sso_settings').selectAll().where('org_id', '=', orgId).executeTakeFirst()
  if (!row) return undefined
  const domains = await db.selectFrom('sso_domains').selectAll().where('org_id', '=', orgId)
    .orderBy('domain').execute()
  return {
    orgId: row.org_id,
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecret: row.client_secret,
    clientAuth: row.client_auth,
    defaultRole: row.default_role,
    required: row.required,
    domains: domains.map(d => ({
      domain: d.domain, token: d.token, verifiedAt: d.verified_at, checkedAt: d.checked_at, checkError: d.check_error
    }))
  }
}

/** The organisation that proved `domain` (a claim alone counts for nothing), if one did. */
export async function ssoOfDomain (db: Db, domain: string): Promise<SsoRow | undefined> {
  const row = await db.selectFrom('sso_domains').select('org_id')
    .where('domain', '=', domain).where('verified_at', 'is not', null).executeTakeFirst()
  return row && await findSso(db, row.org_id)
}

/** Every organisation whose provider is `issuer` (a back-channel logout names its issuer and client). */
export async function ssoOfIssuer (db: Db, issuer: string): Promise<SsoRow[]> {
  const rows = await db.selectFrom('sso_settings').select('org_id').where('issuer', '=', issuer).execute()
  return (await Promise.all(rows.map(async r => await findSso(db, r.org_id)))).filter(s => s !== undefined)
}

/**
 * Saves the settings and the claimed domains: a domain kept keeps its token and its proof,
 * a new one gets `tokenOf(domain)`, one left out is dropped.
 */
export async function putSso (
  db: Db, s: Omit<SsoRow, 'domains'> & { domains: readonly string[] }, tokenOf: (domain: string) => string
): Promise<void> {
  const values = {
    org_id: s.orgId,
    issuer: s.issuer,
    client_id: s.clientId,
    client_secret: s.clientSecret,
    client_auth: s.clientAuth,
    default_role: s.defaultRole,
    required: s.required,
    updated_at: new Date()
  }
  await db.insertInto('sso_settings').values(values)
    .onConflict(oc => oc.column('org_id').doUpdateSet(values)).execute()
  await db.deleteFrom('sso_domains').where('org_id', '=', s.orgId)
    .$if(s.domains.length > 0, q => q.where('domain', 'not in', s.domains)).execute()
  if (s.domains.length === 0) return
  await db.insertInto('sso_domains')
    .values(s.domains.map(domain => ({ domain, org_id: s.orgId, token: tokenOf(domain) })))
    .onConflict(oc => oc.columns(['org_id', 'domain']).doNothing()).execute()
}

export async function deleteSso (db: Db, orgId: string): Promise<boolean> {
  const r = await db.deleteFrom('sso_settings').where('org_id', '=', orgId).executeTakeFirst()
  await db.deleteFrom('sso_identities').where('org_id', '=', orgId).execute()
  return Number(r.numDeletedRows) > 0
}

/** Every organisation's client secret as stored (to seal those saved before secrets were sealed). */
export async function storedClientSecrets (db: Db): Promise<Array<{ orgId: string, clientSecret: string }>> {
  const rows = await db.selectFrom('sso_settings').select(['org_id', 'client_secret']).execute()
  return rows.map(r => ({ orgId: r.org_id, clientSecret: r.client_secret }))
}

/** Seals a secret saved before secrets were sealed. */
export async function setClientSecret (db: Db, orgId: string, sealed: string): Promise<void> {
  await db.updateTable('sso_settings').set({ client_secret: sealed }).where('org_id', '=', orgId).execute()
}

/** Of `domains`, those another organisation proved. */
export async function domainsProvenElsewhere (db: Db, orgId: string, domains: readonly string[]): Promise<string[]> {
  if (domains.length === 0) return []
  const rows = await db.selectFrom('sso_domains').select('domain')
    .where('domain', 'in', domains).where('org_id', '<>', orgId).where('verified_at', 'is not', null).execute()
  return rows.map(r => r.domain)
}

/**
 * Writes what a look at a domain's TXT records found: proven (`proven` true; refused by the
 * unique index when another organisation proved it first), not (`proven` false: its proof
 * is lost), or no answer (`proven` undefined: the proof stands, the error is kept).
 */
export async function recordDomainCheck (
  db: Db, orgId: string, domain: string, at: Date, proven: boolean | undefined, error: string | null
): Promise<void> {
  await db.updateTable('sso_domains')
    .set(eb => ({
      checked_at: at,
      check_error: error,
      verified_at: proven === undefined
        ? eb.ref('verified_at')
        : proven ? eb.fn.coalesce('verified_at', eb.val(at)) : null
    }))
    .where('org_id', '=', orgId).where('domain', '=', domain).execute()
}

/** Proven domains last looked at before `before`, oldest first: the re-check's list. */
export async function provenDomainsCheckedBefore (db: Db, before: Date, limit: number) {
  return await db.selectFrom('sso_domains').select(['org_id', 'domain', 'token'])
    .where('verified_at', 'is not', null)
    .where(eb => eb.or([eb('checked_at', 'is', null), eb('checked_at', '<', before)]))
    .orderBy('checked_at').limit(limit).execute()
}

// Identities

export async function findIdentity (db: Db, orgId: string, issuer: string, subject: string) {
  return await db.selectFrom('sso_identities').select('user_id')
    .where('org_id', '=', orgId).where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst()
}

export async function insertIdentity (
  db: Db, i: { orgId: string, issuer: string, subject: string, userId: string }
): Promise<void> {
  await db.insertInto('sso_identities')
    .values({ org_id: i.orgId, issuer: i.issuer, subject: i.subject, user_id: i.userId })
    .onConflict(oc => oc.columns(['org_id', 'issuer', 'subject']).doUpdateSet({ user_id: i.userId })).execute()
}

export interface SsoLink {
  browserHash: string
  orgId: string
  userId: string
  issuer: string
  subject: string
  sid: string | null
  next: string | null
}

export async function insertSsoLink (db: Db, tokenHash: string, l: SsoLink, expiresAt: Date): Promise<void> {
  await db.insertInto('sso_links').values({
    token_hash: tokenHash,
    browser_hash: l.browserHash,
    org_id: l.orgId,
    user_id: l.userId,
    issuer: l.issuer,
    subject: l.subject,
    sid: l.sid,
    next: l.next,
    expires_at: expiresAt
  }).execute()
  await db.deleteFrom('sso_links').where('expires_at', '<', new Date()).execute()
}

const linkOf = (row: Omit<Database['sso_links'], 'token_hash' | 'mail_hash' | 'expires_at'>): SsoLink => ({
  browserHash: row.browser_hash,
  orgId: row.org_id,
  userId: row.user_id,
  issuer: row.issuer,
  subject: row.subject,
  sid: row.sid,
  next: row.next
})

/** A link waiting for its proof, by its token or by the secret mailed for it; not used up. */
export async function peekSsoLink (db: Db, by: { tokenHash?: string, mailHash?: string }, now: Date) {
  const row = await db.selectFrom('sso_links').selectAll()
    .$if(by.tokenHash !== undefined, q => q.where('token_hash', '=', by.tokenHash!))
    .$if(by.mailHash !== undefined, q => q.where('mail_hash', '=', by.mailHash!))
    .where('expires_at', '>', now).executeTakeFirst()
  return row && { tokenHash: row.token_hash, ...linkOf(row) }
}

export async function setSsoLinkMail (db: Db, tokenHash: string, mailHash: string): Promise<void> {
  await db.updateTable('sso_links').set({ mail_hash: mailHash }).where('token_hash', '=', tokenHash).execute()
}

/** The link, used up: it works once. */
export async function takeSsoLink (db: Db, tokenHash: string): Promise<boolean> {
  const r = await db.deleteFrom('sso_links').where('token_hash', '=', tokenHash).executeTakeFirst()
  return Number(r.numDeletedRows) > 0
}

// Sign-ins under way

export interface SsoAttempt {
  orgId: string
  browserHash: string
  codeVerifier: string
  nonce: string
  next: string | null
}

export async function insertSsoAttempt (
  db: Db, stateHash: string, a: SsoAttempt, expiresAt: Date
): Promise<void> {
  await db.insertInto('sso_attempts').values({
    state_hash: stateHash,
    browser_hash: a.browserHash,
    org_id: a.orgId,
    code_verifier: a.codeVerifier,
    nonce: a.nonce,
    next: a.next,
    expires_at: expiresAt
  }).execute()
  await db.deleteFrom('sso_attempts').where('expires_at', '<', new Date()).execute()
}

/**
 * The sign-in under way whose state hashes to `stateHash`, started in the browser whose
 * binding hashes to `browserHash`, used up: a state works once, in its browser, until it expires.
 * A state opened in another browser is not used up by it.
 */
export async function takeSsoAttempt (
  db: Db, stateHash: string, browserHash: string, now: Date
): Promise<SsoAttempt | undefined> {
  const row = await db.deleteFrom('sso_attempts')
    .where('state_hash', '=', stateHash).where('browser_hash', '=', browserHash)
    .returningAll().executeTakeFirst()
  if (!row || row.expires_at <= now) return undefined
  return {
    orgId: row.org_id, browserHash: row.browser_hash, codeVerifier: row.code_verifier, nonce: row.nonce, next: row.next
  }
}
