import DataLoader from 'dataloader'
import { sql } from 'kysely'
import type { DetectedChange } from '../changes/classify.js'
import type { Crawler } from '../crawl/crawler.js'
import { FetchError } from '../crawl/errors.js'
import type { Db, Tx } from '../store/db.js'
import { ROWS_PER_STATEMENT } from '../store/pages.js'
import type { PageCheck } from './crawl-writes.js'
import type { ChangeDetected, PipelineEvents } from './events.js'
import type { PageAnalysis } from './analysis.js'
import type { CrawlJobData } from './queue.js'
import { nextCrawlAt } from './schedule.js'

export interface CrawlDeps { db: Db, crawler: Crawler, events: PipelineEvents, targets: CrawlTargetLoader, analysis: PageAnalysis }

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

const FAILURES_BEFORE_ERROR = 3

/**
 * What a crawl needs to know of its page: the page, its domain's state and the latest
 * snapshot's hash. The crawls that start together (a worker takes jobs in handfuls)
 * load theirs in one query: one by one, these reads were most of the embedded
 * database's queue. The previous text is read only when the content really moved.
 */
export function crawlTargetLoader (db: Db) {
  return new DataLoader(async (ids: readonly string[]) => {
    const rows = await db.selectFrom('pages').innerJoin('domains', 'domains.id', 'pages.domain_id')
      .leftJoinLateral(eb => eb.selectFrom('snapshots').select(['snapshots.id', 'snapshots.content_hash'])
        .whereRef('snapshots.page_id', '=', 'pages.id')
        .orderBy('snapshots.created_at', 'desc').orderBy('snapshots.id', 'desc').limit(1).as('latest'), join => join.onTrue())
      .select(['pages.id', 'pages.url', 'pages.page_type', 'pages.monitoring_enabled', 'pages.etag', 'pages.last_modified', 'pages.noise_rules', 'pages.rebaseline',
        'pages.domain_id', 'pages.org_id', 'domains.check_frequency_hours', 'domains.status as domain_status',
        'latest.id as previous_id', 'latest.content_hash as previous_hash'])
      .where('pages.id', 'in', ids).execute()
    const byId = new Map(rows.map(r => [r.id, r]))
    return ids.map(id => byId.get(id))
  }, { cache: false, maxBatchSize: ROWS_PER_STATEMENT })
}
export type CrawlTargetLoader = ReturnType<typeof crawlTargetLoader>

/**
 * One crawl of one page, in three stages: fetch, read (extract + mask noise), record.
 * A snapshot is recorded only when the page's content really changed; the first
 * crawl records the baseline and no change.
 */
export async function crawlPage (deps: CrawlDeps, _jobId: string, data: CrawlJobData): Promise<CrawlResult> {
  const { db } = deps
  const page = await deps.targets.load(data.pageId)
  if (!page) return { changed: false, changesDetected: 0, snapshotId: null, skipped: 'page no longer exists' }
  if (!page.monitoring_enabled) return { changed: false, changesDetected: 0, snapshotId: null, skipped: 'monitoring disabled' }
  // After the noise rules change, the next snapshot is a new baseline: the old one was read under other rules.
  const previous = page.previous_id && !page.rebaseline ? { id: page.previous_id, hash: page.previous_hash } : undefined

  const next = (at: Date) => nextCrawlAt(page.id, at, page.check_frequency_hours)
  let fetched
  try {
    fetched = await deps.crawler.fetchPage(page.url, previous ? { etag: page.etag, lastModified: page.last_modified } : {})
  } catch (err) {
    const at = new Date()
    await recordFailure(db, page, err, at, next(at))
    throw err
  }

  const checkedAt = new Date()
  const healthy = {
    last_check_at: checkedAt,
    next_crawl_at: next(checkedAt),
    consecutive_failures: 0,
    status: 'active' as const,
    last_error: null,
    etag: fetched.etag,
    last_modified: fetched.lastModified,
    rebaseline: false
  }
  const domainWasInError = page.domain_status === 'error'
  // Most checks end here, with nothing new: the page's check is written by the caller,
  // with the job's completion (see CrawlWrites).
  const unchanged = async (): Promise<Pick<CrawlResult, 'pageCheck'>> => {
    if (!domainWasInError) return { pageCheck: { pageId: page.id, checkedAt, nextCrawlAt: healthy.next_crawl_at, etag: fetched.etag, lastModified: fetched.lastModified } }
    await markHealthy(db, page.id, page.domain_id, healthy, true)
    return {}
  }
  if (fetched.notModified && previous) {
    return { changed: false, changesDetected: 0, snapshotId: previous.id, notModified: true, ...await unchanged() }
  }

  const read = await deps.analysis.read({ raw: fetched.raw, contentType: fetched.contentType, rules: page.noise_rules, previousHash: previous?.hash })
  if (!read.snapshot) {
    return { changed: false, changesDetected: 0, snapshotId: previous!.id, ...await unchanged() }
  }
  const { text, rawGzip } = read.snapshot

  let detected: DetectedChange[] = []
  if (previous) {
    const before = await db.selectFrom('snapshots').select('content').where('id', '=', previous.id).executeTakeFirstOrThrow()
    detected = await deps.analysis.compare(before.content, text, page.page_type, page.noise_rules)
  }
  const events: ChangeDetected[] = []
  const snapshotId = await db.transaction().execute(async (tx) => {
    const snapshot = await tx.insertInto('snapshots').values({
      page_id: page.id,
      org_id: page.org_id,
      content_hash: read.hash,
      content: text,
      raw_html_gzip: Buffer.from(rawGzip.buffer, rawGzip.byteOffset, rawGzip.byteLength),
      http_status: fetched.status,
      content_type: fetched.contentType || null,
      created_at: checkedAt
    }).returning('id').executeTakeFirstOrThrow()
    if (previous && detected.length > 0) {
      const rows = await tx.insertInto('changes').values(detected.map(c => ({
        page_id: page.id,
        domain_id: page.domain_id,
        org_id: page.org_id,
        change_type: c.changeType,
        severity: c.severity,
        confidence: c.confidence.toFixed(2),
        summary: c.summary,
        diff_data: JSON.stringify(c.diffData),
        snapshot_before_id: previous.id,
        snapshot_after_id: snapshot.id,
        created_at: checkedAt
      }))).returning(['id', 'change_type', 'severity', 'summary']).execute()
      for (const r of rows) {
        events.push({ changeId: r.id, orgId: page.org_id, domainId: page.domain_id, pageId: page.id, url: page.url, changeType: r.change_type, severity: r.severity, summary: r.summary })
      }
    }
    await markHealthy(tx, page.id, page.domain_id, { ...healthy, ...(events.length > 0 ? { last_change_at: checkedAt } : {}) }, domainWasInError)
    return snapshot.id
  })
  for (const e of events) deps.events.emit('change.detected', e)
  return { changed: previous !== undefined, changesDetected: events.length, snapshotId, ...(previous ? {} : { baseline: true }) }
}

async function markHealthy (db: Db | Tx, pageId: string, domainId: string, fields: Record<string, unknown>, domainWasInError: boolean): Promise<void> {
  await db.updateTable('pages').set(fields).where('id', '=', pageId).execute()
  if (domainWasInError) {
    await db.updateTable('domains').set({ status: 'active', updated_at: new Date() })
      .where('id', '=', domainId).where('status', '=', 'error').execute()
  }
}

/**
 * Counts a failed attempt on the page. Three in a row put the page in `error`; when
 * every monitored page of the domain is in error, so is the domain.
 */
async function recordFailure (db: Db, page: { id: string, domain_id: string }, err: unknown, at: Date, nextAt: Date): Promise<void> {
  const message = err instanceof FetchError ? err.message : `crawl failed: ${(err as Error)?.message ?? String(err)}`
  await db.transaction().execute(async (tx) => {
    await tx.updateTable('pages').set({
      error_count: sql`error_count + 1`,
      consecutive_failures: sql`consecutive_failures + 1`,
      last_error: message.slice(0, 1000),
      last_check_at: at,
      next_crawl_at: nextAt,
      status: sql`CASE WHEN consecutive_failures + 1 >= ${FAILURES_BEFORE_ERROR} THEN 'error' ELSE status END`
    }).where('id', '=', page.id).execute()
    await sql`
      UPDATE domains SET status = 'error', updated_at = ${at}
      WHERE id = ${page.domain_id} AND status = 'active'
        AND NOT EXISTS (SELECT 1 FROM pages WHERE domain_id = ${page.domain_id} AND monitoring_enabled AND status <> 'error')
        AND EXISTS (SELECT 1 FROM pages WHERE domain_id = ${page.domain_id} AND monitoring_enabled)`.execute(tx)
  })
}
