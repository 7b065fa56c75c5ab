import { createServer } from 'node:http'
import { isIP, type AddressInfo } from 'node:net'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import type { Readable } from 'node:stream'
import { Agent, DecoratorHandler, request, type Dispatcher } from 'undici'
import { isPublicAddress, publicOnlyLookup } from './address.js'
import { FetchError, TurnPassed } from './errors.js'

export const USER_AGENT = 'SitewatchBot/1.0 (+https://sitewatch.dev/bot; website change monitoring)'
export const ROBOTS_AGENT = 'SitewatchBot'
const MAX_VALIDATOR = 512
const MAX_CONTENT_TYPE = 255

export interface FetcherOptions {
  hostMap: ReadonlyMap<string, URL>
  allowPrivateNetworks: boolean
  timeoutMs: number
  maxBytes: number
  maxRedirects?: number
}

export interface FetchRequest {
  etag?: string | null
  lastModified?: string | null
  accept?: string
  maxBytes?: number
  /** Streams the (decompressed) body here instead of buffering it: for sitemaps of any size. */
  onData?: (chunk: Buffer) => void
  /** Ends the request early (a discovery's deadline or lease): it rejects with the signal's reason. */
  signal?: AbortSignal
  /** A browser's request passed on (see render.ts): its cookies and, for a form or XHR, method and body. */
  cookie?: string
  method?: 'GET' | 'POST'
  body?: string
  bodyType?: string
  /**
   * Asked when the request is about to be written on its socket (after any wait for a
   * connection, on a busy event loop): false, and it is not written (TurnPassed). A host's
   * turn is kept on the wire, not only when the request is handed to undici.
   */
  atWrite?: () => boolean
}

/** What a request sent in a host's turn carries to the fetcher (see Crawler.polite). */
export type InTurn = Pick<FetchRequest, 'atWrite'>

// undici's types leave out the handler methods DecoratorHandler forwards.
const decorated = DecoratorHandler.prototype as Dispatcher.DispatchHandler

/** A request's handler that asks `atWrite` whether it may still be written, when undici is about to write it. */
class WrittenInTurn extends DecoratorHandler {
  constructor (
    handler: Dispatcher.DispatchHandler, private readonly atWrite: () => boolean, private readonly host: string
  ) {
    super(handler)
  }

  onRequestStart (controller: Dispatcher.DispatchController, context: unknown): void {
    decorated.onRequestStart!.call(this, controller, context)
    if (!controller.aborted && !this.atWrite()) controller.abort(new TurnPassed(this.host))
  }
}

export interface FetchResult {
  /** The final URL, after redirects, with its real host. */
  url: string
  status: number
  notModified: boolean
  contentType: string
  /** The Content-Language header, as sent. */
  contentLanguage: string | null
  body: Buffer
  etag: string | null
  lastModified: string | null
  retryAfterMs: number | undefined
  /** Set-Cookie headers of the final answer, for a browser that asked through us. */
  setCookies: string[]
  /** The answer says it is a bot wall's challenge (Cloudflare's `cf-mitigated: challenge`). */
  challenge: boolean
}

export interface PostResult {
  status: number
  body: string
  durationMs: number
}

export interface Fetcher {
  fetch(url: string, req?: FetchRequest): Promise<FetchResult>
  /** One POST, not redirected, through the same address checks (for webhooks). */
  post(url: string, body: string, headers: Record<string, string>): Promise<PostResult>
  /**
   * Sends one request to a loopback server of its own. A process's first request runs
   * undici's cold paths (lazy modules, the HTTP parser, the JIT): about 25 ms on an idle
   * machine, more under load. Spent on a crawl, that time would fall between the check of
   * a host's turn and the request, and bring it that much closer to the host's next one.
   */
  warm(): Promise<void>
  close(): Promise<void>
}

export function createFetcher (opts: FetcherOptions): Fetcher {
  const timeouts = { headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs, keepAliveTimeout: 4000 }
  const guarded = new Agent({ ...timeouts, connect: { timeout: opts.timeoutMs, lookup: publicOnlyLookup as any } })
  // Mapped hosts (CRAWL_HOST_MAP) and, when allowed, private networks skip the address check.
  const open = new Agent({ ...timeouts, connect: { timeout: opts.timeoutMs } })
  const maxRedirects = opts.maxRedirects ?? 5

  async function once (
    target: URL,
    req: FetchRequest & { extraHeaders?: Record<string, string> },
    signal: AbortSignal,
    hostMap = opts.hostMap
  ): Promise<Dispatcher.ResponseData & { realUrl: URL }> {
    const mapped = hostMap.get(target.hostname)
    let requestUrl = target
    let dispatcher: Dispatcher = guarded
    if (mapped) {
      requestUrl = new URL(target.pathname + target.search, mapped)
      dispatcher = open
    } else if (opts.allowPrivateNetworks) {
      dispatcher = open
    } else if (
      isIP(target.hostname.replace(/^\[|\]$/g, '')) &&
      !isPublicAddress(target.hostname.replace(/^\[|\]$/g, ''))
    ) {
      throw new FetchError('BLOCKED_ADDRESS', `${target.hostname} is not a public address`)
    }
    const headers: Record<string, string> = {
      'user-agent': USER_AGENT,
      accept: req.accept ?? 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5',
      'accept-encoding': 'gzip, deflate, br',
      'accept-language': 'en'
    }
    if (mapped) headers.host = target.host
    if (req.etag) headers['if-none-match'] = req.etag
    if (req.lastModified) headers['if-modified-since'] = req.lastModified
    if (req.cookie) headers.cookie = req.cookie
    if (req.bodyType) headers['content-type'] = req.bodyType
    Object.assign(headers, req.extraHeaders)
    const atWrite = req.atWrite
    if (atWrite) {
      dispatcher = dispatcher.compose(dispatch => (options, handler) =>
        dispatch(options, new WrittenInTurn(handler, atWrite, target.host)))
    }
    try {
      const res = await request(requestUrl, {
        method: req.method ?? 'GET',
        headers,
        body: req.body,
        dispatcher,
        signal
      })
      return Object.assign(res, { realUrl: target })
    } catch (err) {
      if (err instanceof TurnPassed) throw err
      throw toFetchError(err, target)
    }
  }

  async function fetchUrl (url: string, req: FetchRequest, hostMap = opts.hostMap): Promise<FetchResult> {
    try {
      return await fetchWithin(url, req, hostMap)
    } catch (err) {
      if (req.signal?.aborted) throw req.signal.reason
      throw err
    }
  }

  async function fetchWithin (url: string, req: FetchRequest, hostMap: ReadonlyMap<string, URL>): Promise<FetchResult> {
    let target: URL
    try {
      target = new URL(url)
    } catch {
      throw new FetchError('BAD_URL', `not a URL: ${url}`)
    }
    const timeout = AbortSignal.timeout(Math.ceil(opts.timeoutMs * 2))
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout
    for (let hop = 0; ; hop++) {
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        throw new FetchError('BAD_URL', `unsupported scheme ${target.protocol}`)
      }
      // A redirect's request follows its answer at once: the turn was the first request's.
      const hopReq = hop === 0 ? req : { ...req, method: 'GET' as const, body: undefined, atWrite: undefined }
      const res = await once(target, hopReq, signal, hostMap)
      if (res.statusCode >= 300 && res.statusCode < 400 && res.statusCode !== 304) {
        const location = res.headers.location
        await res.body.dump().catch(() => {})
        if (typeof location !== 'string') {
          throw new FetchError('HTTP_STATUS', `HTTP ${res.statusCode} without a Location`)
        }
        if (hop >= maxRedirects) {
          throw new FetchError('TOO_MANY_REDIRECTS', `more than ${maxRedirects} redirects from ${url}`)
        }
        try {
          target = new URL(location, target)
        } catch {
          throw new FetchError('BAD_URL', `bad redirect Location: ${location}`)
        }
        continue
      }
      const header = (name: string) => {
        const v = res.headers[name]
        return Array.isArray(v) ? v[0] : (v ?? null)
      }
      // Validators are stored on the page to be sent back; one longer than any real
      // server's is dropped (the next request is unconditional) rather than kept.
      const validator = (name: string) => {
        const v = header(name)
        return v !== null && v.length <= MAX_VALIDATOR ? v : null
      }
      const contentType = (header('content-type') ?? '').slice(0, MAX_CONTENT_TYPE)
      const cookies = res.headers['set-cookie']
      const setCookies = cookies === undefined ? [] : Array.isArray(cookies) ? cookies : [cookies]
      const retryAfter = parseRetryAfter(header('retry-after'))
      const challenge = header('cf-mitigated')?.toLowerCase() === 'challenge'
      if (res.statusCode === 304) {
        await res.body.dump().catch(() => {})
        return {
          url: target.toString(),
          status: 304,
          notModified: true,
          contentType,
          contentLanguage: header('content-language')?.slice(0, MAX_CONTENT_TYPE) ?? null,
          body: Buffer.alloc(0),
          etag: validator('etag'),
          lastModified: validator('last-modified'),
          retryAfterMs: retryAfter,
          setCookies,
          challenge
        }
      }
      const body = await readBody(
        res.body,
        header('content-encoding'),
        req.maxBytes ?? opts.maxBytes,
        target,
        req.onData
      )
      return {
        url: target.toString(),
        status: res.statusCode,
        notModified: false,
        contentType,
        contentLanguage: header('content-language')?.slice(0, MAX_CONTENT_TYPE) ?? null,
        body,
        etag: validator('etag'),
        lastModified: validator('last-modified'),
        retryAfterMs: retryAfter,
        setCookies,
        challenge
      }
    }
  }

  return {
    fetch: async (url, req = {}) => await fetchUrl(url, req),
    async post (url, body, headers) {
      let target: URL
      try {
        target = new URL(url)
      } catch {
        throw new FetchError('BAD_URL', `not a URL: ${url}`)
      }
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        throw new FetchError('BAD_URL', `unsupported scheme ${target.protocol}`)
      }
      const started = performance.now()
      const res = await once(
        target,
        { method: 'POST', body, extraHeaders: { 'content-type': 'application/json', accept: '*/*', ...headers } },
        AbortSignal.timeout(Math.ceil(opts.timeoutMs))
      )
      let text = ''
      try {
        text = (await readBody(res.body, null, 4096, target).catch(() => Buffer.alloc(0))).toString('utf8')
      } catch {
        /* the status is what counts */
      }
      return { status: res.statusCode, body: text, durationMs: Math.round(performance.now() - started) }
    },
    async warm () {
      const server = createServer((_req, res) => { res.end() })
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve))
      try {
        const { port } = server.address() as AddressInfo
        await fetchUrl('http://warm.invalid/', {}, new Map([['warm.invalid', new URL(`http://127.0.0.1:${port}`)]]))
      } finally {
        server.closeAllConnections()
        server.close()
      }
    },
    // Requests still in flight at shutdown are abandoned: their jobs were handed back.
    async close () {
      await Promise.all([guarded.destroy(), open.destroy()])
    }
  }
}

function parseRetryAfter (value: string | null): number | undefined {
  if (!value) return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now())
}

async function readBody (
  body: Readable,
  encoding: string | null,
  maxBytes: number,
  url: URL,
  onData?: (chunk: Buffer) => void
): Promise<Buffer> {
  const enc = (encoding ?? '').trim().toLowerCase()
  const decoder =
    enc === 'gzip' || enc === 'x-gzip'
      ? createGunzip()
      : enc === 'deflate'
        ? createInflate()
        : enc === 'br'
          ? createBrotliDecompress()
          : null
  const stream: Readable = decoder ? body.pipe(decoder) : body
  if (decoder) body.on('error', e => decoder.destroy(e))
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length
      // Counted after decompression, so a small compressed bomb is caught too.
      if (size > maxBytes) {
        body.destroy()
        decoder?.destroy()
        throw new FetchError('TOO_LARGE', `${url.toString()} is larger than ${Math.round(maxBytes / 1024)} KB`)
      }
      if (onData) onData(chunk as Buffer)
      else chunks.push(chunk as Buffer)
    }
  } catch (err) {
    if (err instanceof FetchError) throw err
    throw toFetchError(err, url)
  }
  return Buffer.concat(chunks)
}

function toFetchError (err: unknown, url: URL): FetchError {
  if (err instanceof FetchError) return err
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException }
  const code = e.code ?? e.cause?.code ?? ''
  const name = e.name ?? ''
  if (code === 'EBLOCKEDADDRESS' || e.cause?.code === 'EBLOCKEDADDRESS') {
    return new FetchError('BLOCKED_ADDRESS', e.cause?.message ?? e.message)
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new FetchError('DNS', `${url.hostname} does not resolve`)
  if (name === 'TimeoutError' || name === 'AbortError' || /TIMEOUT/.test(code)) {
    return new FetchError('TIMEOUT', `${url.toString()} timed out`)
  }
  return new FetchError('NETWORK', `${url.toString()}: ${e.message || code || 'network error'}`)
}
