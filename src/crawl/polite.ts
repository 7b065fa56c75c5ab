import { setTimeout as sleep } from 'node:timers/promises'
import { FetchError, TurnPassed } from './errors.js'
import type { InTurn } from './fetch.js'

// Per-host manners, one rule for every request the service makes to a watched site: at
// most so many requests to a host in flight, at least a delay between their starts (the
// longer of ours and the host's Crawl-delay), none before its Retry-After. The turns are
// the database's, for the whole fleet (store/host-pace.ts): a crawl takes its turn with
// its job (queue/crawl-order.ts), any other request here. A request is written in its
// turn or not at all: one that would go late gives its turn up and takes another, from
// now while no later turn was given, else the next.

/**
 * A turn to send one request to a host: at `startAt` (epoch ms, the database's clock;
 * the workers' clocks are taken to agree with it), and not more than `lateMs` after it.
 * `end()` once the answer is in (again: nothing).
 */
export interface HostTurn {
  startAt: number
  lateMs: number
  end: () => Promise<void>
}

/**
 * A turn already taken (a crawl's, with its job), for the first request to its host that
 * asks: robots.txt when it must be fetched, else the page. Whoever uses it takes it out.
 */
export interface TurnInHand { turn?: HostTurn }

/** A crawl's turn, taken with it from the queue (see queue/crawl-order.ts). */
export interface TakenTurn {
  startAt: number
  lease: string
}

export interface HostPacer {
  /**
   * The next turn at `host`, or when to come back: a turn farther away than a request
   * should wait for is not given, so that a crawl can step aside instead of holding a worker.
   * `passedAt`: the start of the turn the caller just gave up, late (see store/host-pace.ts takeTurn).
   */
  turn: (host: string, crawlDelayMs: number, passedAt?: number) => Promise<HostTurn | { busyUntil: Date }>
  /** A turn taken with a crawl from the queue, as one of this pacer's. */
  taken: (turn: TakenTurn) => HostTurn
  /** The host asked every worker to wait this long (Retry-After). */
  backoff: (host: string, ms: number) => Promise<void>
}

/** A host's turn is farther away than a request should wait for (see HostPacer). */
export class HostBusy extends Error {
  constructor (readonly host: string, readonly until: Date) {
    super(`${host} is busy until ${until.toISOString()}`)
  }
}

/**
 * What a request does when its host's turn is far away: `defer` throws HostBusy (a crawl
 * job steps aside and comes back then), `wait` waits for it (a discovery, robots.txt).
 */
export type Pace = 'defer' | 'wait'

/**
 * How many turns a `defer` request lets go late before it steps aside (HostBusy), leaving
 * its slot to other work; a `wait` request takes turns until MAX_HOST_WAIT_MS. A machine
 * too busy to write a request in its turn sends none.
 */
const MAX_LATE_TURNS = 5

/** How long a `wait` request waits for its host before its attempt fails (and is retried later). */
const MAX_HOST_WAIT_MS = 60_000

/**
 * Runs one request to `host` in its turn: the one in hand when there is one (taken out),
 * else the pacer's next. `request` passes `inTurn` on to the fetcher, which
 * writes the request only while the turn holds (TurnPassed: the next turn is taken, and
 * `late` told). `signal` ends the wait.
 */
export async function inTurn<T> (
  pacer: HostPacer, host: string, crawlDelayMs: number, pace: Pace, request: (inTurn: InTurn) => Promise<T>,
  { signal, inHand, late }: { signal?: AbortSignal, inHand?: TurnInHand, late?: () => void } = {}
): Promise<T> {
  const giveUpAt = Date.now() + MAX_HOST_WAIT_MS
  let next = inHand?.turn
  if (inHand) inHand.turn = undefined
  let passedAt: number | undefined
  for (let lateTurns = 0; ;) {
    signal?.throwIfAborted()
    const turn = next ?? await pacer.turn(host, crawlDelayMs, passedAt)
    next = undefined
    passedAt = undefined
    if ('busyUntil' in turn) {
      const until = turn.busyUntil
      if (pace === 'defer') throw new HostBusy(host, until)
      if (until.getTime() > giveUpAt) {
        const seconds = Math.ceil((until.getTime() - Date.now()) / 1000)
        throw new FetchError('HTTP_STATUS', `${host} asked us to retry in ${seconds} s`)
      }
      await sleep(Math.max(50, until.getTime() - Date.now()), undefined, { signal })
      continue
    }
    try {
      const waitMs = turn.startAt - Date.now()
      if (waitMs > 0) await sleep(waitMs, undefined, { signal })
      const onTime = () => Date.now() - turn.startAt <= turn.lateMs
      if (onTime()) {
        try {
          return await request({ atWrite: onTime })
        } catch (err) {
          if (!(err instanceof TurnPassed)) throw err
        }
      }
    } finally {
      await turn.end().catch(() => {})
    }
    late?.()
    passedAt = turn.startAt
    if (++lateTurns >= MAX_LATE_TURNS && pace === 'defer') throw new HostBusy(host, new Date())
    if (Date.now() > giveUpAt) throw new FetchError('HTTP_STATUS', `${host}: no turn could be kept in a minute`)
  }
}
