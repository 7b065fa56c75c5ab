import { gzipSync } from 'node:zlib'
import DataLoader from 'dataloader'
import type { Crawler, FetchedPage } from '../crawl/crawler.js'
import { FetchError } from '../crawl/errors.js'
import type { TurnInHand } from '../crawl/polite.js'
import { documentFormat, pngSize, readerOf, type ReaderDocument } from '../detection/detect.js'
import type { CrawlJobData } from '../queue/queues.js'
import { recordSnapshot } from '../store/changes.js'
import { snapshotText } from '../store/page-versions.js'
import type { Db } from '../store/db.js'
import { domainAnswered, domainAnsweredStatement } from '../store/domains.js'
import { ROWS_PER_STATEMENT } from '../store/pages.js'
import {
  clearFailureAlert, lastChangeStatement, loadCrawlTargets, recordRenderDecision,
  type CrawlTarget, type PageCheck
} from '../store/page-checks.js'
import { hasPicture, pictureAsOf, screenshotStatement, type Screenshot } from '../store/screenshots.js'
import { severityRules } from '../store/learned.js'
import type { DetectedChange, PageType } from '../vocabulary/core.js'
import { learnedSeverity } from '../vocabulary/learned.js'
import { type Comparison, type PageAnalysis, type PageReading } from './analysis.js'
import { noFailureOfThePage, recordCrawlFailure } from './crawl-failure.js'
import { compareWithPrevious, readerSaid, typeFromRead, visualChange } from './crawl-reading.js'
import { nextCrawlAt } from './crawl-slots.js'
import type { PipelineEvents } from './events.js'
import { asReadable, documentOf, fetchOrRender, NeedsBrowser, pictureWanted, RENDERED_TYPE, type PageDocument }
  from './fetch-page.js'

export interface CrawlDeps {
  db: Db
  crawler: Crawler
  events: PipelineEvents
  targets: CrawlTargetLoader
  analysis: PageAnalysis
  /** Whether this crawl may use the browser; otherwise a page that needs it throws NeedsBrowser. */
  mayRender: boolean
}

/**
 * How one check of a page ended: skipped (gone, or monitoring off), not modified (304),
 * unchanged (the same text, or a new one in which nothing was reported), the first
 * snapshot (baseline), or changed (changes were recorded).
 */
export type CrawlOutcome = 'skipped' | 'not_modified' | 'unchanged' | 'baseline' | 'changed'

/** A crawl's result, which is its job's output (less pageCheck). */
export interface CrawlResult {
  outcome: CrawlOutcome
  /** A new snapshot was recorded after an earlier one: the content moved, whether or not a change was reported. */
  changed: boolean
  changesDetected: number
  snapshotId: string | null
  notModified?: true
  baseline?: true
  /** Why the page was not checked. */
  skipped?: string
  /** For the caller to write with the job's completion: the page's check (when, next, validators). */
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

/** One page's crawl, as its stages see it. */
interface Crawl {
  deps: CrawlDeps
  page: CrawlTarget
  /** Its host's turn, taken with its job from the queue, for its first request (robots.txt, else the page). */
  inHand: TurnInHand
  /** The last snapshot, the one the new text is compared with; none when the next one is a (new) baseline. */
  previous: { id: string, hash: string | null } | undefined
  /** The page's type when its structured reader reads it (an intelligence page of a type that has one). */
  structured: PageType | undefined
  /** What its reader reads beside the page (its API description, its feed), if anything. */
  reader: ReaderDocument | undefined
  /** Whether any snapshot of the page has its picture: asked once, by the render or by the comparison. */
  pictured: () => Promise<boolean>
}

/** What the fetch stage got: the page, the document it is read with, and its reading begun in the browser. */
interface Fetched {
  page: FetchedPage
  document: PageDocument | undefined
  readInBrowser: ReadInBrowser | undefined
}

/** A rendered page read while still open; compared too when its text moved, to know whether it changed. */
interface ReadInBrowser {
  html: string
  reading: Promise<PageReading>
  compared?: Promise<Comparison>
}

/** What the compare stage found: the new snapshot's contents and the changes to record with it. */
interface Compared {
  text: string
  rawGzip: Uint8Array
  detected: DetectedChange[]
  shot: Screenshot | undefined
  /** The document the new snapshot keeps, when it was read with one. */
  document: PageDocument | undefined
}

/**
 * One crawl of one page, in stages: fetch, read (extract + mask noise), compare,
 * record. A snapshot is recorded only when the page's content really changed; the
 * first crawl records the baseline and no change. Each change is announced on
 * `events` once it is committed.
 */
export async function crawlPage (deps: CrawlDeps, data: CrawlJobData, signal?: AbortSignal): Promise<CrawlResult> {
  const turn = data.turn && deps.crawler.pacer.taken(data.turn)
  try {
    return await crawlInTurn(deps, data, { turn }, signal)
  } finally {
    // A turn the crawl did not use (a page gone, robots.txt read first) frees its place now.
    await turn?.end().catch(() => {})
  }
}

async function crawlInTurn (
  deps: CrawlDeps, data: CrawlJobData, inHand: TurnInHand, signal?: AbortSignal
): Promise<CrawlResult> {
  const page = await deps.targets.load(data.pageId)
  const skipped = !page ? 'page no longer exists' : !page.monitoring_enabled ? 'monitoring disabled' : undefined
  if (!page || skipped) return { outcome: 'skipped', changed: false, changesDetected: 0, snapshotId: null, skipped }
  const structured = page.read_structured ? page.page_type : undefined
  let pictured: Promise<boolean> | undefined
  const crawl: Crawl = {
    // The page's organisation's share of the analysis threads.
    deps: { ...deps, analysis: deps.analysis.for(page.org_id) },
    page,
    inHand,
    // After the noise rules change, the next snapshot is a new baseline: the old one was read under other rules.
    previous: page.previous_id && !page.rebaseline ? { id: page.previous_id, hash: page.previous_hash } : undefined,
    structured,
    reader: readerOf(structured)?.document,
    pictured: async () => await (pictured ??= hasPicture(deps.db, page.id))
  }
  const fetched = await fetchStage(crawl)
  try {
    // An attempt whose lease ended, or whose worker was taken for lost, stops between its stages.
    signal?.throwIfAborted()
    const check = await checkedNow(crawl, fetched.page)
    if (fetched.page.notModified && crawl.previous) return await unchanged(crawl, check, 'not_modified')
    const { reading, document, early } = await readStage(crawl, fetched)
    signal?.throwIfAborted()
    // A page read as nothing is no version of it (a shell its script builds, a wall): it fails, saying what to do.
    // A page watched through its document (an API reference's description, a changelog's feed) is its document:
    // its own text may be empty (a Redoc or Swagger UI shell), and it is read and compared all the same.
    if (!document && reading.snapshot && reading.snapshot.text.trim() === '') {
      throw new FetchError('EMPTY_PAGE', `${page.url} shows no text to read (HTTP ${fetched.page.status})`)
    }
    const compared = await compareStage(crawl, fetched.page, reading, document, early)
    if (!compared) return await unchanged(crawl, check, 'unchanged')
    signal?.throwIfAborted()
    return await recordStage(crawl, fetched.page, reading, compared, check)
  } catch (err) {
    // Every failure is told on the page with its reason (a reading past its deadline, no document, a reader's bug).
    if (!noFailureOfThePage(err)) await recordCrawlFailure(crawl.deps, crawl.page, err)
    throw err
  }
}

/**
 * The page, plainly or in the browser, with its document. A failure is counted on the
 * page, unless the page only waits: for its host's turn, or for a renderer.
 */
async function fetchStage (crawl: Crawl): Promise<Fetched> {
  const { deps, page, previous, structured, reader } = crawl
  // A rendered page is read while it is still open, to know whether its picture is wanted.
  let readInBrowser: ReadInBrowser | undefined
  const picture = pictureWanted(page, previous !== undefined, crawl.pictured, async html => {
    const rendered = { raw: Buffer.from(html, 'utf8'), contentType: RENDERED_TYPE }
    const reading = readPage(crawl, rendered.raw, rendered.contentType, null, undefined)
    // Not every reading begun here is used (the page moved on, a document came with it).
    reading.catch(() => {})
    const seen: ReadInBrowser = { html, reading }
    readInBrowser = seen
    const read = await reading
    if (!read.snapshot) return false
    // Noise that moved is no change, and takes no picture; a comparison that cannot be made now takes one.
    const compared = compareEarly(crawl, read.snapshot, rendered)
    if (!compared) return true
    compared.catch(() => {})
    seen.compared = compared
    return (await compared).changes.length > 0
  })
  try {
    // A page read with a document is fetched whole: the document may have moved when the page did not.
    const conditional = previous !== undefined && !reader
    const got = await fetchOrRender(deps.crawler, page, conditional, picture, deps.mayRender, crawl.inHand)
    if (got.decision) await recordRenderDecision(deps.db, page.id, got.decision)
    const fetched = await asReadable(deps.analysis, got.page, page.noise_rules)
    // An API description watched as the page is its own document: its reader compares it as one.
    const own = documentFormat(got.page.contentType, got.page.raw)?.name === 'openapi' && !got.page.notModified
      ? { url: got.page.url, raw: got.page.raw, contentType: got.page.contentType }
      : undefined
    const document = reader && structured
      ? (structured === 'api_docs' && own) || await documentOf(deps.crawler, deps.analysis, fetched, structured, reader)
      : undefined
    return { page: fetched, document, readInBrowser }
  } catch (err) {
    // Kept before the crawl moves to a renderer, which then goes to the browser at once.
    if (err instanceof NeedsBrowser) {
      if (page.rendered_with !== 'browser' || page.render_reason !== err.reason) {
        await recordRenderDecision(deps.db, page.id, { with: 'browser', reason: err.reason, at: new Date() })
      }
    } else if (!noFailureOfThePage(err)) await recordCrawlFailure(crawl.deps, crawl.page, err)
    throw err
  }
}

/**
 * The page's healthy check, its time and the next; a page whose failure was alerted has
 * recovered. The check is written by the caller with the job's completion (see
 * BatchedCompletions): a page shown as checked is one whose job is done, so a crawl
 * asked for then is not skipped as already running.
 */
async function checkedNow ({ deps, page }: Crawl, fetched: FetchedPage): Promise<PageCheck> {
  const checkedAt = new Date()
  if (page.failure_alerted_at && await clearFailureAlert(deps.db, page.id)) {
    deps.events.emit('page.recovered', {
      orgId: page.org_id, domainId: page.domain_id, pageId: page.id, url: page.url, at: checkedAt
    })
  }
  return {
    pageId: page.id,
    checkedAt,
    nextCrawlAt: nextCrawlAt(page.id, checkedAt, page.check_frequency_hours),
    etag: fetched.etag,
    lastModified: fetched.lastModified
  }
}

/** Whether the page's domain is in error (its discovery failed, or its pages did): a check that answers clears it. */
const domainInError = (page: CrawlTarget) => page.domain_status === 'error' || page.domain_discovery_failed

/** A check that recorded nothing new. */
async function unchanged (
  { deps, page, previous }: Crawl, check: PageCheck, outcome: 'not_modified' | 'unchanged'
): Promise<CrawlResult> {
  if (domainInError(page)) await domainAnswered(deps.db, page.domain_id)
  return {
    outcome,
    changed: false,
    changesDetected: 0,
    snapshotId: previous?.id ?? null,
    ...(outcome === 'not_modified' ? { notModified: true } : {}),
    pageCheck: check
  }
}

async function readPage (
  { deps, page, previous, structured }: Crawl, raw: Buffer, contentType: string, contentLanguage: string | null,
  document: PageDocument | undefined
): Promise<PageReading> {
  return await deps.analysis.read({
    raw,
    contentType,
    contentLanguage,
    rules: page.noise_rules,
    previousHash: previous?.hash,
    structured,
    document
  })
}

/**
 * The page read: its text extracted and its noise masked, hashed, with a new snapshot's
 * contents when the hash moved. A document that is not what its reader reads fails the
 * page when the reader says so (an API description), else the page is read alone (a feed
 * that is no feed: the changelog is read from its page).
 */
async function readStage (
  crawl: Crawl, { page: fetched, document, readInBrowser }: Fetched
): Promise<{ reading: PageReading, document: PageDocument | undefined, early?: Promise<Comparison> }> {
  // A plain page's HTML is not decoded here (the analysis thread decodes it): 0.7 ms of the
  // main thread per page of 90 KB when the comparison asked for it whatever the page.
  const inBrowser = readInBrowser !== undefined && !document && readInBrowser.html === fetched.html
    ? readInBrowser
    : undefined
  const reading = inBrowser
    ? await inBrowser.reading
    : await readPage(crawl, fetched.raw, fetched.contentType, fetched.contentLanguage, document)
  if (!reading.documentError || !document) return { reading, document, early: inBrowser?.compared }
  if (crawl.reader?.failsThePage) {
    throw new FetchError('BAD_DOCUMENT', `${crawl.reader.name} ${document.url}: ${reading.documentError}`)
  }
  const alone = await readPage(crawl, fetched.raw, fetched.contentType, fetched.contentLanguage, undefined)
  return { reading: alone, document: undefined }
}

/**
 * The new version against the last snapshot: its text's changes, and its picture's when
 * both were taken. Nothing (undefined) when there is nothing to record: the same text, and
 * no change in the picture that the page asks to hear of (visualThreshold), nor a first
 * picture to keep. A picture is looked at and kept only beside a change, as the page's
 * first, or for a page that asks to hear of its picture: one taken in doubt (its text
 * could not be compared while the page was open) is dropped when the text's only moves
 * were noise.
 */
async function compareStage (
  crawl: Crawl, fetched: FetchedPage, reading: PageReading, document: PageDocument | undefined,
  early: Promise<Comparison> | undefined
): Promise<Compared | undefined> {
  const { deps, page, previous } = crawl
  let detected: DetectedChange[] = []
  if (reading.snapshot) {
    const pageType = page.page_type_source === 'address'
      ? await typeFromRead(deps.db, page, reading.title, reading.snapshot)
      : page.page_type
    const comparison = !previous
      ? { changes: [] }
      : await (early ?? compareWithPrevious(crawl, previous.id, pageType, reading.snapshot, fetched, document))
    await readerSaid(crawl, reading, comparison)
    detected = comparison.changes
  }
  const threshold = page.visual_threshold === null ? undefined : Number(page.visual_threshold)
  const taken = fetched.screenshot
    ? { image: fetched.screenshot, ...pngSize(fetched.screenshot), ...(fetched.boxes ? { boxes: fetched.boxes } : {}) }
    : undefined
  const looked = taken !== undefined && previous !== undefined && (detected.length > 0 || threshold !== undefined)
  const previousShot = looked ? await pictureAsOf(deps.db, page.id, previous.id) : undefined
  const visual = looked && previousShot
    ? await deps.analysis.compareScreenshots(previousShot.image, taken.image)
    : undefined
  const firstPicture = taken !== undefined &&
    (!previous || (looked ? previousShot === undefined : !(await crawl.pictured())))
  // A page that asks for it (visualThreshold) reports a change seen in the picture alone.
  if (visual && detected.length === 0 && threshold !== undefined && visual.changedPercent >= threshold) {
    detected = [visualChange(visual, page.page_type)]
  } else if (visual) {
    detected = detected.map(c => ({ ...c, diffData: { ...c.diffData, visual } }))
  }
  const shot = detected.length > 0 || firstPicture ? taken : undefined
  if (reading.snapshot) {
    return { text: reading.snapshot.text, rawGzip: reading.snapshot.rawGzip, detected, shot, document }
  }
  if (!previous || !shot) return undefined
  return { text: await snapshotText(deps.db, previous.id), rawGzip: gzipSync(fetched.raw), detected, shot, document }
}

/** The new snapshot and its changes, in one transaction; each change announced once committed. */
async function recordStage (
  { deps, page, previous }: Crawl, fetched: FetchedPage, reading: PageReading, compared: Compared, check: PageCheck
): Promise<CrawlResult> {
  const { text, rawGzip, detected, shot, document } = compared
  const at = check.checkedAt
  // What people taught of this page's changes sets their severity (rules are read only when there are changes).
  const rules = previous && detected.length > 0 ? await severityRules(deps.db, page.id) : []
  const changes = detected.map(c => {
    const { severity, ruleId } = learnedSeverity(c, rules)
    return ruleId ? { ...c, severity, learned: { from: c.severity, ruleId } } : c
  })
  const recorded = await recordSnapshot(
    deps.db,
    {
      pageId: page.id,
      orgId: page.org_id,
      hash: reading.hash,
      text,
      rawGzip,
      httpStatus: fetched.status,
      contentType: fetched.contentType || null,
      ...(document && reading.snapshot?.documentGzip
        ? { document: { url: document.url, gzip: reading.snapshot.documentGzip, contentType: document.contentType } }
        : {}),
      at
    },
    page.previous_id,
    previous && { snapshotId: previous.id, domainId: page.domain_id, changes },
    snapshotId => [
      ...(shot ? [screenshotStatement(deps.db, snapshotId, page.org_id, shot)] : []),
      ...(previous && changes.length > 0 ? [lastChangeStatement(deps.db, page.id, at)] : []),
      ...(domainInError(page) ? [domainAnsweredStatement(deps.db, page.domain_id)] : [])
    ]
  )
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
    outcome: !previous ? 'baseline' : recorded.changes.length > 0 ? 'changed' : 'unchanged',
    changed: previous !== undefined,
    changesDetected: recorded.changes.length,
    snapshotId: recorded.snapshotId,
    pageCheck: check,
    ...(previous ? {} : { baseline: true })
  }
}

/**
 * The changes of a page's new text against its last snapshot's; an intelligence page
 * of a type with a structured reader is compared with both versions' HTML too.
 */
/**
 * The comparison made while a rendered page is still open, to know whether to take its
 * picture: the one the compare stage makes, with the page as rendered. Undefined where it
 * cannot be made yet (no previous snapshot, a reader that compares a document fetched
 * after the page, a type still to be read from the page): then the picture is taken.
 */
function compareEarly (
  crawl: Crawl, snapshot: NonNullable<PageReading['snapshot']>, rendered: Pick<FetchedPage, 'raw' | 'contentType'>
) {
  const { page, previous, reader } = crawl
  if (!previous || reader || page.page_type_source === 'address') return undefined
  return compareWithPrevious(crawl, previous.id, page.page_type, snapshot, rendered, undefined)
}
