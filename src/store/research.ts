import { sql, type RawBuilder, type Selectable } from 'kysely'
import {
  FEATURE_WINDOWS, RAW_PAGES_PER_TYPE, READ_LIMITS,
  type Brief, type BriefSummary, type DatedChange, type ReadLimits, type ResearchInputs
} from '../vocabulary/research.js'
import { LEGAL_PAGE_TYPES, STRUCTURED_PAGE_TYPES, type Severity } from '../vocabulary/core.js'
import type { Db, Tx } from './db.js'
import { intelligenceKeys } from './pages.js'
import type { ResearchBriefsTable } from './schema.js'

// Research briefs (one per research credit spent) and what a brief is read from: a
// domain's pages, their latest snapshots and its changes, in a dozen statements.

type BriefRow = Selectable<ResearchBriefsTable> & { hostname: string }

export function briefSummaryView (r: BriefRow): BriefSummary {
  return {
    id: r.id,
    domainId: r.domain_id,
    domain: r.hostname,
    status: r.status,
    jobId: r.job_id,
    createdAt: r.created_at,
    completedAt: r.completed_at,
    failedReason: r.failed_reason,
    creditRefunded: r.refunded_at !== null
  }
}

export const briefView = (r: BriefRow): Brief => ({
  ...briefSummaryView(r),
  window: r.brief?.window ?? null,
  sections: r.brief?.sections ?? null
})

const briefs = (db: Db) => db.selectFrom('research_briefs as b').innerJoin('domains as d', 'd.id', 'b.domain_id')

export async function insertBrief (
  tx: Tx, brief: { orgId: string, domainId: string, jobId: string, periodId: string }
): Promise<string> {
  const row = await tx.insertInto('research_briefs')
    .values({ org_id: brief.orgId, domain_id: brief.domainId, job_id: brief.jobId, period_id: brief.periodId })
    .returning('id').executeTakeFirstOrThrow()
  return row.id
}

/** The organisation's brief (`orgId` null: any organisation's, for the job that builds it). */
export async function findBrief (db: Db, orgId: string | null, id: string): Promise<Brief | undefined> {
  let q = briefs(db).selectAll('b').select('d.hostname').where('b.id', '=', id)
  if (orgId !== null) q = q.where('b.org_id', '=', orgId)
  const row = await q.executeTakeFirst()
  return row && briefView(row)
}

/** A domain's briefs, newest first, without their sections. */
export async function listBriefs (db: Db, orgId: string, domainId: string, page: number, pageSize: number) {
  const rows = await briefs(db)
    .select(['b.id', 'b.org_id', 'b.domain_id', 'b.job_id', 'b.period_id', 'b.status', 'b.failed_reason',
      'b.refunded_at', 'b.created_at', 'b.completed_at', 'd.hostname'])
    .select(sql<null>`NULL`.as('brief'))
    .select(sql<number>`count(*) OVER ()::int`.as('total'))
    .where('b.org_id', '=', orgId).where('b.domain_id', '=', domainId)
    .orderBy('b.created_at', 'desc').orderBy('b.id', 'desc')
    .limit(pageSize).offset((page - 1) * pageSize)
    .execute()
  if (rows.length === 0 && page > 1) {
    const counted = await db.selectFrom('research_briefs').select(sql<number>`count(*)::int`.as('n'))
      .where('org_id', '=', orgId).where('domain_id', '=', domainId).executeTakeFirstOrThrow()
    return { items: [], total: counted.n }
  }
  return { items: rows.map(briefSummaryView), total: rows[0]?.total ?? 0 }
}

/** A brief's job has started on it: building, unless it has already ended. */
export async function markBriefBuilding (db: Db, id: string): Promise<boolean> {
  const r = await db.updateTable('research_briefs').set({ status: 'building' })
    .where('id', '=', id).where('status', 'in', ['queued', 'building']).executeTakeFirst()
  return Number(r.numUpdatedRows) > 0
}

export async function saveBrief (db: Db, id: string, brief: Pick<Brief, 'window' | 'sections'>, at: Date) {
  await db.updateTable('research_briefs')
    .set({ status: 'ready', brief: JSON.stringify(brief), completed_at: at, failed_reason: null })
    .where('id', '=', id).execute()
}

/**
 * Marks a brief failed and, the first time only, refunded; the billing period that paid
 * for it, to be given its credit back (undefined when it was already refunded).
 */
export async function failBrief (tx: Tx, id: string, reason: string, at: Date): Promise<string | undefined> {
  const row = await tx.updateTable('research_briefs')
    .set({ status: 'failed', failed_reason: reason.slice(0, 1000), completed_at: at, refunded_at: at })
    .where('id', '=', id).where('refunded_at', 'is', null).where('status', '<>', 'ready')
    .returning('period_id').executeTakeFirst()
  return row ? row.period_id ?? undefined : undefined
}

/** The briefs still queued or being built, oldest first, with their jobs: to find those whose job is gone. */
export async function unfinishedBriefs (db: Db, limit: number): Promise<Array<{ id: string, jobId: string }>> {
  const rows = await db.selectFrom('research_briefs').select(['id', 'job_id'])
    .where('status', 'in', ['queued', 'building']).orderBy('created_at').limit(limit).execute()
  return rows.map(r => ({ id: r.id, jobId: r.job_id }))
}

const DAY_MS = 86_400_000
/** Of a page's gzipped HTML, what holds its `<html lang>` (see ResearchInputs.texts). */
const HEAD_BYTES = 2048

/** What every query of a brief's inputs is scoped by. */
interface Scope {
  db: Db
  domainId: string
  now: Date
  limits: ReadLimits
  /** The changes of the brief's window (as `c`): the plan's retention, up to `now`. */
  inWindow: RawBuilder<unknown>
  /** The domain's monitored pages, numbered in rank order (the brief reads a page's rank from its place in `texts`). */
  ranked: RawBuilder<unknown>
  /** `n` days before `now`. */
  daysAgo: (n: number) => Date
}

/**
 * Everything a brief of the domain is read from (see ResearchInputs), one named query a
 * part. The lists are bounded (texts within `limits`, RAW_PAGES_PER_TYPE raw pages a type,
 * a hundred changes a list); counts run in the database.
 */
export async function researchInputs (
  db: Db, domain: { id: string, hostname: string }, retentionDays: number | null, now: Date,
  limits: ReadLimits = READ_LIMITS
): Promise<ResearchInputs> {
  const daysAgo = (n: number) => new Date(now.getTime() - n * DAY_MS)
  const since = retentionDays === null ? new Date(0) : daysAgo(retentionDays)
  const scope: Scope = {
    db,
    domainId: domain.id,
    now,
    limits,
    daysAgo,
    inWindow: sql`c.domain_id = ${domain.id} AND c.created_at >= ${since} AND c.created_at <= ${now}`,
    ranked: sql`SELECT pages.id, pages.page_type, row_number() OVER (ORDER BY ${intelligenceKeys('pages')}) AS rank
      FROM pages WHERE pages.domain_id = ${domain.id} AND pages.monitoring_enabled`
  }
  return {
    hostname: domain.hostname,
    now,
    retentionDays,
    pages: await domainPages(scope),
    texts: await latestTexts(scope),
    raws: await pagesToReadWhole(scope),
    features: await featuresOverTime(scope),
    activity: await activityByType(scope),
    mostChanged: await mostChangedPages(scope),
    legal: await legalPages(scope),
    legalHigh: await highLegalChanges(scope),
    priceChanges: await priceChanges(scope),
    apiBreaking: await breakingApiChanges(scope),
    changesInWindow: await changesInWindow(scope)
  }
}

async function domainPages ({ db, domainId }: Scope): Promise<ResearchInputs['pages']> {
  const pages = await db.selectFrom('pages').select(['id', 'url', 'page_type', 'monitoring_enabled'])
    .where('domain_id', '=', domainId).execute()
  return pages.map(p => ({ id: p.id, url: p.url, pageType: p.page_type, monitored: p.monitoring_enabled }))
}

/**
 * The latest text of each monitored page, in rank order, and only as many pages as the
 * character budget holds. A text is measured by its bytes, which bound its characters:
 * left() counts characters and octet_length() reads the stored size, so only a text
 * longer than the cut is cut (left() on every text cost 0.6 s of the brief's 500 pages in the bench).
 */
async function latestTexts ({ db, ranked, limits }: Scope): Promise<ResearchInputs['texts']> {
  const { rows } = await sql<ResearchInputs['texts'][number]>`
    SELECT "pageId", "snapshotId", at, text, head FROM (
      SELECT p.id AS "pageId", s.id AS "snapshotId", s.created_at AS at, s.text, s.head, p.rank,
        sum(s.size) OVER (ORDER BY p.rank) AS chars
      FROM (${ranked}) p
      JOIN LATERAL (SELECT id, created_at,
          CASE WHEN octet_length(content) <= ${limits.charsPerPage} THEN content
            ELSE left(content, ${limits.charsPerPage}) END AS text,
          least(octet_length(content), ${limits.charsPerPage}) AS size,
          substring(raw_html_gzip from 1 for ${HEAD_BYTES}) AS head
        FROM snapshots WHERE page_id = p.id ORDER BY created_at DESC LIMIT 1) s ON true
      WHERE p.rank <= ${limits.pages}
    ) t WHERE chars <= ${limits.chars} ORDER BY rank`.execute(db)
  return rows
}

/**
 * The pages read whole, as fetched: the home page, else the highest-ranked page (for the
 * name the site gives itself), and the pages the structured readers read.
 */
async function pagesToReadWhole ({ db, ranked, domainId }: Scope): Promise<ResearchInputs['raws']> {
  const { rows } = await sql<{
    page_id: string
    snapshot_id: string
    at: Date
    raw_html_gzip: Uint8Array
    content_type: string | null
    document_url: string | null
    document_gzip: Uint8Array | null
    document_type: string | null
  }>`
    SELECT r.page_id, s.id AS snapshot_id, s.created_at AS at, s.raw_html_gzip, s.content_type,
      s.document_url, s.document_gzip, s.document_type
    FROM (
      SELECT id AS page_id FROM (
        SELECT p.id, row_number() OVER (PARTITION BY p.page_type ORDER BY p.rank) AS n
        FROM (${ranked}) p WHERE p.page_type = ANY(${STRUCTURED_PAGE_TYPES}::text[])
      ) t WHERE t.n <= ${RAW_PAGES_PER_TYPE}
      UNION
      (SELECT id FROM pages WHERE domain_id = ${domainId}
        ORDER BY url ~ '^https?://[^/]+/?$' DESC, monitoring_enabled DESC, priority, created_at LIMIT 1)
    ) r
    JOIN LATERAL (SELECT * FROM snapshots WHERE page_id = r.page_id AND raw_html_gzip IS NOT NULL
      ORDER BY created_at DESC LIMIT 1) s ON true`.execute(db)
  return rows.map(r => ({
    pageId: r.page_id,
    snapshotId: r.snapshot_id,
    at: r.at,
    page: { gzip: r.raw_html_gzip, contentType: r.content_type ?? '' },
    ...(r.document_gzip && r.document_url
      ? { document: { url: r.document_url, gzip: r.document_gzip, contentType: r.document_type ?? '' } }
      : {})
  }))
}

/**
 * Each features page now, and as it read at the start of each window: the snapshot then
 * in force, or its first one when Sitewatch first read it later.
 */
async function featuresOverTime ({ db, ranked, now }: Scope): Promise<ResearchInputs['features']> {
  const { rows } = await sql<ResearchInputs['features'][number]>`
    SELECT f.id AS "pageId", w.days, s.id AS "snapshotId", s.created_at AS at, s.content AS text
    FROM (SELECT p.id FROM (${ranked}) p WHERE p.page_type = 'features' ORDER BY p.rank LIMIT ${RAW_PAGES_PER_TYPE}) f
    CROSS JOIN unnest(${[0, ...FEATURE_WINDOWS]}::int[]) AS w(days)
    JOIN LATERAL (
      SELECT id, created_at, content FROM snapshots
      WHERE page_id = f.id AND created_at <= ${now}::timestamptz
      ORDER BY (created_at <= ${now}::timestamptz - make_interval(days => w.days)) DESC,
        CASE WHEN created_at <= ${now}::timestamptz - make_interval(days => w.days) THEN created_at END DESC NULLS LAST,
        created_at
      LIMIT 1) s ON true`.execute(db)
  return rows
}

/** The domain's changes by type and severity over 7, 30 and 90 days. */
async function activityByType ({ db, domainId, now, daysAgo }: Scope): Promise<ResearchInputs['activity']> {
  const { rows } = await sql<ResearchInputs['activity'][number]>`
    SELECT change_type AS "changeType", severity,
      count(*) FILTER (WHERE created_at >= ${daysAgo(7)})::int AS d7,
      count(*) FILTER (WHERE created_at >= ${daysAgo(30)})::int AS d30,
      count(*)::int AS d90
    FROM changes WHERE domain_id = ${domainId} AND created_at >= ${daysAgo(90)} AND created_at <= ${now}
    GROUP BY 1, 2`.execute(db)
  return rows
}

/** The ten pages with most changes in 90 days. */
async function mostChangedPages ({ db, domainId, now, daysAgo }: Scope): Promise<ResearchInputs['mostChanged']> {
  const { rows } = await sql<ResearchInputs['mostChanged'][number]>`
    SELECT page_id AS "pageId", count(*)::int AS changes FROM changes
    WHERE domain_id = ${domainId} AND created_at >= ${daysAgo(90)} AND created_at <= ${now}
    GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10`.execute(db)
  return rows
}

/** Each legal page: its changes in the window, its last change and its latest snapshot. */
async function legalPages ({ db, domainId, now, inWindow }: Scope): Promise<ResearchInputs['legal']> {
  const { rows } = await sql<{
    page_id: string
    changes: number
    change_id: string | null
    at: Date | null
    summary: string | null
    severity: Severity | null
    snapshot_id: string | null
    snapshot_at: Date | null
  }>`
    SELECT p.id AS page_id, coalesce(n.changes, 0)::int AS changes,
      l.id AS change_id, l.created_at AS at, l.summary, l.severity, s.id AS snapshot_id, s.created_at AS snapshot_at
    FROM pages p
    -- Counted in one pass over the domain's window (a count per page read it once per page).
    LEFT JOIN (SELECT c.page_id, count(*) AS changes FROM changes c WHERE ${inWindow} GROUP BY 1) n ON n.page_id = p.id
    LEFT JOIN LATERAL (SELECT c.id, c.created_at, c.summary, c.severity FROM changes c
      WHERE c.page_id = p.id AND c.created_at <= ${now} ORDER BY c.created_at DESC LIMIT 1) l ON true
    LEFT JOIN LATERAL (SELECT id, created_at FROM snapshots WHERE page_id = p.id
      ORDER BY created_at DESC LIMIT 1) s ON true
    WHERE p.domain_id = ${domainId} AND p.page_type = ANY(${LEGAL_PAGE_TYPES}::text[])
    ORDER BY ${intelligenceKeys('p')} LIMIT 50`.execute(db)
  return rows.map(r => ({
    pageId: r.page_id,
    changes: r.changes,
    last: r.change_id && r.at && r.summary !== null && r.severity
      ? { changeId: r.change_id, pageId: r.page_id, at: r.at, summary: r.summary, severity: r.severity }
      : null,
    snapshot: r.snapshot_id && r.snapshot_at ? { id: r.snapshot_id, at: r.snapshot_at } : null
  }))
}

const DATED = sql`c.id AS "changeId", c.page_id AS "pageId", c.created_at AS at, c.summary, c.severity`

/** The window's high and critical changes of legal pages, newest first. */
async function highLegalChanges ({ db, inWindow }: Scope): Promise<DatedChange[]> {
  const { rows } = await sql<DatedChange>`
    SELECT ${DATED}
    FROM changes c JOIN pages p ON p.id = c.page_id
    WHERE ${inWindow} AND p.page_type = ANY(${LEGAL_PAGE_TYPES}::text[]) AND c.severity IN ('high', 'critical')
    ORDER BY c.created_at DESC, c.id LIMIT 50`.execute(db)
  return rows
}

/** The window's price changes, newest first: their facts (as their alerts told them) and the pricing reader's moves. */
async function priceChanges ({ db, inWindow }: Scope): Promise<ResearchInputs['priceChanges']> {
  const { rows } = await sql<ResearchInputs['priceChanges'][number]>`
    SELECT ${DATED}, c.diff_data->'facts' AS facts, c.diff_data->'pricing'->'changes' AS moves
    FROM changes c WHERE ${inWindow} AND c.change_type = 'price_change'
    ORDER BY c.created_at DESC, c.id LIMIT 100`.execute(db)
  return rows
}

/** The window's changes of API descriptions that break clients, newest first. */
async function breakingApiChanges ({ db, inWindow }: Scope): Promise<ResearchInputs['apiBreaking']> {
  const { rows } = await sql<ResearchInputs['apiBreaking'][number]>`
    SELECT c.id AS "changeId", c.page_id AS "pageId", c.created_at AS at, c.diff_data->'api'->'breaking' AS breaking
    FROM changes c JOIN pages p ON p.id = c.page_id
    WHERE ${inWindow} AND p.page_type = 'api_docs'
      AND jsonb_array_length(coalesce(c.diff_data->'api'->'breaking', '[]'::jsonb)) > 0
    ORDER BY c.created_at DESC, c.id LIMIT 100`.execute(db)
  return rows
}

async function changesInWindow ({ db, inWindow }: Scope): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM changes c WHERE ${inWindow}`.execute(db)
  return rows[0].n
}
