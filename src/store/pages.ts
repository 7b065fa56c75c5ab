import { sql } from 'kysely'
import { AppError } from '../errors.js'
import { PLANS } from '../plans/plans.js'
import { countPages, type OrgRow } from '../plans/usage.js'
import { hashUrl } from '../crawl/url.js'
import type { Tx } from './db.js'
import type { DomainRow, PageRow } from './domains.js'
import type { PageType } from './schema.js'

export interface PageCandidate { url: string, pageType: PageType, confidence: number, priority?: number }

/**
 * Adds pages to a domain within its plan's cap (pages added are consumed, never given
 * back). Candidates must be normalised and ordered most valuable first; those past the
 * cap or already present are skipped. Returns the inserted rows.
 */
export async function addPages (tx: Tx, org: OrgRow, domainId: string, candidates: PageCandidate[], now = new Date()): Promise<PageRow[]> {
  const domain = await tx.selectFrom('domains').selectAll().where('id', '=', domainId).forUpdate().executeTakeFirst()
  if (!domain || candidates.length === 0) return []
  const cap = PLANS[org.plan].pagesPerDomain
  const room = cap === null ? candidates.length : Math.max(0, cap - domain.pages_added)
  const existing = new Set((await tx.selectFrom('pages').select('url_hash').where('domain_id', '=', domainId).execute()).map(r => r.url_hash))
  const fresh = candidates.filter(c => !existing.has(hashUrl(c.url))).slice(0, room)
  if (fresh.length === 0) return []
  const rows: PageRow[] = []
  // In chunks: one statement takes at most 65,535 parameters.
  for (let i = 0; i < fresh.length; i += ROWS_PER_STATEMENT) rows.push(...await insertPages(tx, org, domainId, fresh.slice(i, i + ROWS_PER_STATEMENT), now))
  await tx.updateTable('domains').set({ pages_added: sql`pages_added + ${rows.length}` }).where('id', '=', domainId).execute()
  await countPages(tx, org, rows.length, now)
  return rows
}

export const ROWS_PER_STATEMENT = 1000

async function insertPages (tx: Tx, org: OrgRow, domainId: string, fresh: PageCandidate[], now: Date): Promise<PageRow[]> {
  return await tx.insertInto('pages').values(fresh.map(c => ({
    domain_id: domainId,
    org_id: org.id,
    url: c.url,
    url_hash: hashUrl(c.url),
    page_type: c.pageType,
    page_type_confidence: c.confidence.toFixed(2),
    priority: c.priority ?? 5,
    next_crawl_at: now,
    created_at: now
  }))).onConflict(oc => oc.columns(['domain_id', 'url_hash']).doNothing()).returningAll().execute()
}

/** One page by hand: 409 when present, 402 when the domain's cap is used up. */
export async function addPage (tx: Tx, org: OrgRow, domain: DomainRow, candidate: PageCandidate, now = new Date()): Promise<PageRow> {
  const hash = hashUrl(candidate.url)
  const dup = await tx.selectFrom('pages').select('id').where('domain_id', '=', domain.id).where('url_hash', '=', hash).executeTakeFirst()
  if (dup) throw new AppError('CONFLICT', `${candidate.url} is already monitored for ${domain.hostname}`)
  const [row] = await addPages(tx, org, domain.id, [candidate], now)
  if (row) return row
  const locked = await tx.selectFrom('domains').select('pages_added').where('id', '=', domain.id).executeTakeFirstOrThrow()
  const again = await tx.selectFrom('pages').select('id').where('domain_id', '=', domain.id).where('url_hash', '=', hash).executeTakeFirst()
  if (again) throw new AppError('CONFLICT', `${candidate.url} is already monitored for ${domain.hostname}`)
  const limit = PLANS[org.plan].pagesPerDomain
  throw new AppError('QUOTA_EXCEEDED', `The ${org.plan} plan allows ${limit} pages per domain`,
    { resource: 'pages', used: locked.pages_added, limit })
}
