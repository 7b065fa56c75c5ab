export type FetchErrorCode =
  | 'BLOCKED_ADDRESS'
  | 'DNS'
  | 'TIMEOUT'
  | 'TOO_LARGE'
  | 'TOO_MANY_REDIRECTS'
  | 'HTTP_STATUS'
  | 'NETWORK'
  | 'ROBOTS_DISALLOWED'
  | 'NOT_HTML'
  | 'BAD_URL'
  | 'BOT_WALL'
  | 'CHALLENGE_UNPASSED'
  | 'RENDER_FAILED'
  | 'BROWSER_UNAVAILABLE'
  | 'BAD_DOCUMENT'
  | 'EMPTY_PAGE'

// What trying again cannot change: the page's size, a redirect loop, what the page is,
// what robots.txt and the SSRF guard say. Timeouts, resets, DNS and 5xx may pass.
const PERMANENT: ReadonlySet<FetchErrorCode> = new Set([
  'BLOCKED_ADDRESS',
  'TOO_LARGE',
  'TOO_MANY_REDIRECTS',
  'ROBOTS_DISALLOWED',
  'NOT_HTML',
  'BAD_URL',
  'BAD_DOCUMENT',
  'EMPTY_PAGE'
])

/** 4xx answers that do say "later": request timeout, too early, too many requests. */
const RETRYABLE_4XX = new Set([408, 425, 429])

/** Why a fetch did not give us a page; `message` is what a user sees in `lastError`. */
export class FetchError extends Error {
  constructor (
    readonly code: FetchErrorCode,
    message: string,
    /** The HTTP status, for HTTP_STATUS. */
    readonly status?: number
  ) {
    super(message)
  }

  /** Whether fetching again soon would fail the same way (so no retry is spent on it). */
  get permanent (): boolean {
    if (this.code === 'HTTP_STATUS') {
      return this.status !== undefined && this.status >= 400 && this.status < 500 && !RETRYABLE_4XX.has(this.status)
    }
    return PERMANENT.has(this.code)
  }
}

/**
 * A request not written: when its socket was ready to write it, its turn at the host had
 * passed (see FetchRequest.atWrite). Nothing reached the host; the caller takes another turn.
 */
export class TurnPassed extends Error {
  constructor (readonly host: string) {
    super(`${host}: the request's turn had passed when it was to be written`)
  }
}
