import type { Crawler } from '../crawl/crawler.js'
import { discoverPages } from '../crawl/discover.js'
import type { OrgRow } from '../plans/usage.js'
import type { Db } from '../store/db.js'
import { setJobProgress } from '../store/jobs.js'
import { addPages } from '../store/pages.js'
import type { DiscoverJobData, JobQueue } from './queue.js'

export interface DiscoverDeps { db: Db, crawler: Crawler, queue: JobQueue, maxFetches: number }

export interface DiscoverResult { pagesDiscovered: number, pagesAdded: number, skipped?: string }

async function loadDomain (db: Db, domainId: string) {
  const row = await db.selectFrom('domains').innerJoin('orgs', 'orgs.id', 'domains.org_id')
    .select(['domains.id as domain_id', 'domains.hostname', 'domains.status', 'orgs.id', 'orgs.name', 'orgs.plan', 'orgs.trial_ends_at', 'orgs.created_at'])
    .where('domains.id', '=', domainId).executeTakeFirst()
  if (!row) return undefined
  const { domain_id: id, hostname, status, ...org } = row
  return { domain: { id, hostname, status }, org: org as OrgRow }
}

/**
 * Discovers a domain's pages, adds the most valuable within the plan's cap, queues
 * each new page's baseline crawl in the same transaction, and marks the domain active.
 */
export async function discoverDomainPages (deps: DiscoverDeps, jobId: string, data: DiscoverJobData): Promise<DiscoverResult> {
  const loaded = await loadDomain(deps.db, data.domainId)
  if (!loaded) return { pagesDiscovered: 0, pagesAdded: 0, skipped: 'domain no longer exists' }
  const { domain, org } = loaded
  const found = await discoverPages(deps.crawler, domain.hostname, {
    maxFetches: deps.maxFetches,
    onProgress: p => setJobProgress(deps.db, jobId, p)
  })
  const added = await deps.queue.transaction(deps.db, async (tx) => {
    const rows = await addPages(tx, org, domain.id, found.candidates)
    await deps.queue.enqueueCrawls(tx, rows.map(p => ({ orgId: org.id, domainId: domain.id, pageId: p.id, url: p.url })))
    await tx.updateTable('domains').set({ status: 'active', updated_at: new Date() })
      .where('id', '=', domain.id).where('status', '=', 'discovering').execute()
    return rows.length
  })
  return { pagesDiscovered: found.pagesDiscovered, pagesAdded: added }
}

/**
 * After the last failed attempt the domain still gets its home page, and leaves
 * `discovering`: active with the home page to watch.
 */
export async function discoveryGaveUp (deps: DiscoverDeps, data: DiscoverJobData): Promise<void> {
  const loaded = await loadDomain(deps.db, data.domainId)
  if (!loaded) return
  const { domain, org } = loaded
  await deps.queue.transaction(deps.db, async (tx) => {
    const rows = await addPages(tx, org, domain.id, [{ url: `https://${domain.hostname}/`, pageType: 'other', confidence: 0.5 }])
    await deps.queue.enqueueCrawls(tx, rows.map(p => ({ orgId: org.id, domainId: domain.id, pageId: p.id, url: p.url })))
    await tx.updateTable('domains').set({ status: 'active', updated_at: new Date() })
      .where('id', '=', domain.id).where('status', '=', 'discovering').execute()
  })
}
