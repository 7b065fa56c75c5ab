import { createHmac, timingSafeEqual } from 'node:crypto'
import { getChange } from '../store/changes.js'
import type { Db } from '../store/db.js'
import { domainHostname } from '../store/domains.js'
import { shareLinksOn } from '../store/orgs.js'
import { findPage } from '../store/pages.js'

// A change shown to anyone who holds its link, when the organisation allows it: the path
// carries the change, an expiry and an HMAC of both under the service's secret, so a link
// names one change and nothing else, and stops working when it expires or when the
// organisation turns sharing off.

/** How long a share link works. */
export const SHARE_LINK_DAYS = 7

const mac = (secret: string, changeId: string, expires: number) =>
  createHmac('sha256', secret).update(`share.${changeId}.${expires}`).digest('base64url')

export function shareLink (base: string, secret: string, changeId: string, now = new Date()) {
  const expires = Math.floor(now.getTime() / 1000) + SHARE_LINK_DAYS * 86_400
  return {
    url: `${base}/app/shared/${changeId}/${expires}.${mac(secret, changeId, expires)}`,
    expiresAt: new Date(expires * 1000)
  }
}

export function verifyShareToken (secret: string, changeId: string, token: string, now = new Date()): boolean {
  const [rawExpires, given] = token.split('.')
  const expires = Number(rawExpires)
  if (!Number.isInteger(expires) || !given || expires * 1000 < now.getTime()) return false
  const expected = Buffer.from(mac(secret, changeId, expires))
  const supplied = Buffer.from(given)
  return supplied.length === expected.length && timingSafeEqual(supplied, expected)
}

/** The change a share link shows, with where it was found; undefined for a bad, expired or no longer allowed link. */
export async function sharedChange (db: Db, secret: string, changeId: string, token: string, now = new Date()) {
  if (!verifyShareToken(secret, changeId, token, now)) return undefined
  const change = await getChange(db, null, changeId)
  if (!change || !await shareLinksOn(db, change.orgId)) return undefined
  const [page, hostname] = await Promise.all([
    findPage(db, change.orgId, change.domainId, change.pageId),
    domainHostname(db, change.domainId, change.orgId)
  ])
  return { change, pageUrl: page?.url ?? '', domain: hostname ?? '' }
}
