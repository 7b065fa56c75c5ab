import { sql, type CompiledQuery, type RawBuilder } from 'kysely'
import { STRUCTURED_PAGE_TYPES, type PageType, type RenderedWith } from '../vocabulary/core.js'
import type { Db, Tx } from './db.js'
import { isIntelligencePage } from './pages.js'

// A crawl's side of the pages table: what a crawl needs to know of its page, how it was
// read, its check and its failures, and when it is next due.

/** What the page was read with, and why; written when the decision is made or checked again. */
export async function recordRenderDecision (
  db: Db,
  pageId: string,
  decision: { with: RenderedWith, reason: string | null, at: Date | null }
): Promise<void> {
  await db
    .updateTable('pages')
    .set({ rendered_with: decision.with, render_reason: decision.reason, render_checked_at: decision.at })
    .where('id', '=', pageId)
    .execute()
}

/** What a crawl needs to know of its page: the page, its domain's state and its latest snapshot. */
export async function loadCrawlTargets (db: Db, ids: readonly string[]) {
  return await db
    .selectFrom('pages')
    .innerJoin('domains', 'domains.id', 'pages.domain_id')
    .leftJoinLateral(
      eb =>
        eb
          .selectFrom('snapshots')
          .select([
            'snapshots.id',
            'snapshots.content_hash'
          ])
          .whereRef('snapshots.page_id', '=', 'pages.id')
          .orderBy('snapshots.created_at', 'desc')
          .orderBy('snapshots.id', 'desc')
          .limit(1)
          .as('latest'),
      join => join.onTrue()
    )
    .select([
      'pages.id',
      'pages.url',
      'pages.page_type',
      'pages.page_type_source',
      'pages.monitoring_enabled',
      'pages.etag',
      'pages.last_modified',
      'pages.noise_rules',
      'pages.rebaseline',
      'pages.render',
      'pages.rendered_with',
      'pages.render_reason',
      'pages.reading_note',
      // Only an intelligence page has its screenshots taken (the plan's intelligencePages).
      sql<boolean>`CASE WHEN pages.screenshots THEN ${isIntelligencePage} ELSE false END`.as('screenshots'),
      // Whether its type's structured reader reads it (the types that have one).
      sql<boolean>`CASE WHEN pages.page_type = ANY(${STRUCTURED_PAGE_TYPES}::text[]) THEN ${isIntelligencePage}
        ELSE false END`.as('read_structured'),
      'pages.visual_threshold',
      'pages.render_checked_at',
      'pages.failure_alerted_at',
      'domains.render as domain_render',
      'pages.domain_id',
      'pages.org_id',
      'domains.check_frequency_hours',
      'domains.status as domain_status',
      sql<boolean>`domains.discovery_failed_at IS NOT NULL`.as('domain_discovery_failed'),
      'latest.id as previous_id',
      'latest.content_hash as previous_hash'
    ])
    .where('pages.id', 'in', ids)
    .execute()
}
export type CrawlTarget = Awaited<ReturnType<typeof loadCrawlTargets>>[number]

/** What the page's reader could not do at its check (null: it read the page): kept when it moved. */
export async function recordReadingNote (db: Db, pageId: string, note: string | null): Promise<void> {
  await db.updateTable('pages').set({ reading_note: note }).where('id', '=', pageId)
    .where('reading_note', 'is distinct from', note).execute()
}

/** A page read in the browser is tried plainly again after this long, in case it no longer needs one. */
export const RENDER_RECHECK_MS = 7 * 86_400_000

/**
 * Of these pages, those whose next crawl goes to the browser, as the crawl itself would
 * decide before fetching (see fetchOrRender): render always, screenshots on, or known to
 * need the browser (auto) with no plain recheck due.
 */
export async function pagesReadInBrowser (tx: Tx, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const { rows } = await sql<{ id: string }>`
    SELECT pages.id FROM pages JOIN domains d ON d.id = pages.domain_id
    WHERE pages.id = ANY(${ids}::uuid[]) AND (
      coalesce(pages.render, d.render) = 'always'
      OR CASE WHEN pages.screenshots THEN ${isIntelligencePage} ELSE false END OR (
        coalesce(pages.render, d.render) = 'auto' AND pages.rendered_with = 'browser'
        AND pages.render_checked_at > now() - make_interval(secs => ${RENDER_RECHECK_MS / 1000})))`.execute(tx)
  return new Set(rows.map(r => r.id))
}

/** A healthy check of a page: when, when next, and the validators for the next one. */
export interface PageCheck {
  pageId: string
  checkedAt: Date
  nextCrawlAt: Date
  etag: string | null
  lastModified: string | null
}

/**
 * A page typed from its address alone, typed again from what its first crawl read. A type
 * a person chose meanwhile stays: only a page still typed by its address is changed.
 */
export async function typeFromContent (db: Db, pageId: string, pageType: PageType, confidence: number) {
  await db
    .updateTable('pages')
    .set({ page_type: pageType, page_type_confidence: confidence.toFixed(2), page_type_source: 'content' })
    .where('id', '=', pageId)
    .where('page_type_source', '=', 'address')
    .execute()
}

/**
 * Takes the page's one failure alert: true when its failure was not alerted yet (the
 * caller alerts), false when it was (a page known to fail alerts once, not per crawl).
 */
export async function claimFailureAlert (db: Db, pageId: string, at = new Date()): Promise<boolean> {
  const row = await db.updateTable('pages').set({ failure_alerted_at: at })
    .where('id', '=', pageId).where('failure_alerted_at', 'is', null).returning('id').executeTakeFirst()
  return row !== undefined
}

/** Ends the page's alerted failure: true when there was one (the caller announces the recovery). */
export async function clearFailureAlert (db: Db, pageId: string): Promise<boolean> {
  const row = await db.updateTable('pages').set({ failure_alerted_at: null })
    .where('id', '=', pageId).where('failure_alerted_at', 'is not', null).returning('id').executeTakeFirst()
  return row !== undefined
}

/** When a page last changed, written with the snapshot that shows it (its check goes with its job's completion). */
export function lastChangeStatement (db: Db, pageId: string, at: Date): CompiledQuery {
  return db.updateTable('pages').set({ last_change_at: at }).where('id', '=', pageId).compile()
}

/**
 * The UPDATE of many healthy checks in one statement, for a caller that writes it
 * together with other rows (see queue/completions.ts): only of the pages in relation `of`
 * (its page_id), when given. The id list lets it find its rows by primary key: joined on
 * the JSON rows alone, the planner scanned every page.
 */
export function recordChecksStatement (checks: PageCheck[], of?: RawBuilder<unknown>): RawBuilder<unknown> {
  const rows = JSON.stringify(
    checks.map(c => ({
      page_id: c.pageId,
      checked_at: c.checkedAt.toISOString(),
      next_at: c.nextCrawlAt.toISOString(),
      etag: c.etag,
      last_modified: c.lastModified
    }))
  )
  return sql`
    UPDATE pages p SET last_check_at = c.checked_at, next_crawl_at = c.next_at, consecutive_failures = 0,
      status = 'active', last_error = NULL, failure_code = NULL, failing_since = NULL, etag = c.etag,
      last_modified = c.last_modified, rebaseline = false
    FROM jsonb_to_recordset(${rows}::jsonb)
      AS c (page_id uuid, checked_at timestamptz, next_at timestamptz, etag text, last_modified text)
    WHERE p.id = ANY(${checks.map(c => c.pageId)}::uuid[]) AND p.id = c.page_id
      ${of ? sql`AND p.id IN (SELECT page_id FROM ${of})` : sql``}
    RETURNING p.id`
}

/** Consecutive failures that put a page in `error`. */
export const FAILURES_BEFORE_ERROR = 3

/**
 * Counts a failed check of the page. Enough in a row put it in `error`; a failure that
 * trying again cannot change (`permanent`) at once.
 */
export async function recordFailure (
  tx: Db,
  pageId: string,
  failure: { message: string, permanent: boolean, code: string },
  at: Date,
  nextAt: Date
): Promise<void> {
  const threshold = failure.permanent ? 1 : FAILURES_BEFORE_ERROR
  await tx
    .updateTable('pages')
    .set({
      error_count: sql`error_count + 1`,
      consecutive_failures: sql`consecutive_failures + 1`,
      last_error: failure.message.slice(0, 1000),
      failure_code: failure.code.slice(0, 100),
      failing_since: sql`coalesce(failing_since, ${at})`,
      last_check_at: at,
      next_crawl_at: nextAt,
      status: sql`CASE WHEN consecutive_failures + 1 >= ${threshold} THEN 'error' ELSE status END`
    })
    .where('id', '=', pageId)
    .execute()
}

/**
 * Up to `limit` monitored pages of active domains that are due, locked (skipping
 * those another scheduler holds), oldest due first.
 */
export async function takeDuePages (tx: Tx, now: Date, limit: number) {
  const due = await sql<{ id: string, url: string, domain_id: string, org_id: string, hours: number }>`
    SELECT p.id, p.url, p.domain_id, p.org_id, d.check_frequency_hours AS hours
    FROM pages p JOIN domains d ON d.id = p.domain_id
    WHERE p.monitoring_enabled AND d.status IN ('active', 'error') AND p.next_crawl_at <= ${now}
    ORDER BY p.next_crawl_at LIMIT ${limit}
    FOR UPDATE OF p SKIP LOCKED`.execute(tx)
  return due.rows
}

/** Moves each page to its next crawl time: one statement, its pages found by primary key. */
export async function setNextCrawls (tx: Db, next: Array<{ id: string, at: Date }>): Promise<void> {
  if (next.length === 0) return
  const rows = JSON.stringify(next.map(n => ({ id: n.id, at: n.at.toISOString() })))
  await sql`
    UPDATE pages SET next_crawl_at = n.at::timestamptz
    FROM jsonb_to_recordset(${rows}::jsonb) AS n(id uuid, at text)
    WHERE pages.id = ANY(${next.map(n => n.id)}::uuid[]) AND pages.id = n.id`.execute(tx)
}

/** A failing page's address, its failure's code and since when; undefined when it is gone. */
export async function pageFailure (db: Db, pageId: string) {
  const row = await db.selectFrom('pages').select(['url', 'failure_code', 'failing_since']).where('id', '=', pageId)
    .executeTakeFirst()
  return row && { url: row.url, code: row.failure_code, since: row.failing_since?.toISOString() ?? null }
}
