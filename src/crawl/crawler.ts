import { EventEmitter } from 'node:events'
import type { Config } from '../config.js'
import { FetchError, TurnPassed } from './errors.js'
import { decodeHtml } from './charset.js'
import { documentFormat } from '../detection/detect.js'
import { createFetcher, type Fetcher, type FetchRequest, type InTurn } from './fetch.js'
import { HostBusy, inTurn, type HostPacer, type Pace, type TurnInHand } from './polite.js'
import { BrowserRenderer, type RenderRequest } from './render.js'
import { isBotWall, stillChallenged } from './render-decision.js'
import { RobotsCache, type RobotsFiles } from './robots.js'
import type { PictureBoxes } from '../vocabulary/outline.js'

export interface FetchedPage {
  url: string
  status: number
  notModified: boolean
  /** The page's text in its real charset (decoded on first read). */
  readonly html: string
  raw: Buffer
  contentType: string
  contentLanguage: string | null
  etag: string | null
  lastModified: string | null
  /** A PNG of the page, when it was rendered in the browser with a screenshot asked for. */
  screenshot?: Buffer
  /** Where its blocks are in the screenshot. */
  boxes?: PictureBoxes
}

/** One request to a watched site: how long it took and how it ended (for metrics). */
export interface FetchTiming {
  seconds: number
  outcome: 'ok' | 'not_modified' | 'http_error' | 'failed'
}

const DOCUMENT_ACCEPT = 'application/json, application/yaml, text/yaml, application/rss+xml, application/atom+xml, ' +
  'application/xml;q=0.9, */*;q=0.5'
const HTML_TYPES = /^(text\/html|application\/xhtml\+xml|text\/plain)?$/i

/**
 * Every request the service makes to a watched site goes through here: robots.txt
 * first, then the per-host limiter, then the SSRF-guarded fetcher.
 */
export class Crawler {
  readonly fetcher: Fetcher
  readonly robots: RobotsCache
  readonly renderer: BrowserRenderer
  /** Told of every page request once it has an answer or has failed. */
  readonly events = new EventEmitter<{
    fetched: [FetchTiming]
    rendered: [{ seconds: number, screenshot: boolean }]
    /** A turn given up: its request could not be written in it (see polite.ts). */
    turnLate: []
  }>()

  constructor (
    config: Pick<
      Config,
      | 'crawlHostMap'
      | 'crawlAllowPrivateNetworks'
      | 'crawlTimeoutMs'
      | 'crawlMaxBytes'
      | 'crawlPerHostConcurrency'
      | 'crawlPerHostDelayMs'
      | 'browserConcurrency'
      | 'chromiumPath'
      | 'renderTimeoutMs'
      | 'renderQuietMs'
      | 'browserRestartAfter'
    >,
    /** Per-host politeness: the fleet's, in the database (see polite.ts). */
    readonly pacer: HostPacer,
    /** The fleet's robots.txt files (in the database), so that a host's is fetched once for every worker. */
    robotsFiles?: RobotsFiles
  ) {
    this.fetcher = createFetcher({
      hostMap: config.crawlHostMap,
      allowPrivateNetworks: config.crawlAllowPrivateNetworks,
      timeoutMs: config.crawlTimeoutMs,
      maxBytes: config.crawlMaxBytes
    })
    const polite = async <T>(url: string, fetch: (inTurn: InTurn) => Promise<T>, inHand?: TurnInHand) =>
      await this.polite(url, 'wait', fetch, undefined, inHand)
    this.robots = new RobotsCache(this.fetcher, polite, robotsFiles)
    this.renderer = new BrowserRenderer({
      fetcher: this.fetcher,
      concurrency: config.browserConcurrency,
      timeoutMs: config.renderTimeoutMs,
      quietMs: config.renderQuietMs,
      restartAfter: config.browserRestartAfter,
      executablePath: config.chromiumPath
    })
  }

  /**
   * Renders one page in the browser, as politely as fetchPage fetches one (robots.txt,
   * the host's turn), and gives its DOM as a page's HTML, with a screenshot when asked.
   * `inHand`: a turn taken already (a crawl's, with its job), for robots.txt or the page's document.
   */
  async renderPage (url: string, req: RenderRequest, pace: Pace = 'wait', inHand?: TurnInHand): Promise<FetchedPage> {
    if (!(await this.robots.isAllowed(url, inHand))) {
      throw new FetchError('ROBOTS_DISALLOWED', `robots.txt disallows ${url} for SitewatchBot`)
    }
    const started = performance.now()
    const timed = (screenshot: boolean) => {
      this.events.emit('rendered', { seconds: (performance.now() - started) / 1000, screenshot })
    }
    // The page's document takes the host's turn when the browser asks for it (render.ts), not
    // before the browser is ready: written late, it could come too close to the next turn.
    const rendered = await this.renderer.render(url, req, async (to, request, signal) =>
      await this.polite(to, pace, request, signal, inHand))
      .catch(err => {
        if (!(err instanceof HostBusy)) timed(false) // a turn given up rendered nothing
        throw err
      })
    timed(rendered.screenshot !== undefined)
    const challenged = rendered.status >= 400
      ? isBotWall(rendered.status, rendered.html, rendered.challenge)
      : stillChallenged(rendered.html)
    if (challenged) {
      const why = `${rendered.url} still showed a bot wall's challenge in the browser`
      throw new FetchError('CHALLENGE_UNPASSED', why, rendered.status)
    }
    if (rendered.status >= 400) {
      throw new FetchError('HTTP_STATUS', `HTTP ${rendered.status} from ${rendered.url} (rendered)`, rendered.status)
    }
    const raw = Buffer.from(rendered.html, 'utf8')
    return {
      url: rendered.url,
      status: rendered.status,
      notModified: false,
      html: rendered.html,
      raw,
      contentType: 'text/html; charset=utf-8',
      // The rendered document keeps its <html lang>, which is what the page declares first.
      contentLanguage: null,
      etag: null,
      lastModified: null,
      screenshot: rendered.screenshot,
      ...(rendered.boxes ? { boxes: rendered.boxes } : {})
    }
  }

  /**
   * Fetches one HTML page or document (see detection/readers/documents.ts) politely; HTTP errors and other
   * bodies throw FetchError. `inHand`: a turn taken already (a crawl's, with its job), for robots.txt or the page.
   */
  async fetchPage (
    url: string, req: FetchRequest = {}, pace: Pace = 'wait', inHand?: TurnInHand
  ): Promise<FetchedPage> {
    if (!(await this.robots.isAllowed(url, inHand))) {
      throw new FetchError('ROBOTS_DISALLOWED', `robots.txt disallows ${url} for SitewatchBot`)
    }
    const res = await this.polite(url, pace, async inTurn => {
      const answer = await this.timed(url, { ...req, ...inTurn })
      // Held before this turn ends, so that no worker's next turn comes first.
      if ((answer.status === 429 || answer.status === 503) && answer.retryAfterMs !== undefined) {
        await this.pacer.backoff(new URL(url).host, answer.retryAfterMs)
      }
      return answer
    }, req.signal, inHand)
    if (res.notModified) {
      if (!req.etag && !req.lastModified) {
        throw new FetchError('HTTP_STATUS', `HTTP 304 Not Modified from ${res.url}, to a request that named no version`)
      }
      return {
        url: res.url,
        status: 304,
        notModified: true,
        html: '',
        raw: res.body,
        contentType: res.contentType,
        contentLanguage: res.contentLanguage,
        etag: res.etag,
        lastModified: res.lastModified
      }
    }
    if (res.status >= 400) {
      if (isBotWall(res.status, res.body.toString('latin1'), res.challenge)) {
        throw new FetchError('BOT_WALL', `HTTP ${res.status} from ${res.url}: a bot wall's challenge page`, res.status)
      }
      throw new FetchError('HTTP_STATUS', `HTTP ${res.status} from ${res.url}`, res.status)
    }
    const mime = res.contentType.split(';')[0].trim()
    if (!HTML_TYPES.test(mime) && !documentFormat(res.contentType, res.body)) {
      throw new FetchError('NOT_HTML', `${res.url} is ${mime}: neither an HTML page nor a document Sitewatch reads`)
    }
    let html: string | undefined
    return {
      url: res.url,
      status: res.status,
      notModified: false,
      // Decoded when first read: the crawl hands the raw bytes to its analysis threads instead.
      get html () {
        return (html ??= decodeHtml(res.body, res.contentType))
      },
      raw: res.body,
      contentType: res.contentType,
      contentLanguage: res.contentLanguage,
      etag: res.etag,
      lastModified: res.lastModified
    }
  }

  /**
   * Fetches a document a page is read with (an API description, a feed) under the same
   * rules as a page: robots.txt, the host's turn, the SSRF guard and the size limit. Any
   * type; HTTP errors throw FetchError.
   */
  async fetchDocument (url: string, pace: Pace = 'wait'): Promise<{ url: string, raw: Buffer, contentType: string }> {
    if (!(await this.robots.isAllowed(url))) {
      throw new FetchError('ROBOTS_DISALLOWED', `robots.txt disallows ${url} for SitewatchBot`)
    }
    const res = await this.polite(url, pace, async inTurn =>
      await this.timed(url, { accept: DOCUMENT_ACCEPT, ...inTurn }))
    if (res.status >= 400) throw new FetchError('HTTP_STATUS', `HTTP ${res.status} from ${res.url}`, res.status)
    return { url: res.url, raw: res.body, contentType: res.contentType }
  }

  /** Runs one request to `url`'s host in its turn (see polite.ts inTurn). */
  async polite<T>(
    url: string, pace: Pace, request: (inTurn: InTurn) => Promise<T>, signal?: AbortSignal, inHand?: TurnInHand
  ): Promise<T> {
    return await inTurn(this.pacer, new URL(url).host, this.robots.crawlDelayMs(url), pace, request,
      { signal, inHand, late: () => this.events.emit('turnLate') })
  }

  private async timed (url: string, req: FetchRequest) {
    const started = performance.now()
    const seconds = () => (performance.now() - started) / 1000
    try {
      const res = await this.fetcher.fetch(url, req)
      const outcome = res.notModified ? 'not_modified' : res.status >= 400 ? 'http_error' : 'ok'
      this.events.emit('fetched', { seconds: seconds(), outcome })
      return res
    } catch (err) {
      // A request its turn refused was never sent: no fetch to count.
      if (!(err instanceof TurnPassed)) this.events.emit('fetched', { seconds: seconds(), outcome: 'failed' })
      throw err
    }
  }

  async close (): Promise<void> {
    await this.renderer.close()
    await this.fetcher.close()
  }
}
