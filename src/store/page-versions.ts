import type { StoredBytes } from '../vocabulary/research.js'
import type { Verdict } from '../vocabulary/learned.js'
import type { Db } from './db.js'

// A page's recent versions with the page as it was fetched, for its outline's churn and
// for trying rules on its earlier changes (services/page-outline.ts).

export interface StoredVersion { id: string, at: Date, page: StoredBytes }

/** The page's versions since `since` (the newest always), newest first, at most `limit`. */
export async function recentVersions (db: Db, pageId: string, since: Date, limit: number): Promise<StoredVersion[]> {
  const rows = await db.selectFrom('snapshots')
    .select(['id', 'created_at', 'raw_html_gzip', 'content_type'])
    .where('page_id', '=', pageId)
    .where('raw_html_gzip', 'is not', null)
    .orderBy('created_at', 'desc').orderBy('id', 'desc')
    .limit(limit)
    .execute()
  return rows
    .filter((r, i) => i === 0 || new Date(r.created_at) >= since)
    .map(r => ({
      id: r.id,
      at: new Date(r.created_at),
      page: { gzip: r.raw_html_gzip!, contentType: r.content_type ?? '' }
    }))
}

/** The changes recorded on arriving at these versions, with what people made of them. */
export async function changesOnArrival (db: Db, pageId: string, snapshotIds: string[]) {
  if (snapshotIds.length === 0) return []
  return await db.selectFrom('changes')
    .select(['snapshot_after_id', 'verdict', 'pinned_at'])
    .where('page_id', '=', pageId)
    .where('snapshot_after_id', 'in', snapshotIds)
    .execute() as Array<{ snapshot_after_id: string, verdict: Verdict | null, pinned_at: Date | null }>
}

/** The page's changes since `since`, newest first, at most `limit`, with the two versions around each. */
export async function recentChangePages (db: Db, pageId: string, since: Date, limit: number) {
  const rows = await db.selectFrom('changes as c')
    .innerJoin('snapshots as b', 'b.id', 'c.snapshot_before_id')
    .innerJoin('snapshots as a', 'a.id', 'c.snapshot_after_id')
    .select([
      'b.raw_html_gzip as before_gzip', 'b.content_type as before_type',
      'a.raw_html_gzip as after_gzip', 'a.content_type as after_type'
    ])
    .where('c.page_id', '=', pageId)
    .where('c.created_at', '>=', since)
    .where('b.raw_html_gzip', 'is not', null)
    .where('a.raw_html_gzip', 'is not', null)
    .orderBy('c.created_at', 'desc')
    .limit(limit)
    .execute()
  return rows.map(r => ({
    before: { gzip: r.before_gzip!, contentType: r.before_type ?? '' },
    after: { gzip: r.after_gzip!, contentType: r.after_type ?? '' }
  }))
}
