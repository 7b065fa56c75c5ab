import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import cookie from '@fastify/cookie'
import csrf from '@fastify/csrf-protection'
import formbody from '@fastify/formbody'
import { AppError } from '../vocabulary/errors.js'
import { findSession } from '../services/accounts.js'
import { membershipsOf, setSessionOrg } from '../store/accounts.js'
import { SCRIPT, STYLESHEET } from './static/assets.js'
import { alertRoutes } from './routes/alerts.js'
import { authRoutes } from './routes/auth.js'
import { settingsRoutes } from './routes/settings.js'
import { auditRoutes } from './routes/audit.js'
import { ssoRoutes } from './routes/sso.js'
import { changeRoutes } from './routes/changes.js'
import { domainRoutes } from './routes/domains.js'
import { pageRoutes } from './routes/pages.js'
import { researchRoutes } from './routes/research.js'
import { html, Problem } from './views/layout.js'
import { cookieNames, cookieOptions, sessionBinding, sessionRules, viewerOf, type WebDeps } from './context.js'
import { actingAs } from '../services/audit.js'

// The web app under /app: server-rendered pages on the same services as the API, for
// people signed in with a session cookie. Forms post and redirect; the core flows need
// no script. Every form carries a CSRF token; a strict Content-Security-Policy forbids
// inline script and framing. Forms post to this site only (`form-action 'self'`, which
// Chromium applies to every redirect that answers a form too): the single sign-on form is
// answered by a page of this site that goes on to the provider (views/auth.tsx SsoLeaving).

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'"
].join('; ')

/**
 * A person's action counts in their organisation's rate tier, as the API's calls do and in
 * the same buckets: the heavy actions (discover, crawl, check, research) in the heavy one,
 * every other form in the standard one. Past it, the form says when it can be sent again.
 */
async function withinRateTier (app: FastifyInstance, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  req.rateKey = `org:${req.person!.org.id}`
  const tier = req.routeOptions.config?.tier ?? 'standard'
  const limit = await app.tierLimits[tier](req)
  if (limit.isAllowed || !limit.isExceeded) return
  const seconds = Math.max(1, limit.ttlInSeconds)
  reply.header('Retry-After', seconds)
  const wait = seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`
  throw new AppError('RATE_LIMITED', tier === 'heavy'
    ? `Your organisation has used its ${limit.max} discoveries, crawls, checks and briefs of the hour (in the app ` +
      `and through the API together). Try again in ${wait}.`
    : `Your organisation has sent ${limit.max} requests in a minute (in the app and through the API together). ` +
      `Try again in ${wait}.`,
  { limit: limit.max, retryAfter: seconds, tier })
}

/** The app's page a request was made from (its Referer, on this site), to lead back to from a refusal. */
function cameFrom (req: FastifyRequest): string | undefined {
  const referer = req.headers.referer
  if (!referer) return undefined
  let from: URL
  try {
    from = new URL(referer)
  } catch {
    return undefined
  }
  const path = from.pathname + from.search
  if (from.host !== req.headers.host || !from.pathname.startsWith('/app/') || path === req.url) return undefined
  return path
}

export async function webApp (app: FastifyInstance, deps: WebDeps) {
  const { db, settings: config } = deps
  const rules = sessionRules(config)
  await app.register(cookie)
  await app.register(formbody, { bodyLimit: 64 * 1024 })
  const cookieOpts = { ...cookieOptions(config), signed: false }
  const cookies = cookieNames(config)
  // A form's token is good only with the session cookie of the page that made it (see csrfToken).
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: cookies.csrf,
    cookieOpts,
    getUserInfo: sessionBinding,
    csrfOpts: { hmacKey: deps.linkSecret }
  })
  app.decorateRequest('person', null)

  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('content-security-policy', CSP)
    reply.header('x-content-type-options', 'nosniff')
    reply.header('referrer-policy', 'same-origin')
    if (!reply.getHeader('cache-control')) reply.header('cache-control', 'no-store')
    return payload
  })

  app.addHook('preHandler', async (req, reply) => {
    if (req.method === 'POST' && !req.routeOptions.config?.fromOutside) {
      await new Promise<void>((resolve, reject) => {
        app.csrfProtection(req, reply, (err?: Error) => { if (err) reject(err); else resolve() })
      })
    }
    const token = req.cookies[cookies.session]
    const session = token ? await findSession(db, rules, token) : undefined
    if (session) {
      // A session the provider of one organisation opened reaches that organisation only.
      const memberships = (await membershipsOf(db, session.user_id))
        .filter(m => session.sso_org_id === null || m.org.id === session.sso_org_id)
      const current = memberships.find(m => m.org.id === session.org_id) ?? memberships[0]
      if (current) {
        if (current.org.id !== session.org_id) await setSessionOrg(db, session.id, current.org.id)
        req.person = {
          userId: session.user_id,
          email: session.email,
          name: session.name,
          sessionId: session.id,
          org: current.org,
          role: current.role,
          orgs: memberships.map(m => ({ id: m.org.id, name: m.org.name })),
          signedOnTo: session.sso_org_id
        }
        actingAs({ kind: 'user', userId: session.user_id, label: session.email }, current.org.id)
      }
    }
    if (req.person) {
      if (req.method === 'POST') await withinRateTier(app, req, reply)
      return
    }
    if (req.routeOptions.config?.public) return
    if (session) throw new AppError('FORBIDDEN', 'You are not a member of any organisation any more.')
    const next = req.method === 'GET' ? `?next=${encodeURIComponent(req.url)}` : ''
    return await reply.redirect(`/app/sign-in${next}`, 303)
  })

  app.setErrorHandler(async (err: Error & { statusCode?: number, code?: string }, req, reply) => {
    let status = err instanceof AppError ? err.statusCode : (err.statusCode ?? 500)
    let message = err.message
    if (err.code === 'FST_CSRF_MISSING_SECRET' || err.code === 'FST_CSRF_INVALID_TOKEN') {
      status = 403
      message = 'This form was not sent from this page, or it has expired. Go back, reload the page and try again.'
    } else if (status >= 500) {
      req.log.error({ err }, 'web app request failed')
      message = 'Sitewatch could not do this just now. Try again in a moment.'
    }
    const viewer = req.person ? viewerOf(req, reply) : undefined
    return await reply.code(status).type('text/html; charset=utf-8')
      .send(html(Problem({ viewer, status, message, back: cameFrom(req) })))
  })
  app.setNotFoundHandler(async (req, reply) => {
    return await reply.code(404).type('text/html; charset=utf-8')
      .send(html(Problem({
        status: 404,
        message: `There is no page at ${req.url.slice(0, 200)}.`,
        back: cameFrom(req)
      })))
  })

  const asset = (body: string, type: string) => async (_req: FastifyRequest, reply: FastifyReply) =>
    await reply.type(type).header('cache-control', 'public, max-age=3600').send(body)
  app.get('/static/app.css', { config: { public: true } }, asset(STYLESHEET, 'text/css; charset=utf-8'))
  app.get('/static/app.js', { config: { public: true } }, asset(SCRIPT, 'text/javascript; charset=utf-8'))
  app.get('/', async (_req, reply) => await reply.redirect('/app/domains', 303))

  // The dependencies by name: the options this plugin was given also hold its prefix, which the routes' must not.
  const shared = {
    db,
    queue: deps.queue,
    settings: config,
    mailer: deps.mailer,
    principals: deps.principals,
    linkSecret: deps.linkSecret,
    ruleChecks: deps.ruleChecks,
    readings: deps.readings,
    rules
  }
  await app.register(authRoutes, shared)
  await app.register(domainRoutes, shared)
  await app.register(pageRoutes, shared)
  await app.register(changeRoutes, shared)
  await app.register(researchRoutes, shared)
  await app.register(settingsRoutes, shared)
  await app.register(auditRoutes, shared)
  await app.register(ssoRoutes, shared)
  await app.register(alertRoutes, shared)
}
