import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../errors.js'

// Every error leaves in the contract's envelope: {error, code, details?}, or the nested
// {error: {code, message}} for 401. Bodies Fastify or a plugin would write (malformed
// JSON, wrong content type, oversized body, unknown route) are translated here too.

export function sendError (reply: FastifyReply, err: AppError): FastifyReply {
  if (err.statusCode === 401) return reply.code(401).send({ error: { code: 'UNAUTHORIZED', message: err.message } })
  return reply.code(err.statusCode).send({ error: err.message, code: err.code, ...(err.details ? { details: err.details } : {}) })
}

function fieldOf (e: FastifyError): string {
  const v = e.validation?.[0]
  if (!v) return 'body'
  const missing = (v.params as { missingProperty?: string })?.missingProperty
  const extra = (v.params as { additionalProperty?: string })?.additionalProperty
  const path = v.instancePath.replace(/^\//, '').replace(/\//g, '.')
  const leaf = missing ?? extra
  const base = e.validationContext ?? 'body'
  return [base === 'querystring' ? 'query' : base, path, leaf].filter(Boolean).join('.')
}

export function translate (err: FastifyError | AppError | Error): AppError {
  if (err instanceof AppError) return err
  const e = err as FastifyError
  if (e.validation) {
    const field = fieldOf(e)
    const first = e.validation[0]
    const detail = first ? `${field} ${first.message ?? 'is invalid'}` : e.message
    return new AppError('VALIDATION_ERROR', detail, {
      field,
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
  if (err instanceof SyntaxError || e.statusCode === 400) return new AppError('VALIDATION_ERROR', 'request body is not valid JSON', { field: 'body' })
  if (e.statusCode === 404) return new AppError('NOT_FOUND', 'route not found')
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) return new AppError('VALIDATION_ERROR', e.message, { field: 'request' })
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
