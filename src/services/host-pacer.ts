import type { HostPacer, HostTurn } from '../crawl/polite.js'
import type { RobotsFiles } from '../crawl/robots.js'
import type { Db } from '../store/db.js'
import { endTurn, holdHost, takeTurn, type PaceRules } from '../store/host-pace.js'
import { readRobotsFile, writeRobotsFile } from '../store/robots-files.js'

/**
 * The fleet's politeness (see store/host-pace.ts): every process that crawls takes its
 * turns at a host from the same rows, so W workers keep one host's limits, not W times them.
 * `placeFreed` is told when a request of a host that had all its places taken ends: the
 * crawls that waited for one may be taken now (the workers need not look every 100 ms).
 */
export function fleetPacer (db: Db, rules: PaceRules, placeFreed: () => void = () => {}): HostPacer {
  const turnOf = (startAt: number, lease: string): HostTurn => {
    let ended = false
    return {
      startAt,
      lateMs: rules.slackMs > 0 ? rules.slackMs : Infinity,
      end: async () => {
        if (ended) return
        ended = true
        if (await endTurn(db, lease) >= rules.concurrency) placeFreed()
      }
    }
  }
  return {
    turn: async (host, crawlDelayMs, passedAt) => {
      const turn = await takeTurn(db, host, rules, crawlDelayMs, passedAt)
      return 'busyUntil' in turn ? turn : turnOf(turn.startAt, turn.lease)
    },
    taken: turn => turnOf(turn.startAt, turn.lease),
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
