import { EventEmitter } from 'node:events'
import type { Config } from '../config.js'
import { FetchError } from './errors.js'
import { decodeHtml } from './charset.js'
import { createFetcher, type Fetcher, type FetchRequest } from './fetch.js'
import { HostLimiter } from './polite.js'
import { BrowserRenderer, type RenderRequest } from './render.js'
import { isBotWall } from './render-decision.js'
import { RobotsCache } from './robots.js'

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
}

/** One request to a watched site: how long it took and how it ended (for metrics). */
export interface FetchTiming {
  seconds: number
  outcome: 'ok' | 'not_modified' | 'http_error' | 'failed'
}

const HTML_TYPES = /^(text\/html|application\/xhtml\+xml|text\/plain)?$/i

/**
 * Every request the service makes to a watched site goes through here: robots.txt
 * first, then the per-host limiter, then the SSRF-guarded fetcher.
 */
export class Crawler {
  readonly fetcher: Fetcher
  readonly robots: RobotsCache
  readonly limiter: HostLimiter
  readonly renderer: BrowserRenderer
  /** Told of every page request once it has an answer or has failed. */
  readonly events = new EventEmitter<{ fetched: [FetchTiming], rendered: [{ seconds: number }] }>()

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
    >
  ) {
    this.fetcher = createFetcher({
      hostMap: config.crawlHostMap,
      allowPrivateNetworks: config.crawlAllowPrivateNetworks,
      timeoutMs: config.crawlTimeoutMs,
      maxBytes: config.crawlMaxBytes
    })
    this.robots = new RobotsCache(this.fetcher)
    this.limiter = new HostLimiter(config.crawlPerHostConcurrency, config.crawlPerHostDelayMs)
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
   * the per-host limiter), and gives its DOM as a page's HTML, with a screenshot when asked.
   */
  async renderPage (url: string, req: RenderRequest): Promise<FetchedPage> {
    if (!(await this.robots.isAllowed(url))) {
      throw new FetchError('ROBOTS_DISALLOWED', `robots.txt disallows ${url} for SitewatchBot`)
    }
    const started = performance.now()
    const rendered = await this.limiter.run(new URL(url).host, async () => await this.renderer.render(url, req))
      .finally(() => {
        this.events.emit('rendered', { seconds: (performance.now() - started) / 1000 })
      })
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
      screenshot: rendered.screenshot
    }
  }

  /** Fetches one HTML page politely; HTTP errors and non-HTML bodies throw FetchError. */
  async fetchPage (url: string, req: FetchRequest = {}): Promise<FetchedPage> {
    if (!(await this.robots.isAllowed(url))) {
      throw new FetchError('ROBOTS_DISALLOWED', `robots.txt disallows ${url} for SitewatchBot`)
    }
    const host = new URL(url).host
    const res = await this.limiter.run(host, async () => await this.timed(url, req))
    if ((res.status === 429 || res.status === 503) && res.retryAfterMs !== undefined) {
      this.limiter.backoff(host, res.retryAfterMs)
    }
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
      if (isBotWall(res.status, res.body.toString('latin1'))) {
        throw new FetchError('BOT_WALL', `HTTP ${res.status} from ${res.url}: a bot wall's challenge page`, res.status)
      }
      throw new FetchError('HTTP_STATUS', `HTTP ${res.status} from ${res.url}`, res.status)
    }
    const mime = res.contentType.split(';')[0].trim()
    if (!HTML_TYPES.test(mime)) throw new FetchError('NOT_HTML', `${res.url} is ${mime}, not an HTML page`)
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

  private async timed (url: string, req: FetchRequest) {
    const started = performance.now()
    const seconds = () => (performance.now() - started) / 1000
    try {
      const res = await this.fetcher.fetch(url, req)
      const outcome = res.notModified ? 'not_modified' : res.status >= 400 ? 'http_error' : 'ok'
      this.events.emit('fetched', { seconds: seconds(), outcome })
      return res
    } catch (err) {
      this.events.emit('fetched', { seconds: seconds(), outcome: 'failed' })
      throw err
    }
  }

  async close (): Promise<void> {
    await this.renderer.close()
    await this.fetcher.close()
  }
}
