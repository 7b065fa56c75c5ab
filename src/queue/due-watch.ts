import { sql } from 'kysely'
import type { Db } from '../store/db.js'

/** The soonest an idle queue looks again for a job the watch found due. */
const DUE_AGAIN_MS = 20

/**
 * When the idle queues of a worker next have a job due, asked for all of them in one
 * statement: once as a queue falls idle (with any others that do in the same turn), then
 * once per poll while any is idle. Each idle queue used to fetch and then ask on its own,
 * every poll: on the embedded database's one thread a dozen idle queues were two
 * statements each per poll, beside the crawls. A queue with new jobs committed is woken
 * without waiting for the watch (see JobQueue.tell).
 */
export class DueWatch {
  /** The queues idle now, and what each one's waiters do when a job of it may be due. */
  private readonly idle = new Map<string, Set<() => void>>()
  private tick: NodeJS.Timeout | undefined
  private asked = false
  private asking = false
  private askAgain = false
  private closed = false

  constructor (
    private readonly db: Db,
    private readonly pollMs: number,
    private readonly onError: (err: unknown) => void
  ) {}

  /** Resolves once a job of queue `lane` may be due (or `signal` aborts: the queue was woken, or stops). */
  async untilDue (lane: string, signal: AbortSignal): Promise<void> {
    if (signal.aborted || this.closed) return
    await new Promise<void>(resolve => {
      const waiters = this.idle.get(lane) ?? new Set()
      this.idle.set(lane, waiters)
      const done = () => {
        waiters.delete(done)
        if (waiters.size === 0 && this.idle.get(lane) === waiters) this.idle.delete(lane)
        signal.removeEventListener('abort', done)
        resolve()
      }
      waiters.add(done)
      signal.addEventListener('abort', done, { once: true })
      this.askSoon()
    })
  }

  /** Once the queues stopped (their waits were aborted): no more asking. */
  close (): void {
    this.closed = true
    clearTimeout(this.tick)
  }

  private release (lane: string): void {
    for (const done of [...this.idle.get(lane) ?? []]) done()
  }

  /** Asks at the next turn of the event loop, with whatever other queue falls idle meanwhile. */
  private askSoon (): void {
    if (this.asking) {
      this.askAgain = true
      return
    }
    if (this.asked) return
    this.asked = true
    clearTimeout(this.tick)
    setImmediate(() => { void this.ask() })
  }

  private async ask (): Promise<void> {
    this.asked = false
    const lanes = [...this.idle.keys()]
    if (lanes.length === 0 || this.closed) return
    this.asking = true
    try {
      const { rows } = await sql<{ lane: string, ms: number }>`
        SELECT lane, (extract(epoch FROM min(start_after) - now()) * 1000)::float8 AS ms
        FROM jobs WHERE state = 'waiting' AND lane = ANY(${lanes}::text[]) GROUP BY lane`.execute(this.db)
      for (const { lane, ms } of rows) {
        // Due before the next poll: released at its time, not at the poll's. Due already, yet
        // not taken by the queue's last fetch: another worker's fetch has it, and commits within
        // a few answers' time; looking again at once would only load the database.
        if (ms < this.pollMs) setTimeout(() => { this.release(lane) }, Math.max(DUE_AGAIN_MS, ms)).unref()
      }
    } catch (err) {
      // The queues stay idle until the next poll: the database may be back by then.
      this.onError(err)
    } finally {
      this.asking = false
    }
    if (this.closed) return
    if (this.askAgain) {
      this.askAgain = false
      this.askSoon()
    } else if (this.idle.size > 0) {
      this.tick = setTimeout(() => { void this.ask() }, this.pollMs)
    }
  }
}
