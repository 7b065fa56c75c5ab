import { createHash, randomBytes } from 'node:crypto'
import type { Org } from '../vocabulary/plans.js'
import type { KeyScope, PlanName, Role } from '../vocabulary/core.js'
import type { Db } from './db.js'

// Organisations and their API keys.

/** An organisation as the admin API and the CLI show it. */
export const orgView = (o: Org) => ({
  id: o.id,
  name: o.name,
  plan: o.plan,
  trialEndsAt: o.trial_ends_at,
  createdAt: o.created_at
})

// API keys: `sw_live_` + 43 URL-safe characters (256 bits), recognisable by secret
// scanners. Only the SHA-256 is stored: the key is random, so a slow hash adds nothing.

export function newApiKey (): string {
  return `sw_live_${randomBytes(32).toString('base64url')}`
}

export function hashApiKey (key: string): string {
  return createHash('sha256').update(key).digest('hex')
}

export async function issueKey (
  db: Db,
  orgId: string,
  opts: { scope?: KeyScope, createdBy?: string, name?: string } = {}
): Promise<{ id: string, apiKey: string, scope: KeyScope }> {
  const apiKey = newApiKey()
  const scope = opts.scope ?? 'write'
  const row = await db
    .insertInto('api_keys')
    .values({
      org_id: orgId,
      key_hash: hashApiKey(apiKey),
      key_prefix: apiKey.slice(0, 12),
      scope,
      created_by: opts.createdBy ?? null,
      name: opts.name?.trim().slice(0, 100) || null
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return { id: row.id, apiKey, scope }
}

/** An organisation's keys, newest first: the prefix that shows which key it is, never the key. */
export async function listKeys (db: Db, orgId: string) {
  const rows = await db
    .selectFrom('api_keys as k')
    .leftJoin('users as u', 'u.id', 'k.created_by')
    .select(['k.id', 'k.name', 'k.key_prefix', 'k.scope', 'k.created_at', 'k.revoked_at', 'k.last_used_at', 'u.email'])
    .where('k.org_id', '=', orgId)
    .orderBy('k.created_at', 'desc')
    .execute()
  return rows.map(k => ({
    id: k.id,
    name: k.name,
    prefix: k.key_prefix,
    scope: k.scope,
    createdBy: k.email,
    createdAt: k.created_at.toISOString(),
    lastUsedAt: k.last_used_at?.toISOString() ?? null,
    revokedAt: k.revoked_at?.toISOString() ?? null
  }))
}

/** When a key was last used (written at most once a minute per key: see Principals). */
export async function touchKey (db: Db, keyId: string, at: Date): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', keyId).execute()
}

/** Revokes a live key (of `orgId` when given): its organisation and what names it, or undefined when none was live. */
export async function revokeKey (
  db: Db, keyId: string, orgId?: string
): Promise<{ orgId: string, label: string } | undefined> {
  const r = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('id', '=', keyId)
    .$if(orgId !== undefined, q => q.where('org_id', '=', orgId!))
    .where('revoked_at', 'is', null)
    .returning(['org_id', 'name', 'key_prefix'])
    .executeTakeFirst()
  return r && { orgId: r.org_id, label: r.name ? `${r.name} (${r.key_prefix}…)` : `${r.key_prefix}…` }
}

export async function insertOrg (
  tx: Db,
  org: { name: string, plan: PlanName, trialEndsAt: Date | null, now: Date }
): Promise<Org> {
  return (await tx
    .insertInto('orgs')
    .values({ name: org.name, plan: org.plan, trial_ends_at: org.trialEndsAt, created_at: org.now })
    .returningAll()
    .executeTakeFirstOrThrow()) as Org
}

export async function findOrg (db: Db, id: string, opts: { forUpdate?: boolean } = {}): Promise<Org | undefined> {
  let q = db.selectFrom('orgs').select(['id', 'name', 'plan', 'trial_ends_at', 'created_at']).where('id', '=', id)
  if (opts.forUpdate) q = q.forUpdate()
  return await q.executeTakeFirst()
}

/** Deletes an organisation and, through the foreign keys, everything it owns; whether it existed. */
export async function deleteOrg (db: Db, id: string): Promise<boolean> {
  return (await db.deleteFrom('orgs').where('id', '=', id).executeTakeFirst()).numDeletedRows > 0n
}

export async function listOrgs (db: Db): Promise<Org[]> {
  return await db
    .selectFrom('orgs')
    .select(['id', 'name', 'plan', 'trial_ends_at', 'created_at'])
    .orderBy('created_at')
    .execute()
}

export async function anyOrgExists (db: Db): Promise<boolean> {
  return (await db.selectFrom('orgs').select('id').limit(1).executeTakeFirst()) !== undefined
}

export async function setOrgPlan (
  tx: Db,
  id: string,
  plan: PlanName,
  trialEndsAt: Date | null,
  now: Date
): Promise<Org> {
  return await tx
    .updateTable('orgs')
    .set({ plan, trial_ends_at: trialEndsAt, updated_at: now })
    .where('id', '=', id)
    .returning(['id', 'name', 'plan', 'trial_ends_at', 'created_at'])
    .executeTakeFirstOrThrow()
}

/** Who is calling: the organisation of an API key that has not been revoked. */
export interface Principal {
  org: Org
  keyId: string
  scope: KeyScope
  /** What the audit log calls the key: its name, else its prefix. */
  keyLabel: string
  /** The person who made the key (null: the operator made it). */
  createdBy: string | null
  /**
   * The role the key acts with: its maker's now (a key the operator made, an owner's; a key
   * whose maker left the organisation, a viewer's).
   */
  role: Role
}

/** The organisation of the key whose SHA-256 (hashApiKey) is `keyHash`, if it is not revoked. */
export async function findPrincipal (db: Db, keyHash: string): Promise<Principal | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('orgs', 'orgs.id', 'api_keys.org_id')
    .leftJoin('memberships as maker', join => join
      .onRef('maker.org_id', '=', 'api_keys.org_id').onRef('maker.user_id', '=', 'api_keys.created_by'))
    .select([
      'maker.role as maker_role',
      'api_keys.id as key_id',
      'api_keys.scope',
      'api_keys.name as key_name',
      'api_keys.key_prefix',
      'api_keys.created_by',
      'orgs.id',
      'orgs.name',
      'orgs.plan',
      'orgs.trial_ends_at',
      'orgs.created_at'
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst()
  if (!row) return undefined
  const {
    key_id: keyId, scope, key_name: keyName, key_prefix: keyPrefix, created_by: createdBy, maker_role: makerRole, ...org
  } = row
  const role: Role = createdBy === null ? 'owner' : makerRole ?? 'viewer'
  return { org, keyId, scope, keyLabel: keyName ? `${keyName} (${keyPrefix}…)` : `${keyPrefix}…`, createdBy, role }
}

/** The organisations whose alerts come as a daily digest, with when their last one went. */
export async function digestOrgs (db: Db, plans: PlanName[]) {
  if (plans.length === 0) return []
  return await db.selectFrom('orgs').select(['id', 'created_at', 'last_digest_at']).where('plan', 'in', plans).execute()
}

export async function setLastDigest (tx: Db, orgId: string, at: Date): Promise<void> {
  await tx.updateTable('orgs').set({ last_digest_at: at }).where('id', '=', orgId).execute()
}

/** Whether the organisation lets its people share one change by a signed link. */
export async function shareLinksOn (db: Db, orgId: string): Promise<boolean> {
  const row = await db.selectFrom('orgs').select('share_links').where('id', '=', orgId).executeTakeFirst()
  return row?.share_links ?? false
}

export async function setShareLinks (db: Db, orgId: string, on: boolean): Promise<void> {
  await db.updateTable('orgs').set({ share_links: on, updated_at: new Date() }).where('id', '=', orgId).execute()
}
