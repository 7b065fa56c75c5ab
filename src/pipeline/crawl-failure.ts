import { FetchError } from '../crawl/errors.js'
import { HostBusy } from '../crawl/polite.js'
import { AttemptLost } from '../queue/puller.js'
import { SnapshotSuperseded } from '../store/changes.js'
import { inTransaction, type Db } from '../store/db.js'
import { markFailedIfNoPageWorks } from '../store/domains.js'
import { loadCrawlTargets, recordFailure } from '../store/page-checks.js'
import { recordGoneIfLong } from '../store/page-events.js'
import { ANALYSIS_TIMEOUT, CRAWL_FAILED, failureCode } from '../vocabulary/failures.js'
import { AnalysisTimeout } from './analysis.js'
import { nextCrawlAt } from './crawl-slots.js'
import type { PipelineEvents } from './events.js'
import { NeedsBrowser } from './fetch-page.js'

/**
 * Whether what a crawl threw is no failure of its page: its host is not free yet, it
 * needs a renderer, another attempt recorded the page meanwhile, or its worker was taken
 * for lost (the retry runs elsewhere). Anything else is a failure, told on the page.
 */
export const noFailureOfThePage = (err: unknown): boolean =>
  err instanceof HostBusy || err instanceof NeedsBrowser || err instanceof SnapshotSuperseded ||
  err instanceof AttemptLost

interface FailedPage { id: string, org_id: string, domain_id: string, check_frequency_hours: number }

/**
 * Counts a failed attempt on the page (see recordFailure); when every monitored page of
 * the domain is in error, so is the domain.
 */
export async function recordCrawlFailure (
  deps: { db: Db, events: PipelineEvents }, page: FailedPage, err: unknown
): Promise<void> {
  const failure = err instanceof FetchError
    ? { message: err.message, permanent: err.permanent, code: failureCode(err.code, err.status) }
    : err instanceof AnalysisTimeout
      ? { message: err.message, permanent: true, code: ANALYSIS_TIMEOUT }
      : { message: `crawl failed: ${(err as Error)?.message ?? String(err)}`, permanent: false, code: CRAWL_FAILED }
  await recordPageFailure(deps, page, failure)
}

async function recordPageFailure (
  deps: { db: Db, events: PipelineEvents }, page: FailedPage,
  failure: { message: string, permanent: boolean, code: string }
): Promise<void> {
  const at = new Date()
  const gone = await inTransaction(deps.db, async tx => {
    await recordFailure(tx, page.id, failure, at, nextCrawlAt(page.id, at, page.check_frequency_hours))
    await markFailedIfNoPageWorks(tx, page.domain_id, at)
    // A page that has answered 404 or 410 for a week is told of as removed, once.
    return await recordGoneIfLong(tx, page.id, at)
  })
  if (gone) deps.events.emit('pages.told', { orgId: page.org_id, domainId: page.domain_id })
}

/**
 * A crawl that failed for good where no worker saw its last attempt end (the sweep took
 * its worker to be lost, or its lease ran out): the page enters error with that reason,
 * as it would have had its worker failed it. (A worker's own failures were counted as they came.)
 */
export async function crawlLost (
  deps: { db: Db, events: PipelineEvents }, pageId: string, reason: string
): Promise<void> {
  const [page] = await loadCrawlTargets(deps.db, [pageId])
  if (!page) return
  await recordPageFailure(deps, page, { message: `the check was lost: ${reason}`, permanent: true, code: CRAWL_FAILED })
}
