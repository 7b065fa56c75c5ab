import { randomUUID } from 'node:crypto'
import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../vocabulary/errors.js'
import { isDatabaseUnavailable } from '../store/db.js'

// Every error leaves in the contract's envelope: {error, code, details?}, or the nested
// {error: {code, message}} for 401. Bodies Fastify or a plugin would write (malformed
// JSON, wrong content type, oversized body, unknown route) are translated here too.

/** Seconds a client is asked to wait when the database cannot be reached. */
export const UNAVAILABLE_RETRY_AFTER = 5

export const databaseUnavailable = () =>
  new AppError('SERVICE_UNAVAILABLE', 'the database cannot be reached just now; try again shortly', {
    retryAfter: UNAVAILABLE_RETRY_AFTER
  })

export function sendError (reply: FastifyReply, err: AppError): FastifyReply {
  if (err.statusCode === 503) reply.header('Retry-After', UNAVAILABLE_RETRY_AFTER)
  if (err.statusCode === 401) return reply.code(401).send({ error: { code: 'UNAUTHORIZED', message: err.message } })
  return reply
    .code(err.statusCode)
    .send({ error: err.message, code: err.code, ...(err.details ? { details: err.details } : {}) })
}

/** The offending field, as a client named it: `domain`, `page`, `id`; and where it was. */
function fieldOf (e: FastifyError): { field: string, location: string } {
  const base = e.validationContext ?? 'body'
  const location = base === 'querystring' ? 'query' : base
  const v = e.validation?.[0]
  if (!v) return { field: location, location }
  const params = v.params as { missingProperty?: string, additionalProperty?: string }
  const path = v.instancePath.replace(/^\//, '').replace(/\//g, '.')
  const field = [path, params?.missingProperty ?? params?.additionalProperty].filter(Boolean).join('.')
  return { field: field || location, location }
}

/** Ajv's message, with the allowed values named where it only says there are some. */
function messageOf (v: { keyword: string, message?: string, params?: unknown }): string {
  const allowed = (v.params as { allowedValues?: unknown[] } | undefined)?.allowedValues
  if (v.keyword === 'enum' && allowed) return `must be one of: ${allowed.join(', ')}`
  return v.message ?? 'is invalid'
}

export function translate (err: FastifyError | AppError | Error): AppError {
  if (err instanceof AppError) return err
  if (isDatabaseUnavailable(err)) return databaseUnavailable()
  const e = err as FastifyError
  if (e.validation) {
    const { field, location } = fieldOf(e)
    const first = e.validation[0]
    const detail = first
      ? `${location === 'body' ? '' : `${location} parameter `}${field} ${messageOf(first)}`
      : e.message
    return new AppError('VALIDATION_ERROR', detail, {
      field,
      location,
      issues: e.validation.map(v => ({ path: v.instancePath || '/', message: messageOf(v) }))
    })
  }
  switch (e.code) {
    case 'FST_ERR_BAD_URL':
      return new AppError('VALIDATION_ERROR', 'the URL path has a malformed percent-escape', { field: 'url' })
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('VALIDATION_ERROR', 'Content-Type must be application/json', { field: 'content-type' })
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'request body is too large (limit 1 MiB)', { field: 'body' })
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('VALIDATION_ERROR', 'request body is not valid JSON', { field: 'body' })
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('VALIDATION_ERROR', 'Content-Length does not match the body', { field: 'content-length' })
  }
  if (err instanceof SyntaxError || e.statusCode === 400) {
    return new AppError('VALIDATION_ERROR', 'request body is not valid JSON', { field: 'body' })
  }
  if (e.statusCode === 404) return new AppError('NOT_FOUND', 'route not found')
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    return new AppError('VALIDATION_ERROR', e.message, { field: 'request' })
  }
  return new AppError('INTERNAL_ERROR', 'internal server error')
}

export function errorHandler (this: FastifyInstance, err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const appErr = translate(err)
  if (appErr.statusCode === 503) request.log.warn({ err: err.message }, 'database unavailable')
  else if (appErr.statusCode >= 500) request.log.error({ err }, 'request failed')
  else request.log.info({ code: appErr.code, status: appErr.statusCode }, appErr.message)
  return sendError(reply, appErr)
}

export function notFoundHandler (request: FastifyRequest, reply: FastifyReply) {
  return sendError(reply, new AppError('NOT_FOUND', `route ${request.method} ${request.url.split('?')[0]} not found`))
}

/** 404 for a path no route has; 405 with `Allow` for a path that other methods answer. */
export function unroutedHandler (methods: { allowed(path: string): string[] }) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0]
    const allowed = methods.allowed(path)
    if (allowed.length === 0 || allowed.includes(request.method)) return notFoundHandler(request, reply)
    reply.header('Allow', allowed.join(', '))
    const message = `${request.method} is not allowed on ${path}: use ${allowed.join(', ')}`
    return sendError(reply, new AppError('METHOD_NOT_ALLOWED', message))
  }
}

/** Fastify's own refusals before routing (a URL it cannot decode): the error handler's answer, with the trace id. */
export function frameworkErrorHandler (err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('X-Trace-Id', request.id)
  const appErr = translate(err)
  request.log.info({ code: appErr.code, status: appErr.statusCode }, appErr.message)
  return sendError(reply, appErr)
}

const PARSER_REFUSALS: Record<string, { status: number, reason: string, message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    message: 'the request headers are too large (limit 16 KiB)'
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: 'Request Timeout',
    message: 'the request did not arrive in time'
  }
}

/**
 * Answers a request that Node's HTTP parser refused (a malformed request line or header,
 * bare LF line ends, conflicting Content-Length and Transfer-Encoding, headers too large)
 * in the contract's envelope. The parser cannot find where the next request on this
 * connection would begin, so the answer says Connection: close and the socket is closed.
 */
export function clientErrorHandler (this: FastifyInstance, err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const known = PARSER_REFUSALS[err.code ?? '']
  const status = known?.status ?? 400
  const body = JSON.stringify({
    error: known?.message ?? 'the request is not valid HTTP/1.1',
    code: 'VALIDATION_ERROR'
  })
  const traceId = randomUUID()
  this.log.info({ traceId, code: err.code, status }, 'request refused by the HTTP parser')
  if (!socket.writable) {
    socket.destroy()
    return
  }
  socket.end(
    `HTTP/1.1 ${status} ${known?.reason ?? 'Bad Request'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Trace-Id: ${traceId}\r\n` +
      'Connection: close\r\n\r\n' +
      body
  )
}
