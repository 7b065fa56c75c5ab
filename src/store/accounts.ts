import { sql } from 'kysely'
import type { Org } from '../vocabulary/plans.js'
import type { Role } from '../vocabulary/core.js'
import type { Db } from './db.js'
import type { TokenPurpose } from './schema-people.js'

// People: users, their memberships of organisations, their sessions, and one-time links
// (first owner, password reset, invitation). Sessions and links are known by the SHA-256
// of their secret, never by the secret.

export interface User {
  id: string
  email: string
  name: string | null
  password_hash: string | null
}

export async function findUserByEmail (db: Db, email: string): Promise<User | undefined> {
  return await db
    .selectFrom('users')
    .select(['id', 'email', 'name', 'password_hash'])
    .where('email', '=', email)
    .executeTakeFirst()
}

export async function findUser (db: Db, id: string): Promise<User | undefined> {
  return await db.selectFrom('users').select(['id', 'email', 'name', 'password_hash']).where('id', '=', id)
    .executeTakeFirst()
}

export async function anyUserExists (db: Db): Promise<boolean> {
  return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined
}

export async function insertUser (db: Db, u: { email: string, name: string | null, passwordHash: string | null }) {
  return await db
    .insertInto('users')
    .values({ email: u.email, name: u.name, password_hash: u.passwordHash })
    .returning(['id', 'email', 'name', 'password_hash'])
    .executeTakeFirstOrThrow()
}

export async function setPasswordHash (db: Db, userId: string, hash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: hash }).where('id', '=', userId).execute()
}

// Memberships

export interface Membership {
  org: Org
  role: Role
}

export async function membershipsOf (db: Db, userId: string): Promise<Membership[]> {
  const rows = await db
    .selectFrom('memberships as m')
    .innerJoin('orgs as o', 'o.id', 'm.org_id')
    .select(['m.role', 'o.id', 'o.name', 'o.plan', 'o.trial_ends_at', 'o.created_at'])
    .where('m.user_id', '=', userId)
    .orderBy('o.name')
    .execute()
  return rows.map(({ role, ...org }) => ({ org, role }))
}

/** Adds a member, or gives an existing one the role (an invitation accepted by a member). */
export async function putMember (db: Db, userId: string, orgId: string, role: Role): Promise<void> {
  await db
    .insertInto('memberships')
    .values({ user_id: userId, org_id: orgId, role })
    .onConflict(oc => oc.columns(['user_id', 'org_id']).doUpdateSet({ role }))
    .execute()
}

export async function listMembers (db: Db, orgId: string) {
  return await db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.email', 'u.name', 'm.role', 'm.created_at'])
    .where('m.org_id', '=', orgId)
    .orderBy('u.email')
    .execute()
}

export async function memberRole (db: Db, orgId: string, userId: string): Promise<Role | undefined> {
  return (await db.selectFrom('memberships').select('role').where('org_id', '=', orgId).where('user_id', '=', userId)
    .executeTakeFirst())?.role
}

/** The organisation's owners, locked so that two changes cannot remove the last one together. */
export async function lockOwners (db: Db, orgId: string): Promise<string[]> {
  const rows = await db.selectFrom('memberships').select('user_id').where('org_id', '=', orgId)
    .where('role', '=', 'owner').forUpdate().execute()
  return rows.map(r => r.user_id)
}

export async function setMemberRole (db: Db, orgId: string, userId: string, role: Role): Promise<boolean> {
  const r = await db.updateTable('memberships').set({ role }).where('org_id', '=', orgId)
    .where('user_id', '=', userId).executeTakeFirst()
  return Number(r.numUpdatedRows) > 0
}

export async function deleteMember (db: Db, orgId: string, userId: string): Promise<boolean> {
  const r = await db.deleteFrom('memberships').where('org_id', '=', orgId).where('user_id', '=', userId)
    .executeTakeFirst()
  return Number(r.numDeletedRows) > 0
}

// Sessions

export interface NewSession {
  tokenHash: string
  userId: string
  orgId: string | null
  userAgent: string | null
  ip: string | null
  expiresAt: Date
  /** The organisation whose identity provider opened it, and for whom there (its subject and session id). */
  sso?: { orgId: string, subject: string, sid: string | null }
}

export async function insertSession (db: Db, s: NewSession): Promise<string> {
  const row = await db
    .insertInto('sessions')
    .values({
      token_hash: s.tokenHash,
      user_id: s.userId,
      org_id: s.orgId,
      user_agent: s.userAgent,
      ip: s.ip,
      expires_at: s.expiresAt,
      single_sign_on: s.sso !== undefined,
      sso_org_id: s.sso?.orgId ?? null,
      sso_subject: s.sso?.subject ?? null,
      sso_sid: s.sso?.sid ?? null
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

/** A session that has not expired, idle or absolutely, with its person. */
export async function findLiveSession (db: Db, tokenHash: string, idleSince: Date, now: Date) {
  return await db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.id', 's.user_id', 's.org_id', 's.sso_org_id', 's.last_seen_at', 'u.email', 'u.name'])
    .where('s.token_hash', '=', tokenHash)
    .where('s.expires_at', '>', now)
    .where('s.last_seen_at', '>', idleSince)
    .executeTakeFirst()
}

export async function touchSession (db: Db, id: string, at: Date): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).execute()
}

export async function setSessionOrg (db: Db, id: string, orgId: string): Promise<void> {
  await db.updateTable('sessions').set({ org_id: orgId }).where('id', '=', id).execute()
}

export async function listSessions (db: Db, userId: string, idleSince: Date, now: Date) {
  return await db
    .selectFrom('sessions')
    .select(['id', 'user_agent', 'ip', 'created_at', 'last_seen_at'])
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .where('last_seen_at', '>', idleSince)
    .orderBy('last_seen_at', 'desc')
    .execute()
}

/** Ends one session of the person (`id`), or all but `keep`, or all. */
export async function deleteSessions (db: Db, userId: string, which: { id?: string, keep?: string }) {
  await db
    .deleteFrom('sessions')
    .where('user_id', '=', userId)
    .$if(which.id !== undefined, q => q.where('id', '=', which.id!))
    .$if(which.keep !== undefined, q => q.where('id', '<>', which.keep!))
    .execute()
}

/**
 * Ends the sessions of `orgId`'s members other than owners whose address is of one of
 * `domains`, except those their identity provider started: single sign-on became required.
 */
export async function deleteSessionsNotSignedOn (db: Db, orgId: string, domains: readonly string[]): Promise<number> {
  if (domains.length === 0) return 0
  const r = await db.deleteFrom('sessions')
    .where('single_sign_on', '=', false)
    .where('user_id', 'in', db.selectFrom('memberships as m').innerJoin('users as u', 'u.id', 'm.user_id')
      .select('m.user_id').where('m.org_id', '=', orgId).where('m.role', '<>', 'owner')
      .where(sql<string>`split_part(u.email, '@', 2)`, 'in', domains))
    .executeTakeFirst()
  return Number(r.numDeletedRows)
}

/**
 * Ends the sessions `orgId`'s identity provider opened: all of them (the provider removed or
 * replaced), or those of one subject or one of the provider's sessions (its back-channel
 * logout). Returns the sessions ended, with their people.
 */
export async function deleteSsoSessions (
  db: Db, orgId: string, which: { subject?: string, sid?: string } = {}
): Promise<Array<{ id: string, user_id: string }>> {
  return await db.deleteFrom('sessions').where('sso_org_id', '=', orgId)
    .$if(which.subject !== undefined, q => q.where('sso_subject', '=', which.subject!))
    .$if(which.sid !== undefined, q => q.where('sso_sid', '=', which.sid!))
    .returning(['id', 'user_id'])
    .execute()
}

/** A pending invitation of `email` to `orgId`, used now: its role, or undefined when none is pending. */
export async function takeInvitation (db: Db, orgId: string, email: string, now: Date): Promise<Role | undefined> {
  const row = await db.updateTable('account_tokens').set({ used_at: now })
    .where('purpose', '=', 'invite').where('org_id', '=', orgId).where('email', '=', email)
    .where('used_at', 'is', null).where('expires_at', '>', now)
    .returning('role').executeTakeFirst()
  return row?.role ?? undefined
}

/** Sessions past their lifetime or idle too long: they open nothing any more. */
export async function deleteExpiredSessions (db: Db, idleSince: Date, now: Date): Promise<number> {
  const r = await db.deleteFrom('sessions')
    .where(eb => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', idleSince)])).executeTakeFirst()
  return Number(r.numDeletedRows)
}

// One-time links

export interface NewAccountToken {
  tokenHash: string
  purpose: TokenPurpose
  email?: string
  userId?: string
  orgId?: string
  role?: Role
  invitedBy?: string
  expiresAt: Date
}

export async function insertAccountToken (db: Db, t: NewAccountToken): Promise<string> {
  const row = await db
    .insertInto('account_tokens')
    .values({
      token_hash: t.tokenHash,
      purpose: t.purpose,
      email: t.email ?? null,
      user_id: t.userId ?? null,
      org_id: t.orgId ?? null,
      role: t.role ?? null,
      invited_by: t.invitedBy ?? null,
      expires_at: t.expiresAt
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

const TOKEN_COLUMNS = ['id', 'purpose', 'email', 'user_id', 'org_id', 'role', 'expires_at'] as const

/** A link that still works, without using it (to show its form). */
export async function findUsableToken (db: Db, tokenHash: string, purpose: TokenPurpose, now: Date) {
  return await db
    .selectFrom('account_tokens')
    .select([...TOKEN_COLUMNS])
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst()
}

/** Uses a link: once, atomically; undefined when it was used, expired or never existed. */
export async function useToken (db: Db, tokenHash: string, purpose: TokenPurpose, now: Date) {
  return await db
    .updateTable('account_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning([...TOKEN_COLUMNS])
    .executeTakeFirst()
}

export async function listInvitations (db: Db, orgId: string, now: Date) {
  return await db
    .selectFrom('account_tokens')
    .select(['id', 'email', 'role', 'created_at', 'expires_at'])
    .where('org_id', '=', orgId)
    .where('purpose', '=', 'invite')
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .execute()
}

/** Ends a pending invitation: the address it was for, or undefined when none was pending. */
export async function cancelInvitation (db: Db, orgId: string, id: string, now: Date): Promise<string | undefined> {
  const r = await db.updateTable('account_tokens').set({ used_at: now }).where('id', '=', id)
    .where('org_id', '=', orgId).where('purpose', '=', 'invite').where('used_at', 'is', null)
    .returning('email').executeTakeFirst()
  return r && (r.email ?? '')
}

/** Ends the open links of a kind: a person's resets, an address's invitations to an organisation, every setup link. */
export async function revokeLinks (
  db: Db, purpose: TokenPurpose, which: { userId?: string, orgId?: string, email?: string }, now: Date
): Promise<number> {
  const r = await db.updateTable('account_tokens').set({ used_at: now })
    .where('purpose', '=', purpose).where('used_at', 'is', null)
    .$if(which.userId !== undefined, q => q.where('user_id', '=', which.userId!))
    .$if(which.orgId !== undefined, q => q.where('org_id', '=', which.orgId!))
    .$if(which.email !== undefined, q => q.where('email', '=', which.email!))
    .executeTakeFirst()
  return Number(r.numUpdatedRows)
}

/** Links used or expired: they open nothing any more. */
export async function deleteSpentLinks (db: Db, now: Date): Promise<number> {
  const r = await db.deleteFrom('account_tokens')
    .where(eb => eb.or([eb('used_at', 'is not', null), eb('expires_at', '<=', now)])).executeTakeFirst()
  return Number(r.numDeletedRows)
}
