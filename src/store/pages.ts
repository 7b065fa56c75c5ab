import { explainFailure } from '../vocabulary/failures.js'
import { createHash } from 'node:crypto'
import { sql, type RawBuilder, type Selectable } from 'kysely'
import { INTELLIGENCE_TYPE_ORDER, PLANS, type Org } from '../vocabulary/plans.js'
import {
  type NoiseRules, type PageCandidate, type PageType, type RenderMode
} from '../vocabulary/core.js'
import type { Db, Tx } from './db.js'
import { countPages } from './billing.js'
import { insertAuditEventPerRow, type AuditEventValues } from './audit-events.js'
import type { PagesTable } from './schema.js'
import { jsonRows, rowsFromJson } from './json-rows.js'

// Pages: what is watched, added within the plan's cap, and shown; a crawl's side of the
// pages table (its check, its failures, when it is due) is in page-checks.ts.

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

/**
 * A page's place in its domain's intelligence order (lower comes first), as the keys of an
 * ORDER BY: sorting on a row value compares records, several times slower.
 */
export const intelligenceKeys = (alias: string) => sql.join([
  sql.ref(`${alias}.priority`),
  sql`array_position(${INTELLIGENCE_TYPE_ORDER}::text[], ${sql.ref(`${alias}.page_type`)})`,
  sql.ref(`${alias}.created_at`),
  sql.ref(`${alias}.id`)
])

/** The same place as one SQL row value, to compare two pages'. */
const intelligenceOrder = (alias: string) => sql`(${intelligenceKeys(alias)})`

/**
 * Whether the page `pages` (the row in scope) is one of its domain's intelligence pages:
 * monitored, and fewer than the plan's number of its domain's monitored pages come first.
 * The pages before it are counted only up to that number, and not at all on a plan without
 * one: a crawl asks this of each page it checks, and a domain may have thousands.
 * (In an update's RETURNING, `pages` is the row as written while `q` sees it as it was:
 * hence the page's own id is left out.)
 */
export const isIntelligencePage = sql<boolean>`(pages.monitoring_enabled AND CASE
  WHEN ${intelligenceLimit(sql.ref('pages.org_id'))} IS NULL THEN true
  ELSE (SELECT count(*) FROM (
    SELECT FROM pages q
    WHERE q.domain_id = pages.domain_id AND q.id <> pages.id AND q.monitoring_enabled
      AND ${intelligenceOrder('q')} < ${intelligenceOrder('pages')}
    LIMIT ${intelligenceLimit(sql.ref('pages.org_id'))}
  ) earlier) < ${intelligenceLimit(sql.ref('pages.org_id'))}
END)`

/** The columns pageView reads: a domain's pages are read as these alone (see domainPagesJson). */
const PAGE_VIEW_COLUMNS = [
  'id', 'domain_id', 'url', 'name', 'url_hash', 'page_type', 'page_type_confidence', 'page_type_source', 'status',
  'monitoring_enabled', 'priority', 'last_check_at', 'last_change_at', 'error_count', 'last_error', 'failing_since',
  'failure_code', 'consecutive_failures', 'metadata', 'noise_rules', 'render', 'rendered_with', 'render_reason',
  'reading_note', 'screenshots', 'visual_threshold', 'created_at'
] as const satisfies ReadonlyArray<keyof PageRow>

type PageViewRow = Pick<PageRow, typeof PAGE_VIEW_COLUMNS[number]>

/** The columns of a page in its domain's details (the API's DomainDetails): pageSummary reads them. */
const PAGE_SUMMARY_COLUMNS = [
  'id', 'domain_id', 'url', 'name', 'page_type', 'status', 'monitoring_enabled', 'priority', 'last_check_at',
  'last_change_at'
] as const satisfies ReadonlyArray<typeof PAGE_VIEW_COLUMNS[number]>

type PageSummaryRow = Pick<PageRow, typeof PAGE_SUMMARY_COLUMNS[number]>

/** A page as its domain's details show it; `intelligence`: whether it is one of its domain's intelligence pages. */
export function pageSummary (p: PageSummaryRow, intelligence: boolean) {
  return {
    id: p.id,
    domainId: p.domain_id,
    url: p.url,
    name: p.name,
    pageType: p.page_type,
    status: p.status,
    monitoringEnabled: p.monitoring_enabled,
    priority: p.priority,
    intelligence,
    lastCheckAt: p.last_check_at,
    lastChangeAt: p.last_change_at
  }
}

/** A page as the API shows it: its summary and the rest of its settings and state. */
export function pageView (p: PageViewRow, intelligence: boolean) {
  return {
    ...pageSummary(p, intelligence),
    urlHash: p.url_hash,
    pageTypeConfidence: Number(p.page_type_confidence).toFixed(2),
    pageTypeSource: p.page_type_source,
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
    readingNote: p.reading_note,
    screenshots: p.screenshots,
    visualThreshold: p.visual_threshold === null ? null : Number(p.visual_threshold),
    createdAt: p.created_at
  }
}

/** One page as the API shows it (pageView), whether it is an intelligence page looked up. */
export async function onePageView (db: Db, p: PageRow) {
  const row = await db.selectFrom('pages').select(isIntelligencePage.as('intelligence')).where('id', '=', p.id)
    .executeTakeFirst()
  return pageView(p, row?.intelligence ?? false)
}

const PAGE_DATES = ['last_check_at', 'last_change_at', 'failing_since', 'created_at'] as const satisfies
  ReadonlyArray<typeof PAGE_VIEW_COLUMNS[number]>

/** A way to read a domain's pages: the columns it needs, and the views it makes of them (from domainPagesJson). */
export interface PagesRead<View> {
  columns: ReadonlyArray<typeof PAGE_VIEW_COLUMNS[number]>
  views: (json: string) => View[]
}

/** The read of `columns` that makes each page `view` of it (its dates among them made Dates again). */
function pagesRead<Row, View> (
  columns: ReadonlyArray<typeof PAGE_VIEW_COLUMNS[number]>, view: (row: Row, intelligence: boolean) => View
): PagesRead<View> {
  const dates = PAGE_DATES.filter(column => columns.includes(column))
  return {
    columns,
    views: json => rowsFromJson<Row & { intelligence: boolean }>(json, dates).map(p => view(p, p.intelligence))
  }
}

/** Every page whole (pageView): the API's page lists and the app's domain page. */
export const PAGE_VIEWS = pagesRead(PAGE_VIEW_COLUMNS, pageView)

/**
 * Every page as its domain's details show it (pageSummary), which clients poll: 9 of the 26
 * columns. A 1,000-page domain's details read in 18 ms at p50 on a quiet embedded database,
 * against 48 ms whole, with 335 KB of JSON from the database against 932 KB.
 */
export const PAGE_SUMMARIES = pagesRead(PAGE_SUMMARY_COLUMNS, pageSummary)

/**
 * A domain's pages in order (`range`: some of them), each with whether it is an intelligence
 * page, as one JSON value (see json-rows.ts) of `read`'s columns; `read.views` reads it.
 */
export function domainPagesJson (
  db: Db,
  domain: { id: string, org_id: string },
  read: PagesRead<unknown>,
  range?: { limit: number, offset: number }
) {
  // The plan's first pages are picked once, not ranked with a window over all of them: that
  // sorted the domain's pages twice, its order's and then the list's (1 ms of 22 at 1,000 pages).
  const limit = intelligenceLimit(sql.val(domain.org_id))
  let q = db
    .selectFrom('pages')
    .select(read.columns)
    .select(sql<boolean>`pages.monitoring_enabled AND CASE WHEN ${limit} IS NULL THEN true
      ELSE pages.id = ANY(ARRAY(SELECT q.id FROM pages q WHERE q.domain_id = ${domain.id} AND q.monitoring_enabled
        ORDER BY ${intelligenceKeys('q')} LIMIT ${limit})) END`.as('intelligence'))
    .where('pages.domain_id', '=', domain.id)
    .orderBy('created_at')
    .orderBy('id')
  if (range) q = q.limit(range.limit).offset(range.offset)
  return jsonRows(q)
}

export async function listPages (db: Db, domain: { id: string, org_id: string }, page: number, pageSize: number) {
  const row = await db
    .selectNoFrom(eb => [
      domainPagesJson(db, domain, PAGE_VIEWS, { limit: pageSize, offset: (page - 1) * pageSize }).as('pages'),
      eb.selectFrom('pages').select(sql<number>`count(*)::int`.as('n')).where('domain_id', '=', domain.id).as('n')
    ])
    .executeTakeFirstOrThrow()
  return { total: row.n ?? 0, items: PAGE_VIEWS.views(row.pages) }
}

/**
 * Adds pages to a domain within its plan's cap (pages added are consumed, never given
 * back). Candidates must be normalised and ordered most valuable first; those past the
 * cap or already present are skipped. Returns the inserted rows.
 */
/** Of `candidates`, those the domain does not watch yet (by address, http and https alike), each once. */
export async function unwatchedCandidates (tx: Tx, domainId: string, candidates: PageCandidate[]) {
  const existing = new Set(
    (await tx.selectFrom('pages').select('url_hash').where('domain_id', '=', domainId).execute()).map(r => r.url_hash)
  )
  return {
    watched: existing.size,
    fresh: candidates.filter(c => {
      const known = existing.has(hashUrl(c.url)) || existing.has(hashUrl(schemeTwin(c.url)))
      existing.add(hashUrl(c.url))
      return !known
    })
  }
}

/**
 * Within the domain's page allowance, what discovery may watch without a person: never the
 * last RESERVED_SHARE of it (at least MIN_RESERVED pages), which stays for pages a person
 * adds, and at most `most` pages at once.
 */
export interface AutomaticWatch { most: number }
export const RESERVED_SHARE = 0.1
export const MIN_RESERVED = 5

/** The pages of the domain's allowance that discovery leaves for people (see AutomaticWatch). */
export const reservedPages = (cap: number | null) =>
  cap === null ? 0 : Math.max(MIN_RESERVED, Math.ceil(cap * RESERVED_SHARE))

export async function addPages (
  tx: Tx,
  org: Org,
  domainId: string,
  candidates: PageCandidate[],
  now = new Date(),
  automatic?: AutomaticWatch
): Promise<PageRow[]> {
  const domain = await tx
    .selectFrom('domains')
    .select('pages_added')
    .where('id', '=', domainId)
    .forUpdate()
    .executeTakeFirst()
  if (!domain || candidates.length === 0) return []
  const cap = PLANS[org.plan].pagesPerDomain
  const allowed = cap === null ? candidates.length : Math.max(0, cap - domain.pages_added)
  const room = automatic
    ? Math.min(automatic.most, Math.max(0, allowed - reservedPages(cap)))
    : allowed
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

/** The addresses of the organisation's pages `ids` (a list of changes names their pages by them). */
export async function pageAddresses (db: Db, orgId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map()
  const rows = await db.selectFrom('pages').select(['id', 'url']).where('org_id', '=', orgId)
    .where('id', 'in', [...new Set(ids)]).execute()
  return new Map(rows.map(r => [r.id, r.url]))
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
  /** null: none (the page goes by its address). */
  name?: string | null
  monitoringEnabled?: boolean
  pageType?: PageType
  priority?: number
  noiseRules?: NoiseRules
  /** null: the domain's. */
  render?: RenderMode | null
  screenshots?: boolean
  visualThreshold?: number | null
}

/**
 * Changes a page's settings (a type set by hand is certain, and new noise rules make the next crawl a new
 * baseline); returns the page as written, with whether it is now an intelligence page.
 */
/** The columns that `s` sets. */
function pageSettingsSet (s: PageSettings) {
  return {
    ...(s.name !== undefined ? { name: s.name } : {}),
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
  }
}

export async function updatePage (db: Db, id: string, s: PageSettings): Promise<void> {
  await db.updateTable('pages').set(pageSettingsSet(s)).where('id', '=', id).execute()
}

/**
 * Sets the settings of an organisation's page, found by its domain and id, and records
 * `audit` (labelled with the page's address) in the same statement: one round trip, with
 * no transaction held open between the write and its record. The page as written, with
 * whether it is an intelligence page; undefined when there is no such page.
 */
export async function updateOwnedPage (
  db: Db, owner: { orgId: string, domainId: string, pageId: string }, s: PageSettings, audit: AuditEventValues | null
) {
  const withUpdate = db.with('updated', q => q
    .updateTable('pages')
    .set(pageSettingsSet(s))
    .where('id', '=', owner.pageId)
    .where('domain_id', '=', owner.domainId)
    .where('org_id', '=', owner.orgId)
    .returningAll()
    .returning(isIntelligencePage.as('intelligence')))
  if (!audit) return await withUpdate.selectFrom('updated').selectAll().executeTakeFirst()
  return await withUpdate.with('audit', () => insertAuditEventPerRow(audit, 'updated', 'url'))
    .selectFrom('updated').selectAll().executeTakeFirst()
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

/**
 * Locks the rows of the pages in `ids` that still exist, in id order (so that
 * concurrent lockers cannot deadlock), and returns their ids.
 */
export async function lockPages (tx: Tx, ids: string[]): Promise<Set<string>> {
  const rows = await tx.selectFrom('pages').select('id').where('id', 'in', ids).orderBy('id').forUpdate().execute()
  return new Set(rows.map(r => r.id))
}
