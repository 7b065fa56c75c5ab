import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { DataVersions } from '../store/data-versions.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The ETag this GET's answer gets: its organisation's data version, at the moment it was asked. */
    validator: string | undefined
  }
  interface FastifyContextConfig {
    /**
     * For an answer that moves with the clock as well as with writes (a job's `delayed` turning
     * `waiting`, the oldest due job's age, a trial running out): its validator moves every so many seconds too.
     */
    clockSeconds?: number
  }
}

/**
 * The validator of a GET: the organisation's data version (store/data-versions.ts), which
 * every committed write to what the API shows it moves, with the request's path and query.
 * It is read before the route reads anything, so an answer is never tagged newer than
 * what it holds. Weak: the same data compressed or not is the same answer. Undefined while
 * this process may miss writes (its listening connection lost): the answer is then whole.
 */
export function validatorOf (req: FastifyRequest, versions: DataVersions): string | undefined {
  if ((req.method !== 'GET' && req.method !== 'HEAD') || req.is404 || !req.principal) return undefined
  const version = versions.of(req.principal.org.id)
  if (version === undefined) return undefined
  const clock = req.routeOptions.config?.clockSeconds
  const tick = clock ? `.${Math.floor(Date.now() / (clock * 1000))}` : ''
  const asked = createHash('sha256').update(req.url).digest('base64url').slice(0, 16)
  return `W/"${version}${tick}.${asked}"`
}

/** Whether If-None-Match names `tag` (RFC 9110's weak comparison) or is `*`. */
export function isCurrent (ifNoneMatch: string | string[] | undefined, tag: string): boolean {
  if (typeof ifNoneMatch !== 'string' || ifNoneMatch.length > 4096) return false
  const opaque = tag.replace(/^W\//, '')
  return ifNoneMatch.split(',').some(t => {
    const named = t.trim()
    return named === '*' || named.replace(/^W\//, '') === opaque
  })
}

/** What /openapi.json says of a GET's validator, beside its 200 and as its 304. */
const ETAG_HEADERS = {
  ETag: {
    type: 'string',
    description: 'a weak validator of this answer: send it back in If-None-Match, and an answer that has not ' +
      'changed is a 304 with no body, which the rate limit does not count'
  },
  'Cache-Control': { type: 'string', description: '`private, no-cache`: keep the answer, and ask again with its ETag' }
}

/**
 * Conditional GETs: every successful GET of the API carries an ETag, and one asked with
 * a current tag in If-None-Match is answered 304 before the rate limit counts it (guard.ts
 * calls `notModified` between knowing the caller and counting). Also documents both in /openapi.json.
 */
export function conditionalGets (api: FastifyInstance, versions: DataVersions) {
  api.decorateRequest('validator', undefined)
  api.addHook('onRoute', route => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    const answers = route.schema?.response as Record<string, { headers?: Record<string, unknown> }> | undefined
    if (!methods.includes('GET') || !answers?.[200]) return
    answers[200] = { ...answers[200], headers: { ...answers[200].headers, ...ETAG_HEADERS } }
    answers[304] = {
      description: 'not modified: the ETag sent in If-None-Match is current (not counted by the rate limit)',
      headers: ETAG_HEADERS
    } as never
  })
  api.addHook('onSend', async (req, reply) => {
    if (req.validator && (reply.statusCode === 200 || reply.statusCode === 304)) {
      reply.header('ETag', req.validator)
      reply.header('Cache-Control', 'private, no-cache')
    }
  })
  return {
    /** Tags the request; true when its If-None-Match is current, and the answer is a 304. */
    notModified (req: FastifyRequest): boolean {
      req.validator = validatorOf(req, versions)
      return req.validator !== undefined && isCurrent(req.headers['if-none-match'], req.validator)
    }
  }
}
