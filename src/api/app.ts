import type { IncomingMessage, ServerResponse } from 'node:http'
import { randomUUID, timingSafeEqual } from 'node:crypto'
import zlib from 'node:zlib'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import Fastify, { LogController, type FastifyInstance } from 'fastify'
import compress from '@fastify/compress'
import rateLimit from '@fastify/rate-limit'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Redis } from 'ioredis'
import { AppError } from '../domain/errors.js'
import type { ApiDeps } from './deps.js'
import {
  clientErrorHandler,
  databaseUnavailable,
  errorHandler,
  frameworkErrorHandler,
  sendError,
  unroutedHandler
} from './errors.js'
import { RouteMethods } from './methods.js'
import { Principals } from '../services/principals.js'
import { guard } from './guard.js'
import { addInputChecks, validatorCompilers } from './input.js'
import { SHARED_SCHEMAS, tooLargeResponse } from './schemas.js'
import { Mailer } from '../mail/mailer.js'
import { adminRoutes } from './routes/admin.js'
import { changeRoutes } from './routes/changes.js'
import { feedRoutes } from './routes/feeds.js'
import { mailAlertRoutes } from './routes/mail-alerts.js'
import { researchRoutes } from './routes/research.js'
import { webhookRoutes } from './routes/webhooks.js'
import { imageRoutes, publicImageRoutes } from './routes/images.js'
import { domainRoutes } from './routes/domains.js'
import { jobRoutes } from './routes/jobs.js'
import { pageRoutes } from './routes/pages.js'
import { usageRoutes } from './routes/usage.js'

/** Compares a bearer token in constant time. */
function bearerMatches (header: string | undefined, token: string): boolean {
  const supplied = Buffer.from(/^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '')
  const expected = Buffer.from(token)
  return supplied.length === expected.length && timingSafeEqual(supplied, expected)
}

const TRACE_ID = /^[A-Za-z0-9\-_.:]{1,128}$/

/**
 * The HTTP server: the API under /api (and /admin), unless `opts.api` is false (a
 * worker process), where only the operator's endpoints are served: /healthz, /readyz, /metrics.
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
    logController: new LogController({ requestIdLogLabel: 'traceId' }),
    trustProxy: config.trustProxy,
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: true, useDefaults: true, allErrors: false } },
    // The ids in paths are UUIDs: a longer value is a 400 from their schema, not find-my-way's bare 414.
    routerOptions: { maxParamLength: 16 * 1024 },
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
    schemaController: { compilersFactory: { buildValidator: validatorCompilers() } }
  }).withTypeProvider<TypeBoxTypeProvider>()

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
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Trace-Id', req.id)
  })
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched'
    deps.metrics.observeRequest(req.method, route, reply.statusCode, reply.elapsedTime / 1000)
  })
  addInputChecks(app)
  app.setErrorHandler(errorHandler)
  const notFoundHandler = unroutedHandler(new RouteMethods().watch(app))
  app.setNotFoundHandler(notFoundHandler)
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

  // The operator's endpoints: no key, not in /openapi.json.
  app.get('/healthz', { schema: { hide: true } }, async () => ({ data: { status: 'ok' } }))
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    try {
      await deps.ping()
      return { data: { status: 'ready' } }
    } catch {
      return sendError(reply, databaseUnavailable())
    }
  })
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    if (config.metricsToken && !bearerMatches(req.headers.authorization, config.metricsToken)) {
      return sendError(reply, new AppError('UNAUTHORIZED', 'Missing or invalid metrics token'))
    }
    const { contentType, body } = await deps.metrics.render()
    return await reply.type(contentType).send(body)
  })
  if (opts.api === false) return app

  for (const schema of SHARED_SCHEMAS) app.addSchema(schema)
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

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sitewatch API',
        version: '1.0.0',
        description:
          "Website change monitoring: register a competitor's domain, Sitewatch discovers its important pages, " +
          'crawls them every day and reports typed, scored changes. Every /api request needs `Authorization: ' +
          'Bearer <API_KEY>`. ' +
          `Rate limits count per organisation: ${config.rateLimitStandardPerMinute} requests per minute, and ` +
          `${config.rateLimitHeavyPerHour} per hour for the heavy endpoints (discover, crawl, research), ` +
          'as this deployment is set (the contract\'s defaults are 100 and 10). ' +
          'Every /api answer says its bucket in X-RateLimit-*. ' +
          'Values in a JSON body must have the types the schema gives (no coercion: `"priority": "5"` is a 400); ' +
          'query parameters are read as their types. A body over 1 MiB is 413 PAYLOAD_TOO_LARGE; a known path ' +
          'asked with a method it does not answer is 405 METHOD_NOT_ALLOWED with `Allow`; answers over 1 KiB are ' +
          'compressed (br, gzip, deflate) when Accept-Encoding allows.'
      },
      servers: [
        {
          url: config.publicBaseUrl ?? '/',
          description: config.publicBaseUrl ? 'this deployment' : 'the server that served this document'
        }
      ],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'an API key, sw_live_…; a revoked key is refused within 2 seconds'
          }
        }
      },
      security: [{ apiKey: [] }],
      tags: [
        { name: 'domains', description: 'Monitored domains' },
        { name: 'pages', description: 'Pages of a domain' },
        { name: 'jobs', description: 'Discovery, crawl and research jobs' },
        { name: 'usage', description: 'Plan and quotas' },
        { name: 'changes', description: 'Detected changes across domains' },
        { name: 'research', description: 'Research briefs: one research credit buys a sourced brief of a domain' },
        { name: 'alerts', description: 'Webhook and Slack destinations for change and job events' }
      ]
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    hideUntagged: true
  })
  await app.register(swaggerUi, { routePrefix: '/swagger' })

  // Without a connection to Redis, a command fails at once (no offline queue) and the
  // rate limit lets the request through; ioredis reconnects in the background.
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, {
      connectTimeout: 2000,
      commandTimeout: 1000,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false
    })
    : undefined
  if (redis) {
    let down = false
    redis.on('error', err => {
      if (!down) app.log.warn({ err: err.message }, 'Redis unavailable: rate limits are not counted until it is back')
      down = true
    })
    redis.on('ready', () => {
      if (down) app.log.info('Redis is back: rate limits are counted again')
      down = false
    })
    app.addHook('onClose', async () => {
      redis.disconnect()
    })
    // Without an offline queue, requests before the first connection would go uncounted:
    // wait for it, but no more than 2 s (a Redis down at start fails open like any outage).
    await Promise.race([once(redis, 'ready'), sleep(2000)]).catch(() => {})
  }
  // A Redis outage lets requests through rather than failing them.
  await app.register(rateLimit, {
    global: false,
    skipOnError: true,
    ...(redis ? { redis, nameSpace: config.redisKeyPrefix } : {})
  })

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())

  await app.register(
    async api => {
      await guard(api, {
        principals,
        standardPerMinute: config.rateLimitStandardPerMinute,
        heavyPerHour: config.rateLimitHeavyPerHour
      })
      api.setNotFoundHandler(notFoundHandler)
      await api.register(domainRoutes, deps)
      await api.register(pageRoutes, deps)
      await api.register(jobRoutes, deps)
      await api.register(usageRoutes, deps)
      await api.register(changeRoutes, deps)
      await api.register(webhookRoutes, deps)
      await api.register(mailAlertRoutes, deps)
      await api.register(imageRoutes, deps)
      await api.register(researchRoutes, deps)
    },
    { prefix: '/api' }
  )

  await app.register(
    async links => {
      links.setNotFoundHandler(notFoundHandler)
      await links.register(publicImageRoutes, deps)
    },
    { prefix: '/public' }
  )

  await app.register(
    async feeds => {
      feeds.setNotFoundHandler(notFoundHandler)
      await feeds.register(feedRoutes, deps)
    },
    { prefix: '/feeds' }
  )

  if (config.adminToken) {
    const adminToken = config.adminToken
    await app.register(
      async admin => {
        admin.setNotFoundHandler(notFoundHandler)
        const mailer = opts.mailer ?? new Mailer(config, app.log)
        await admin.register(adminRoutes, { ...deps, adminToken, principals, mailer })
      },
      { prefix: '/admin' }
    )
  }

  return app
}
