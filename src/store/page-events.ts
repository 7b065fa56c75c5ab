import { sql, type Selectable } from 'kysely'
import { TYPES_THAT_MATTER, type PageType } from '../vocabulary/core.js'
import type { Db, Tx } from './db.js'
import type { PageEventsTable } from './schema.js'

// What happens to a domain's pages besides changes: a page found that was not watched
// (discovered), a page gone (removed). Each is told once (unique per domain, kind and
// address); those not yet alerted (alerted_at null) are the alerts' outbox, as changes are.

export type PageEventRow = Selectable<PageEventsTable>

export function pageEventView (e: PageEventRow & { hostname?: string }) {
  return {
    id: e.id,
    domainId: e.domain_id,
    ...(e.hostname !== undefined ? { domain: e.hostname } : {}),
    pageId: e.page_id,
    kind: e.kind,
    url: e.url,
    pageType: e.page_type,
    watched: e.watched,
    reason: e.reason,
    sitemapLastmod: e.sitemap_lastmod,
    createdAt: e.created_at
  }
}

/** Records the pages a discovery found that were not watched; those already told of are left out. */
export async function recordDiscovered (
  tx: Tx,
  orgId: string,
  domainId: string,
  found: Array<{ url: string, pageType: PageType, pageId: string | null, lastmod?: Date, reason?: string | null }>
): Promise<PageEventRow[]> {
  const told: PageEventRow[] = []
  // In statements of a bounded size: PostgreSQL takes at most 65,535 parameters in one.
  for (let i = 0; i < found.length; i += EVENTS_PER_STATEMENT) {
    told.push(...await tx.insertInto('page_events')
      .values(found.slice(i, i + EVENTS_PER_STATEMENT).map(f => ({
        org_id: orgId,
        domain_id: domainId,
        page_id: f.pageId,
        kind: 'discovered' as const,
        url: f.url,
        page_type: f.pageType,
        watched: f.pageId !== null,
        reason: f.reason ?? null,
        sitemap_lastmod: f.lastmod ?? null
      })))
      .onConflict(oc => oc.columns(['domain_id', 'kind', 'url']).doNothing())
      .returningAll()
      .execute())
  }
  return told
}

const EVENTS_PER_STATEMENT = 500

/** How long a page must answer 404 or 410 to be told of as gone. */
export const GONE_AFTER_MS = 7 * 86_400_000

/**
 * Records a watched page as removed when it has answered 404 or 410 for GONE_AFTER_MS
 * (once). Whether it was.
 */
export async function recordGoneIfLong (tx: Tx, pageId: string, at: Date): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    INSERT INTO page_events (org_id, domain_id, page_id, kind, url, page_type, watched, reason)
    SELECT p.org_id, p.domain_id, p.id, 'removed', p.url, p.page_type, p.monitoring_enabled,
      'it has answered ' || split_part(p.failure_code, ':', 2) || ' since ' || to_char(p.failing_since, 'YYYY-MM-DD')
    FROM pages p
    WHERE p.id = ${pageId}::uuid AND p.failure_code IN ('HTTP_STATUS:404', 'HTTP_STATUS:410')
      AND p.failing_since <= ${new Date(at.getTime() - GONE_AFTER_MS)}
    ON CONFLICT (domain_id, kind, url) DO NOTHING
    RETURNING id`.execute(tx)
  return rows.length > 0
}

/**
 * Keeps which watched pages the sitemaps list (`listed`, normalised addresses; http and
 * https alike) and, when `tell`, records those that left them as removed (once). Returns
 * how many were told of.
 */
export async function syncSitemap (
  tx: Tx, domainId: string, listed: readonly string[], tell: boolean
): Promise<number> {
  const { rows } = await sql<{ id: string }>`
    WITH now_in AS (SELECT regexp_replace(u, '^https?:', '') AS doc FROM unnest(${[...listed]}::text[]) AS u),
    marked AS (
      UPDATE pages p SET in_sitemap = (regexp_replace(p.url, '^https?:', '') IN (SELECT doc FROM now_in))
      WHERE p.domain_id = ${domainId}::uuid
        AND p.in_sitemap <> (regexp_replace(p.url, '^https?:', '') IN (SELECT doc FROM now_in))
      RETURNING p.id, p.org_id, p.domain_id, p.url, p.page_type, p.monitoring_enabled, p.in_sitemap)
    INSERT INTO page_events (org_id, domain_id, page_id, kind, url, page_type, watched, reason)
    SELECT org_id, domain_id, id, 'removed', url, page_type, monitoring_enabled, 'it left the sitemap'
    FROM marked WHERE NOT in_sitemap AND ${tell}
    ON CONFLICT (domain_id, kind, url) DO NOTHING
    RETURNING id`.execute(tx)
  return rows.length
}

/**
 * Brings forward the check of each watched page whose sitemap <lastmod> is newer than its
 * last check: it is due at the scheduler's next turn. Returns how many. A site decides
 * its <lastmod>, and one that always says "now" would have every page checked at each
 * discovery: a page is brought forward only once half its domain's check interval has
 * passed since its last check, so it is checked at most twice as often as its schedule says.
 */
export async function checkSoonerIfModified (
  tx: Tx, domainId: string, modified: ReadonlyArray<{ url: string, at: Date }>, now: Date
): Promise<number> {
  if (modified.length === 0) return 0
  const { rows } = await sql<{ id: string }>`
    UPDATE pages p SET next_crawl_at = ${now}
    FROM (SELECT regexp_replace(u, '^https?:', '') AS doc, m FROM unnest(${modified.map(x => x.url)}::text[],
      ${modified.map(x => x.at.toISOString())}::timestamptz[]) AS t (u, m)) s, domains d
    WHERE p.domain_id = ${domainId}::uuid AND d.id = p.domain_id AND p.monitoring_enabled
      AND regexp_replace(p.url, '^https?:', '') = s.doc
      AND s.m > coalesce(p.last_check_at, '-infinity') AND s.m <= ${now}
      AND coalesce(p.last_check_at, '-infinity')
        <= ${now}::timestamptz - d.check_frequency_hours * interval '30 minutes'
      AND (p.next_crawl_at IS NULL OR p.next_crawl_at > ${now})
    RETURNING p.id`.execute(tx)
  return rows.length
}

/** The organisation's page events, newest first (of one domain, of one kind). */
export async function listPageEvents (
  db: Db, orgId: string, opts: { domainId?: string, kind?: PageEventsTable['kind'], limit: number, since?: Date }
) {
  let q = db.selectFrom('page_events as e').innerJoin('domains as d', 'd.id', 'e.domain_id')
    .selectAll('e').select('d.hostname').where('e.org_id', '=', orgId)
  if (opts.domainId) q = q.where('e.domain_id', '=', opts.domainId)
  if (opts.kind) q = q.where('e.kind', '=', opts.kind)
  if (opts.since) q = q.where('e.created_at', '>=', opts.since)
  const rows = await q.orderBy('e.created_at', 'desc').orderBy('e.id', 'desc').limit(opts.limit).execute()
  return rows.map(pageEventView)
}

/**
 * The page events people are told of in digests and feeds, in (from, to], newest first:
 * pages found of a type that matters, and pages gone.
 */
export async function toldPageEvents (
  db: Db, orgId: string, opts: { from: Date, to: Date, domainId?: string, limit: number }
) {
  let q = db.selectFrom('page_events as e').innerJoin('domains as d', 'd.id', 'e.domain_id')
    .selectAll('e').select(['d.hostname', 'd.tags as domain_tags'])
    .where('e.org_id', '=', orgId).where('e.created_at', '>', opts.from).where('e.created_at', '<=', opts.to)
    .where(eb => eb.or([eb('e.kind', '=', 'removed'), eb('e.page_type', 'in', [...TYPES_THAT_MATTER])]))
  if (opts.domainId) q = q.where('e.domain_id', '=', opts.domainId)
  return await q.orderBy('e.created_at', 'desc').orderBy('e.id', 'desc').limit(opts.limit).execute()
}

/** Page events not yet alerted, locked for this transaction, with their domain's name and tags. */
export async function takeUnalertedPageEvents (tx: Tx, limit: number) {
  return await tx.selectFrom('page_events as e').innerJoin('domains as d', 'd.id', 'e.domain_id')
    .selectAll('e').select(['d.hostname', 'd.display_name', 'd.tags as domain_tags'])
    .where('e.alerted_at', 'is', null)
    .orderBy('e.created_at').limit(limit)
    .forUpdate('e').skipLocked().execute()
}

export async function markPageEventsAlerted (tx: Tx, ids: string[], at = new Date()): Promise<void> {
  if (ids.length === 0) return
  await tx.updateTable('page_events').set({ alerted_at: at }).where('id', 'in', ids).execute()
}

/**
 * Active domains whose weekly discovery is due, locked (skipping those another scheduler
 * holds); each one's next is moved a week on.
 */
export async function takeDueDiscoveries (tx: Tx, now: Date, limit: number) {
  const { rows } = await sql<{ id: string, org_id: string }>`
    UPDATE domains SET next_discovery_at = ${now}::timestamptz + interval '7 days'
    WHERE id IN (
      SELECT id FROM domains WHERE next_discovery_at <= ${now} AND status = 'active'
      ORDER BY next_discovery_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id, org_id`.execute(tx)
  return rows
}
