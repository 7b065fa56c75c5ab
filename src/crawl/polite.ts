/**
 * A turn to send one request to a host: at `startAt` (epoch ms), and not more than
 * `lateMs` after it, else the turn is given up; `end()` once the answer is in.
 */
export interface HostTurn {
  startAt: number
  lateMs: number
  end: () => Promise<void>
  /**
   * Asked when the turn's time (`startAt`, as last rechecked) has come after a wait, or
   * when its request would go late: the host held meanwhile (Retry-After) gives when it
   * ends; a turn on time keeps its time; a late one is moved to now while no later turn
   * was given (a busy machine delays requests rather than giving turns up, each of which
   * cost the host a whole delay); a late one another turn followed is passed (undefined).
   */
  recheck: (startAt: number) => Promise<{ startAt: number } | { busyUntil: Date } | undefined>
}

/**
 * Per-host manners: at most so many requests to a host in flight, at least a delay
 * between their starts (the longer of ours and the host's Crawl-delay), none before its
 * Retry-After. A turn that is too far away is not given: the answer says when to come
 * back (busyUntil), so that a job can step aside instead of holding a worker.
 * The service keeps this in the database for the whole fleet (services/host-pacer.ts);
 * HostLimiter keeps it in one process.
 */
export interface HostPacer {
  turn: (host: string, crawlDelayMs: number) => Promise<HostTurn | { busyUntil: Date }>
  backoff: (host: string, ms: number) => Promise<void>
}

/** A host's turn is farther away than a request should wait for (see HostPacer). */
export class HostBusy extends Error {
  constructor (readonly host: string, readonly until: Date) {
    super(`${host} is busy until ${until.toISOString()}`)
  }
}

/** How far ahead a Retry-After is waited for in one process; past it the caller comes back later. */
const MAX_WAIT_MS = 60_000

/**
 * How late a request may start after its turn and still keep the delay to the next one:
 * a twentieth of the delay (5 ms at least), added to it between turns. A later start (a
 * busy event loop) moves its turn, or gives it up for the next (see HostTurn.recheck and
 * Crawler.polite). The fleet's turns keep the same rule (services/host-pacer.ts).
 */
export const turnSlackMs = (delayMs: number) => delayMs > 0 ? Math.max(5, Math.round(delayMs / 20)) : 0

/**
 * HostPacer for one process (the embedded database's: no other process crawls): each
 * host's callers queue in memory, no statement per request.
 */
export class HostLimiter implements HostPacer {
  private readonly hosts = new Map<
    string,
    { active: number, waiting: Array<() => void>, nextStart: number, backoffUntil: number }
  >()

  constructor (
    private readonly concurrency: number,
    private readonly delayMs: number
  ) {}

  private state (host: string) {
    let s = this.hosts.get(host)
    if (!s) {
      s = { active: 0, waiting: [], nextStart: 0, backoffUntil: 0 }
      this.hosts.set(host, s)
    }
    return s
  }

  async backoff (host: string, ms: number): Promise<void> {
    const s = this.state(host)
    s.backoffUntil = Math.max(s.backoffUntil, Date.now() + ms)
  }

  async turn (host: string, crawlDelayMs: number): Promise<HostTurn | { busyUntil: Date }> {
    const s = this.state(host)
    if (s.backoffUntil - Date.now() > MAX_WAIT_MS) return { busyUntil: new Date(s.backoffUntil) }
    if (s.active >= this.concurrency) await new Promise<void>(resolve => s.waiting.push(resolve))
    else s.active++
    const now = Date.now()
    const start = Math.max(now, s.nextStart, s.backoffUntil)
    const delayMs = Math.max(this.delayMs, crawlDelayMs)
    const slackMs = turnSlackMs(delayMs)
    s.nextStart = start + delayMs + slackMs
    const end = async () => {
      const next = s.waiting.shift()
      if (next) next()
      else {
        s.active--
        if (s.active === 0 && s.nextStart < Date.now() && s.backoffUntil < Date.now()) this.hosts.delete(host)
      }
    }
    const recheck = async (startAt: number) => {
      const now = Date.now()
      if (s.backoffUntil > now) return { busyUntil: new Date(s.backoffUntil) }
      if (delayMs <= 0 || now - startAt <= slackMs) return { startAt }
      if (s.nextStart !== startAt + delayMs + slackMs) return undefined
      s.nextStart = now + delayMs + slackMs
      return { startAt: now }
    }
    return { startAt: start, lateMs: slackMs > 0 ? slackMs : Infinity, end, recheck }
  }
}
