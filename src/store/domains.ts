import { explainFailure } from '../vocabulary/failures.js'
import { type CompiledQuery, type ExpressionBuilder, sql, type Selectable } from 'kysely'
import type { Org } from '../vocabulary/plans.js'
import type { PageStatus, PageType, RenderMode } from '../vocabulary/core.js'
import { CHANGE_COLUMNS, CHANGE_DATES, changeView, type ChangeRow } from './changes.js'
import type { Db } from './db.js'
import { domainPagesJson, type PagesRead } from './pages.js'
import { jsonRows, rowsFromJson } from './json-rows.js'
import type { Database, DomainsTable } from './schema.js'

// Domains. Rows leave as the contract's camelCase shapes (…View); the API's response
// schemas pick which fields each endpoint shows.

export type DomainRow = Selectable<DomainsTable>

export function domainView (d: DomainRow) {
  return {
    id: d.id,
    orgId: d.org_id,
    domain: d.hostname,
    displayName: d.display_name,
    status: d.status,
    checkFrequencyHours: d.check_frequency_hours,
    render: d.render,
    tags: d.tags,
    discoveryFailure: d.discovery_failed_at
      ? {
          ...explainFailure(d.discovery_error_code, 'site'),
          reason: d.discovery_error ?? '',
          at: d.discovery_failed_at
        }
      : null,
    discoveryNote: d.discovery_note,
    createdAt: d.created_at,
    updatedAt: d.updated_at
  }
}

export async function findDomain (db: Db, orgId: string, id: string): Promise<DomainRow | undefined> {
  return await db.selectFrom('domains').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst()
}

/** The organisation's domain of `hostname`, if it watches one. */
export async function findDomainByHost (db: Db, orgId: string, hostname: string): Promise<DomainRow | undefined> {
  return await db.selectFrom('domains').selectAll().where('org_id', '=', orgId).where('hostname', '=', hostname)
    .executeTakeFirst()
}

/**
 * When a domain's pages were last crawled and are next due (null before the first crawl
 * or while not scheduled), as a lateral join on `d`.
 */
function crawlTimes (eb: ExpressionBuilder<Database & { d: DomainsTable }, 'd'>) {
  return eb
    .selectFrom('pages as p')
    .select([
      sql<Date | null>`max(p.last_check_at)`.as('last'),
      sql<Date | null>`min(p.next_crawl_at) FILTER (WHERE p.monitoring_enabled AND d.status IN ('active', 'error'))`
        .as('next')
    ])
    .whereRef('p.domain_id', '=', 'd.id')
    .as('t')
}

/**
 * One page of an organisation's domains, newest first, each with its crawl times and its
 * pages' ids, URLs, types and statuses: one statement, the pages aggregated as JSON.
 */
export async function listDomains (
  db: Db, orgId: string, page: number, pageSize: number, only: { id?: string, tag?: string } = {}
) {
  let q = db
    .selectFrom('domains as d')
    .leftJoinLateral(crawlTimes, join => join.onTrue())
    .selectAll('d')
    .select(eb => [
      't.last',
      't.next',
      sql<number>`(count(*) OVER ())::int`.as('total'),
      jsonRows(
        eb.selectFrom('pages as p')
          .select(['p.id', 'p.url', 'p.page_type as pageType', 'p.status'])
          .whereRef('p.domain_id', '=', 'd.id')
          .orderBy('p.created_at')
          .orderBy('p.id')
      ).as('pages')
    ])
    .where('d.org_id', '=', orgId)
  if (only.id) q = q.where('d.id', '=', only.id)
  if (only.tag) q = q.where(sql<boolean>`${only.tag} = ANY(d.tags)`)
  const rows = await q
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id')
    .limit(pageSize)
    .offset((page - 1) * pageSize)
    .execute()
  // Past the last page there is no row to carry the total.
  const total = rows[0]?.total ?? (page === 1 ? 0 : await countDomains(db, orgId, only.tag))
  return {
    total,
    items: rows.map(d => ({
      ...domainView(d),
      lastCrawledAt: d.last,
      nextCrawlAt: d.next,
      pages: rowsFromJson<{ id: string, url: string, pageType: PageType, status: PageStatus }>(d.pages, [])
    }))
  }
}

/** The organisation's newest domains with their crawl times and how many pages each has: the app's domain list. */
export async function listDomainSummaries (db: Db, orgId: string, limit: number, tag?: string) {
  let q = db
    .selectFrom('domains as d')
    .leftJoinLateral(crawlTimes, join => join.onTrue())
    .selectAll('d')
    .select(eb => [
      't.last',
      't.next',
      eb.selectFrom('pages as p').select(sql<number>`count(*)::int`.as('n')).whereRef('p.domain_id', '=', 'd.id')
        .as('pageCount'),
      // The codes of its monitored pages' failures in a row, to count the blocked and the broken.
      eb.selectFrom('pages as p').select(sql<Array<string | null>>`coalesce(array_agg(p.failure_code), '{}')`.as('c'))
        .whereRef('p.domain_id', '=', 'd.id').where('p.monitoring_enabled', '=', true)
        .where('p.failing_since', 'is not', null)
        .as('failureCodes')
    ])
    .where('d.org_id', '=', orgId)
  if (tag) q = q.where(sql<boolean>`${tag} = ANY(d.tags)`)
  const rows = await q
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id')
    .limit(limit)
    .execute()
  return rows.map(d => {
    const kinds = (d.failureCodes ?? []).map(code => explainFailure(code).kind)
    return {
      ...domainView(d),
      lastCrawledAt: d.last,
      nextCrawlAt: d.next,
      pageCount: d.pageCount ?? 0,
      failing: { blocked: kinds.filter(k => k === 'blocked').length, error: kinds.filter(k => k === 'error').length }
    }
  })
}

/** The tags the organisation's domains have, in order, for a filter's choices. */
export async function orgTags (db: Db, orgId: string): Promise<string[]> {
  const rows = await db.selectFrom('domains').select(sql<string>`unnest(tags)`.as('tag')).where('org_id', '=', orgId)
    .distinct().orderBy('tag').execute()
  return rows.map(r => r.tag)
}

/** The organisation's domains' ids and hostnames, for a filter's choices. */
export async function domainNames (db: Db, orgId: string, limit: number) {
  return await db.selectFrom('domains').select(['id', 'hostname as domain']).where('org_id', '=', orgId)
    .orderBy('hostname').limit(limit).execute()
}

async function countDomains (db: Db, orgId: string, tag?: string): Promise<number> {
  let q = db.selectFrom('domains').select(sql<number>`count(*)::int`.as('n')).where('org_id', '=', orgId)
  if (tag) q = q.where(sql<boolean>`${tag} = ANY(tags)`)
  const r = await q.executeTakeFirstOrThrow()
  return r.n
}

export async function getDomainListItem (db: Db, orgId: string, id: string) {
  return (await listDomains(db, orgId, 1, 1, { id })).items[0]
}

export const RECENT_CHANGES = 20

/**
 * The organisation's domain `id` with its crawl times, its pages (as `pages` reads them) and
 * its newest changes, in one statement (while a crawl writes, each statement of a read waits
 * its turn on the embedded database); undefined when it has no such domain.
 */
export async function findDomainDetails<PageView> (db: Db, orgId: string, id: string, pages: PagesRead<PageView>) {
  const row = await db
    .selectFrom('domains as d')
    .leftJoinLateral(crawlTimes, join => join.onTrue())
    .selectAll('d')
    .select(['t.last', 't.next'])
    .select([
      domainPagesJson(db, { id, org_id: orgId }, pages).as('pages'),
      jsonRows(
        db.selectFrom('changes').select([...CHANGE_COLUMNS]).where('domain_id', '=', id)
          .orderBy('created_at', 'desc').orderBy('id').limit(RECENT_CHANGES)
      ).as('changes')
    ])
    .where('d.id', '=', id)
    .where('d.org_id', '=', orgId)
    .executeTakeFirst()
  if (!row) return undefined
  return {
    ...domainView(row),
    lastCrawledAt: row.last,
    nextCrawlAt: row.next,
    pages: pages.views(row.pages),
    recentChanges: rowsFromJson<ChangeRow>(row.changes, CHANGE_DATES).map(changeView)
  }
}

export async function insertDomain (
  tx: Db,
  orgId: string,
  hostname: string,
  displayName: string | null,
  tags: string[] = []
): Promise<DomainRow> {
  return await tx
    .insertInto('domains')
    .values({ org_id: orgId, hostname, display_name: displayName, tags })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export interface DomainChanges {
  displayName?: string | null
  pause?: boolean
  resume?: boolean
  render?: RenderMode
  tags?: string[]
}

export async function updateDomain (db: Db, id: string, change: DomainChanges, now = new Date()): Promise<void> {
  await db
    .updateTable('domains')
    .set({
      updated_at: now,
      ...(change.displayName !== undefined ? { display_name: change.displayName } : {}),
      ...(change.pause ? { status: 'paused', paused_reason: 'manual' } : {}),
      ...(change.resume ? { status: 'active', paused_reason: null } : {}),
      ...(change.render !== undefined ? { render: change.render } : {}),
      ...(change.tags !== undefined ? { tags: change.tags } : {})
    })
    .where('id', '=', id)
    .execute()
}

/** Deletes a domain with its pages, snapshots and changes (the foreign keys cascade); its hostname, if it was there. */
export async function deleteDomain (db: Db, orgId: string, id: string): Promise<string | undefined> {
  const row = await db
    .deleteFrom('domains')
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .returning('hostname')
    .executeTakeFirst()
  return row?.hostname
}

/** A domain with the organisation that owns it, for a job that only has the domain's id. */
export async function domainExists (db: Db, domainId: string): Promise<boolean> {
  return (await db.selectFrom('domains').select('id').where('id', '=', domainId).executeTakeFirst()) !== undefined
}

export async function findDomainWithOrg (
  db: Db,
  domainId: string
): Promise<{ domain: Pick<DomainRow, 'id' | 'hostname' | 'status'>, org: Org } | undefined> {
  const row = await db
    .selectFrom('domains')
    .innerJoin('orgs', 'orgs.id', 'domains.org_id')
    .select([
      'domains.id as domain_id',
      'domains.hostname',
      'domains.status',
      'orgs.id',
      'orgs.name',
      'orgs.plan',
      'orgs.trial_ends_at',
      'orgs.created_at'
    ])
    .where('domains.id', '=', domainId)
    .executeTakeFirst()
  if (!row) return undefined
  const { domain_id: id, hostname, status, ...org } = row
  return { domain: { id, hostname, status }, org }
}

/**
 * The domain answered: one of its pages was found or read. A domain in `error` is active
 * again, and a discovery that failed is history (its pages are watched), so that the app
 * stops offering it as the domain's problem. The one way a domain's failure ends.
 */
export async function domainAnswered (db: Db, domainId: string, now = new Date()): Promise<void> {
  await db.executeQuery(domainAnsweredStatement(db, domainId, now))
}

/** domainAnswered's UPDATE, for the statements recorded with a snapshot (see recordSnapshot). */
export function domainAnsweredStatement (db: Db, domainId: string, now = new Date()): CompiledQuery {
  return db.updateTable('domains')
    .set({
      status: sql<DomainRow['status']>`CASE WHEN status = 'error' THEN 'active' ELSE status END`,
      discovery_error: null,
      discovery_error_code: null,
      discovery_failed_at: null,
      updated_at: now
    })
    .where('id', '=', domainId)
    .where(eb => eb.or([eb('status', '=', 'error'), eb('discovery_failed_at', 'is not', null)]))
    .compile()
}

/** A domain whose discovery ended (its pages are known, or it gave up) is active. */
export async function markDiscovered (tx: Db, domainId: string, now = new Date()): Promise<void> {
  await tx.updateTable('domains').set({ status: 'active', updated_at: now })
    .where('id', '=', domainId).where('status', '=', 'discovering').execute()
}

/**
 * A discovery that ended: an earlier one's failure is over, and `note` says what cut this
 * one short (null: it read everything it could).
 */
export async function discoveryEnded (tx: Db, domainId: string, note: string | null): Promise<void> {
  await tx.updateTable('domains')
    .set({ discovery_error: null, discovery_error_code: null, discovery_failed_at: null, discovery_note: note })
    .where('id', '=', domainId)
    .where(eb => eb.or([eb('discovery_failed_at', 'is not', null), eb('discovery_note', 'is distinct from', note)]))
    .execute()
}

/**
 * A domain whose discovery failed for good: `error` (from `discovering`; a paused one
 * stays paused), with why, so that the app can say it and offer to try again.
 */
export async function markDiscoveryFailed (
  tx: Db, domainId: string, failure: { reason: string, code: string }, now = new Date()
): Promise<void> {
  await tx.updateTable('domains')
    .set({
      discovery_error: failure.reason.slice(0, 1000),
      discovery_error_code: failure.code.slice(0, 100),
      discovery_failed_at: now,
      updated_at: now
    })
    .where('id', '=', domainId).execute()
  await tx.updateTable('domains').set({ status: 'error', updated_at: now })
    .where('id', '=', domainId).where('status', '=', 'discovering').execute()
}

/** An active domain goes to `error` when every one of its monitored pages is in error. */
export async function markFailedIfNoPageWorks (tx: Db, domainId: string, now: Date): Promise<void> {
  await sql`
    UPDATE domains SET status = 'error', updated_at = ${now}
    WHERE id = ${domainId} AND status = 'active'
      AND NOT EXISTS (SELECT 1 FROM pages WHERE domain_id = ${domainId} AND monitoring_enabled AND status <> 'error')
      AND EXISTS (SELECT 1 FROM pages WHERE domain_id = ${domainId} AND monitoring_enabled)`.execute(tx)
}

/** Pauses the domains of organisations whose trial has ended; how many. */
export async function pauseExpiredTrials (db: Db, now: Date): Promise<number> {
  const r = await db
    .updateTable('domains')
    .set({ status: 'paused', paused_reason: 'trial_expired', updated_at: now })
    .where('status', '<>', 'paused')
    .where(
      'org_id',
      'in',
      db.selectFrom('orgs').select('id').where('plan', '=', 'trial').where('trial_ends_at', '<=', now)
    )
    .executeTakeFirst()
  return Number(r.numUpdatedRows)
}

/** Wakes the domains that an expired trial paused (the organisation has a plan, or a longer trial). */
export async function resumeTrialPaused (tx: Db, orgId: string, now: Date): Promise<void> {
  await tx
    .updateTable('domains')
    .set({ status: 'active', paused_reason: null, updated_at: now })
    .where('org_id', '=', orgId)
    .where('paused_reason', '=', 'trial_expired')
    .execute()
}

/** How many of `ids` are domains of the organisation. */
export async function countOwnedDomains (db: Db, orgId: string, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0
  const rows = await db.selectFrom('domains').select('id').where('org_id', '=', orgId).where('id', 'in', ids).execute()
  return rows.length
}

export async function domainHostname (db: Db, id: string, orgId?: string): Promise<string | undefined> {
  let q = db.selectFrom('domains').select('hostname').where('id', '=', id)
  if (orgId) q = q.where('org_id', '=', orgId)
  return (await q.executeTakeFirst())?.hostname
}

/** What an organisation watches now: its domains, their pages, and those monitored. */
export async function watchedCounts (db: Db, orgId: string) {
  const [domains, pages] = await Promise.all([
    db.selectFrom('domains').select(sql<number>`count(*)::int`.as('n')).where('org_id', '=', orgId)
      .executeTakeFirstOrThrow(),
    db.selectFrom('pages')
      .select([
        sql<number>`count(*)::int`.as('n'), sql<number>`count(*) FILTER (WHERE monitoring_enabled)::int`.as('m')
      ])
      .where('org_id', '=', orgId).executeTakeFirstOrThrow()
  ])
  return { domains: domains.n, pages: pages.n, monitoredPages: pages.m }
}
