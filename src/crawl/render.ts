import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Browser, Page, Route } from 'playwright-core'
import { OUTLINE_TAGS } from '../detection/detect.js'
import { blockBoxes, BROWSER_GONE, CHROMIUM_ARGS, MAX_BOXES, shippedChromium } from './chromium.js'
import { FetchError } from './errors.js'
import type { Fetcher, InTurn } from './fetch.js'
import { RenderSlots } from './render-slots.js'
import type { PictureBoxes } from '../vocabulary/outline.js'
import { CRAWL_WORK_NICE } from '../vocabulary/core.js'

export interface RendererOptions {
  /** Every request the browser makes is answered through this fetcher (SSRF guard, host map, limits). */
  fetcher: Fetcher
  /** The most renders at once (BROWSER_CONCURRENCY): fewer while the machine is short of memory (render-slots.ts). */
  concurrency: number
  /** Hard limit of one render, from navigation to the last byte of its screenshot. */
  timeoutMs: number
  /** The page is settled once no request has been in flight for this long. */
  quietMs: number
  /** The browser is started afresh after this many pages. */
  restartAfter: number
  /** A system Chromium (CHROMIUM_PATH); otherwise the one @sparticuz/chromium ships. */
  executablePath?: string
  /** The memory available (MB), which sizes the renders at once (render-slots.ts); tests give their own. */
  availableMb?: () => number
}

/** Sends one request to a host in its turn (Crawler.polite); `signal` ends the wait when the render does. */
export type PoliteRequest = <T>(url: string, request: (inTurn: InTurn) => Promise<T>, signal: AbortSignal) => Promise<T>

/** Kept back from a render's time for its screenshot (at most a quarter of that time). */
const SCREENSHOT_RESERVE_MS = 3000

export interface RenderRequest {
  /**
   * Whether to take a screenshot; a function is asked with the settled page's HTML while
   * the page is still open (a picture only when the text moved, say).
   */
  screenshot: boolean | ((html: string) => Promise<boolean>)
  /** Hidden before the screenshot is taken (the page's ignoreSelectors). */
  hideSelectors?: readonly string[]
}

/** What a render knows of its page as it goes: requests in flight, the last activity, its document's answer. */
interface RenderState {
  /** Aborted when the render ends: requests still waiting for a turn give it up. */
  ended: AbortController
  /** The page's host: a script that sends the page to another is not followed. */
  host: string
  /** The main frame's documents asked for so far (the first is the page's own). */
  documents: number
  /** Where a script tried to send the page, refused (an error page, another host). */
  strayed: string | undefined
  inflight: number
  lastActivity: number
  status: number
  challenge: boolean
  error: unknown
}

export interface Rendered {
  url: string
  status: number
  /** The page's last document said it is a bot wall's challenge (see FetchResult.challenge). */
  challenge?: boolean
  html: string
  screenshot?: Buffer
  /** Where its blocks are in the screenshot (see PictureBoxes). */
  boxes?: PictureBoxes
}

const VIEWPORT = { width: 1280, height: 800 }
const MAX_SCREENSHOT_HEIGHT = 8000
const MAX_REQUESTS = 300
/** After a failed start, pages wait this long before the next attempt instead of each trying. */
const RELAUNCH_AFTER_FAILURE_MS = 60_000

/**
 * A bounded pool of renders in one headless Chromium driven by playwright-core. Each
 * page gets a fresh context (no downloads, pop-ups, permissions or service workers),
 * every request it makes is answered by the service's own fetcher, and a render that
 * crashes or hangs fails (its job is retried) and restarts the browser; a browser that
 * dies under a render is started again and the render run again, spending no attempt.
 */
export class BrowserRenderer {
  private launched: Promise<LaunchedBrowser> | undefined
  private launches = 0
  private pagesSinceLaunch = 0
  private launchFailure: { at: number, message: string } | undefined
  private running = 0
  private readonly waiting: Array<() => void> = []
  private closed = false
  /**
   * A page's renderer did not close (a busy loop): the browser is restarted once the renders
   * in flight have ended, not under them; no render starts in it meanwhile.
   */
  private restartWanted = false
  private readonly slots: RenderSlots

  constructor (private readonly opts: RendererOptions) {
    this.slots = new RenderSlots(opts.concurrency, opts.availableMb)
  }

  /**
   * Renders `url`. With `polite`, each of the page's documents (its navigation, and a
   * reload after a challenge) takes its host's turn when it is written, as a crawl's
   * request does. Its scripts, styles and calls are one visit's, loaded as a browser loads
   * them: spaced by the host's delay, a page of 40 would outlast the render's deadline and
   * be read half-loaded.
   */
  async render (url: string, req: RenderRequest, polite?: PoliteRequest): Promise<Rendered> {
    await this.acquire()
    try {
      for (let tries = 1; ; tries++) {
        const { browser } = await this.browser()
        this.pagesSinceLaunch++
        try {
          return await this.renderIn(browser, url, req, polite)
        } catch (err) {
          // A browser that went away under the check (crashed, killed, short of memory) is
          // no fault of the page's: once, the check runs again in a new browser, within
          // the same attempt; a page that takes its browser down twice fails as any other.
          if (tries > 1 || (browser.isConnected() && !BROWSER_GONE.test((err as Error).message))) throw err
          await this.restart()
        }
      }
    } finally {
      this.release()
      if (this.pagesSinceLaunch >= this.opts.restartAfter && this.running === 0) void this.restart()
    }
  }

  private async acquire (): Promise<void> {
    if (!this.restartWanted && this.waiting.length === 0 && this.running < this.slots.allowed()) {
      this.running++
      return
    }
    await new Promise<void>(resolve => this.waiting.push(resolve))
  }

  private release (): void {
    this.running--
    if (this.restartWanted && this.running === 0) {
      this.restartWanted = false
      void this.restart()
    }
    // Fewer at once on a machine short of memory, more again once it has room (render-slots.ts).
    while (!this.restartWanted && this.waiting.length > 0 && this.running < this.slots.allowed()) {
      this.running++
      this.waiting.shift()!()
    }
  }

  private async browser (): Promise<LaunchedBrowser> {
    if (this.closed) throw new FetchError('RENDER_FAILED', 'the service is stopping')
    if (this.launchFailure && Date.now() - this.launchFailure.at < RELAUNCH_AFTER_FAILURE_MS) {
      throw new FetchError('BROWSER_UNAVAILABLE', this.launchFailure.message)
    }
    this.launched ??= this.launch()
    try {
      return await this.launched
    } catch (err) {
      this.launched = undefined
      const message = `no browser could start (${(err as Error).message.split('\n')[0]}); ` +
        'set CHROMIUM_PATH to a Chromium or Chrome binary'
      this.launchFailure = { at: Date.now(), message }
      throw new FetchError('BROWSER_UNAVAILABLE', message)
    }
  }

  /**
   * Starts Chromium, driven over its pipe from this process. (A browser server reached over a
   * WebSocket cost the main thread about 40 ms a page more, most of it a second copy of every
   * answer's body: each message went out as JSON, compressed, and was read back in.)
   */
  private async launch (): Promise<LaunchedBrowser> {
    const { chromium } = await import('playwright-core')
    const executablePath = this.yielding(this.opts.executablePath ?? await shippedChromium())
    const pidFile = this.launcher && join(this.launcher.dir, `pid-${++this.launches}`)
    const browser = await chromium.launch({
      executablePath,
      args: CHROMIUM_ARGS,
      headless: true,
      ...(pidFile ? { env: { ...process.env, [PID_FILE_VARIABLE]: pidFile } } : {})
    })
    browser.on('disconnected', () => {
      void this.restart(browser)
    })
    this.pagesSinceLaunch = 0
    this.launchFailure = undefined
    return { browser, pid: pidFile ? takePid(pidFile) : undefined }
  }

  /**
   * Ends the browser (its process group killed if it does not close in 3 s); the next render
   * starts a new one. `gone`: only if it is still that browser (its disconnection, heard after
   * a restart, would otherwise end the next browser under its first render, and that one's the next).
   */
  private async restart (gone?: Browser): Promise<void> {
    const current = this.launched
    if (!current) return
    if (gone && (await current.catch(() => undefined))?.browser !== gone) return
    if (this.launched !== current) return
    this.launched = undefined
    const launched = await current.catch(() => undefined)
    if (!launched) return
    const closing = launched.browser.close().then(() => true, () => true)
    const closed = await Promise.race([closing, sleep(3000).then(() => false)])
    if (closed || launched.pid === undefined) return
    try {
      // Chromium leads a process group of its own (Playwright starts it detached): its renderers go with it.
      process.kill(-launched.pid, 'SIGKILL')
    } catch { /* gone meanwhile */ }
  }

  private async renderIn (
    browser: Browser, url: string, req: RenderRequest, polite?: PoliteRequest
  ): Promise<Rendered> {
    const deadline = Date.now() + this.opts.timeoutMs
    const context = await browser.newContext({
      acceptDownloads: false,
      serviceWorkers: 'block',
      viewport: VIEWPORT,
      permissions: [],
      javaScriptEnabled: true
    })
    const state = {
      ended: new AbortController(),
      host: new URL(url).host,
      documents: 0,
      strayed: undefined as string | undefined,
      inflight: 0,
      lastActivity: Date.now(),
      requests: 0,
      status: 0,
      challenge: false,
      error: undefined as unknown
    }
    let page: Page | undefined
    let settled = false
    try {
      await context.routeWebSocket(/.*/, ws => {
        void ws.close({ code: 1008, reason: 'not available while monitoring' })
      })
      await context.route('**/*', async route => {
        // Nothing may escape a route handler: Playwright would leave it an unhandled rejection.
        await this.answer(route, req, state, page, polite)
          .catch(async () => await route.abort('failed').catch(() => {}))
      })
      page = await context.newPage()
      context.on('page', popup => {
        if (popup !== page) void popup.close().catch(() => {})
      })
      page.on('dialog', dialog => {
        void dialog.dismiss().catch(() => {})
      })
      const main = page.mainFrame()
      page.on('framenavigated', frame => {
        if (frame === main) state.lastActivity = Date.now()
      })
      const work = this.settle(page, url, req, state, deadline)
      const result = await Promise.race([
        work,
        sleep(Math.max(1, deadline - Date.now()) + 1000).then(() => undefined)
      ])
      if (!result) throw new FetchError('RENDER_FAILED', `${url} did not settle within ${this.opts.timeoutMs} ms`)
      settled = true
      return result
    } finally {
      state.ended.abort()
      // Closing the page ends its renderer process, even one stuck in a busy loop; when
      // even that does not answer, the whole browser is restarted.
      const closing = (async () => {
        await page?.close({ runBeforeUnload: false })
        await context.close()
      })().then(() => true, () => true)
      if (!(await Promise.race([closing, sleep(settled ? 10_000 : 2000).then(() => false)]))) this.restartWanted = true
    }
  }

  private async settle (
    page: Page,
    url: string,
    req: RenderRequest,
    state: RenderState,
    deadline: number
  ): Promise<Rendered> {
    // The screenshot has time of its own: a page that never settles is photographed as far as it got.
    const settleBy = req.screenshot ? deadline - Math.min(SCREENSHOT_RESERVE_MS, this.opts.timeoutMs / 4) : deadline
    const left = () => Math.max(1, settleBy - Date.now())
    try {
      await page.goto(url, { waitUntil: 'load', timeout: left() })
    } catch (err) {
      if (state.error) throw state.error
      // A page that never finishes loading is read as far as it got; one whose script was not followed, as it was.
      if (!/Timeout/i.test((err as Error).message) && !state.strayed) {
        throw new FetchError('RENDER_FAILED', (err as Error).message)
      }
    }
    if (state.error) throw state.error
    while (Date.now() < settleBy - 200) {
      if (state.inflight === 0 && Date.now() - state.lastActivity >= this.opts.quietMs) break
      await sleep(50)
    }
    // A script that reloaded the page (a challenge passed) leaves a new document to load.
    await page.waitForLoadState('load', { timeout: left() }).catch(() => {})
    const html = await page.content()
    let screenshot: Buffer | undefined
    let boxes: PictureBoxes | undefined
    const wanted = typeof req.screenshot === 'function' ? await req.screenshot(html).catch(() => true) : req.screenshot
    if (wanted) {
      if (req.hideSelectors && req.hideSelectors.length > 0) {
        // A rule each: a selector the browser does not read (our :heading() and :section(), see
        // detection/text/selectors.ts) drops its own rule, not the others'.
        const rules = req.hideSelectors.map(s => `${s} { visibility: hidden !important; }`)
        await page.addStyleTag({ content: rules.join('\n') })
      }
      const height = await page.evaluate(() => document.documentElement.scrollHeight)
      screenshot = await page.screenshot({
        type: 'png',
        fullPage: true,
        animations: 'disabled',
        caret: 'hide',
        timeout: Math.max(1, deadline - Date.now()),
        clip: { x: 0, y: 0, width: VIEWPORT.width, height: Math.max(1, Math.min(height, MAX_SCREENSHOT_HEIGHT)) }
      }).catch(() => undefined) // the text was read; the check goes on without a picture this time
      if (screenshot) {
        boxes = await page.evaluate(blockBoxes, { tags: [...OUTLINE_TAGS], most: MAX_BOXES }).catch(() => undefined)
      }
    }
    return { url: page.url(), status: state.status || 200, challenge: state.challenge, html, screenshot, boxes }
  }

  /** Answers one request of the page through the fetcher: the browser never connects anywhere itself. */
  private async answer (
    route: Route,
    req: RenderRequest,
    state: RenderState & { requests: number },
    page: Page | undefined,
    polite: PoliteRequest | undefined
  ): Promise<void> {
    const request = route.request()
    const type = request.resourceType()
    const method = request.method()
    const isDocument = request.isNavigationRequest() && (!page || mainFrameOf(request) === page.mainFrame())
    if (
      !/^https?:/.test(request.url()) ||
      (method !== 'GET' && method !== 'POST') ||
      (!req.screenshot && (type === 'image' || type === 'media' || type === 'font')) ||
      ++state.requests > MAX_REQUESTS
    ) {
      await route.abort('blockedbyclient').catch(() => {})
      return
    }
    state.inflight++
    state.lastActivity = Date.now()
    const first = isDocument && state.documents++ === 0
    try {
      const headers = await request.allHeaders()
      const url = request.url()
      const send = async (inTurn: InTurn) => await this.opts.fetcher.fetch(url, {
        cookie: headers.cookie,
        accept: headers.accept,
        method,
        body: request.postData() ?? undefined,
        bodyType: headers['content-type'],
        ...inTurn
      })
      const res = polite && isDocument ? await polite(url, send, state.ended.signal) : await send({})
      // A script that sends the page astray (to an error page, to another host) is not followed: the page stays
      // the document it was, and is read as such. (A reload to the same host after a challenge is followed.)
      const astray = isDocument && !first && (res.status >= 400 || new URL(res.url).host !== state.host)
      if (astray) {
        state.strayed = `its script went to ${res.url} (HTTP ${res.status})`
        await route.abort('aborted').catch(() => {})
        return
      }
      if (isDocument) [state.status, state.challenge] = [res.status, res.challenge]
      await route.fulfill({
        status: res.status,
        headers: {
          'content-type': res.contentType || 'application/octet-stream',
          ...(res.setCookies.length > 0 ? { 'set-cookie': res.setCookies.join('\n') } : {})
        },
        body: res.body
      })
    } catch (err) {
      // The page's own document that cannot be fetched fails the render; a script's later one is not followed.
      if (first) state.error = err
      // A later document aborted, not failed: Chromium would show its own error page in its place.
      const reason = isDocument && !first
        ? 'aborted'
        : err instanceof FetchError && err.code === 'BLOCKED_ADDRESS' ? 'addressunreachable' : 'failed'
      await route.abort(reason).catch(() => {})
    } finally {
      state.inflight--
      state.lastActivity = Date.now()
    }
  }

  async close (): Promise<void> {
    this.closed = true
    await this.restart()
    if (this.launcher) rmSync(this.launcher.dir, { recursive: true, force: true })
  }

  private launcher: { dir: string, path: string } | undefined

  /**
   * The browser's command, as it runs at CRAWL_WORK_NICE (Linux): rendering is the crawl's
   * work. Run as root, Chromium raises its own "display critical" threads to nice -8, above
   * every thread of the service (the API's, the embedded database's), which then wait for the
   * browser's turn at the cores. Where util-linux's setpriv can, the browser starts
   * without the right to raise a priority (CAP_SYS_NICE, out of its bounding set), so its
   * threads stay where it started; elsewhere (not root) it could not raise them anyway. The
   * command is a script in a directory of this process's own, removed at close; without
   * `nice`, or without a directory to write it in, the browser starts as it is.
   */
  private yielding (executablePath: string): string {
    if (process.platform !== 'linux') return executablePath
    const browser = `'${executablePath.replaceAll("'", "'\\''")}'`
    const nice = `nice -n ${CRAWL_WORK_NICE} ${browser} "$@"`
    const unraised = 'setpriv --bounding-set -sys_nice --'
    try {
      if (!this.launcher) {
        const dir = mkdtempSync(join(tmpdir(), 'sitewatch-browser-'))
        this.launcher = { dir, path: join(dir, 'chromium') }
      }
      writeFileSync(this.launcher.path, [
        '#!/bin/sh',
        // exec keeps the process: its pid is the browser's (see restart).
        `[ -n "$${PID_FILE_VARIABLE}" ] && echo $$ > "$${PID_FILE_VARIABLE}"`,
        `command -v nice >/dev/null || exec ${browser} "$@"`,
        `if ${unraised} true 2>/dev/null; then exec ${unraised} ${nice}; fi`,
        `exec ${nice}`,
        ''
      ].join('\n'), { mode: 0o700 })
      return this.launcher.path
    } catch {
      // No temporary directory to write in: the browser starts as it is, at its own priority.
      return executablePath
    }
  }
}

interface LaunchedBrowser {
  browser: Browser
  /** Its process, which leads its group, when the command that started it said (see yielding). */
  pid: number | undefined
}

/** Where the browser's command writes its process id. */
const PID_FILE_VARIABLE = 'SITEWATCH_BROWSER_PID_FILE'

/** The process id `file` holds (then removed), if any. */
function takePid (file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim())
    rmSync(file, { force: true })
    return Number.isInteger(pid) && pid > 1 ? pid : undefined
  } catch {
    return undefined
  }
}

/** The frame of a request, or undefined for a pop-up's first navigation (whose frame does not exist yet). */
function mainFrameOf (request: ReturnType<Route['request']>) {
  try {
    return request.frame()
  } catch {
    return undefined
  }
}
