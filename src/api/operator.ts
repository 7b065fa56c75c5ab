import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { Mailer } from '../mail/mailer.js'
import type { Principals } from '../services/principals.js'
import { AppError } from '../vocabulary/errors.js'
import type { ApiDeps } from './deps.js'
import { databaseUnavailable, sendError, type unroutedHandler } from './errors.js'
import { adminRoutes } from './routes/admin.js'

/** Compares a bearer token in constant time. */
function bearerMatches (header: string | undefined, token: string): boolean {
  const supplied = Buffer.from(/^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '')
  const expected = Buffer.from(token)
  return supplied.length === expected.length && timingSafeEqual(supplied, expected)
}

/** The operator's probes and metrics: no key, not in /openapi.json; served by every process. */
export async function operatorProbes (app: FastifyInstance, deps: ApiDeps): Promise<void> {
  const { config } = deps
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
}

/** The operator's API under /admin (organisations, people, keys), when ADMIN_TOKEN is set. */
export async function adminApi (
  app: FastifyInstance, deps: ApiDeps, principals: Principals, mailer: Mailer | undefined,
  notFound: ReturnType<typeof unroutedHandler>
): Promise<void> {
  const adminToken = deps.config.adminToken
  if (!adminToken) return
  await app.register(
    async admin => {
      admin.setNotFoundHandler(notFound)
      const mail = mailer ?? new Mailer(deps.config, app.log)
      await admin.register(adminRoutes, { ...deps, adminToken, principals, mailer: mail })
    },
    { prefix: '/admin' }
  )
}
