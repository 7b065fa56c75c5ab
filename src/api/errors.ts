import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../domain/errors.js'

// Every error leaves in the contract's envelope: {error, code, details?}, or the nested
// {error: {code, message}} for 401. Bodies Fastify or a plugin would write (malformed
// JSON, wrong content type, oversized body, unknown route) are translated here too.

export function sendError (reply: FastifyReply, err: AppError): FastifyReply {
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

export function translate (err: FastifyError | AppError | Error): AppError {
  if (err instanceof AppError) return err
  const e = err as FastifyError
  if (e.validation) {
    const { field, location } = fieldOf(e)
    const first = e.validation[0]
    const detail = first
      ? `${location === 'body' ? '' : `${location} parameter `}${field} ${first.message ?? 'is invalid'}`
      : e.message
    return new AppError('VALIDATION_ERROR', detail, {
      field,
      location,
      issues: e.validation.map(v => ({ path: v.instancePath || '/', message: v.message }))
    })
  }
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('VALIDATION_ERROR', 'Content-Type must be application/json', { field: 'content-type' })
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('VALIDATION_ERROR', 'request body is too large (limit 1 MiB)', { field: 'body' })
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
  if (appErr.statusCode >= 500) request.log.error({ err }, 'request failed')
  else request.log.info({ code: appErr.code, status: appErr.statusCode }, appErr.message)
  return sendError(reply, appErr)
}

export function notFoundHandler (request: FastifyRequest, reply: FastifyReply) {
  return sendError(reply, new AppError('NOT_FOUND', `route ${request.method} ${request.url.split('?')[0]} not found`))
}
