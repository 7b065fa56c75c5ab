import { createHmac, timingSafeEqual } from 'node:crypto'
import { AppError, notFound } from '../vocabulary/errors.js'
import {
  defaultMailPreference,
  effectiveMailPreference,
  isTimeZone,
  mailModesFor,
  type MailPreference
} from '../vocabulary/mail-alerts.js'
import { PLANS, type Org } from '../vocabulary/plans.js'
import { normalTags } from '../vocabulary/core.js'
import { countOwnedDomains } from '../store/domains.js'
import type { Db } from '../store/db.js'
import { inTransaction } from '../store/db.js'
import { audited, recordAudit } from './audit.js'
import { findUser } from '../store/accounts.js'
import { findOrg } from '../store/orgs.js'
import { chosenPreference, mailRecipients, savePreference, turnMailOff } from '../store/mail-alerts.js'

// Members' e-mail alert settings: read, checked against the plan, saved; and the
// unsubscribe token that turns them off without signing in.

/** Each member with the settings in force, whether they chose them, and a pause for bounces. */
export async function alertSettings (db: Db, org: Org) {
  const rows = await mailRecipients(db, [org.id])
  return rows.map(r => ({
    userId: r.user_id,
    email: r.email,
    ...effectiveMailPreference(org.plan, chosenPreference(r)),
    chosen: r.mode !== null,
    pausedReason: r.paused_reason ?? null
  }))
}

export async function alertSettingsOf (db: Db, org: Org, userId: string) {
  const found = (await alertSettings(db, org)).find(s => s.userId === userId)
  if (!found) throw notFound('Member')
  return found
}

/** Changes a member's settings: the mode must be one the plan offers; filters beyond severity need custom rules. */
export async function changeAlertSettings (db: Db, org: Org, userId: string, patch: Partial<MailPreference>) {
  const current = await alertSettingsOf(db, org, userId)
  const next: MailPreference = {
    mode: patch.mode ?? current.mode,
    minSeverity: patch.minSeverity ?? current.minSeverity,
    changeTypes: patch.changeTypes !== undefined ? patch.changeTypes : current.changeTypes,
    domainIds: patch.domainIds !== undefined ? patch.domainIds : current.domainIds,
    pageTypes: patch.pageTypes !== undefined ? patch.pageTypes : current.pageTypes,
    tags: patch.tags !== undefined ? (patch.tags === null ? null : normalTags(patch.tags)) : current.tags,
    timeZone: patch.timeZone ?? current.timeZone,
    hour: patch.hour ?? current.hour,
    weekday: patch.weekday ?? current.weekday
  }
  const plan = PLANS[org.plan]
  if (!mailModesFor(plan).includes(next.mode)) {
    throw new AppError('VALIDATION_ERROR', `The ${org.plan} plan sends e-mail as ${mailModesFor(plan).join(', ')}: ` +
      'realtime e-mail comes with the pro plan', { field: 'mode' })
  }
  if (!isTimeZone(next.timeZone)) {
    throw new AppError('VALIDATION_ERROR', 'timeZone must be an IANA time zone such as Europe/Paris',
      { field: 'timeZone' })
  }
  const custom = next.changeTypes !== null || next.domainIds !== null || next.pageTypes !== null || next.tags !== null
  if (custom && !plan.features.customAlertRules) {
    throw new AppError('FORBIDDEN', `The ${org.plan} plan does not include custom alert rules ` +
      '(changeTypes, domainIds, pageTypes, tags); they come with enterprise')
  }
  if (next.domainIds?.length && (await countOwnedDomains(db, org.id, next.domainIds)) !== next.domainIds.length) {
    throw new AppError('VALIDATION_ERROR', 'domainIds names a domain that does not exist', { field: 'domainIds' })
  }
  await audited(db, {
    action: 'alert_settings.changed',
    orgId: org.id,
    objectId: userId,
    objectLabel: current.email,
    details: { ...patch }
  },
  async tx => { await savePreference(tx, userId, org.id, next) })
  return await alertSettingsOf(db, org, userId)
}

const mac = (secret: string, userId: string, orgId: string) =>
  createHmac('sha256', secret).update(`unsubscribe.${userId}.${orgId}`).digest('base64url')

/** The token of a member's unsubscribe link: it names them and cannot be forged. */
export function unsubscribeToken (secret: string, userId: string, orgId: string): string {
  return `${userId}.${orgId}.${mac(secret, userId, orgId)}`
}

export function readUnsubscribeToken (secret: string, token: string): { userId: string, orgId: string } | undefined {
  const [userId, orgId, given] = token.split('.')
  if (!userId || !orgId || !given || token.length > 200) return undefined
  const expected = Buffer.from(mac(secret, userId, orgId))
  const supplied = Buffer.from(given)
  return supplied.length === expected.length && timingSafeEqual(supplied, expected) ? { userId, orgId } : undefined
}

/** Who an unsubscribe token names, while they are still a member; undefined for a forged or stale token. */
export async function unsubscribeTarget (db: Db, secret: string, token: string) {
  const who = readUnsubscribeToken(secret, token)
  if (!who) return undefined
  const [user, org] = await Promise.all([findUser(db, who.userId), findOrg(db, who.orgId)])
  return user && org ? { userId: user.id, email: user.email, org } : undefined
}

/** Turns the member's e-mail alerts off; false when they are no longer a member. */
export async function unsubscribe (db: Db, target: { userId: string, email: string, org: Org }): Promise<boolean> {
  return await inTransaction(db, async tx => {
    const off = await turnMailOff(tx, target.userId, target.org.id, defaultMailPreference(target.org.plan))
    // The link names its holder: the log says they acted, by the link.
    const actor = { kind: 'user' as const, userId: target.userId, label: target.email }
    if (off) {
      await recordAudit(tx, {
        action: 'alert_settings.changed',
        orgId: target.org.id,
        actor,
        objectId: target.userId,
        objectLabel: target.email,
        details: { mode: 'off', by: 'unsubscribe link' }
      })
    }
    return off
  })
}

/** The addresses of an organisation's Atom feeds; `{domainId}` stands for a domain's id. */
export function feedUrls (base: string, token: string) {
  return { changes: `${base}/feeds/${token}/changes.atom`, domain: `${base}/feeds/${token}/domains/{domainId}.atom` }
}
