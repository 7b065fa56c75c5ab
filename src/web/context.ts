import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.js'
import { AppError } from '../vocabulary/errors.js'
import type { Org } from '../vocabulary/plans.js'
import { roleAllows, type Role } from '../vocabulary/core.js'
import type { Mailer } from '../mail/mailer.js'
import type { JobQueue } from '../queue/queue.js'
import type { SessionRules } from '../services/accounts.js'
import type { Principals } from '../services/principals.js'
import type { PageReadings, RuleChecker } from '../services/context.js'
import type { Db } from '../store/db.js'
import type { Viewer } from './views/layout.js'

// What the web app's routes share: its dependencies, the signed-in person, the session
// cookie's settings, and small helpers for forms and answers.

export interface WebDeps {
  db: Db
  queue: JobQueue
  /** The settings (not `config`: Fastify reads a plugin's `config` option as its routes' config). */
  settings: Config
  mailer: Mailer
  principals: Principals
  /** Signs unsubscribe links and image links. */
  linkSecret: string
  /** Checks noise rules on the analysis threads. */
  ruleChecks: RuleChecker
  /** A page's outline and rules tried, on the analysis threads. */
  readings: PageReadings
}

/** The signed-in person of a request, in the organisation they work in. */
export interface Person {
  userId: string
  email: string
  name: string | null
  sessionId: string
  org: Org
  role: Role
  orgs: Array<{ id: string, name: string }>
  /** The organisation whose identity provider opened the session, which is the only one it reaches. */
  signedOnTo: string | null
}

declare module 'fastify' {
  interface FastifyRequest {
    person: Person | null
  }
  interface FastifyContextConfig {
    /** Served without a session (sign-in, links from e-mails, the stylesheet). */
    public?: boolean
    /** A POST that comes from outside the app (RFC 8058's one-click unsubscribe): no CSRF token. */
    fromOutside?: boolean
  }
}

/**
 * The cookies' names: `__Host-` prefixed on HTTPS (the browser then refuses them from any
 * other host or path, or without Secure); plain names on http://localhost, where a
 * browser may not keep a Secure cookie.
 */
export function cookieNames (config: Pick<Config, 'publicBaseUrl'>) {
  const prefix = secure(config) ? '__Host-' : ''
  return { session: `${prefix}sw_session`, csrf: `${prefix}sw_csrf`, flash: `${prefix}sw_flash` }
}
const secure = (config: Pick<Config, 'publicBaseUrl'>) => (config.publicBaseUrl ?? '').startsWith('https:')

/** The form of the ids in the app's paths: anything else is not found. */
export { UUID } from '../vocabulary/core.js'

export function sessionRules (config: Config): SessionRules {
  return { idleMs: config.sessionIdleMinutes * 60_000, maxMs: config.sessionMaxDays * 86_400_000 }
}

export function cookieOptions (config: Pick<Config, 'publicBaseUrl'>) {
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: secure(config) }
}

/** What a form's CSRF token is bound to: the session cookie it was made with (none before sign-in). */
export function sessionBinding (req: FastifyRequest): string {
  const token = req.cookies['__Host-sw_session'] ?? req.cookies.sw_session
  return token ? createHash('sha256').update(token).digest('base64url') : 'signed-out'
}

/** A form's CSRF token, good only with the session cookie of the request that made it. */
export function csrfToken (req: FastifyRequest, reply: FastifyReply): string {
  return reply.generateCsrf({ userInfo: sessionBinding(req) })
}

const FLASH_COOKIES = ['__Host-sw_flash', 'sw_flash'] as const
/** Longest refusal a flash carries (a cookie holds 4 KB). */
const MAX_FLASH = 1500

/**
 * A refusal to show on the next page: a form's POST that cannot be done goes back (303)
 * to the page it was sent from, which shows why once (see viewerOf), rather than leaving
 * the browser on the POST's address.
 */
export function flashAndReturn (
  config: Pick<Config, 'publicBaseUrl'>, req: FastifyRequest, reply: FastifyReply, message: string, fallback: string
) {
  reply.setCookie(cookieNames(config).flash, encodeURIComponent(message.slice(0, MAX_FLASH)), {
    ...cookieOptions(config), maxAge: 60
  })
  return reply.redirect(sameAppPage(req.headers.referer, req.headers.host) ?? fallback, 303)
}

/** The path of a page of this app that `referer` names, when it is one. */
function sameAppPage (referer: string | undefined, host: string | undefined): string | undefined {
  if (!referer || !host) return undefined
  try {
    const u = new URL(referer)
    return u.host === host && u.pathname.startsWith('/app/') ? `${u.pathname}${u.search}` : undefined
  } catch {
    return undefined
  }
}

/** What every page's frame needs of the person. */
export function viewerOf (req: FastifyRequest, reply: FastifyReply): Viewer {
  const p = req.person!
  const accept = String(req.headers['accept-language'] ?? 'en').split(',')[0].split(';')[0].trim()
  let locale = 'en'
  try {
    locale = Intl.NumberFormat.supportedLocalesOf([accept]).length > 0 ? accept : 'en'
  } catch { /* not a language tag */ }
  // A refusal flashed by the form that sent the person here, shown once.
  const flashName = FLASH_COOKIES.find(n => req.cookies[n] !== undefined)
  let flash: string | undefined
  if (flashName) {
    try {
      flash = decodeURIComponent(req.cookies[flashName] ?? '').slice(0, MAX_FLASH) || undefined
    } catch { /* not ours */ }
    reply.clearCookie(flashName, { path: '/' })
  }
  return {
    email: p.email,
    name: p.name,
    role: p.role,
    org: { id: p.org.id, name: p.org.name, plan: p.org.plan },
    orgs: p.orgs,
    csrf: csrfToken(req, reply),
    locale,
    ...(flash ? { flash } : {})
  }
}

/** Refuses (403, explained) what the person's role does not allow. */
export function requireRole (req: FastifyRequest, needed: Role): Person {
  const p = req.person!
  if (!roleAllows(p.role, needed)) {
    const article = p.role === 'viewer' ? 'a' : 'an'
    throw new AppError('FORBIDDEN', `This needs the ${needed} role or higher; you are ${article} ` +
      `${p.role} in ${p.org.name}. Ask an admin of the organisation.`)
  }
  return p
}

/** A page's HTML answer. */
export async function page (reply: FastifyReply, body: string, status = 200) {
  return await reply.code(status).type('text/html; charset=utf-8').send(body)
}

/** A form's field as text (formbody gives strings, or arrays of them for repeated names). */
export function field (body: unknown, name: string): string {
  const v = (body as Record<string, unknown> | undefined)?.[name]
  return typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : ''
}

export function fields (body: unknown, name: string): string[] {
  const v = (body as Record<string, unknown> | undefined)?.[name]
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === 'string')
}
