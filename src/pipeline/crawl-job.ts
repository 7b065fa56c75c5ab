import DataLoader from 'dataloader'
import type { DetectedChange } from '../changes/classify.js'
import type { Crawler } from '../crawl/crawler.js'
import { FetchError } from '../crawl/errors.js'
import type { CrawlJobData } from '../queue/queue.js'
import { recordSnapshot, snapshotText } from '../store/changes.js'
import type { Db } from '../store/db.js'
import { markActive, markFailedIfNoPageWorks } from '../store/domains.js'
import {
  loadCrawlTargets,
  recordCheck,
  recordFailure,
  ROWS_PER_STATEMENT,
  type CrawlTarget,
  type PageCheck
} from '../store/pages.js'
import type { PageAnalysis } from './analysis.js'
import { nextCrawlAt } from './crawl-slots.js'
import type { PipelineEvents } from './events.js'

export interface CrawlDeps {
  db: Db
  crawler: Crawler
  events: PipelineEvents
  targets: CrawlTargetLoader
  analysis: PageAnalysis
}

export interface CrawlResult {
  changed: boolean
  changesDetected: number
  snapshotId: string | null
  notModified?: boolean
  baseline?: boolean
  skipped?: string
  /** For the caller to write with the job's completion: the check of a page in which nothing moved. */
  pageCheck?: PageCheck
}

/**
 * The crawl targets of the crawls that start together (a worker takes jobs in
 * handfuls), loaded in one query: one by one, these reads were most of the embedded
 * database's queue. The previous text is read only when the content really moved.
 */
export function crawlTargetLoader (db: Db) {
  return new DataLoader(
    async (ids: readonly string[]) => {
      const byId = new Map((await loadCrawlTargets(db, ids)).map(r => [r.id, r]))
      return ids.map(id => byId.get(id))
    },
    { cache: false, maxBatchSize: ROWS_PER_STATEMENT }
  )
}
export type CrawlTargetLoader = ReturnType<typeof crawlTargetLoader>

/**
 * One crawl of one page, in stages: fetch, read (extract + mask noise), compare,
 * record. A snapshot is recorded only when the page's content really changed; the
 * first crawl records the baseline and no change. Each change is announced on
 * `events` once it is committed.
 */
export async function crawlPage (deps: CrawlDeps, data: CrawlJobData): Promise<CrawlResult> {
  const { db } = deps
  const page = await deps.targets.load(data.pageId)
  if (!page) return { changed: false, changesDetected: 0, snapshotId: null, skipped: 'page no longer exists' }
  if (!page.monitoring_enabled) {
    return { changed: false, changesDetected: 0, snapshotId: null, skipped: 'monitoring disabled' }
  }
  // After the noise rules change, the next snapshot is a new baseline: the old one was read under other rules.
  const previous = page.previous_id && !page.rebaseline ? { id: page.previous_id, hash: page.previous_hash } : undefined

  const next = (at: Date) => nextCrawlAt(page.id, at, page.check_frequency_hours)
  let fetched
  try {
    fetched = await deps.crawler.fetchPage(
      page.url,
      previous ? { etag: page.etag, lastModified: page.last_modified } : {}
    )
  } catch (err) {
    const at = new Date()
    await recordCrawlFailure(db, page, err, at, next(at))
    throw err
  }

  const checkedAt = new Date()
  const check: PageCheck = {
    pageId: page.id,
    checkedAt,
    nextCrawlAt: next(checkedAt),
    etag: fetched.etag,
    lastModified: fetched.lastModified
  }
  const domainWasInError = page.domain_status === 'error'
  // Most checks end here, with nothing new: the page's check is written by the caller,
  // with the job's completion (see BatchedCompletions).
  const unchanged = async (): Promise<Pick<CrawlResult, 'pageCheck'>> => {
    if (!domainWasInError) return { pageCheck: check }
    await db.transaction().execute(async tx => {
      await recordCheck(tx, check)
      await markActive(tx, page.domain_id, 'error')
    })
    return {}
  }
  if (fetched.notModified && previous) {
    return { changed: false, changesDetected: 0, snapshotId: previous.id, notModified: true, ...(await unchanged()) }
  }

  const read = await deps.analysis.read({
    raw: fetched.raw,
    contentType: fetched.contentType,
    rules: page.noise_rules,
    previousHash: previous?.hash
  })
  if (!read.snapshot) {
    return { changed: false, changesDetected: 0, snapshotId: previous!.id, ...(await unchanged()) }
  }
  const { text, rawGzip } = read.snapshot

  let detected: DetectedChange[] = []
  if (previous) {
    detected = await deps.analysis.compare(await snapshotText(db, previous.id), text, page.page_type, page.noise_rules)
  }
  const recorded = await db.transaction().execute(async tx => {
    const r = await recordSnapshot(
      tx,
      {
        pageId: page.id,
        orgId: page.org_id,
        hash: read.hash,
        text,
        rawGzip,
        httpStatus: fetched.status,
        contentType: fetched.contentType || null,
        at: checkedAt
      },
      previous && { snapshotId: previous.id, domainId: page.domain_id, changes: detected }
    )
    await recordCheck(tx, check, r.changes.length > 0 ? checkedAt : undefined)
    if (domainWasInError) await markActive(tx, page.domain_id, 'error')
    return r
  })
  for (const c of recorded.changes) {
    deps.events.emit('change.detected', {
      changeId: c.id,
      orgId: page.org_id,
      domainId: page.domain_id,
      pageId: page.id,
      url: page.url,
      changeType: c.change_type,
      severity: c.severity,
      summary: c.summary
    })
  }
  return {
    changed: previous !== undefined,
    changesDetected: recorded.changes.length,
    snapshotId: recorded.snapshotId,
    ...(previous ? {} : { baseline: true })
  }
}

/**
 * Counts a failed attempt on the page (see recordFailure); when every monitored page of
 * the domain is in error, so is the domain.
 */
async function recordCrawlFailure (db: Db, page: CrawlTarget, err: unknown, at: Date, nextAt: Date): Promise<void> {
  const failure = err instanceof FetchError
    ? { message: err.message, permanent: err.permanent }
    : { message: `crawl failed: ${(err as Error)?.message ?? String(err)}`, permanent: false }
  await db.transaction().execute(async tx => {
    await recordFailure(tx, page.id, failure, at, nextAt)
    await markFailedIfNoPageWorks(tx, page.domain_id, at)
  })
}
