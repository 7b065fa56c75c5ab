import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../vocabulary/errors.js'
import { PLANS } from '../vocabulary/plans.js'
import { roleAllows } from '../vocabulary/core.js'
import type { Principals } from '../services/principals.js'
import type { Principal } from '../store/orgs.js'
import type { DataVersions } from '../store/data-versions.js'
import { conditionalGets, type KeptAnswers } from './validators.js'
import { actingAs } from '../services/audit.js'

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null
  }
  interface FastifyContextConfig {
    tier?: 'standard' | 'heavy'
    /** A POST that changes nothing (a preview, a sign-in form's refusal): it writes no audit event. */
    changesNothing?: boolean
  }
}

export interface GuardOptions {
  principals: Principals
  versions: DataVersions
  answers: KeptAnswers
}

/**
 * The gate of every /api request, in order: who is calling (API key → organisation),
 * whether a conditional GET's answer is unchanged (a 304, counted nowhere), how many
 * calls that caller has left in the route's tier, and whether the caller may
 * call at all. Rate limits count per organisation, or per address without a valid key
 * (decisions.md: such requests are counted). A known caller refused for its plan or its
 * key's scope (403) spends nothing: it is told what it has left, and that is all. A call
 * refused later, by its route (404, 409), is counted first (counting after the work would
 * let a burst of calls in flight at once through the heavy tier), and a heavy one is
 * given back when refused (see rate-limits.ts).
 */
export async function guard (app: FastifyInstance, opts: GuardOptions) {
  app.decorateRequest('principal', null)
  const conditional = conditionalGets(app, opts.versions, opts.answers)

  app.addHook('onRequest', async (req, reply) => {
    const header = req.headers.authorization
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
    if (match && match[1].length <= 200) req.principal = (await opts.principals.find(match[1])) ?? null
    if (req.principal) {
      req.rateKey = `org:${req.principal.org.id}`
      actingAs({ kind: 'api_key', keyId: req.principal.keyId, label: req.principal.keyLabel }, req.principal.org.id)
    }
    const refused = refusalOf(req)
    if (!refused && conditional.notModified(req)) {
      opts.principals.touch(req.principal!.keyId)
      return await reply.code(304).send()
    }
    const tier = req.routeOptions.config?.tier ?? 'standard'
    const limit = await app.tierLimits[tier](req, { increment: !refused || !req.principal })
    if (!limit.isAllowed) {
      // @fastify/rate-limit counts seconds to go; the contract wants the Unix time of the reset.
      const resetAt = Math.ceil((Date.now() + limit.ttl) / 1000)
      reply.header('X-RateLimit-Limit', limit.max)
      reply.header('X-RateLimit-Remaining', limit.remaining)
      reply.header('X-RateLimit-Reset', resetAt)
      if (limit.isExceeded) {
        reply.header('Retry-After', Math.max(1, limit.ttlInSeconds))
        throw new AppError(
          'RATE_LIMITED',
          `Rate limit of ${limit.max} requests per ${tier === 'heavy' ? 'hour' : 'minute'} exceeded; retry in ` +
          `${limit.ttlInSeconds} s`,
          { limit: limit.max, retryAfter: Math.max(1, limit.ttlInSeconds), tier }
        )
      }
    }
    if (refused) throw refused
    opts.principals.touch(req.principal!.keyId)
    if (await opts.answers.sendKept(req, reply)) return reply
  })

  // A write this process committed moves its organisation's version before the answer leaves (DataVersions.wrote).
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.principal && req.method !== 'GET' && req.method !== 'HEAD' && reply.statusCode < 400) {
      opts.versions.wrote(req.principal.org.id)
    }
    return payload
  })
}

/** Why the caller may not make this call at all (no valid key, its plan, its key's scope); undefined: it may. */
function refusalOf (req: FastifyRequest): AppError | undefined {
  if (!req.principal) {
    return new AppError(
      'UNAUTHORIZED',
      req.headers.authorization ? 'Invalid API key' : 'Missing API key: send Authorization: Bearer <API_KEY>'
    )
  }
  if (!PLANS[req.principal.org.plan].features.apiAccess) {
    return new AppError('FORBIDDEN', `The ${req.principal.org.plan} plan does not include API access`)
  }
  // A key of scope read may look, not touch; a write key may do what an admin may.
  const writes = req.method !== 'GET' && req.method !== 'HEAD'
  if (req.principal.scope === 'read' && writes) {
    return new AppError('FORBIDDEN', 'This API key is read-only (scope read): it may only call GET endpoints')
  }
  // A key acts with its maker's role now: a maker made a viewer (or gone) takes the key's writes with them.
  if (writes && !roleAllows(req.principal.role, 'editor')) {
    return new AppError('FORBIDDEN', `This API key's maker is now a ${req.principal.role} of the organisation: ` +
      'the key may only call GET endpoints')
  }
  return undefined
}
