import { AppError, notFound } from '../vocabulary/errors.js'
import { getChange } from '../store/changes.js'
import type { Db } from '../store/db.js'
import { inTransaction } from '../store/db.js'
import { recordAudit } from './audit.js'
import { domainHostname } from '../store/domains.js'
import { shareLinksOn } from '../store/orgs.js'
import { findPage } from '../store/pages.js'
import { insertShareLink, liveShareLink, liveShareLinks, revokeShareLink } from '../store/share-links.js'
import { hashSecret, newSecret } from './accounts.js'

// A change shown to anyone who holds its link, when the organisation allows it. Each link
// is made by a person, on purpose, and stored by its hash: it names one change and nothing
// else, and stops working when it expires, when it is revoked (one by one), or when the
// organisation turns sharing off. The images it shows are checked the same way, each time.

/** How long a share link works. */
export const SHARE_LINK_DAYS = 7

/** A new link to the change; its secret is in the URL and nowhere else. */
export async function createShareLink (
  db: Db, base: string, who: { orgId: string, userId: string | null }, changeId: string, now = new Date()
): Promise<{ id: string, url: string, expiresAt: Date }> {
  if (!await shareLinksOn(db, who.orgId)) {
    throw new AppError('FORBIDDEN',
      'Sharing is off for this organisation: an owner can turn it on under Usage and plan.')
  }
  if (!await getChange(db, who.orgId, changeId)) throw notFound('Change')
  const secret = newSecret()
  const row = await inTransaction(db, async tx => {
    const row = await insertShareLink(tx, {
      tokenHash: hashSecret(secret),
      orgId: who.orgId,
      changeId,
      createdBy: who.userId,
      expiresAt: new Date(now.getTime() + SHARE_LINK_DAYS * 86_400_000)
    })
    await recordAudit(tx, {
      action: 'change.shared',
      objectId: changeId,
      details: { linkId: row.id, expiresAt: row.expires_at }
    })
    return row
  })
  return { id: row.id, url: shareUrl(base, changeId, secret), expiresAt: row.expires_at }
}

export const shareUrl = (base: string, changeId: string, secret: string) => `${base}/app/shared/${changeId}/${secret}`

export async function changeShareLinks (db: Db, orgId: string, changeId: string, now = new Date()) {
  return await liveShareLinks(db, orgId, changeId, now)
}

export async function revokeLink (db: Db, orgId: string, id: string, now = new Date()): Promise<void> {
  await inTransaction(db, async tx => {
    const changeId = await revokeShareLink(tx, orgId, id, now)
    if (!changeId) throw notFound('Share link')
    await recordAudit(tx, { action: 'share_link.revoked', objectId: changeId, details: { linkId: id } })
  })
}

/** The change a share link shows, with where it was found; undefined for a bad, expired, revoked or disallowed link. */
export async function sharedChange (db: Db, changeId: string, token: string, now = new Date()) {
  if (token.length > 100) return undefined
  const link = await liveShareLink(db, changeId, hashSecret(token), now)
  if (!link || !await shareLinksOn(db, link.org_id)) return undefined
  const change = await getChange(db, link.org_id, changeId)
  if (!change) return undefined
  const [page, hostname] = await Promise.all([
    findPage(db, change.orgId, change.domainId, change.pageId),
    domainHostname(db, change.domainId, change.orgId)
  ])
  return { change, pageUrl: page?.url ?? '', domain: hostname ?? '', expiresAt: link.expires_at }
}
