import { randomBytes, randomUUID } from 'node:crypto'
import { sql, type Selectable } from 'kysely'
import type { MailPreference } from '../vocabulary/mail-alerts.js'
import { filtersOfMatch, matchOfFilters } from '../vocabulary/alert-rules.js'
import type { Db } from './db.js'
import { after, cappedTotal, createdUs, pageOf, type Cursor } from './lists.js'
import type { AlertPreferencesTable, EmailDeliveriesTable } from './schema.js'

// Members' e-mail alert settings, the e-mail outbox (one row per message, sent by a job),
// and the secret of an organisation's feeds.

export type PreferenceRow = Selectable<AlertPreferencesTable>
export type EmailDeliveryRow = Selectable<EmailDeliveriesTable>

/** Every member of the organisations (of all, without ids), with e-mail, plan, and settings when chosen. */
export async function mailRecipients (db: Db, orgIds?: string[]) {
  if (orgIds?.length === 0) return []
  let q = db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .innerJoin('orgs as o', 'o.id', 'm.org_id')
    .leftJoin('alert_preferences as a', join =>
      join.onRef('a.user_id', '=', 'm.user_id').onRef('a.org_id', '=', 'm.org_id'))
    .select([
      'm.user_id', 'm.org_id', 'u.email', 'o.plan', 'o.name as org_name', 'o.created_at as org_created_at',
      'a.mode', 'a.match', 'a.time_zone', 'a.hour',
      'a.weekday', 'a.last_digest_at', 'a.paused_reason', 'm.created_at as member_since'
    ])
    .orderBy('u.email')
  if (orgIds) q = q.where('m.org_id', 'in', orgIds)
  return await q.execute()
}
export type Recipient = Awaited<ReturnType<typeof mailRecipients>>[number]

/** A recipient's chosen settings, or null when they chose none. */
export function chosenPreference (r: Recipient): MailPreference | null {
  if (!r.mode) return null
  return {
    mode: r.mode,
    ...filtersOfMatch(r.match ?? {}),
    timeZone: r.time_zone!,
    hour: r.hour!,
    weekday: r.weekday!
  }
}

/** Saves a member's settings; saving clears a pause for bounces. */
export async function savePreference (db: Db, userId: string, orgId: string, p: MailPreference): Promise<void> {
  const values = {
    mode: p.mode,
    ...asColumns(p),
    bounces: 0,
    paused_reason: null,
    updated_at: new Date()
  }
  await db.insertInto('alert_preferences').values({ user_id: userId, org_id: orgId, ...values })
    .onConflict(oc => oc.columns(['user_id', 'org_id']).doUpdateSet(values)).execute()
}

/** Turns a member's e-mail alerts off (the one-click unsubscribe), keeping their other settings. */
export async function turnMailOff (db: Db, userId: string, orgId: string, defaults: MailPreference): Promise<boolean> {
  const member = await db.selectFrom('memberships').select('user_id').where('user_id', '=', userId)
    .where('org_id', '=', orgId).executeTakeFirst()
  if (!member) return false
  await db.insertInto('alert_preferences')
    .values({ user_id: userId, org_id: orgId, ...asColumns(defaults), mode: 'off' })
    .onConflict(oc => oc.columns(['user_id', 'org_id']).doUpdateSet({ mode: 'off', updated_at: new Date() })).execute()
  return true
}

const asColumns = (p: MailPreference) => ({
  match: JSON.stringify(matchOfFilters(p)),
  time_zone: p.timeZone,
  hour: p.hour,
  weekday: p.weekday
})

/** Marks that a member's digest went (or had nothing to say) at `at`. */
export async function setLastMailDigest (db: Db, userId: string, orgId: string, p: MailPreference, at: Date) {
  await db.insertInto('alert_preferences')
    .values({ user_id: userId, org_id: orgId, ...asColumns(p), mode: p.mode, last_digest_at: at })
    .onConflict(oc => oc.columns(['user_id', 'org_id']).doUpdateSet({ last_digest_at: at })).execute()
}

export interface NewEmail {
  org_id: string
  user_id: string
  to_address: string
  kind: 'change' | 'digest'
  event_id: string
  subject: string
  payload: Record<string, unknown>
}

/** Inserts messages, once per member, kind and event (a repeat is skipped); the new ones' ids. */
export async function insertEmails (tx: Db, emails: NewEmail[]): Promise<Array<{ id: string, org_id: string }>> {
  if (emails.length === 0) return []
  return await tx.insertInto('email_deliveries')
    .values(emails.map(e => ({ ...e, id: randomUUID(), payload: JSON.stringify(e.payload) })))
    .onConflict(oc => oc.columns(['user_id', 'org_id', 'kind', 'event_id']).doNothing())
    .returning(['id', 'org_id'])
    .execute()
}

/** A message to send, with its member's current settings (they may have turned alerts off since). */
export async function findEmailToSend (db: Db, id: string) {
  return await db.selectFrom('email_deliveries as e')
    .leftJoin('alert_preferences as a', join =>
      join.onRef('a.user_id', '=', 'e.user_id').onRef('a.org_id', '=', 'e.org_id'))
    .innerJoin('orgs as o', 'o.id', 'e.org_id')
    .selectAll('e')
    .select(['a.mode', 'a.paused_reason', 'o.plan'])
    .where('e.id', '=', id)
    .executeTakeFirst()
}

/** Fails a message still pending whose sending was given up (its last attempt lost with its worker). */
export async function markEmailFailed (db: Db, id: string, error: string): Promise<void> {
  await db.updateTable('email_deliveries').set({ status: 'failed', error })
    .where('id', '=', id).where('status', '=', 'pending').execute()
}

/** Records one attempt: delivered, failed for good, or still pending (a retry follows). */
export async function recordEmailAttempt (
  db: Db,
  id: string,
  a: { status: 'delivered' | 'failed' | 'pending' | 'not_sent', smtpResponse: string | null, error: string | null },
  at = new Date()
): Promise<void> {
  await db.updateTable('email_deliveries').set({
    attempts: sql`attempts + 1`,
    last_attempt_at: at,
    status: a.status,
    smtp_response: a.smtpResponse,
    error: a.error,
    ...(a.status === 'delivered' ? { delivered_at: at } : {})
  }).where('id', '=', id).execute()
}

/** Counts a hard bounce; at `limit` in a row the member's alerts pause with the reason. Delivery resets it. */
export async function recordBounce (
  db: Db, userId: string, orgId: string, reason: string, limit: number, defaults: MailPreference
) {
  await db.insertInto('alert_preferences')
    .values({ user_id: userId, org_id: orgId, ...asColumns(defaults), mode: defaults.mode, bounces: 1 })
    .onConflict(oc => oc.columns(['user_id', 'org_id']).doUpdateSet({
      bounces: sql`alert_preferences.bounces + 1`,
      paused_reason: sql`CASE WHEN alert_preferences.bounces + 1 >= ${limit} THEN ${reason}
        ELSE alert_preferences.paused_reason END`
    }))
    .execute()
}

export async function clearBounces (db: Db, userId: string, orgId: string) {
  await db.updateTable('alert_preferences').set({ bounces: 0 }).where('user_id', '=', userId)
    .where('org_id', '=', orgId).where('bounces', '>', 0).execute()
}

export function emailView (e: EmailDeliveryRow) {
  return {
    id: e.id,
    userId: e.user_id,
    to: e.to_address,
    kind: e.kind,
    subject: e.subject,
    status: e.status,
    attempts: e.attempts,
    smtpResponse: e.smtp_response,
    error: e.error,
    createdAt: e.created_at,
    lastAttemptAt: e.last_attempt_at,
    deliveredAt: e.delivered_at
  }
}

export async function listEmails (db: Db, orgId: string, page: number, pageSize: number, cursor?: Cursor) {
  const matching = db.selectFrom('email_deliveries').where('org_id', '=', orgId)
  const offset = cursor ? undefined : (page - 1) * pageSize
  const rows = await (cursor ? matching.where(after('created_at', 'id', cursor)) : matching)
    .selectAll().select(createdUs('created_at'))
    .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(pageSize + 1).offset(offset ?? 0).execute()
  const { page: shown, next } = pageOf(rows, pageSize)
  const counted = await cappedTotal(db, matching, { shown: shown.length, more: next !== undefined, offset })
  return { items: shown.map(emailView), next, ...counted }
}

const newFeedToken = () => `swf_${randomBytes(24).toString('base64url')}`

/** The secret of the organisation's own feed URLs (for admins and the API), made on first use. */
export async function feedToken (db: Db, orgId: string): Promise<string> {
  const row = await db.selectFrom('orgs').select('feed_token').where('id', '=', orgId).executeTakeFirstOrThrow()
  if (row.feed_token) return row.feed_token
  return await rotateFeedToken(db, orgId)
}

/** A new secret: the organisation's old feed URLs stop working (members' own ones go on). */
export async function rotateFeedToken (db: Db, orgId: string): Promise<string> {
  const token = newFeedToken()
  await db.updateTable('orgs').set({ feed_token: token }).where('id', '=', orgId).execute()
  return token
}

/** A member's own feed secret, made on first use; it goes with the membership. */
export async function memberFeedToken (db: Db, orgId: string, userId: string): Promise<string> {
  const row = await db.selectFrom('memberships').select('feed_token').where('org_id', '=', orgId)
    .where('user_id', '=', userId).executeTakeFirstOrThrow()
  return row.feed_token ?? await rotateMemberFeedToken(db, orgId, userId)
}

/** A new secret for a member: their old feed URLs stop working. */
export async function rotateMemberFeedToken (db: Db, orgId: string, userId: string): Promise<string> {
  const token = newFeedToken()
  await db.updateTable('memberships').set({ feed_token: token }).where('org_id', '=', orgId)
    .where('user_id', '=', userId).execute()
  return token
}

/** An API key's feed secret, made on first use; it ends with the key (a revoked key's addresses stop). */
export async function keyFeedToken (db: Db, keyId: string): Promise<string> {
  const row = await db.selectFrom('api_keys').select('feed_token').where('id', '=', keyId).executeTakeFirstOrThrow()
  return row.feed_token ?? await rotateKeyFeedToken(db, keyId)
}

/** A new secret for an API key's feeds: its old addresses stop working. */
export async function rotateKeyFeedToken (db: Db, keyId: string): Promise<string> {
  const token = newFeedToken()
  await db.updateTable('api_keys').set({ feed_token: token }).where('id', '=', keyId).execute()
  return token
}

/**
 * The organisation a feed secret opens: a member's own (while they are a member), an API
 * key's (while it is not revoked), or the organisation's.
 */
export async function orgOfFeedToken (db: Db, token: string) {
  const columns = ['o.id', 'o.name', 'o.plan', 'o.trial_ends_at', 'o.created_at'] as const
  return await db.selectFrom('memberships as m').innerJoin('orgs as o', 'o.id', 'm.org_id').select([...columns])
    .where('m.feed_token', '=', token).executeTakeFirst() ??
    await db.selectFrom('api_keys as k').innerJoin('orgs as o', 'o.id', 'k.org_id').select([...columns])
      .where('k.feed_token', '=', token).where('k.revoked_at', 'is', null).executeTakeFirst() ??
    await db.selectFrom('orgs as o').select([...columns]).where('o.feed_token', '=', token).executeTakeFirst()
}
