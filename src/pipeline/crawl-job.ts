import { ANALYSIS_TIMEOUT, CRAWL_FAILED, failureCode } from '../domain/failures.js'
import { gzipSync } from 'node:zlib'
import DataLoader from 'dataloader'
import type { DetectedChange } from '../domain/vocabulary.js'
import { pngSize, type VisualDiff } from '../changes/visual.js'
import type { Crawler } from '../crawl/crawler.js'
import { FetchError } from '../crawl/errors.js'
import { HostBusy } from '../crawl/polite.js'
import type { Language } from '../changes/lexicon.js'
import { classifyPageType } from '../crawl/page-type.js'
import { isChallengePage, needsBrowser, readableWithoutBrowser } from '../crawl/render-decision.js'
import type { CrawlJobData } from '../queue/queue.js'
import { recordSnapshot, snapshotText, snapshotTextAndPage } from '../store/changes.js'
import type { Db } from '../store/db.js'
import { markActive, markFailedIfNoPageWorks } from '../store/domains.js'
import { saveScreenshot, screenshotOf } from '../store/screenshots.js'
import {
  loadCrawlTargets,
  recordChange,
  recordFailure,
  recordRenderDecision,
  RENDER_RECHECK_MS,
  ROWS_PER_STATEMENT,
  typeFromContent,
  clearFailureAlert,
  type CrawlTarget,
  type PageCheck
} from '../store/pages.js'
import type { RenderRequest } from '../crawl/render.js'
import { AnalysisTimeout, type PageAnalysis, type PageReading } from './analysis.js'
import type { CurrentText } from './analysis-thread.js'
import type { PageType } from '../domain/vocabulary.js'
import { readerOf, type ReaderDocument } from '../changes/readers.js'
import { nextCrawlAt } from './crawl-slots.js'
import type { PipelineEvents } from './events.js'

export interface CrawlDeps {
  db: Db
  crawler: Crawler
  events: PipelineEvents
  targets: CrawlTargetLoader
  analysis: PageAnalysis
  /** Whether this crawl may use the browser; otherwise a page that needs it throws NeedsBrowser. */
  mayRender: boolean
}

/** The page is to be read in the browser, and this crawl runs where none is (a plain-fetch worker's). */
export class NeedsBrowser extends Error {
  constructor (readonly reason: string) {
    super(`needs the browser: ${reason}`)
  }
}

export interface CrawlResult {
  changed: boolean
  changesDetected: number
  snapshotId: string | null
  notModified?: boolean
  baseline?: boolean
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
  // Its type's structured reader reads an intelligence page of a type that has one (see loadCrawlTargets).
  const structured = page.read_structured ? page.page_type : undefined
  // A page read with a document (its API description, its feed) is fetched whole: the document may have
  // moved when the page did not.
  const reader = readerOf(structured)?.document
  const withDocument = reader !== undefined
  let document: PageDocument | undefined
  const readPage = async (raw: Buffer, contentType: string, contentLanguage: string | null, doc?: PageDocument) =>
    await deps.analysis.read({
      raw,
      contentType,
      contentLanguage,
      rules: page.noise_rules,
      previousHash: previous?.hash,
      structured,
      document: doc
    })
  // A rendered page is read while it is still open, to know whether its picture is wanted.
  let readInBrowser: { html: string, reading: Promise<PageReading> } | undefined
  const picture = pictureWanted(page, previous !== undefined, async html => {
    readInBrowser = { html, reading: readPage(Buffer.from(html, 'utf8'), RENDERED_TYPE, null) }
    return (await readInBrowser.reading).snapshot !== undefined
  })
  let fetched
  try {
    const conditional = previous !== undefined && !withDocument
    const got = await fetchOrRender(deps.crawler, page, conditional, picture, deps.mayRender)
    fetched = got.page
    if (got.decision) await recordRenderDecision(db, page.id, got.decision)
    if (reader && structured) document = await documentOf(deps, fetched, structured, reader)
  } catch (err) {
    // Kept before the crawl moves to a renderer, which then goes to the browser at once.
    if (err instanceof NeedsBrowser) {
      if (page.rendered_with !== 'browser' || page.render_reason !== err.reason) {
        await recordRenderDecision(db, page.id, { with: 'browser', reason: err.reason, at: new Date() })
      }
      throw err
    }
    // Its host's turn is not yet: the job steps aside, and nothing failed.
    if (err instanceof HostBusy) throw err
    const at = new Date()
    await recordCrawlFailure(db, page, err, at, next(at))
    throw err
  }

  try {
    return await readAndRecord(deps, page, previous, fetched, document, readInBrowser, readPage)
  } catch (err) {
    // A page whose reading outlived its deadline fails alone, and says why.
    if (err instanceof AnalysisTimeout) {
      const at = new Date()
      await recordCrawlFailure(db, page, err, at, next(at))
    }
    throw err
  }
}

type Fetched = Awaited<ReturnType<typeof fetchOrRender>>['page']

/** The stages after the fetch: read the page, compare it with its last snapshot, record what moved. */
async function readAndRecord (
  deps: CrawlDeps,
  page: CrawlTarget,
  previous: { id: string, hash: string | null } | undefined,
  fetched: Fetched,
  fetchedDocument: PageDocument | undefined,
  readInBrowser: { html: string, reading: Promise<PageReading> } | undefined,
  readPage: (raw: Buffer, type: string, language: string | null, document?: PageDocument) => Promise<PageReading>
): Promise<CrawlResult> {
  const { db } = deps
  let document = fetchedDocument
  const structured = page.read_structured ? page.page_type : undefined
  const reader = readerOf(structured)?.document
  const next = (at: Date) => nextCrawlAt(page.id, at, page.check_frequency_hours)
  const checkedAt = new Date()
  if (page.failure_alerted_at && await clearFailureAlert(db, page.id)) {
    deps.events.emit('page.recovered', {
      orgId: page.org_id, domainId: page.domain_id, pageId: page.id, url: page.url, at: checkedAt
    })
  }
  const check: PageCheck = {
    pageId: page.id,
    checkedAt,
    nextCrawlAt: next(checkedAt),
    etag: fetched.etag,
    lastModified: fetched.lastModified
  }
  const domainWasInError = page.domain_status === 'error'
  // The page's check is written by the caller with the job's completion (see
  // BatchedCompletions): a page shown as checked is one whose job is done, so a crawl
  // asked for then is not skipped as already running.
  const unchanged = async (): Promise<Pick<CrawlResult, 'pageCheck'>> => {
    if (domainWasInError) await markActive(db, page.domain_id, 'error')
    return { pageCheck: check }
  }
  if (fetched.notModified && previous) {
    return { changed: false, changesDetected: 0, snapshotId: previous.id, notModified: true, ...(await unchanged()) }
  }

  let read = readInBrowser?.html === fetched.html && !document
    ? await readInBrowser.reading
    : await readPage(fetched.raw, fetched.contentType, fetched.contentLanguage, document)
  if (read.documentError && document) {
    // A feed that is no feed: the changelog is read from its page. A description that is none: the page's error.
    const failed = document
    document = undefined
    if (reader?.failsThePage) {
      const err = new FetchError('BAD_DOCUMENT', `${reader.name} ${failed.url}: ${read.documentError}`)
      const at = new Date()
      await recordCrawlFailure(db, page, err, at, next(at))
      throw err
    }
    read = await readPage(fetched.raw, fetched.contentType, fetched.contentLanguage, undefined)
  }
  const shot = fetched.screenshot ? { image: fetched.screenshot, ...pngSize(fetched.screenshot) } : undefined
  // The look of the page against its last snapshot's, when both were taken.
  const previousShot = shot && previous ? await screenshotOf(db, previous.id) : undefined
  const visual = shot && previousShot
    ? await deps.analysis.compareScreenshots(previousShot.image, shot.image)
    : undefined

  let text: string
  let rawGzip: Uint8Array
  let detected: DetectedChange[] = []
  if (read.snapshot) {
    ({ text, rawGzip } = read.snapshot)
    if (page.page_type_source === 'address') await typeFromRead(db, page, read.title, read.snapshot)
    if (previous) {
      detected = await compareWithPrevious(deps, page, previous.id, read.snapshot, { ...fetched, document }, structured)
    }
    if (visual) for (const c of detected) c.diffData.visual = visual
  } else {
    // The text is the same. A page that asks for it (visualThreshold) still reports a change
    // seen in the picture; the first screenshot of a page is kept with a snapshot of its own.
    const threshold = page.visual_threshold === null ? undefined : Number(page.visual_threshold)
    const visualOnly = visual !== undefined && threshold !== undefined && visual.changedPercent >= threshold
    const firstPicture = shot !== undefined && previousShot === undefined
    if (!visualOnly && !firstPicture) {
      return { changed: false, changesDetected: 0, snapshotId: previous!.id, ...(await unchanged()) }
    }
    text = await snapshotText(db, previous!.id)
    rawGzip = gzipSync(fetched.raw)
    if (visualOnly) detected = [visualChange(visual)]
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
        ...(document && read.snapshot?.documentGzip
          ? { document: { url: document.url, gzip: read.snapshot.documentGzip, contentType: document.contentType } }
          : {}),
        at: checkedAt
      },
      previous && { snapshotId: previous.id, domainId: page.domain_id, changes: detected }
    )
    if (shot) await saveScreenshot(tx, r.snapshotId, page.org_id, shot)
    if (r.changes.length > 0) await recordChange(tx, page.id, checkedAt)
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
    pageCheck: check,
    ...(previous ? {} : { baseline: true })
  }
}

/** How many of the documents a page names are tried. */
const MAX_DOCUMENTS_TRIED = 3

type PageDocument = Awaited<ReturnType<Crawler['fetchDocument']>>

/**
 * The document a page is read with, fetched under the page's rules: the first its page
 * names that answers; when the page names none, one where hosts put it by convention. A
 * named document that cannot be fetched fails the page when its reader says so (an API
 * description); otherwise (a feed), or at a conventional address that holds none, the
 * page is read alone.
 */
async function documentOf (
  deps: CrawlDeps, fetched: { url: string, raw: Buffer, contentType: string }, pageType: PageType,
  reader: ReaderDocument
): Promise<PageDocument | undefined> {
  const { raw, contentType, url: pageUrl } = fetched
  const named = await deps.analysis.links({ raw, contentType, url: pageUrl, pageType })
  for (const url of named.slice(0, MAX_DOCUMENTS_TRIED)) {
    try {
      return await deps.crawler.fetchDocument(url, 'wait')
    } catch (err) {
      if (!reader.failsThePage || !(err instanceof FetchError)) continue
      throw new FetchError(err.code, `${reader.name} ${url}: ${err.message}`, err.status)
    }
  }
  if (named.length > 0 || !reader.conventional) return undefined
  for (const path of reader.conventional.paths) {
    const found = await deps.crawler.fetchDocument(new URL(path, pageUrl).href, 'wait').catch(() => undefined)
    if (found && reader.conventional.looksLike.test(found.raw.subarray(0, 2048).toString('utf8'))) return found
  }
  return undefined
}

/**
 * The changes of a page's new text against its last snapshot's; an intelligence page
 * of a type with a structured reader is compared with both versions' HTML too.
 */
async function compareWithPrevious (
  deps: CrawlDeps, page: CrawlTarget, previousId: string, read: CurrentText,
  fetched: { raw: Uint8Array, contentType: string, document?: PageDocument }, structured: PageType | undefined
): Promise<DetectedChange[]> {
  if (!structured) {
    return await deps.analysis.compare(await snapshotText(deps.db, previousId), read, page.page_type, page.noise_rules)
  }
  const before = await snapshotTextAndPage(deps.db, previousId)
  const after = { raw: fetched.raw, contentType: fetched.contentType }
  const documents = before.document && before.page && fetched.document
    ? { before: { ...before.page, document: before.document }, after: { ...after, document: fetched.document } }
    : undefined
  const pages = documents ?? (before.page && { before: before.page, after })
  return await deps.analysis.compare(before.text, read, page.page_type, page.noise_rules, pages)
}

/** A page typed from its address alone (added by hand without a type) is typed from what it says. */
async function typeFromRead (db: Db, page: CrawlTarget, title: string, read: { text: string, language?: Language }) {
  const lines = read.text.split('\n')
  const typed = classifyPageType({
    url: page.url,
    title,
    headings: lines.filter(l => l.startsWith('#')).map(l => l.replace(/^#+ /, '')),
    text: read.text,
    language: read.language
  })
  await typeFromContent(db, page.id, typed.pageType, typed.confidence)
  page.page_type = typed.pageType
}

/** A change seen only in the screenshots (the text is the same). */
function visualChange (visual: VisualDiff): DetectedChange {
  const n = visual.regions.length
  return {
    changeType: 'content_change',
    severity: visual.changedPercent >= 10 ? 'medium' : 'low',
    confidence: 0.6,
    summary: `The page looks different: ${visual.changedPercent}% of it changed, in ${n} region${n === 1 ? '' : 's'}`,
    diffData: { before: '', after: '', stats: { additions: 0, deletions: 0, changes: 0 }, hunks: [], visual }
  }
}

/** What the crawler says a rendered page is (see Crawler.renderPage). */
const RENDERED_TYPE = 'text/html; charset=utf-8'

/**
 * Whether a render takes the page's picture. Taking, decoding and storing a full-page
 * picture costs more than the rest of a check, so it is taken where it is used: on every
 * render of a page with a visual threshold (a change may show only in the picture) or
 * whose last snapshot has none (its next change needs a "before"); otherwise only when
 * the text moved (`textMoved`, asked while the page is open), as the evidence of that
 * change and the "before" of the next one.
 */
export function pictureWanted (
  page: Pick<CrawlTarget, 'visual_threshold' | 'previous_pictured'>,
  hasPrevious: boolean,
  textMoved: (html: string) => Promise<boolean>
): RenderRequest['screenshot'] {
  if (page.visual_threshold !== null || !hasPrevious || page.previous_pictured !== true) return true
  return textMoved
}

/**
 * Fetches the page plainly or renders it, as its render mode says (the page's, else its
 * domain's). In `auto`, a page known to need the browser goes to it at once until its
 * recheck is due; any other is fetched plainly and rendered when the answer needs it
 * (see needsBrowser). Returns the decision when it is new or was checked again.
 */
async function fetchOrRender (
  crawler: Crawler, page: CrawlTarget, conditional: boolean, picture: RenderRequest['screenshot'], mayRender: boolean
) {
  const mode = page.render ?? page.domain_render
  const now = new Date()
  const shot = { screenshot: picture, hideSelectors: page.noise_rules?.ignoreSelectors }
  const render = async (reason: string, known = false) => {
    if (!mayRender) throw new NeedsBrowser(reason)
    try {
      const rendered = await crawler.renderPage(page.url, shot, 'defer')
      const same = known || (page.rendered_with === 'browser' && page.render_reason === reason)
      return { page: rendered, decision: same ? undefined : { with: 'browser' as const, reason, at: now } }
    } catch (err) {
      return await plainInstead(crawler, page.url, err)
    }
  }
  if (mode === 'always') return await render('render is always')
  if (page.screenshots) return await render('screenshots are on')
  const recheckDue = !page.render_checked_at || now.getTime() - page.render_checked_at.getTime() > RENDER_RECHECK_MS
  if (mode === 'auto' && page.rendered_with === 'browser' && !recheckDue) {
    return await render(page.render_reason ?? '', true)
  }
  let plain
  try {
    const validators = conditional ? { etag: page.etag, lastModified: page.last_modified } : {}
    plain = await crawler.fetchPage(page.url, validators, 'defer')
  } catch (err) {
    if (mode === 'auto' && err instanceof FetchError && err.code === 'BOT_WALL') return await render(err.message)
    throw err
  }
  // A challenge page with a 200 is no version of the page: the browser may pass it, else it is blocked.
  if (!plain.notModified && isChallengePage(plain.raw)) {
    const why = `${plain.url} answered with a bot wall's challenge page`
    if (mode === 'auto') return await render(why)
    throw new FetchError('BOT_WALL', why, plain.status)
  }
  // Asked when the page is new to it or due a recheck, not at every crawl: reading the
  // HTML here decodes it on the event loop, which the analysis threads otherwise do.
  const known = page.rendered_with === 'http' && !recheckDue
  const reason = mode === 'auto' && !known && !plain.notModified ? needsBrowser(plain.status, plain.html) : undefined
  if (reason) return await render(reason)
  const decision = known ? undefined : { with: 'http' as const, reason: null, at: now }
  return { page: plain, decision }
}

/**
 * When the browser fails on a page (a renderer crash, a script that navigates to a missing
 * page, a page that never settles) and a plain fetch reads it, the plain text is recorded
 * and the page says why (renderReason). A plain answer with too little text to read (a
 * shell), an error or a bot wall is not the page: then the render's failure stands and the
 * attempt is retried.
 * The decision's time is left empty so that the next crawl asks again.
 */
async function plainInstead (crawler: Crawler, url: string, renderError: unknown) {
  if (renderError instanceof HostBusy || renderError instanceof AnalysisTimeout) throw renderError
  if (renderError instanceof FetchError && renderError.code === 'ROBOTS_DISALLOWED') throw renderError
  const plain = await crawler.fetchPage(url, {}, 'defer')
    .catch(err => { throw err instanceof HostBusy ? err : renderError })
  if (!readableWithoutBrowser(plain.status, plain.html)) throw renderError
  const why = (renderError as Error)?.message ?? String(renderError)
  return {
    page: plain,
    decision: { with: 'http' as const, reason: `the browser failed (${why}); read without it`, at: null }
  }
}

/**
 * Counts a failed attempt on the page (see recordFailure); when every monitored page of
 * the domain is in error, so is the domain.
 */
async function recordCrawlFailure (db: Db, page: CrawlTarget, err: unknown, at: Date, nextAt: Date): Promise<void> {
  const failure = err instanceof FetchError
    ? { message: err.message, permanent: err.permanent, code: failureCode(err.code, err.status) }
    : err instanceof AnalysisTimeout
      ? { message: err.message, permanent: true, code: ANALYSIS_TIMEOUT }
      : { message: `crawl failed: ${(err as Error)?.message ?? String(err)}`, permanent: false, code: CRAWL_FAILED }
  await db.transaction().execute(async tx => {
    await recordFailure(tx, page.id, failure, at, nextAt)
    await markFailedIfNoPageWorks(tx, page.domain_id, at)
  })
}
