import type { Db } from './db.js'

// A change's share links: one row per link, known by the SHA-256 of its secret; revoked
// one by one, and by the organisation turning sharing off.

export interface ShareLinkRow {
  id: string
  change_id: string
  org_id: string
  created_by: string | null
  created_at: Date
  expires_at: Date
}

export async function insertShareLink (
  db: Db, l: { tokenHash: string, orgId: string, changeId: string, createdBy: string | null, expiresAt: Date }
): Promise<ShareLinkRow> {
  return await db.insertInto('share_links')
    .values({
      token_hash: l.tokenHash, org_id: l.orgId, change_id: l.changeId, created_by: l.createdBy, expires_at: l.expiresAt
    })
    .returning(['id', 'change_id', 'org_id', 'created_by', 'created_at', 'expires_at'])
    .executeTakeFirstOrThrow()
}

/** A link that works now: not revoked, not expired, of the change it names. */
export async function liveShareLink (db: Db, changeId: string, tokenHash: string, now: Date) {
  return await db.selectFrom('share_links')
    .select(['id', 'change_id', 'org_id', 'created_by', 'created_at', 'expires_at'])
    .where('token_hash', '=', tokenHash).where('change_id', '=', changeId)
    .where('revoked_at', 'is', null).where('expires_at', '>', now)
    .executeTakeFirst()
}

/** A change's links that work now, newest first. */
export async function liveShareLinks (db: Db, orgId: string, changeId: string, now: Date) {
  return await db.selectFrom('share_links as s')
    .leftJoin('users as u', 'u.id', 's.created_by')
    .select(['s.id', 's.created_at', 's.expires_at', 'u.email as created_by_email'])
    .where('s.org_id', '=', orgId).where('s.change_id', '=', changeId)
    .where('s.revoked_at', 'is', null).where('s.expires_at', '>', now)
    .orderBy('s.created_at', 'desc').execute()
}

/** Revokes a live link: the id of the change it showed, or undefined when there was none to revoke. */
export async function revokeShareLink (db: Db, orgId: string, id: string, now: Date): Promise<string | undefined> {
  const r = await db.updateTable('share_links').set({ revoked_at: now })
    .where('id', '=', id).where('org_id', '=', orgId).where('revoked_at', 'is', null)
    .returning('change_id').executeTakeFirst()
  return r?.change_id
}

/** Links revoked or expired: they open nothing any more. */
export async function deleteSpentShareLinks (db: Db, now: Date): Promise<number> {
  const r = await db.deleteFrom('share_links')
    .where(eb => eb.or([eb('revoked_at', 'is not', null), eb('expires_at', '<=', now)])).executeTakeFirst()
  return Number(r.numDeletedRows)
}
