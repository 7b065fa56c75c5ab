import type { Config } from '../config.js'
import { turnSlackMs, type HostPacer } from '../crawl/polite.js'
import type { RobotsFiles } from '../crawl/robots.js'
import type { Db } from '../store/db.js'
import { endTurn, holdHost, recheckTurn, takeTurn, type PaceRules } from '../store/host-pace.js'
import { readRobotsFile, writeRobotsFile } from '../store/robots-files.js'

/**
 * The fleet's politeness (see store/host-pace.ts): every process that crawls takes its
 * turns at a host from the same rows, so W workers keep one host's limits, not W times them.
 * `placeFreed` is told when a request of a host that had all its places taken ends: the
 * crawls that waited for one may be taken now (the workers need not look every 100 ms).
 */
export function fleetPacer (db: Db, config: Pick<Config,
  'crawlPerHostConcurrency' | 'crawlPerHostDelayMs' | 'crawlTimeoutMs' | 'renderTimeoutMs'>,
placeFreed: () => void = () => {}): HostPacer {
  const rules: PaceRules = {
    concurrency: config.crawlPerHostConcurrency,
    delayMs: config.crawlPerHostDelayMs,
    // A request ends within its timeout; a lease outlives it only when its worker died.
    leaseMs: Math.max(config.crawlTimeoutMs, config.renderTimeoutMs) + 10_000,
    // Sleeping through a few of the host's delays is cheaper than stepping aside and coming back.
    maxWaitMs: Math.max(1000, 4 * config.crawlPerHostDelayMs),
    slackMs: turnSlackMs(config.crawlPerHostDelayMs)
  }
  // How long the database's answers about turns take lately: a recheck counts it as the time
  // its own answer takes to reach the worker (see recheckTurn), up to a quarter of the delay.
  let answerMs = rules.slackMs
  const timed = async <T>(ask: () => Promise<T>): Promise<T> => {
    const started = performance.now()
    try {
      return await ask()
    } finally {
      answerMs = 0.8 * answerMs + 0.2 * (performance.now() - started)
    }
  }
  return {
    turn: async (host, crawlDelayMs) => {
      const turn = await timed(async () => await takeTurn(db, host, rules, crawlDelayMs))
      if ('busyUntil' in turn) return turn
      // The database's clock decides turns; workers' clocks are taken to agree with it (NTP).
      return {
        startAt: turn.startAt,
        lateMs: rules.slackMs > 0 ? rules.slackMs : Infinity,
        end: async () => {
          if (await endTurn(db, turn.lease) >= rules.concurrency) placeFreed()
        },
        recheck: async startAt => await timed(async () =>
          await recheckTurn(db, host, startAt, rules, crawlDelayMs, Math.min(rules.delayMs / 4, answerMs)))
      }
    },
    backoff: async (host, ms) => { await holdHost(db, host, ms) }
  }
}

/** The fleet's robots.txt files: a host's is fetched once for every process that crawls it, not once per process. */
export function fleetRobotsFiles (db: Db): RobotsFiles {
  return {
    read: async origin => await readRobotsFile(db, origin),
    write: async (origin, body, expiresAt) => { await writeRobotsFile(db, origin, body, expiresAt) }
  }
}
