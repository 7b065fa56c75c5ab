import { sql, type Selectable } from 'kysely'
import type { Executor } from './db.js'
import { CHANGE_COLUMNS, changeView } from './changes.js'
import type { DomainsTable, PagesTable } from './schema.js'

export type DomainRow = Selectable<DomainsTable>
export type PageRow = Selectable<PagesTable>

// Rows to the contract's camelCase shapes. The API's response schemas pick which
// fields each endpoint shows.

export function domainView (d: DomainRow) {
  return {
    id: d.id,
    orgId: d.org_id,
    domain: d.hostname,
    displayName: d.display_name,
    status: d.status,
    checkFrequencyHours: d.check_frequency_hours,
    createdAt: d.created_at,
    updatedAt: d.updated_at
  }
}

export function pageView (p: PageRow) {
  return {
    id: p.id,
    domainId: p.domain_id,
    url: p.url,
    urlHash: p.url_hash,
    pageType: p.page_type,
    pageTypeConfidence: Number(p.page_type_confidence).toFixed(2),
    status: p.status,
    monitoringEnabled: p.monitoring_enabled,
    priority: p.priority,
    lastCheckAt: p.last_check_at,
    lastChangeAt: p.last_change_at,
    errorCount: p.error_count,
    lastError: p.last_error,
    metadata: p.metadata,
    noiseRules: p.noise_rules ?? {},
    createdAt: p.created_at
  }
}

export async function findDomain (db: Executor, orgId: string, id: string): Promise<DomainRow | undefined> {
  return await db.selectFrom('domains').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst()
}

/** When pages were last crawled and are next due; null before the first crawl or while not scheduled. */
async function crawlTimes (db: Executor, domainIds: string[]) {
  if (domainIds.length === 0) return new Map<string, { last: Date | null, next: Date | null }>()
  const rows = await db.selectFrom('pages as p').innerJoin('domains as d', 'd.id', 'p.domain_id')
    .select([
      'p.domain_id',
      sql<Date | null>`max(p.last_check_at)`.as('last'),
      sql<Date | null>`min(p.next_crawl_at) FILTER (WHERE p.monitoring_enabled AND d.status IN ('active', 'error'))`.as('next')
    ])
    .where('p.domain_id', 'in', domainIds).groupBy('p.domain_id').execute()
  return new Map(rows.map(r => [r.domain_id, { last: r.last, next: r.next }]))
}

export async function listDomains (db: Executor, orgId: string, page: number, pageSize: number, onlyId?: string) {
  let q = db.selectFrom('domains').selectAll().where('org_id', '=', orgId)
  if (onlyId) q = q.where('id', '=', onlyId)
  const [domains, count] = await Promise.all([
    q.orderBy('created_at', 'desc').orderBy('id').limit(pageSize).offset((page - 1) * pageSize).execute(),
    db.selectFrom('domains').select(sql<number>`count(*)::int`.as('n')).where('org_id', '=', orgId).executeTakeFirstOrThrow()
  ])
  const ids = domains.map(d => d.id)
  const [times, pages] = await Promise.all([
    crawlTimes(db, ids),
    ids.length === 0
      ? []
      : db.selectFrom('pages').select(['id', 'domain_id', 'url', 'page_type', 'status'])
        .where('domain_id', 'in', ids).orderBy('created_at').orderBy('id').execute()
  ])
  return {
    total: count.n,
    items: domains.map(d => ({
      ...domainView(d),
      lastCrawledAt: times.get(d.id)?.last ?? null,
      nextCrawlAt: times.get(d.id)?.next ?? null,
      pages: pages.filter(p => p.domain_id === d.id).map(p => ({ id: p.id, url: p.url, pageType: p.page_type, status: p.status }))
    }))
  }
}

/** One domain in the list's shape (with page summaries and crawl times). */
export async function getDomainListItem (db: Executor, orgId: string, id: string) {
  return (await listDomains(db, orgId, 1, 1, id)).items[0]
}

export const RECENT_CHANGES = 20

export async function getDomainDetails (db: Executor, domain: DomainRow) {
  const [times, pages, changes] = await Promise.all([
    crawlTimes(db, [domain.id]),
    db.selectFrom('pages').selectAll().where('domain_id', '=', domain.id).orderBy('created_at').orderBy('id').execute(),
    db.selectFrom('changes').select([...CHANGE_COLUMNS]).where('domain_id', '=', domain.id)
      .orderBy('created_at', 'desc').orderBy('id').limit(RECENT_CHANGES).execute()
  ])
  return {
    ...domainView(domain),
    lastCrawledAt: times.get(domain.id)?.last ?? null,
    nextCrawlAt: times.get(domain.id)?.next ?? null,
    pages: pages.map(pageView),
    recentChanges: changes.map(changeView)
  }
}

export async function listPages (db: Executor, domainId: string, page: number, pageSize: number) {
  const [rows, count] = await Promise.all([
    db.selectFrom('pages').selectAll().where('domain_id', '=', domainId)
      .orderBy('created_at').orderBy('id').limit(pageSize).offset((page - 1) * pageSize).execute(),
    db.selectFrom('pages').select(sql<number>`count(*)::int`.as('n')).where('domain_id', '=', domainId).executeTakeFirstOrThrow()
  ])
  return { total: count.n, items: rows.map(pageView) }
}
