import { sql, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely'
import { UUID } from '../vocabulary/core.js'
import { enforcesTimeouts, type Db } from './db.js'

// How the history lists (changes, jobs, snapshots, deliveries, e-mails) are paged and
// counted, so that a list's cost does not grow with the history behind it.

/**
 * Where a page of a newest-first list starts: after the row created at `createdUs`
 * (microseconds since 1970, as the database keeps it: a Date's milliseconds would skip
 * the rows created within the same millisecond) with id `id`.
 */
export interface Cursor { createdUs: string, id: string }

export const encodeCursor = (c: Cursor) => Buffer.from(`${c.createdUs}|${c.id}`).toString('base64url')

/** The cursor a client sent back, or undefined if it is not one of ours. */
export function decodeCursor (text: string): Cursor | undefined {
  const [createdUs, id] = Buffer.from(text, 'base64url').toString().split('|')
  if (!id || !UUID.test(id) || !/^\d{1,17}$/.test(createdUs)) return undefined
  return { createdUs, id }
}

/** A row's place in the list, selected beside it as `created_us` (see pageAfter). */
export const createdUs = (created: string) =>
  sql<string>`(extract(epoch FROM ${sql.ref(created)}) * 1000000)::bigint::text`.as('created_us')

/** SQL: the row comes after `cursor`, newest first (a row comparison the (…, created_at, id) indexes bound). */
export const after = (created: string, id: string, cursor: Cursor): RawBuilder<SqlBool> =>
  sql<SqlBool>`(${sql.ref(created)}, ${sql.ref(id)}) <
    (timestamptz 'epoch' + ${cursor.createdUs}::bigint * interval '1 microsecond', ${cursor.id}::uuid)`

/** Of `rows`, read with a limit one above `limit`: the page, and the cursor of the next if there is one. */
export function pageOf<T extends { id: string, created_us: string }> (rows: T[], limit: number) {
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  const next: Cursor | undefined = rows.length > limit && last ? { createdUs: last.created_us, id: last.id } : undefined
  return { page, next }
}

/**
 * Counting stops here, so that a count over millions of rows stays cheap: past it a list
 * says "at least" (`meta.totalCapped`).
 */
export const COUNT_CAP = 1_000
const COUNT_BUDGET_MS = 15

export interface CountedPage { total: number, capped: boolean }

/**
 * The total of a history list whose page is `shown` rows at `offset` (undefined when a
 * cursor placed it), with `more` after it: exact when the page tells it, else counted up
 * to COUNT_CAP within a time budget, past which it is a lower bound.
 */
export async function cappedTotal (
  db: Db,
  matching: SelectQueryBuilder<any, any, any>,
  page: { shown: number, more: boolean, offset: number | undefined }
): Promise<CountedPage> {
  const { shown, more, offset } = page
  if (offset !== undefined && !more && (shown > 0 || offset === 0)) {
    return { total: offset + shown, capped: false }
  }
  const capped = matching.clearSelect().select(sql`1`.as('one')).limit(COUNT_CAP + 1).as('capped')
  const lowerBound = { total: (offset ?? 0) + shown + (more ? 1 : 0), capped: true }
  const count = async (q: Db) =>
    (await q.selectFrom(capped).select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow()).n
  if (!enforcesTimeouts(db)) {
    // No budget to set (PGlite): one statement rather than a transaction of four.
    const n = await count(db)
    return { total: Math.min(n, COUNT_CAP), capped: n > COUNT_CAP }
  }
  // The count has a time budget: on a filter that matches little of millions of rows it
  // would be the slowest part of the request. Out of budget, total is a lower bound.
  try {
    const n = await db.transaction().execute(async tx => {
      await sql`SET LOCAL statement_timeout = ${sql.lit(COUNT_BUDGET_MS)}`.execute(tx)
      return await count(tx)
    })
    return { total: Math.min(n, COUNT_CAP), capped: n > COUNT_CAP }
  } catch (err) {
    if ((err as { code?: string }).code !== '57014') throw err
    return lowerBound
  }
}
