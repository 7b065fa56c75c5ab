import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import type { Config } from '../config.js'

/**
 * The rate limiter the guard's buckets count in (see guard.ts): in this process's memory,
 * or in Redis when REDIS_URL is set, so that every API process counts together.
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
  })
}
