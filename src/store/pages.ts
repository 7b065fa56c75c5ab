// Longer than 300 lines on purpose: every statement on the pages table, from adding pages
// within the plan's cap to a crawl's check and the scheduler's due list, so that "where is
// the query for X?" about a page has one answer.
import { explainFailure } from '../domain/failures.js'
import { createHash } from 'node:crypto'
import { sql, type RawBuilder, type Selectable } from 'kysely'
import { INTELLIGENCE_TYPE_ORDER, PLANS, STRUCTURED_PAGE_TYPES, type Org } from '../domain/plans.js'
import type { NoiseRules, PageCandidate, PageType, RenderedWith, RenderMode } from '../domain/vocabulary.js'
import type { Db, Tx } from './db.js'
import { countPages } from './billing.js'
import type { PagesTable } from './schema.js'

// Pages: what is watched, how it was last checked, and when it is next due.

export type PageRow = Selectable<PagesTable>

/** One statement takes at most 65,535 parameters: rows are written this many at a time. */
export const ROWS_PER_STATEMENT = 1000

/** Pages are keyed by the SHA-256 of their normalised URL (unique per domain). */
export function hashUrl (normalized: string): string {
  return createHash('sha256').update(normalized).digest('hex')
}

/** The same URL over the other scheme: one document, one page (see pageExists). */
const schemeTwin = (url: string) => url.replace(/^(https?):/, (_, s: string) => (s === 'https' ? 'http:' : 'https:'))

/** The plan's intelligence pages per domain for the organisation `orgId` (SQL; NULL when all). */
const intelligenceLimit = (orgId: RawBuilder<unknown>) => sql<number | null>`(SELECT CASE o.plan ${
  sql.join(Object.values(PLANS).map(plan => sql`WHEN ${plan.name} THEN ${plan.intelligencePages}::int`), sql` `)
} END FROM orgs o WHERE o.id = ${orgId})`

/** A page's place in its domain's intelligence order (SQL row value; lower comes first). */
export const intelligenceOrder = (alias: string) => sql`(${sql.ref(`${alias}.priority`)},
  array_position(${INTELLIGENCE_TYPE_ORDER}::text[], ${sql.ref(`${alias}.page_type`)}),
  ${sql.ref(`${alias}.created_at`)}, ${sql.ref(`${alias}.id`)})`

/**
 * Whether the page `pages` (the row in scope) is one of its domain's intelligence pages:
 * monitored, and fewer than the plan's number of its domain's monitored pages come first.
 */
const isIntelligencePage = sql<boolean>`(pages.monitoring_enabled AND coalesce((
  SELECT count(*) FROM pages q
  WHERE q.domain_id = pages.domain_id AND q.monitoring_enabled
    AND ${intelligenceOrder('q')} < ${intelligenceOrder('pages')}
) < ${intelligenceLimit(sql.ref('pages.org_id'))}, true))`

/** The intelligence pages among the pages of `domainIds` (see INTELLIGENCE_TYPE_ORDER). */
export async function intelligencePageIds (db: Db | Tx, domainIds: readonly string[]): Promise<Set<string>> {
  if (domainIds.length === 0) return new Set()
  const { rows } = await sql<{ id: string }>`
    SELECT r.id FROM (
      SELECT pages.id, pages.org_id,
        row_number() OVER (PARTITION BY pages.domain_id ORDER BY ${intelligenceOrder('pages')}) AS rank
      FROM pages WHERE pages.domain_id = ANY(${domainIds}::uuid[]) AND pages.monitoring_enabled
    ) r
    WHERE coalesce(r.rank <= ${intelligenceLimit(sql.ref('r.org_id'))}, true)`.execute(db)
  return new Set(rows.map(r => r.id))
}

/** A page as the API shows it; `intelligence`: the ids of its domain's intelligence pages. */
export function pageView (p: PageRow, intelligence: ReadonlySet<string>) {
  return {
    id: p.id,
    domainId: p.domain_id,
    url: p.url,
    urlHash: p.url_hash,
    pageType: p.page_type,
    pageTypeConfidence: Number(p.page_type_confidence).toFixed(2),
    pageTypeSource: p.page_type_source,
    status: p.status,
    monitoringEnabled: p.monitoring_enabled,
    priority: p.priority,
    intelligence: intelligence.has(p.id),
    lastCheckAt: p.last_check_at,
    lastChangeAt: p.last_change_at,
    errorCount: p.error_count,
    lastError: p.last_error,
    failure: p.failing_since
      ? {
          ...explainFailure(p.failure_code),
          reason: p.last_error ?? '',
          since: p.failing_since,
          failedChecks: p.consecutive_failures
        }
      : null,
    metadata: p.metadata,
    noiseRules: p.noise_rules ?? {},
    render: p.render,
    renderedWith: p.rendered_with,
    renderReason: p.render_reason,
    screenshots: p.screenshots,
    visualThreshold: p.visual_threshold === null ? null : Number(p.visual_threshold),
    createdAt: p.created_at
  }
}

/** One page as the API shows it (pageView), its domain's intelligence pages looked up. */
export async function onePageView (db: Db, p: PageRow) {
  return pageView(p, await intelligencePageIds(db, [p.domain_id]))
}

export async function listPages (db: Db, domainId: string, page: number, pageSize: number) {
  const [rows, count, intelligence] = await Promise.all([
    db
      .selectFrom('pages')
      .selectAll()
      .where('domain_id', '=', domainId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute(),
    db
      .selectFrom('pages')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('domain_id', '=', domainId)
      .executeTakeFirstOrThrow(),
    intelligencePageIds(db, [domainId])
  ])
  return { total: count.n, items: rows.map(p => pageView(p, intelligence)) }
}

/**
 * Adds pages to a domain within its plan's cap (pages added are consumed, never given
 * back). Candidates must be normalised and ordered most valuable first; those past the
 * cap or already present are skipped. Returns the inserted rows.
 */
export async function addPages (
  tx: Tx,
  org: Org,
  domainId: string,
  candidates: PageCandidate[],
  now = new Date()
): Promise<PageRow[]> {
  const domain = await tx
    .selectFrom('domains')
    .select('pages_added')
    .where('id', '=', domainId)
    .forUpdate()
    .executeTakeFirst()
  if (!domain || candidates.length === 0) return []
  const cap = PLANS[org.plan].pagesPerDomain
  const room = cap === null ? candidates.length : Math.max(0, cap - domain.pages_added)
  const existing = new Set(
    (await tx.selectFrom('pages').select('url_hash').where('domain_id', '=', domainId).execute()).map(r => r.url_hash)
  )
  const fresh = candidates
    .filter(c => {
      const known = existing.has(hashUrl(c.url)) || existing.has(hashUrl(schemeTwin(c.url)))
      existing.add(hashUrl(c.url))
      return !known
    })
    .slice(0, room)
  if (fresh.length === 0) return []
  const rows: PageRow[] = []
  for (let i = 0; i < fresh.length; i += ROWS_PER_STATEMENT) {
    rows.push(...(await insertPages(tx, org, domainId, fresh.slice(i, i + ROWS_PER_STATEMENT), now)))
  }
  await tx
    .updateTable('domains')
    .set({ pages_added: sql`pages_added + ${rows.length}` })
    .where('id', '=', domainId)
    .execute()
  await countPages(tx, org, rows.length, now)
  return rows
}

async function insertPages (tx: Tx, org: Org, domainId: string, fresh: PageCandidate[], now: Date): Promise<PageRow[]> {
  return await tx
    .insertInto('pages')
    .values(
      fresh.map(c => ({
        domain_id: domainId,
        org_id: org.id,
        url: c.url,
        url_hash: hashUrl(c.url),
        page_type: c.pageType,
        page_type_confidence: c.confidence.toFixed(2),
        page_type_source: c.typedBy ?? 'content',
        priority: c.priority ?? 5,
        next_crawl_at: now,
        created_at: now
      }))
    )
    .onConflict(oc => oc.columns(['domain_id', 'url_hash']).doNothing())
    .returningAll()
    .execute()
}

/** Where each of an organisation's pages is: its URL and its domain's host, by page id. */
export async function pagePlaces (db: Db, orgId: string, ids: readonly string[]) {
  if (ids.length === 0) return new Map<string, { url: string, domain: string }>()
  const rows = await db.selectFrom('pages as p').innerJoin('domains as d', 'd.id', 'p.domain_id')
    .select(['p.id', 'p.url', 'd.hostname']).where('p.org_id', '=', orgId).where('p.id', 'in', [...new Set(ids)])
    .execute()
  return new Map(rows.map(r => [r.id, { url: r.url, domain: r.hostname }]))
}

export async function pageExists (db: Db, domainId: string, url: string): Promise<boolean> {
  const row = await db
    .selectFrom('pages')
    .select('id')
    .where('domain_id', '=', domainId)
    .where('url_hash', 'in', [hashUrl(url), hashUrl(schemeTwin(url))])
    .executeTakeFirst()
  return row !== undefined
}

/** How many pages the domain has taken of its plan's allowance. */
export async function pagesAdded (db: Db, domainId: string): Promise<number> {
  return (await db.selectFrom('domains').select('pages_added').where('id', '=', domainId).executeTakeFirstOrThrow())
    .pages_added
}

export async function findPage (db: Db, orgId: string, domainId: string, pageId: string): Promise<PageRow | undefined> {
  return await db
    .selectFrom('pages')
    .selectAll()
    .where('id', '=', pageId)
    .where('domain_id', '=', domainId)
    .where('org_id', '=', orgId)
    .executeTakeFirst()
}

export interface PageSettings {
  monitoringEnabled?: boolean
  pageType?: PageType
  priority?: number
  noiseRules?: NoiseRules
  /** null: the domain's. */
  render?: RenderMode | null
  screenshots?: boolean
  visualThreshold?: number | null
}

/** A client's settings; a type set by hand is certain, and new noise rules make the next crawl a new baseline. */
export async function updatePage (db: Db, id: string, s: PageSettings): Promise<PageRow> {
  return await db
    .updateTable('pages')
    .set({
      ...(s.monitoringEnabled !== undefined ? { monitoring_enabled: s.monitoringEnabled } : {}),
      ...(s.pageType !== undefined
        ? { page_type: s.pageType, page_type_confidence: '1.00', page_type_source: 'person' as const }
        : {}),
      ...(s.priority !== undefined ? { priority: s.priority } : {}),
      ...(s.noiseRules !== undefined ? { noise_rules: JSON.stringify(s.noiseRules), rebaseline: true } : {}),
      // A new mode is decided afresh at the next crawl.
      ...(s.render !== undefined ? { render: s.render, render_checked_at: null } : {}),
      ...(s.screenshots !== undefined ? { screenshots: s.screenshots } : {}),
      ...(s.visualThreshold !== undefined ? { visual_threshold: s.visualThreshold } : {})
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function deletePage (db: Db, id: string): Promise<void> {
  await db.deleteFrom('pages').where('id', '=', id).execute()
}

/** A domain's pages with monitoring on: by the priority clients set (1 first), then typed pages before the rest. */
export async function monitoredPages (db: Db, domainId: string) {
  return await db
    .selectFrom('pages')
    .select(['id', 'url', 'domain_id', 'org_id'])
    .where('domain_id', '=', domainId)
    .where('monitoring_enabled', '=', true)
    .orderBy('priority')
    .orderBy(sql`page_type = 'other'`)
    .orderBy('created_at')
    .execute()
}

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

/**
 * Locks the rows of the pages in `ids` that still exist, in id order (so that
 * concurrent lockers cannot deadlock), and returns their ids.
 */
export async function lockPages (tx: Tx, ids: string[]): Promise<Set<string>> {
  const rows = await tx.selectFrom('pages').select('id').where('id', 'in', ids).orderBy('id').forUpdate().execute()
  return new Set(rows.map(r => r.id))
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
          .select(eb => [
            'snapshots.id',
            'snapshots.content_hash',
            eb.exists(eb.selectFrom('screenshots').select('snapshot_id').whereRef('snapshot_id', '=', 'snapshots.id'))
              .as('pictured')
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
      'latest.id as previous_id',
      'latest.content_hash as previous_hash',
      'latest.pictured as previous_pictured'
    ])
    .where('pages.id', 'in', ids)
    .execute()
}
export type CrawlTarget = Awaited<ReturnType<typeof loadCrawlTargets>>[number]

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
export async function recordChange (db: Db, pageId: string, at: Date): Promise<void> {
  await db.updateTable('pages').set({ last_change_at: at }).where('id', '=', pageId).execute()
}

/**
 * The UPDATE of many healthy checks in one statement, for a caller that writes it
 * together with other rows (see queue/completions.ts). The id list lets it find its
 * rows by primary key: joined on the JSON rows alone, the planner scanned every page.
 */
export function recordChecksStatement (checks: PageCheck[]): RawBuilder<unknown> {
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
