import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import rateLimit, { type FastifyRateLimitStoreCtor, type RateLimitPluginOptions } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Redis } from 'ioredis'
import type { Config } from '../config.js'

export type Tier = 'standard' | 'heavy'
type TierLimit = ReturnType<FastifyInstance['createRateLimit']>

declare module 'fastify' {
  interface FastifyInstance {
    /** The rate tiers' buckets, for every door (the API's guard, the web app's actions): one count per caller. */
    tierLimits: Record<Tier, TierLimit>
  }
  interface FastifyRequest {
    /** Whom a request counts against: `org:<id>` once its caller is known, else its address. */
    rateKey: string | null
    /** The heavy tier's key this request was counted under, until it is given back (see REFUSED). */
    heavyCounted: string | null
    /** The route refused the call in words of its own (a form sent back with why): as a refusal's status. */
    refusedByRoute?: boolean
  }
}

/**
 * The rate limiter the tiers' buckets count in: in this process's memory, or in Redis
 * when REDIS_URL is set, so that every API process counts together. The buckets are made
 * once here and shared by the API (guard.ts) and the web app, so that an organisation's
 * heavy actions count together whichever door they come through.
 */
export async function rateLimitStore (app: FastifyInstance, config: Config): Promise<void> {
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
  const counts = redis ? new RedisCounts(redis, config.redisKeyPrefix) : new LocalCounts()
  // A Redis outage lets requests through rather than failing them.
  await app.register(rateLimit, {
    global: false,
    skipOnError: true,
    store: storeOf(counts)
  } satisfies RateLimitPluginOptions)
  app.decorateRequest('rateKey', null)
  app.decorateRequest('heavyCounted', null)
  const callerKey = (req: FastifyRequest) => req.rateKey ?? `ip:${req.ip}`
  const heavy = app.createRateLimit({
    max: config.rateLimitHeavyPerHour,
    timeWindow: 3_600_000,
    keyGenerator: req => `heavy:${callerKey(req)}`
  })
  const standard = app.createRateLimit({
    max: config.rateLimitStandardPerMinute,
    timeWindow: 60_000,
    keyGenerator: req => `std:${callerKey(req)}`
  })
  app.decorate('tierLimits', {
    standard,
    heavy: async (req, options) => {
      const limit = await heavy(req, options)
      if (options?.increment !== false && 'isExceeded' in limit && !limit.isExceeded) req.heavyCounted = limit.key
      return limit
    }
  })
  // A heavy call refused by its route (a role it lacks, a domain that is not there, a conflict) did none of the
  // heavy work: it is given back to the heavy tier and counts in the standard one, as any other refused call does
  // (so that refused calls cannot flood the service either).
  app.addHook('onSend', async (req, reply) => {
    const key = req.heavyCounted
    if (!key || !(REFUSED.has(reply.statusCode) || req.refusedByRoute)) return
    req.heavyCounted = null
    await counts.giveBack(key).catch(() => {})
    await standard(req).catch(() => undefined)
    const left = Number(reply.getHeader('x-ratelimit-remaining'))
    if (Number.isFinite(left)) reply.header('x-ratelimit-remaining', left + 1)
  })
}

/** The answers of a refused call: it is not charged to the heavy tier. */
const REFUSED = new Set([401, 403, 404, 409])

/** A tier's count for one caller in its window, and the milliseconds the window has left. */
interface Count { current: number, ttl: number }

/**
 * Where the tiers count: fixed windows, as @fastify/rate-limit's own stores count them,
 * with a count that can be given back (a refused heavy call).
 */
interface Counts {
  add: (key: string, windowMs: number) => Promise<Count>
  read: (key: string) => Promise<Count>
  giveBack: (key: string) => Promise<void>
}

/** The counts in this process's memory (no REDIS_URL): a window per key, the oldest forgotten past MAX_KEYS. */
class LocalCounts implements Counts {
  private static readonly MAX_KEYS = 10_000
  private readonly windows = new Map<string, { current: number, ends: number }>()

  async add (key: string, windowMs: number): Promise<Count> {
    const now = Date.now()
    let w = this.windows.get(key)
    if (!w || w.ends <= now) {
      this.windows.delete(key)
      if (this.windows.size >= LocalCounts.MAX_KEYS) this.windows.delete(this.windows.keys().next().value!)
      w = { current: 0, ends: now + windowMs }
      this.windows.set(key, w)
    }
    w.current++
    return { current: w.current, ttl: w.ends - now }
  }

  async read (key: string): Promise<Count> {
    const w = this.windows.get(key)
    const now = Date.now()
    return w && w.ends > now ? { current: w.current, ttl: w.ends - now } : { current: 0, ttl: 0 }
  }

  async giveBack (key: string): Promise<void> {
    const w = this.windows.get(key)
    if (w && w.current > 0 && w.ends > Date.now()) w.current--
  }
}

/** The counts in Redis, shared by every API process: one key per caller and tier, expiring with its window. */
class RedisCounts implements Counts {
  constructor (private readonly redis: Redis, private readonly prefix: string) {
    redis.defineCommand('sitewatchTierAdd', {
      numberOfKeys: 1,
      lua: `local n = redis.call('INCR', KEYS[1])
        if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
        return {n, redis.call('PTTL', KEYS[1])}`
    })
    // Only a count still in its window is given back: a key that expired is not made again without its expiry.
    redis.defineCommand('sitewatchTierGiveBack', {
      numberOfKeys: 1,
      lua: `local n = tonumber(redis.call('GET', KEYS[1]) or '0')
        if n > 0 and redis.call('PTTL', KEYS[1]) > 0 then redis.call('DECR', KEYS[1]) end
        return 0`
    })
  }

  private get commands (): Record<string, (key: string, ...args: Array<string | number>) => Promise<unknown>> {
    return this.redis as unknown as Record<string, (key: string, ...args: Array<string | number>) => Promise<unknown>>
  }

  async add (key: string, windowMs: number): Promise<Count> {
    const [current, ttl] = await this.commands.sitewatchTierAdd(this.prefix + key, windowMs) as [number, number]
    return { current, ttl: Math.max(0, ttl) }
  }

  async read (key: string): Promise<Count> {
    const [current, ttl] = await Promise.all([this.redis.get(this.prefix + key), this.redis.pttl(this.prefix + key)])
    return current === null ? { current: 0, ttl: 0 } : { current: Number(current), ttl: Math.max(0, ttl) }
  }

  async giveBack (key: string): Promise<void> {
    await this.commands.sitewatchTierGiveBack(this.prefix + key)
  }
}

/** The counts as the plugin asks for them (callbacks; `child` per bucket: the keys already say their tier). */
function storeOf (counts: Counts): FastifyRateLimitStoreCtor {
  type Done = (err: Error | null, res?: Count) => void
  const answer = (p: Promise<Count>, done: Done) => { p.then(res => done(null, res), (err: Error) => done(err)) }
  return class TierStore {
    incr (key: string, done: Done, windowMs: number): void { answer(counts.add(key, windowMs), done) }
    read (key: string, done: Done): void { answer(counts.read(key), done) }
    child (): TierStore { return this }
  }
}
