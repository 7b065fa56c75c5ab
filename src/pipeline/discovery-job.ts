import type { Crawler } from '../crawl/crawler.js'
import { DISCOVERY_STOPS, discoverPages, WELL_KNOWN_PATHS } from '../crawl/discovery.js'
import type { JobQueue } from '../queue/queue.js'
import type { DiscoverJobData } from '../queue/queues.js'
import { setJobProgress } from '../queue/job-records.js'
import type { Db } from '../store/db.js'
import type { PipelineEvents } from './events.js'
import { domainExists, findDomainWithOrg, markDiscoveryFailed } from '../store/domains.js'
import { addDiscoveredPages } from '../services/pages.js'
import { FetchError } from '../crawl/errors.js'
import { CRAWL_FAILED, failureCode } from '../vocabulary/failures.js'

export interface DiscoveryDeps {
  db: Db
  crawler: Crawler
  queue: JobQueue
  events: PipelineEvents
  maxFetches: number
  /** How long a discovery reads before it stops and keeps what it found. */
  deadlineMs: number
}

/** How often a running discovery looks whether its domain is still there: a deleted domain's work stops. */
const DOMAIN_WATCH_MS = 2_000

class DomainDeleted extends Error {}

export interface DiscoveryResult {
  pagesDiscovered: number
  pagesAdded: number
  /** Pages found that were not watched, or gone from the sitemaps, told of for the first time (a later discovery's). */
  pagesTold?: number
  /** Watched pages whose sitemap <lastmod> is newer than their last check: checked at the next turn. */
  pagesDueSooner?: number
  /** What cut the discovery short (its limits, its deadline): what it found until then was kept. */
  stopped?: string
  skipped?: string
}

/**
 * Discovers a domain's pages and adds the most valuable within the plan's cap, each
 * with its baseline crawl queued; the domain becomes active.
 */
export async function runDiscovery (
  deps: DiscoveryDeps,
  jobId: string,
  data: DiscoverJobData,
  signal?: AbortSignal
): Promise<DiscoveryResult> {
  const gone = { pagesDiscovered: 0, pagesAdded: 0, skipped: 'domain no longer exists' }
  const loaded = await findDomainWithOrg(deps.db, data.domainId)
  if (!loaded) return gone
  const { domain, org } = loaded
  const deleted = new AbortController()
  const watch = setInterval(() => {
    domainExists(deps.db, domain.id).then(there => { if (!there) deleted.abort(new DomainDeleted()) }, () => {})
  }, DOMAIN_WATCH_MS)
  let found
  try {
    found = await discoverPages(deps.crawler, domain.hostname, {
      maxFetches: deps.maxFetches,
      deadline: Date.now() + deps.deadlineMs,
      signal: signal ? AbortSignal.any([signal, deleted.signal]) : deleted.signal,
      onProgress: p => setJobProgress(deps.db, jobId, p),
      asked: data.asked
    })
  } catch (err) {
    if (deleted.signal.aborted) return gone
    throw err
  } finally {
    clearInterval(watch)
  }
  const stopped = found.stopped.length > 0
    ? `Discovery stopped early: ${found.stopped.map(s => DISCOVERY_STOPS[s]).join('; ')}. The pages found by then ` +
      'were kept.'
    : null
  if (found.candidates.length === 0 && found.homeError) {
    // Nothing of the domain could be read: a failure, with the home page's reason (retried unless permanent).
    const why = found.homeError
    const { sitemaps, paths } = found.tried
    throw new FetchError(why.code, `no page of ${domain.hostname} could be read: ${why.message}. Sitewatch tried its ` +
      `home page over https and http, ${sitemaps} sitemap${sitemaps === 1 ? '' : 's'} (robots.txt's and ` +
      `/sitemap.xml) and ${paths} common path${paths === 1 ? '' : 's'} (${WELL_KNOWN_PATHS.slice(0, 3).join(', ')}, …)`,
    why.status)
  }
  const { added, told, sooner } = await addDiscoveredPages(deps, org, domain.id, found.candidates, found, stopped)
  if (told > 0) deps.events.emit('pages.told', { orgId: org.id, domainId: domain.id })
  return {
    pagesDiscovered: found.pagesDiscovered,
    pagesAdded: added,
    ...(stopped ? { stopped } : {}),
    ...(told > 0 ? { pagesTold: told } : {}),
    ...(sooner > 0 ? { pagesDueSooner: sooner } : {})
  }
}

/**
 * After the last failed attempt a domain still discovering is in `error`, no page added
 * that was not read: the job's failedReason says why. A new discovery that succeeds
 * makes it active.
 */
export async function discoveryGaveUp (
  deps: DiscoveryDeps, data: DiscoverJobData, reason: string, err: unknown
): Promise<void> {
  const code = err instanceof FetchError ? failureCode(err.code, err.status) : CRAWL_FAILED
  await markDiscoveryFailed(deps.db, data.domainId, { reason, code })
}
