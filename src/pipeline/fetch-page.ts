import type { Crawler, FetchedPage } from '../crawl/crawler.js'
import { FetchError } from '../crawl/errors.js'
import { HostBusy, type TurnInHand } from '../crawl/polite.js'
import type { RenderRequest } from '../crawl/render.js'
import { isChallengePage, needsBrowser, readableWithoutBrowser } from '../crawl/render-decision.js'
import type { ReaderDocument } from '../detection/detect.js'
import { RENDER_RECHECK_MS, type CrawlTarget } from '../store/page-checks.js'
import { documentFormat } from '../detection/detect.js'
import type { NoiseRules, PageType, RenderMode } from '../vocabulary/core.js'
import { AnalysisTimeout, type PageAnalysis } from './analysis.js'

// The fetch stage of a crawl: the page, plainly or in the browser, and the document it
// is read with (an API description, a feed).

/** The page is to be read in the browser, and this crawl runs where none is (a plain-fetch worker's). */
export class NeedsBrowser extends Error {
  constructor (readonly reason: string) {
    super(`needs the browser: ${reason}`)
  }
}

/** What the crawler says a rendered page is (see Crawler.renderPage). */
export const RENDERED_TYPE = 'text/html; charset=utf-8'

/** How the page was read, when that is new or was checked again: kept on the page (its renderedWith). */
export interface RenderDecision {
  with: 'browser' | 'http'
  reason: string | null
  /** Empty when the next crawl is to ask again. */
  at: Date | null
}

export type PageDocument = Awaited<ReturnType<Crawler['fetchDocument']>>

/**
 * Whether a render takes the page's picture. Taking, decoding and storing a full-page
 * picture costs more than the rest of a check, so it is taken where it is used: on every
 * render of a page with a visual threshold (a change may show only in the picture) or
 * that has none yet (its next change needs a "before"); otherwise only when the compared
 * text changed (`textChanged`, asked while the page is open: a change, not noise that
 * moved), as the evidence of that change and the "before" of the next one.
 */
export function pictureWanted (
  page: Pick<CrawlTarget, 'visual_threshold'>,
  hasPrevious: boolean,
  hasPicture: () => Promise<boolean>,
  textChanged: (html: string) => Promise<boolean>
): RenderRequest['screenshot'] {
  if (page.visual_threshold !== null || !hasPrevious) return true
  // Asked by a render only: a plain page's check never looks for its pictures.
  return async html => !(await hasPicture()) || await textChanged(html)
}

type RenderTarget = Pick<CrawlTarget, 'screenshots' | 'rendered_with' | 'render_reason'>

/**
 * When a page goes to the browser before any plain fetch, first that applies wins: the
 * same rules as store/page-checks.ts's pagesReadInBrowser, which routes its crawl to a renderer.
 */
const RENDER_FIRST: Array<{
  when: (p: RenderTarget, mode: RenderMode, recheckDue: boolean) => boolean
  reason: (p: RenderTarget) => string
  /** The page's last decision stands as it is: nothing new to keep. */
  decisionStands?: true
}> = [
  { when: (_p, mode) => mode === 'always', reason: () => 'render is always' },
  { when: p => p.screenshots, reason: () => 'screenshots are on' },
  {
    when: (p, mode, recheckDue) => mode === 'auto' && p.rendered_with === 'browser' && !recheckDue,
    reason: p => p.render_reason ?? '',
    decisionStands: true
  }
]

/**
 * Fetches the page plainly or renders it, as its render mode says (the page's, else its
 * domain's). In `auto`, a page known to need the browser goes to it at once until its
 * recheck is due; any other is fetched plainly and rendered when the answer needs it
 * (a bot wall, a challenge page, a shell: see needsBrowser). Returns the decision when
 * it is new or was checked again. `inHand`: the host's turn, taken with the crawl, for its first request.
 */
export async function fetchOrRender (
  crawler: Crawler, page: CrawlTarget, conditional: boolean, picture: RenderRequest['screenshot'], mayRender: boolean,
  inHand?: TurnInHand
): Promise<{ page: FetchedPage, decision?: RenderDecision }> {
  const mode = page.render ?? page.domain_render
  const now = new Date()
  const recheckDue = !page.render_checked_at || now.getTime() - page.render_checked_at.getTime() > RENDER_RECHECK_MS
  const render = async (reason: string, decisionStands = false) => {
    if (!mayRender) throw new NeedsBrowser(reason)
    try {
      const shot = { screenshot: picture, hideSelectors: page.noise_rules?.ignoreSelectors }
      const rendered = await crawler.renderPage(page.url, shot, 'defer', inHand)
      const same = decisionStands || (page.rendered_with === 'browser' && page.render_reason === reason)
      return { page: rendered, decision: same ? undefined : { with: 'browser' as const, reason, at: now } }
    } catch (err) {
      return await plainInstead(crawler, page.url, err)
    }
  }
  const first = RENDER_FIRST.find(rule => rule.when(page, mode, recheckDue))
  if (first) return await render(first.reason(page), first.decisionStands)

  let plain
  try {
    const validators = conditional ? { etag: page.etag, lastModified: page.last_modified } : {}
    plain = await crawler.fetchPage(page.url, validators, 'defer', inHand)
  } catch (err) {
    if (mode === 'auto' && err instanceof FetchError && err.code === 'BOT_WALL') return await render(err.message)
    throw err
  }
  const plainStands = page.rendered_with === 'http' && !recheckDue
  // A document (a PDF, JSON, text) is what it is: no browser shows it better.
  if (plain.notModified || documentFormat(plain.contentType, plain.raw)) {
    return { page: plain, decision: plainStands ? undefined : http(now) }
  }
  // A challenge page with a 200 is no version of the page: the browser may pass it, else it is blocked.
  if (isChallengePage(plain.raw)) {
    const why = `${plain.url} answered with a bot wall's challenge page`
    if (mode === 'auto') return await render(why)
    throw new FetchError('BOT_WALL', why, plain.status)
  }
  // Asked when the page is new to it or due a recheck, not at every crawl: reading the
  // HTML here decodes it on the event loop, which the analysis threads otherwise do.
  const reason = mode === 'auto' && !plainStands ? needsBrowser(plain.status, plain.html) : undefined
  if (reason) return await render(reason)
  return { page: plain, decision: plainStands ? undefined : http(now) }
}

const http = (at: Date): RenderDecision => ({ with: 'http', reason: null, at })

/**
 * The page as the analysis reads it: a document (a PDF, JSON, text: see detection/readers/documents.ts) read
 * into HTML, its bytes and content type kept as fetched otherwise; a document that cannot
 * be read fails the page, saying why.
 */
export async function asReadable (
  analysis: PageAnalysis, page: FetchedPage, rules: Pick<NoiseRules, 'includePaths'> | null
): Promise<FetchedPage> {
  if (page.notModified || !documentFormat(page.contentType, page.raw)) return page
  const read = await analysis.document({
    raw: page.raw, contentType: page.contentType, includePaths: rules?.includePaths
  })
  if ('error' in read) throw new FetchError('BAD_DOCUMENT', `${page.url}: ${read.error}`)
  const { html } = read
  return {
    url: page.url,
    status: page.status,
    notModified: false,
    html,
    raw: Buffer.from(html, 'utf8'),
    // The type it was served as (the snapshot's contentType): the HTML made of it says its charset.
    contentType: page.contentType,
    contentLanguage: page.contentLanguage,
    etag: page.etag,
    lastModified: page.lastModified
  }
}

/**
 * When the browser fails on a page (a renderer crash, a script that navigates to a missing
 * page, a page that never settles) and a plain fetch reads it, the plain text is recorded
 * and the page says why (renderReason). A plain answer with too little text to read (a
 * shell), an error or a bot wall is not the page: then the render's failure stands and the
 * attempt is retried. The decision's time is left empty so that the next crawl asks again.
 */
async function plainInstead (
  crawler: Crawler, url: string, renderError: unknown
): Promise<{ page: FetchedPage, decision: RenderDecision }> {
  if (renderError instanceof HostBusy || renderError instanceof AnalysisTimeout) throw renderError
  if (renderError instanceof FetchError && renderError.code === 'ROBOTS_DISALLOWED') throw renderError
  const plain = await crawler.fetchPage(url, {}, 'defer')
    .catch(err => { throw err instanceof HostBusy ? err : renderError })
  if (!documentFormat(plain.contentType, plain.raw) && !readableWithoutBrowser(plain.status, plain.html)) {
    throw renderError
  }
  const why = (renderError as Error)?.message ?? String(renderError)
  return { page: plain, decision: { with: 'http', reason: `the browser failed (${why}); read without it`, at: null } }
}

/** How many of the documents a page names are tried. */
const MAX_DOCUMENTS_TRIED = 3

/** Whether a fetched document is a script (by its type, else its address). */
const isScript = (d: { url: string, contentType: string }) =>
  /javascript|ecmascript/i.test(d.contentType) || /\.m?js$/i.test(new URL(d.url).pathname)

/**
 * The document a page is read with, fetched under the page's rules: the first its page
 * names that answers; when the page names none, one where hosts put it by convention. A
 * named document that cannot be fetched fails the page when its reader says so (an API
 * description); otherwise (a feed), or at a conventional address that holds none, the
 * page is read alone.
 */
export async function documentOf (
  crawler: Crawler, analysis: PageAnalysis, fetched: { url: string, raw: Buffer, contentType: string },
  pageType: PageType, reader: ReaderDocument
): Promise<PageDocument | undefined> {
  const { raw, contentType, url: pageUrl } = fetched
  const named = await analysis.links({ raw, contentType, url: pageUrl, pageType })
  const fetchNamed = async (url: string) => {
    try {
      return await crawler.fetchDocument(url, 'wait')
    } catch (err) {
      if (!reader.failsThePage || !(err instanceof FetchError)) return undefined
      throw new FetchError(err.code, `${reader.name} ${url}: ${err.message}`, err.status)
    }
  }
  for (const url of named.slice(0, MAX_DOCUMENTS_TRIED)) {
    const found = await fetchNamed(url)
    if (!found || !reader.follow || !isScript(found)) {
      if (found) return found
      continue
    }
    // A script that configures the page's viewer: the document is the one it names.
    for (const inner of reader.follow(found.raw.toString('utf8'), pageUrl).slice(0, MAX_DOCUMENTS_TRIED)) {
      const document = await fetchNamed(inner)
      if (document) return document
    }
  }
  if (named.length > 0 || !reader.conventional) return undefined
  for (const path of reader.conventional.paths) {
    const found = await crawler.fetchDocument(new URL(path, pageUrl).href, 'wait').catch(() => undefined)
    if (found && reader.conventional.looksLike.test(found.raw.subarray(0, 2048).toString('utf8'))) return found
  }
  return undefined
}
