import type { IncomingMessage, ServerResponse } from 'node:http'
import { randomUUID } from 'node:crypto'
import zlib from 'node:zlib'
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import compress from '@fastify/compress'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { ApiDeps } from './deps.js'
import { clientErrorHandler, errorHandler, frameworkErrorHandler, unroutedHandler } from './errors.js'
import { RouteMethods } from './methods.js'
import { Principals } from '../services/principals.js'
import { requestScope, serveRequest } from '../store/urgency.js'
import { guard } from './guard.js'
import { KeptAnswers } from './validators.js'
import { addInputChecks, validatorCompilers } from './input.js'
import { serializerCompilers } from './output.js'
import { SHARED_SCHEMAS } from './schemas.js'
import { ALERT_SCHEMAS } from './schemas-alerts.js'
import { tooLargeResponse } from './responses.js'
import type { Mailer } from '../mail/mailer.js'
import { openApiDocs } from './openapi.js'
import { adminApi, operatorProbes } from './operator.js'
import { rateLimitStore } from './rate-limits.js'
import { changeRoutes } from './routes/changes.js'
import { feedbackRoutes } from './routes/feedback.js'
import { pageEventRoutes } from './routes/page-events.js'
import { alertRuleRoutes } from './routes/alert-rules.js'
import { feedRoutes } from './routes/feeds.js'
import { mailAlertRoutes } from './routes/mail-alerts.js'
import { researchRoutes } from './routes/research.js'
import { webhookRoutes } from './routes/webhooks.js'
import { imageRoutes, publicImageRoutes } from './routes/images.js'
import { domainRoutes } from './routes/domains.js'
import { jobRoutes } from './routes/jobs.js'
import { pageRoutes } from './routes/pages.js'
import { usageRoutes } from './routes/usage.js'
import { auditRoutes } from './routes/audit.js'
import { ssoRoutes } from './routes/sso.js'

type NotFound = ReturnType<typeof unroutedHandler>

/**
 * One log line per request, when it is answered, with what was asked, the answer's status
 * and its time: Fastify's two lines (asked, answered) cost a request half its overhead.
 */
class AnsweredOnly extends LogController {
  override incomingRequest (): void {}

  override requestCompleted (error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    const line = { req, res: reply, responseTime: reply.elapsedTime, ...(error ? { err: error } : {}) }
    if (error) reply.log.error(line, 'request errored')
    else reply.log.info(line, 'request completed')
  }
}

/** A route as registered: what the audit log's test walks (every state-changing one writes an event). */
export interface RouteEntry { method: string, url: string, changesNothing: boolean }

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route of the server, in the order registered. */
    routeTable: readonly RouteEntry[]
  }
}

/** The tenant API's resources under /api, behind the guard (key, role, rate limits). */
const API_RESOURCES = [
  domainRoutes, pageRoutes, pageEventRoutes, jobRoutes, usageRoutes, changeRoutes, feedbackRoutes, webhookRoutes,
  mailAlertRoutes, alertRuleRoutes, imageRoutes, researchRoutes, auditRoutes, ssoRoutes
]

const TRACE_ID = /^[A-Za-z0-9\-_.:]{1,128}$/

/**
 * The HTTP server: the API under /api (and /admin), unless `opts.api` is false (a
 * worker process), where only the operator's endpoints are served: /healthz, /readyz, /metrics.
 * Its parts are registered in this order; each is a function of its own.
 */
export async function buildApp (
  deps: ApiDeps,
  opts: { logger?: boolean | object, api?: boolean, principals?: Principals, mailer?: Mailer } = {}
): Promise<FastifyInstance> {
  const { config } = deps
  const principals = opts.principals ?? new Principals(deps.db)
  const app = Fastify({
    logger: opts.logger ?? { level: config.logLevel },
    bodyLimit: 1024 * 1024,
    // The trace id is the request id: echoed when the client sends a sane one, and
    // logged as `traceId` on every line of the request.
    genReqId: req => {
      const supplied = req.headers['x-trace-id']
      return typeof supplied === 'string' && TRACE_ID.test(supplied) ? supplied : randomUUID()
    },
    logController: new AnsweredOnly({ requestIdLogLabel: 'traceId' }),
    trustProxy: config.trustProxy,
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: true, useDefaults: true, allErrors: false } },
    // The ids in paths are UUIDs: a longer value is a 400 from their schema, not find-my-way's bare 414.
    routerOptions: { maxParamLength: 16 * 1024 },
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
    schemaController: {
      compilersFactory: { buildValidator: validatorCompilers(), buildSerializer: serializerCompilers() }
    }
  }).withTypeProvider<TypeBoxTypeProvider>()
  const notFound = unroutedHandler(new RouteMethods().watch(app))
  const routeTable: RouteEntry[] = []
  app.addHook('onRoute', route => {
    for (const method of [route.method].flat()) {
      routeTable.push({ method, url: route.url ?? route.path, changesNothing: route.config?.changesNothing === true })
    }
  })
  app.decorate('routeTable', routeTable)

  const answers = new KeptAnswers()
  await protocol(app, deps, notFound, answers)
  await operatorProbes(app, deps)
  if (opts.api === false) return app
  await apiConventions(app)
  await openApiDocs(app, config)
  await rateLimitStore(app, config)
  await underPrefix(app, '/api', notFound, async api => {
    await guard(api, { principals, versions: deps.versions, answers })
    for (const resource of API_RESOURCES) await api.register(resource, deps)
  })
  await underPrefix(app, '/public', notFound, async links => { await links.register(publicImageRoutes, deps) })
  await underPrefix(app, '/feeds', notFound, async feeds => { await feeds.register(feedRoutes, deps) })
  await adminApi(app, deps, principals, opts.mailer, notFound)
  return app
}

/** How much of a body answered before it arrived (a 413, a 401) is read and dropped, and how long, before closing. */
export const LINGER_BYTES = 16 * 1024 * 1024
export const LINGER_MS = 15_000

/**
 * An answer sent before its request's body arrived (too large, refused by its key) reaches
 * a client that writes the whole body before it reads: the rest of the body is read and
 * dropped, as production servers linger, so that the client's writes are not reset and it
 * reads the answer. Closing at once (Fastify's Connection: close) reset it mid-write. Past
 * LINGER_BYTES or LINGER_MS the socket is closed; a body that ends keeps the connection.
 */
function lingerForBody (raw: IncomingMessage, reply: FastifyReply): void {
  reply.removeHeader('connection')
  const socket = raw.socket
  const readBefore = socket.bytesRead
  const until = Date.now() + LINGER_MS
  raw.resume()
  const watch = setInterval(() => {
    if (raw.complete || socket.destroyed) {
      clearInterval(watch)
    } else if (socket.bytesRead - readBefore > LINGER_BYTES || Date.now() > until) {
      clearInterval(watch)
      socket.destroy()
    }
  }, 50)
  watch.unref()
}

/** A group of routes under `prefix`, whose unknown paths are answered in the envelope. */
async function underPrefix (
  app: FastifyInstance, prefix: string, notFound: NotFound, routes: (scope: FastifyInstance) => Promise<void>
): Promise<void> {
  await app.register(async scope => {
    scope.setNotFoundHandler(notFound)
    await routes(scope)
  }, { prefix })
}

/**
 * What every answer gets: its trace id, its timing in the metrics, the error envelope
 * (for errors, unknown paths and 405s alike), checked input, compression, and JSON bodies
 * that may be empty.
 */
async function protocol (
  app: FastifyInstance, deps: ApiDeps, notFound: NotFound, answers: KeptAnswers
): Promise<void> {
  // An Expect other than 100-continue: Node would answer a bare 417 with no body; ours is in the envelope.
  app.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify({
      error: `Expect: ${String(req.headers.expect).slice(0, 100)} is not supported (only 100-continue)`,
      code: 'VALIDATION_ERROR'
    })
    res.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'x-trace-id': randomUUID()
    }).end(body)
  })
  // Everything a request does runs as serving it: the embedded database answers it before the pipeline's statements.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('X-Trace-Id', req.id)
    serveRequest({ ip: req.ip, traceId: req.id, audited: 0 }, done)
  })
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched'
    deps.metrics.observeRequest(req.method, route, reply.statusCode, reply.elapsedTime / 1000)
    if (unaudited(req, reply.statusCode)) {
      deps.metrics.unauditedWrite(req.method, route)
      req.log.error({ route }, 'a state-changing request succeeded and wrote no audit event')
    }
  })
  app.addHook('onSend', async (req, reply, payload) => {
    if (!req.raw.complete) lingerForBody(req.raw, reply)
    return payload
  })
  // Before compression: an answer is kept as serialised, and compressed for each client that asks.
  app.addHook('onSend', answers.keep)
  addInputChecks(app)
  app.setErrorHandler(errorHandler)
  app.setNotFoundHandler(notFound)
  // Answers over 1 KiB leave compressed when the client accepts it (brotli at a fast level, gzip, deflate).
  await app.register(compress, {
    threshold: 1024,
    encodings: ['br', 'gzip', 'deflate'],
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }
  })

  // An empty body with Content-Type: application/json is no body, so `curl -X POST -H
  // 'content-type: application/json'` works on the endpoints that take none.
  const jsonParser = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (typeof body === 'string' && body.trim() === '') {
      done(null, undefined)
      return
    }
    jsonParser(req, body as string, done)
  })
}

/**
 * Whether a request that changed state succeeded without writing its audit event: every
 * route but GET's writes one (services/audit.ts), save those that say they change nothing.
 */
function unaudited (req: FastifyRequest, status: number): boolean {
  if (status >= 400 || req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return false
  if (!req.routeOptions.url || req.routeOptions.config?.changesNothing) return false
  const scope = requestScope()
  return scope !== undefined && scope.audited === 0 && !scope.changesNothing
}

/** The API's shared schemas, the 413 every body route documents, and the way in at /. */
async function apiConventions (app: FastifyInstance): Promise<void> {
  for (const schema of [...SHARED_SCHEMAS, ...ALERT_SCHEMAS]) app.addSchema(schema)
  // Every route that takes a body documents the 413 an oversized one gets.
  app.addHook('onRoute', route => {
    const schema = route.schema as { body?: unknown, response?: Record<number, unknown>, hide?: boolean } | undefined
    if (schema?.body && schema.response && !schema.hide) schema.response[413] ??= tooLargeResponse()
  })

  // The way in: a browser goes to the web app; a program reads where things are.
  app.get('/', { schema: { hide: true } }, async (req, reply) => {
    // Browsers name text/html in Accept; curl and API clients send */* or application/json.
    if (/\btext\/html\b/.test(req.headers.accept ?? '')) return await reply.redirect('/app')
    return { data: { app: '/app', api: '/api', docs: '/swagger', openapi: '/openapi.json' } }
  })
}
