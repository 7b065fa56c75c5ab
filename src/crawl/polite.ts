import { setTimeout as sleep } from 'node:timers/promises'
import { FetchError } from './errors.js'

const MAX_WAIT_MS = 60_000

/**
 * Per-host manners for one process: at most `concurrency` requests to a host at a time,
 * at least `delayMs` between their starts, and none before a host's Retry-After runs out
 * (past a minute the job gives up this attempt and retries later, with backoff).
 */
export class HostLimiter {
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

  backoff (host: string, ms: number): void {
    const s = this.state(host)
    s.backoffUntil = Math.max(s.backoffUntil, Date.now() + ms)
  }

  async run<T>(host: string, fn: () => Promise<T>): Promise<T> {
    const s = this.state(host)
    if (s.active >= this.concurrency) await new Promise<void>(resolve => s.waiting.push(resolve))
    else s.active++
    try {
      const now = Date.now()
      const backoff = s.backoffUntil - now
      if (backoff > MAX_WAIT_MS) {
        throw new FetchError('HTTP_STATUS', `${host} asked us to retry in ${Math.ceil(backoff / 1000)} s`)
      }
      const start = Math.max(now, s.nextStart, s.backoffUntil)
      s.nextStart = start + this.delayMs
      if (start > now) await sleep(start - now)
      return await fn()
    } finally {
      const next = s.waiting.shift()
      if (next) next()
      else {
        s.active--
        if (s.active === 0 && s.nextStart < Date.now() && s.backoffUntil < Date.now()) this.hosts.delete(host)
      }
    }
  }
}
