import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import rateLimit, { type RateLimitPluginOptions } from '@fastify/rate-limit'
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
  // A Redis outage lets requests through rather than failing them.
  await app.register(rateLimit, {
    global: false,
    skipOnError: true,
    ...(redis ? { redis, nameSpace: config.redisKeyPrefix } : {})
  } satisfies RateLimitPluginOptions)
  app.decorateRequest('rateKey', null)
  const callerKey = (req: FastifyRequest) => req.rateKey ?? `ip:${req.ip}`
  app.decorate('tierLimits', {
    standard: app.createRateLimit({
      max: config.rateLimitStandardPerMinute,
      timeWindow: 60_000,
      keyGenerator: req => `std:${callerKey(req)}`
    }),
    heavy: app.createRateLimit({
      max: config.rateLimitHeavyPerHour,
      timeWindow: 3_600_000,
      keyGenerator: req => `heavy:${callerKey(req)}`
    })
  })
}
