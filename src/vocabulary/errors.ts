// Errors that carry their HTTP meaning; the API's error handler turns them into the
// contract's envelope. Code outside src/api throws these so it needs no HTTP knowledge.

export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHORIZED'
  | 'QUOTA_EXCEEDED'
  | 'TRIAL_EXPIRED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'SERVICE_UNAVAILABLE'

const STATUS: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  QUOTA_EXCEEDED: 402,
  TRIAL_EXPIRED: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503
}

export class AppError extends Error {
  readonly statusCode: number
  constructor (
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>
  ) {
    super(message)
    this.statusCode = STATUS[code]
  }
}

export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`)
export const validation = (field: string, message: string) => new AppError('VALIDATION_ERROR', message, { field })
