import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { LRUCache } from 'lru-cache'
import type { DataVersions } from '../store/data-versions.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The ETag this GET's answer gets: its organisation's data version, at the moment it was asked. */
    validator: string | undefined
    /** Where this GET's answer is kept for the next caller who asks it under the same validator (KeptAnswers). */
    answerKey: string | undefined
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

/** How many bytes of answers one process keeps, and the largest it keeps (a larger one would push out many). */
const KEPT_BYTES = 16 * 1024 * 1024
const KEPT_LARGEST = 1024 * 1024
/** What an answer's headers say of its body, kept with it (a CSV export is an attachment). */
const REPRESENTATION_HEADERS = ['content-type', 'content-disposition', 'content-language'] as const

/**
 * The answers of current validators. A GET's answer is kept under its validator, the
 * caller's organisation and access (a key's scope and its maker's role) and the Accept
 * header (`/api/changes` answers CSV to `Accept: text/csv`); asked again under the same,
 * it is sent as kept, not read and serialised again: by the validator's definition,
 * nothing it shows has changed since. Least recently asked go first, within
 * KEPT_BYTES. What a kept answer may miss is what a 304 may miss: on PostgreSQL, another
 * process's write in the milliseconds before its notification is heard (this process's
 * own writes move the version at once: DataVersions.wrote).
 */
export class KeptAnswers {
  private readonly kept = new LRUCache<string, { body: string, headers: Record<string, string> }>({
    maxSize: KEPT_BYTES,
    sizeCalculation: a => 2 * a.body.length + 200
  })

  /** Where the request's answer is kept (its validator tagged it), or undefined when it is not to be kept. */
  keyOf (req: FastifyRequest): string | undefined {
    if (req.method !== 'GET' || !req.validator || !req.principal) return undefined
    const p = req.principal
    return `${p.org.id} ${p.scope} ${p.role} ${req.validator} ${req.headers.accept ?? ''}`
  }

  /** Sends the request's kept answer, if there is one: true when sent. */
  async sendKept (req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const key = req.answerKey
    const answer = key === undefined ? undefined : this.kept.get(key)
    if (!answer) return false
    req.answerKey = undefined
    await reply.code(200).headers(answer.headers).send(answer.body)
    return true
  }

  /** An onSend hook, registered before compression: keeps a 200's body, as serialised, under its key. */
  keep = async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (req.answerKey !== undefined && reply.statusCode === 200 && typeof payload === 'string' &&
      payload.length <= KEPT_LARGEST && typeof reply.getHeader('content-type') === 'string' &&
      !reply.hasHeader('set-cookie')) {
      const headers: Record<string, string> = {}
      for (const name of REPRESENTATION_HEADERS) {
        const value = reply.getHeader(name)
        if (typeof value === 'string') headers[name] = value
      }
      this.kept.set(req.answerKey, { body: payload, headers })
    }
    return payload
  }
}

/**
 * Conditional GETs: every successful GET of the API carries an ETag, and one asked with
 * a current tag in If-None-Match is answered 304 before the rate limit counts it (guard.ts
 * calls `notModified` between knowing the caller and counting). Also documents both in /openapi.json.
 */
export function conditionalGets (api: FastifyInstance, versions: DataVersions, answers: KeptAnswers) {
  api.decorateRequest('validator', undefined)
  api.decorateRequest('answerKey', undefined)
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
      req.answerKey = answers.keyOf(req)
      return req.validator !== undefined && isCurrent(req.headers['if-none-match'], req.validator)
    }
  }
}
