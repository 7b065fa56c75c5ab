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

/** Why a fetch did not give us a page; `message` is what a user sees in `lastError`. */
export class FetchError extends Error {
  constructor (
    readonly code: FetchErrorCode,
    message: string
  ) {
    super(message)
  }
}
