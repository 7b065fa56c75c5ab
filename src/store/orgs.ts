import { createHash, randomBytes } from 'node:crypto'
import type { Db, Executor } from './db.js'
import type { PlanName } from './schema.js'
import { startPeriod, type OrgRow } from '../plans/usage.js'
import { trialEnd } from '../plans/plans.js'

// API keys: `sw_live_` + 43 URL-safe characters (256 bits), recognisable by secret
// scanners. Only the SHA-256 is stored: the key is random, so a slow hash adds nothing.

export function newApiKey (): string {
  return `sw_live_${randomBytes(32).toString('base64url')}`
}

export function hashApiKey (key: string): string {
  return createHash('sha256').update(key).digest('hex')
}

export async function issueKey (db: Executor, orgId: string): Promise<{ id: string, apiKey: string }> {
  const apiKey = newApiKey()
  const row = await db.insertInto('api_keys')
    .values({ org_id: orgId, key_hash: hashApiKey(apiKey), key_prefix: apiKey.slice(0, 12) })
    .returning('id').executeTakeFirstOrThrow()
  return { id: row.id, apiKey }
}

export async function revokeKey (db: Executor, keyId: string): Promise<boolean> {
  const r = await db.updateTable('api_keys').set({ revoked_at: new Date() })
    .where('id', '=', keyId).where('revoked_at', 'is', null).executeTakeFirst()
  return Number(r.numUpdatedRows) > 0
}

export async function createOrg (db: Db, name: string, plan: PlanName, now = new Date()):
Promise<{ org: OrgRow, apiKey: string, keyId: string }> {
  return await db.transaction().execute(async (tx) => {
    const org = await tx.insertInto('orgs')
      .values({ name, plan, trial_ends_at: plan === 'trial' ? trialEnd(now) : null, created_at: now })
      .returningAll().executeTakeFirstOrThrow() as OrgRow
    await startPeriod(tx, org, now)
    const key = await issueKey(tx, org.id)
    return { org, apiKey: key.apiKey, keyId: key.id }
  })
}

export async function findOrg (db: Executor, id: string): Promise<OrgRow | undefined> {
  return await db.selectFrom('orgs').selectAll().where('id', '=', id).executeTakeFirst() as OrgRow | undefined
}

export interface Principal { org: OrgRow, keyId: string }

export async function findPrincipal (db: Executor, apiKey: string): Promise<Principal | undefined> {
  const row = await db.selectFrom('api_keys')
    .innerJoin('orgs', 'orgs.id', 'api_keys.org_id')
    .select(['api_keys.id as key_id', 'orgs.id', 'orgs.name', 'orgs.plan', 'orgs.trial_ends_at', 'orgs.created_at'])
    .where('api_keys.key_hash', '=', hashApiKey(apiKey))
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst()
  if (!row) return undefined
  const { key_id: keyId, ...org } = row
  return { org: org as OrgRow, keyId }
}

/**
 * Changing the plan starts a new billing period with fresh counters;
 * `trialEndsAt` lets support extend or end a trial.
 */
export async function updateOrg (db: Db, id: string, patch: { plan?: PlanName, trialEndsAt?: Date }, now = new Date()):
Promise<OrgRow | undefined> {
  return await db.transaction().execute(async (tx) => {
    const org = await tx.selectFrom('orgs').selectAll().where('id', '=', id).forUpdate().executeTakeFirst() as OrgRow | undefined
    if (!org) return undefined
    const plan = patch.plan ?? org.plan
    let trialEndsAt = patch.trialEndsAt ?? org.trial_ends_at
    if (patch.plan !== undefined && patch.plan !== org.plan) {
      if (plan === 'trial' && !patch.trialEndsAt) trialEndsAt = trialEnd(now)
      await startPeriod(tx, { id, plan }, now)
    } else if (plan === 'trial' && patch.trialEndsAt) {
      await tx.updateTable('billing_periods').set({ ends_at: patch.trialEndsAt })
        .where('org_id', '=', id).where('plan', '=', 'trial')
        .where('starts_at', '=', tx.selectFrom('billing_periods').select(b => b.fn.max('starts_at').as('s')).where('org_id', '=', id))
        .execute()
    }
    const updated = await tx.updateTable('orgs')
      .set({ plan, trial_ends_at: plan === 'trial' ? trialEndsAt : null, updated_at: now })
      .where('id', '=', id).returningAll().executeTakeFirstOrThrow() as OrgRow
    // An extended trial wakes the domains its expiry paused.
    if (plan !== 'trial' || (trialEndsAt && trialEndsAt > now)) {
      await tx.updateTable('domains').set({ status: 'active', paused_reason: null, updated_at: now })
        .where('org_id', '=', id).where('paused_reason', '=', 'trial_expired').execute()
    }
    return updated
  })
}

/** The first start on an empty database creates "default" on the trial plan. */
export async function bootstrapDefaultOrg (db: Db): Promise<{ apiKey: string, org: OrgRow } | undefined> {
  const existing = await db.selectFrom('orgs').select('id').limit(1).executeTakeFirst()
  if (existing) return undefined
  const { org, apiKey } = await createOrg(db, 'default', 'trial')
  return { org, apiKey }
}
