import type { PictureBoxes } from '../vocabulary/outline.js'
import type { StoredBytes } from '../vocabulary/research.js'
import type { CompiledQuery } from 'kysely'
import type { Db } from './db.js'

// Screenshots of pages, one per snapshot that has one, in the database: every process of
// a deployment reads them, and they go with their snapshot: a picture is written in its
// snapshot's transaction (screenshotStatement). These functions are the interface; a store
// for large objects elsewhere would implement the same.

export interface Screenshot {
  image: Buffer
  width: number
  height: number
  /** Where its blocks are, when the browser said (see PictureBoxes). */
  boxes?: PictureBoxes
}

/** The INSERT of a snapshot's picture, for the statements recorded with it (see recordSnapshot). */
export function screenshotStatement (db: Db, snapshotId: string, orgId: string, shot: Screenshot): CompiledQuery {
  return db
    .insertInto('screenshots')
    .values({
      snapshot_id: snapshotId,
      org_id: orgId,
      image: shot.image,
      width: shot.width,
      height: shot.height,
      boxes: shot.boxes ? JSON.stringify(shot.boxes) : null
    })
    .compile()
}

/** bytea comes back from PGlite as a Uint8Array and from pg as a Buffer: a Buffer either way. */
const asScreenshot = (row: Screenshot | undefined): Screenshot | undefined =>
  row && { ...row, image: Buffer.isBuffer(row.image) ? row.image : Buffer.from(row.image) }

export async function screenshotOf (db: Db, snapshotId: string): Promise<Screenshot | undefined> {
  return asScreenshot(await db
    .selectFrom('screenshots')
    .select(['image', 'width', 'height'])
    .where('snapshot_id', '=', snapshotId)
    .executeTakeFirst())
}

/**
 * The page's picture as of its snapshot `snapshotId`: that snapshot's, or the one of the
 * newest earlier snapshot that has one. A snapshot whose text moved only in its noise
 * takes no picture: the page looked as it did in the last picture.
 */
export async function pictureAsOf (db: Db, pageId: string, snapshotId: string): Promise<Screenshot | undefined> {
  return asScreenshot(await lastPictured(db, pageId, snapshotId)
    .select(['screenshots.image', 'screenshots.width', 'screenshots.height'])
    .executeTakeFirst())
}

/** The page's newest snapshot with a picture, as of its snapshot `snapshotId`. */
const lastPictured = (db: Db, pageId: string, snapshotId: string) => db
  .selectFrom('snapshots')
  .innerJoin('screenshots', 'screenshots.snapshot_id', 'snapshots.id')
  .where('snapshots.page_id', '=', pageId)
  .where(eb => eb('snapshots.created_at', '<=',
    eb.selectFrom('snapshots as s').select('s.created_at').where('s.id', '=', snapshotId)))
  .orderBy('snapshots.created_at', 'desc')
  .orderBy('snapshots.id', 'desc')
  .limit(1)

/** Whether any snapshot of the page has its picture (one whose text moved only in its noise has none). */
export async function hasPicture (db: Db, pageId: string): Promise<boolean> {
  const row = await db.selectFrom('snapshots')
    .innerJoin('screenshots', 'screenshots.snapshot_id', 'snapshots.id')
    .select('snapshots.id').where('snapshots.page_id', '=', pageId).limit(1).executeTakeFirst()
  return row !== undefined
}

/** The newest screenshot of a page (its latest rendered snapshot's). */
export async function latestScreenshot (db: Db, pageId: string): Promise<Screenshot | undefined> {
  return asScreenshot(await db
    .selectFrom('screenshots')
    .innerJoin('snapshots', 'snapshots.id', 'screenshots.snapshot_id')
    .select(['screenshots.image', 'screenshots.width', 'screenshots.height'])
    .where('snapshots.page_id', '=', pageId)
    .orderBy('snapshots.created_at', 'desc')
    .limit(1)
    .executeTakeFirst())
}

/** The screenshots on either side of a change, as far as they exist; of the organisation's changes when given. */
export async function changeScreenshots (db: Db, changeId: string, orgId?: string) {
  let q = db
    .selectFrom('changes')
    .select(['snapshot_before_id', 'snapshot_after_id', 'page_id', 'diff_data'])
    .where('id', '=', changeId)
  if (orgId !== undefined) q = q.where('org_id', '=', orgId)
  const change = await q.executeTakeFirst()
  if (!change) return undefined
  const [before, after] = await Promise.all([
    pictureAsOf(db, change.page_id, change.snapshot_before_id),
    screenshotOf(db, change.snapshot_after_id)
  ])
  return { before, after, diffData: change.diff_data }
}

/**
 * The page's picture as of its snapshot `snapshotId` with where its blocks are: the
 * snapshot it was taken with, and that snapshot's page, which the boxes' paths are of.
 */
export async function pictureWithBoxes (db: Db, pageId: string, snapshotId: string): Promise<{
  snapshotId: string
  width: number
  height: number
  boxes: PictureBoxes
  page: StoredBytes
} | undefined> {
  const row = await lastPictured(db, pageId, snapshotId)
    .select([
      'snapshots.id', 'snapshots.raw_html_gzip', 'snapshots.content_type', 'screenshots.width', 'screenshots.height',
      'screenshots.boxes'
    ])
    .executeTakeFirst()
  if (!row?.boxes || !row.raw_html_gzip) return undefined
  return {
    snapshotId: row.id,
    width: row.width,
    height: row.height,
    boxes: row.boxes,
    page: { gzip: row.raw_html_gzip, contentType: row.content_type ?? '' }
  }
}
