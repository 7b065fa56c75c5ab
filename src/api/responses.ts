import { Type, type TSchema } from '@sinclair/typebox'
import { decodeCursor, encodeCursor, type Cursor } from '../store/lists.js'
import { validation } from '../vocabulary/errors.js'
import { AuthErrorBody, ErrorBody, ListMeta } from './schemas.js'

// What a route documents beside its body: its answers (success and every error, with the
// headers each carries) and its pagination.

// Headers every /api response carries, for the OpenAPI description.
const rateLimitHeaders = {
  'X-RateLimit-Limit': { type: 'integer', description: "requests allowed in the window of this endpoint's tier" },
  'X-RateLimit-Remaining': { type: 'integer', description: 'requests left in the window' },
  'X-RateLimit-Reset': { type: 'integer', description: 'Unix time (seconds) when the window resets' },
  'X-Trace-Id': {
    type: 'string',
    description: "the request's trace id (echoed when supplied and sane, else generated)"
  }
}

const errorDescriptions: Record<number, string> = {
  400: 'VALIDATION_ERROR: an invalid body, query or path value; details.field names it',
  401: 'missing or invalid API key (nested envelope)',
  402: 'QUOTA_EXCEEDED or TRIAL_EXPIRED',
  403: 'FORBIDDEN: the plan has no API access',
  404: 'NOT_FOUND: missing, or owned by another organisation',
  409: 'CONFLICT: already exists',
  413: 'PAYLOAD_TOO_LARGE: the body is over 1 MiB',
  429: 'RATE_LIMITED: see Retry-After',
  500: 'INTERNAL_ERROR',
  503: 'SERVICE_UNAVAILABLE: the database cannot be reached just now (a restart or failover); retry after Retry-After'
}

const retryAfter: Record<number, Record<string, unknown>> = {
  429: { 'Retry-After': { type: 'integer', description: 'seconds until the window resets' } },
  503: { 'Retry-After': { type: 'integer', description: 'seconds to wait before trying again' } }
}

const withHeaders = (schema: TSchema, description: string, extra: Record<string, unknown> = {}) => ({
  ...schema,
  description,
  headers: { ...rateLimitHeaders, ...extra }
})

/** The answer a route with a body may give to an oversized one: added to each such route's responses. */
export const tooLargeResponse = () => withHeaders(Type.Ref(ErrorBody), errorDescriptions[413])

/** Response map for a route: its success body plus every error it can return. */
export function responses (
  status: 200 | 201 | 202,
  data: TSchema,
  errors: number[],
  opts: { list?: boolean, description?: string } = {}
) {
  const success = Type.Object(opts.list ? { data, meta: Type.Ref(ListMeta) } : { data })
  const map: Record<number, unknown> = { [status]: withHeaders(success, opts.description ?? 'success') }
  for (const code of [...new Set([400, 401, 403, 429, 500, 503, ...errors])].sort((a, b) => a - b)) {
    const body = code === 401 ? Type.Ref(AuthErrorBody) : Type.Ref(ErrorBody)
    map[code] = withHeaders(body, errorDescriptions[code], retryAfter[code] ?? {})
  }
  return map
}

// A bound, so that no page number makes an offset PostgreSQL cannot hold.
const MAX_PAGE = 1_000_000

export const PageNumber = Type.Integer({
  minimum: 1,
  maximum: MAX_PAGE,
  default: 1,
  description: '1-based page number'
})

export const paginationFields = (defaultSize: number, maxSize: number) => ({
  page: PageNumber,
  pageSize: Type.Integer({ minimum: 1, maximum: maxSize, default: defaultSize })
})

export const Pagination = (defaultSize: number, maxSize: number) =>
  Type.Object(paginationFields(defaultSize, maxSize), { additionalProperties: false })

/** A history list's `cursor`: the previous page's `meta.nextCursor` (see store/lists.ts). */
export const CursorParam = Type.Optional(Type.String({
  minLength: 1,
  maxLength: 200,
  description: "the previous page's `meta.nextCursor`: the next page, read from where that one ended at the same " +
    'cost whatever its depth (a row added meanwhile does not shift it); with a cursor, `page` is ignored'
}))

/** The cursor a client sent, or a 400 if it is not one this service gave. */
export function readCursor (text: string | undefined): Cursor | undefined {
  if (text === undefined) return undefined
  const cursor = decodeCursor(text)
  if (!cursor) throw validation('cursor', 'cursor is not one this service gave')
  return cursor
}

/** A history list's query: page and pageSize as every list has, and a cursor. */
export const HistoryPagination = (defaultSize: number, maxSize: number) =>
  Type.Object({ ...paginationFields(defaultSize, maxSize), cursor: CursorParam }, { additionalProperties: false })

/** A history list's meta: the contract's, `totalCapped` when total is a lower bound, `nextCursor` when more follow. */
export const historyMeta = (
  counted: { total: number, capped?: boolean }, page: number, pageSize: number, next: Cursor | undefined
) => ({
  total: counted.total,
  page,
  pageSize,
  ...(counted.capped ? { totalCapped: true } : {}),
  ...(next ? { nextCursor: encodeCursor(next) } : {})
})
