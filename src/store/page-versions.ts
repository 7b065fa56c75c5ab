import type { StoredBytes } from '../vocabulary/research.js'
import type { Verdict } from '../vocabulary/learned.js'
import type { DiffHunk } from '../vocabulary/core.js'
import { sql } from 'kysely'
import type { Db } from './db.js'
import { after, createdUs, pageOf, type Cursor } from './lists.js'

// A page's versions (its snapshots) as they are read: one's text, with the page as it was
// fetched and its document; the list the API pages through; and the recent ones with their
// pages, for the outline's churn and for trying rules on earlier changes (services/page-outline.ts).

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

/** The changes recorded on arriving at these versions, with what people made of them and the lines each changed. */
export async function changesOnArrival (db: Db, pageId: string, snapshotIds: string[]) {
  if (snapshotIds.length === 0) return []
  const rows = await db.selectFrom('changes')
    .select(['id', 'snapshot_after_id', 'verdict', 'pinned_at'])
    .select(sql<DiffHunk[] | null>`diff_data->'hunks'`.as('hunks'))
    .where('page_id', '=', pageId)
    .where('snapshot_after_id', 'in', snapshotIds)
    .execute() as Array<{
      id: string
      snapshot_after_id: string
      verdict: Verdict | null
      pinned_at: Date | null
      hunks: DiffHunk[] | null
    }>
  return rows.map(({ hunks, ...r }) => {
    const lines = (hunks ?? []).flatMap(h => h.lines)
    const of = (type: string) => lines.filter(l => l.type === type).map(l => l.content)
    return { ...r, removed: of('deletion'), added: of('addition') }
  })
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

/** A snapshot's text, or undefined when it is no longer kept (retention deleted it). */
export async function snapshotTextOrNone (db: Db, id: string): Promise<string | undefined> {
  return (await db.selectFrom('snapshots').select('content').where('id', '=', id).executeTakeFirst())?.content
}

export async function snapshotText (db: Db, id: string): Promise<string> {
  return (await db.selectFrom('snapshots').select('content').where('id', '=', id).executeTakeFirstOrThrow()).content
}

/**
 * A snapshot's text with the page as it was fetched (gzipped) and its content type, and
 * its document (see NewSnapshot), for the structured readers.
 */
export async function snapshotTextAndPage (db: Db, id: string) {
  const row = await db.selectFrom('snapshots')
    .select(['content', 'raw_html_gzip', 'content_type', 'document_url', 'document_gzip', 'document_type'])
    .where('id', '=', id).executeTakeFirstOrThrow()
  return {
    text: row.content,
    page: row.raw_html_gzip ? { gzip: row.raw_html_gzip, contentType: row.content_type ?? '' } : undefined,
    document: row.document_gzip && row.document_url
      ? { url: row.document_url, gzip: row.document_gzip, contentType: row.document_type ?? '' }
      : undefined
  }
}

/**
 * A page's snapshots, newest first, without their text: after `cursor` or at `page`. The
 * total is exact: one page's snapshots are bounded by the plan's retention and counted
 * along its index.
 */
export async function listSnapshots (db: Db, pageId: string, page: number, pageSize: number, cursor?: Cursor) {
  const [rows, count] = await Promise.all([
    (cursor ? snapshotsOf(db, pageId).where(after('s.created_at', 's.id', cursor)) : snapshotsOf(db, pageId))
      .select(createdUs('s.created_at'))
      .orderBy('s.created_at', 'desc')
      .orderBy('s.id', 'desc')
      .limit(pageSize + 1)
      .offset(cursor ? 0 : (page - 1) * pageSize)
      .execute(),
    db.selectFrom('snapshots').select(sql<number>`count(*)::int`.as('n')).where('page_id', '=', pageId)
      .executeTakeFirstOrThrow()
  ])
  const { page: items, next } = pageOf(rows, pageSize)
  return { total: count.n, items, next }
}

/** One snapshot of a page (the newest when `id` is "latest"); undefined when it is not the page's. */
export async function getSnapshot (db: Db, pageId: string, id: string | 'latest') {
  return await oneSnapshot(db, pageId, id).executeTakeFirst()
}

/** The same, with its full text. */
export async function getSnapshotWithText (db: Db, pageId: string, id: string | 'latest') {
  return await oneSnapshot(db, pageId, id).select(['s.content', 's.document_url', 's.document_gzip']).executeTakeFirst()
}

/** A page's snapshots as the API lists them: no text, its length, and the screenshot's size. */
function snapshotsOf (db: Db, pageId: string) {
  return db
    .selectFrom('snapshots as s')
    .leftJoin('screenshots as i', 'i.snapshot_id', 's.id')
    .select([
      's.id', 's.created_at', 's.content_hash', 's.http_status', 's.content_type',
      sql<number>`length(s.content)`.as('text_length'), 'i.width', 'i.height'
    ])
    .where('s.page_id', '=', pageId)
}

function oneSnapshot (db: Db, pageId: string, id: string | 'latest') {
  const q = snapshotsOf(db, pageId)
  return id === 'latest' ? q.orderBy('s.created_at', 'desc').orderBy('s.id', 'desc').limit(1) : q.where('s.id', '=', id)
}
