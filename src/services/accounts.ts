import { createHash, randomBytes } from 'node:crypto'
import { hash, verify } from '@node-rs/argon2'
import { AppError, validation } from '../vocabulary/errors.js'
import { roleAllows, type Role } from '../vocabulary/core.js'
import type { Actor } from '../vocabulary/audit.js'
import { SIGNED_ON } from '../vocabulary/sso.js'
import {
  anyUserExists,
  deleteExpiredSessions,
  deleteMember,
  deleteSessions,
  deleteSpentLinks,
  findLiveSession,
  findUser,
  findUserByEmail,
  findUsableToken,
  insertAccountToken,
  insertSession,
  insertUser,
  lockOwners,
  memberRole,
  membershipsOf,
  putMember,
  revokeLinks,
  setMemberRole,
  setPasswordHash,
  touchSession,
  useToken,
  type User
} from '../store/accounts.js'
import { ssoOfDomain } from '../store/sso.js'
import { deleteStaleAttempts } from '../store/auth-limits.js'
import { deleteSpentShareLinks } from '../store/share-links.js'
import { inTransaction, type Db, type Tx } from '../store/db.js'
import type { TokenPurpose } from '../store/schema-people.js'
import { afterPasswordCheck, beforePasswordCheck, countInvitation } from './attempts.js'
import { audited, recordAudit } from './audit.js'

// People's accounts: passwords (argon2id), sessions kept in the database, and one-time
// links for the first owner, password resets and invitations. What a person may do in an
// organisation is their role's (domain/vocabulary.ts, roleAllows).

/** How long each kind of one-time link works. */
export const LINK_LIFETIME_MS: Record<TokenPurpose, number> = {
  setup: 7 * 86_400_000,
  reset: 3_600_000,
  invite: 7 * 86_400_000
}

export interface SessionRules {
  idleMs: number
  maxMs: number
}

/** A session's last request is written at most this often: a page's burst of requests costs one write. */
const TOUCH_EVERY_MS = 60_000

export const newSecret = () => randomBytes(32).toString('base64url')
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex')

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** An e-mail as stored (trimmed, lower case), or undefined when it is not one. */
export function normalizeEmail (raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined
  const email = raw.trim().toLowerCase()
  return email.length <= 254 && EMAIL.test(email) ? email : undefined
}

export const PASSWORD_MIN = 10
export const PASSWORD_MAX = 200

export function passwordProblem (password: unknown): string | undefined {
  if (typeof password !== 'string' || password.length < PASSWORD_MIN) {
    return `The password needs at least ${PASSWORD_MIN} characters`
  }
  if (password.length > PASSWORD_MAX) return `The password may have at most ${PASSWORD_MAX} characters`
  return undefined
}

// Verified when the e-mail is unknown, so that an unknown e-mail takes as long as a wrong password.
let decoyHash: Promise<string> | undefined
const decoy = async () => await (decoyHash ??= hash(newSecret()))

/** The person whose e-mail and password these are; undefined otherwise, in the same time either way. */
export async function checkPassword (db: Db, email: string, password: string): Promise<User | undefined> {
  const user = normalizeEmail(email) ? await findUserByEmail(db, normalizeEmail(email)!) : undefined
  const ok = await verify(user?.password_hash ?? await decoy(), password.slice(0, PASSWORD_MAX)).catch(() => false)
  return user?.password_hash && ok ? user : undefined
}

export async function startSession (
  db: Db,
  rules: SessionRules,
  userId: string,
  meta: {
    userAgent?: string
    ip?: string
    orgId?: string
    actor?: Actor
    via?: string
    sso?: { orgId: string, subject: string, sid: string | null }
  },
  now = new Date()
): Promise<{ token: string, id: string }> {
  const token = newSecret()
  const orgId = meta.orgId ?? await homeOrg(db, userId)
  const id = await inTransaction(db, async tx => {
    const id = await insertSession(tx, {
      tokenHash: hashSecret(token),
      userId,
      orgId,
      userAgent: meta.userAgent?.slice(0, 300) ?? null,
      ip: meta.ip ?? null,
      expiresAt: new Date(now.getTime() + rules.maxMs),
      ...(meta.sso ? { sso: meta.sso } : {})
    })
    await recordAudit(tx, {
      action: 'session.signed_in',
      orgId,
      objectId: id,
      ...(meta.actor ? { actor: meta.actor } : {}),
      ...(meta.sso ? { details: { via: SIGNED_ON } } : meta.via ? { details: { via: meta.via } } : {})
    })
    return id
  })
  return { token, id }
}

/** The organisation whose log a person's account events go in (the first they belong to), if any. */
export const homeOrg = async (db: Db, userId: string): Promise<string | null> =>
  (await membershipsOf(db, userId))[0]?.org.id ?? null

/** The live session of a cookie's token, with its person; its last use is written now and then. */
export async function findSession (db: Db, rules: SessionRules, token: string, now = new Date()) {
  if (token.length > 100) return undefined
  const session = await findLiveSession(db, hashSecret(token), new Date(now.getTime() - rules.idleMs), now)
  if (session && now.getTime() - session.last_seen_at.getTime() > TOUCH_EVERY_MS) {
    await touchSession(db, session.id, now)
  }
  return session
}

export async function endSession (db: Db, userId: string, sessionId: string): Promise<void> {
  await audited(db, { action: 'session.signed_out', objectId: sessionId }, async tx => {
    await deleteSessions(tx, userId, { id: sessionId })
  })
}

/** A one-time link's secret; only its hash is stored. */
async function issueLink (
  db: Db,
  purpose: TokenPurpose,
  fields: { email?: string, userId?: string, orgId?: string, role?: Role, invitedBy?: string },
  now: Date
): Promise<string> {
  const secret = newSecret()
  await insertAccountToken(db, {
    tokenHash: hashSecret(secret),
    purpose,
    ...fields,
    expiresAt: new Date(now.getTime() + LINK_LIFETIME_MS[purpose])
  })
  return secret
}

/**
 * The first owner's link, while nobody has an account: it makes its holder the owner of
 * `orgId`. A new one revokes those printed before it.
 */
export async function firstOwnerLink (db: Db, orgId: string, now = new Date()): Promise<string | undefined> {
  if (await anyUserExists(db)) return undefined
  await revokeLinks(db, 'setup', {}, now)
  return await issueLink(db, 'setup', { orgId, role: 'owner' }, now)
}

/**
 * What a link is for, while it works (to show its form), without using it. A setup link
 * works only while nobody has an account.
 */
export async function peekLink (db: Db, purpose: TokenPurpose, secret: string, now = new Date()) {
  if (secret.length > 100) return undefined
  const link = await findUsableToken(db, hashSecret(secret), purpose, now)
  if (link && purpose === 'setup' && await anyUserExists(db)) return undefined
  return link
}

export interface NewAccount {
  email: string
  name?: string
  password: string
}

function checkAccount (a: NewAccount): { email: string, name: string | null } {
  const email = normalizeEmail(a.email)
  if (!email) throw validation('email', 'Enter an e-mail address such as name@example.com')
  const problem = passwordProblem(a.password)
  if (problem) throw validation('password', problem)
  return { email, name: a.name?.trim().slice(0, 200) || null }
}

/**
 * Whether `email` signs in to `orgId` through its identity provider only: the organisation
 * requires single sign-on, its provider vouches for the address's domain, and the role is
 * not owner (owners keep a password, the way back in). Guests of other domains keep theirs.
 */
export async function signsOnOnly (db: Db, email: string, orgId: string, role: Role): Promise<boolean> {
  if (role === 'owner') return false
  const sso = await ssoOfDomain(db, email.slice(email.lastIndexOf('@') + 1))
  return sso?.orgId === orgId && sso.required
}

/**
 * Uses a setup or invitation link: a new person with the password, or (invitation) a
 * person who already has an account, who must give its password. Either way they become a
 * member with the link's role. The link works once.
 */
export async function acceptLink (
  db: Db,
  purpose: 'setup' | 'invite',
  secret: string,
  account: NewAccount,
  now = new Date()
): Promise<{ user: User, orgId: string }> {
  const { email, name } = checkAccount(account)
  const gone = () => new AppError('NOT_FOUND', 'This link has expired or was used')
  // The invitation's own address first: another address learns nothing of any account.
  const peeked = await peekLink(db, purpose, secret, now)
  if (!peeked) throw gone()
  if (peeked.email && peeked.email !== email) throw validation('email', 'This invitation is for another e-mail address')
  if (peeked.org_id && peeked.role && await signsOnOnly(db, email, peeked.org_id, peeked.role)) {
    // Its first sign-in through the provider takes the invitation (services/sso.ts): no password is set.
    throw new AppError('FORBIDDEN', 'This organisation signs its people in through its identity provider: ' +
      'continue with single sign-on to join')
  }
  const existing = await findUserByEmail(db, email)
  if (existing && !(await checkPassword(db, email, account.password))) {
    throw new AppError('UNAUTHORIZED', 'This e-mail has an account: enter its password to join')
  }
  const passwordHash = existing ? undefined : await hash(account.password)
  return await inTransaction(db, async tx => {
    // The first owner's link makes an owner only while nobody has an account, checked when it is used.
    if (purpose === 'setup' && await anyUserExists(tx)) throw gone()
    const link = await useToken(tx, hashSecret(secret), purpose, now)
    if (!link || !link.org_id || !link.role) throw gone()
    const user = existing ?? await insertUser(tx, { email, name, passwordHash: passwordHash! })
    await join(tx, user, link.org_id, link.role, purpose === 'setup' ? 'first owner\'s link' : 'invitation')
    return { user, orgId: link.org_id }
  })
}

/** Makes `user` a member of `orgId` with `role`, in the log as their own act (`by`: the link or the sign-on). */
export async function join (tx: Tx, user: User, orgId: string, role: Role, by: string): Promise<void> {
  await putMember(tx, user.id, orgId, role)
  await recordAudit(tx, {
    action: 'member.joined',
    orgId,
    actor: { kind: 'user', userId: user.id, label: user.email },
    objectId: user.id,
    objectLabel: user.email,
    details: { role, by }
  })
}

/** An invitation's secret, for `email` to join with `role`. Only an owner may invite an owner. */
export async function invite (
  db: Db,
  actor: { userId?: string, role: Role },
  orgId: string,
  rawEmail: string,
  role: Role,
  now = new Date()
): Promise<{ secret: string, email: string }> {
  const email = normalizeEmail(rawEmail)
  if (!email) throw validation('email', 'Enter an e-mail address such as name@example.com')
  assertMay(actor.role, 'admin')
  if (role === 'owner') assertMay(actor.role, 'owner')
  await countInvitation(db, orgId, now)
  // A new invitation to the same address replaces the one pending.
  const secret = await audited(db, {
    action: 'member.invited',
    orgId,
    objectLabel: email,
    details: { role }
  }, async tx => {
    await revokeLinks(tx, 'invite', { orgId, email }, now)
    return await issueLink(tx, 'invite', { email, orgId, role, invitedBy: actor.userId }, now)
  })
  return { secret, email }
}

/** A reset link for the e-mail's account, or undefined (the caller answers the same either way). */
export async function requestReset (db: Db, rawEmail: string, now = new Date()): Promise<string | undefined> {
  const email = normalizeEmail(rawEmail)
  const user = email ? await findUserByEmail(db, email) : undefined
  // Asked for an unknown address too: the operator's log (no organisation's) keeps who tried.
  const orgId = user ? await homeOrg(db, user.id) : null
  return await audited(db, {
    action: 'password.reset_requested', orgId, objectId: user?.id ?? null, objectLabel: email ?? rawEmail.slice(0, 254)
  }, async tx => user && await issueLink(tx, 'reset', { userId: user.id, email: user.email }, now))
}

/** Sets a new password through a reset link, and ends every session of the person. */
export async function resetPassword (db: Db, secret: string, password: string, now = new Date()): Promise<User> {
  const problem = passwordProblem(password)
  if (problem) throw validation('password', problem)
  const passwordHash = await hash(password)
  return await inTransaction(db, async tx => {
    const link = await useToken(tx, hashSecret(secret), 'reset', now)
    const user = link?.user_id ? await findUser(tx, link.user_id) : undefined
    if (!user) throw new AppError('NOT_FOUND', 'This link has expired or was used')
    await setPasswordHash(tx, user.id, passwordHash)
    await deleteSessions(tx, user.id, {})
    // Every other reset link of the person stops working with this one.
    await revokeLinks(tx, 'reset', { userId: user.id }, now)
    await recordAudit(tx, {
      action: 'password.changed',
      orgId: await homeOrg(tx, user.id),
      actor: { kind: 'user', userId: user.id, label: user.email },
      objectId: user.id,
      objectLabel: user.email,
      details: { by: 'reset link' }
    })
    return user
  })
}

/**
 * A new password for a signed-in person, who proves the current one (slowed after wrong
 * ones, as sign-ins are); their other sessions and open reset links end.
 */
export async function changePassword (db: Db, user: { id: string, email: string }, current: string, next: string,
  keepSession: string, now = new Date()): Promise<void> {
  await beforePasswordCheck(db, user.id, now)
  const right = await checkPassword(db, user.email, current) !== undefined
  await afterPasswordCheck(db, user.id, right)
  if (!right) throw validation('currentPassword', 'The current password is not right')
  const problem = passwordProblem(next)
  if (problem) throw validation('password', problem)
  const passwordHash = await hash(next)
  await audited(db, { action: 'password.changed', objectId: user.id, objectLabel: user.email }, async tx => {
    await setPasswordHash(tx, user.id, passwordHash)
    await deleteSessions(tx, user.id, { keep: keepSession })
    await revokeLinks(tx, 'reset', { userId: user.id }, now)
  })
}

/** Refuses, with the contract's 403, what the role does not allow. */
export function assertMay (role: Role, needed: Role): void {
  if (!roleAllows(role, needed)) {
    throw new AppError('FORBIDDEN', `This needs the ${needed} role or higher; you are ${articled(role)}`)
  }
}

const articled = (role: Role) => `${role === 'admin' || role === 'owner' || role === 'editor' ? 'an' : 'a'} ${role}`

/**
 * Gives a member another role, or removes them (`role` null). Admins manage viewers,
 * editors and admins; only an owner touches an owner or makes one; the last owner stays.
 */
export async function changeMember (
  db: Db,
  actor: { userId: string, role: Role },
  orgId: string,
  userId: string,
  role: Role | null
): Promise<void> {
  const leaving = role === null && actor.userId === userId
  if (!leaving) assertMay(actor.role, 'admin')
  await inTransaction(db, async tx => {
    const owners = await lockOwners(tx, orgId)
    const current = await memberRole(tx, orgId, userId)
    if (!current) throw new AppError('NOT_FOUND', 'Member not found')
    if ((current === 'owner' || role === 'owner') && !leaving) assertMay(actor.role, 'owner')
    if (current === 'owner' && role !== 'owner' && owners.length === 1) {
      throw new AppError('CONFLICT', 'The last owner cannot leave or lose the role: make another member owner first')
    }
    if (role === null) await deleteMember(tx, orgId, userId)
    else await setMemberRole(tx, orgId, userId, role)
    await recordAudit(tx, {
      action: role === null ? 'member.removed' : 'member.role_changed',
      orgId,
      objectId: userId,
      objectLabel: (await findUser(tx, userId))?.email ?? null,
      details: { from: current, ...(role !== null ? { to: role } : {}) }
    })
  })
}

/** The owner hands the organisation to another member, who becomes owner; the giver stays as admin. */
export async function transferOwnership (
  db: Db,
  actor: { userId: string, role: Role },
  orgId: string,
  toUserId: string
): Promise<void> {
  assertMay(actor.role, 'owner')
  if (toUserId === actor.userId) throw validation('userId', 'Choose another member')
  await inTransaction(db, async tx => {
    await lockOwners(tx, orgId)
    if (!(await memberRole(tx, orgId, toUserId))) throw new AppError('NOT_FOUND', 'Member not found')
    await setMemberRole(tx, orgId, toUserId, 'owner')
    await setMemberRole(tx, orgId, actor.userId, 'admin')
    await recordAudit(tx, {
      action: 'ownership.transferred',
      orgId,
      objectId: toUserId,
      objectLabel: (await findUser(tx, toUserId))?.email ?? null
    })
  })
}

/** Makes a person a member with a role directly (the operator's CLI and admin API). */
export async function addUser (db: Db, orgId: string, account: NewAccount, role: Role): Promise<User> {
  const { email, name } = checkAccount(account)
  const passwordHash = await hash(account.password)
  return await inTransaction(db, async tx => {
    if (await findUserByEmail(tx, email)) throw new AppError('CONFLICT', `${email} already has an account`)
    const user = await insertUser(tx, { email, name, passwordHash })
    await putMember(tx, user.id, orgId, role)
    await recordAudit(tx, { action: 'member.added', orgId, objectId: user.id, objectLabel: email, details: { role } })
    return user
  })
}

/**
 * What the retention sweep deletes of what once gave access: sessions expired or idle
 * past their limit, one-time links and share links used, revoked or expired, and attempt
 * counters whose window is long over.
 */
export async function sweepExpiredAccess (db: Db, now: Date, idleMs: number) {
  return {
    sessions: await deleteExpiredSessions(db, new Date(now.getTime() - idleMs), now),
    links: await deleteSpentLinks(db, now),
    shareLinks: await deleteSpentShareLinks(db, now),
    attemptCounters: await deleteStaleAttempts(db, new Date(now.getTime() - 86_400_000))
  }
}
