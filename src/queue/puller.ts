import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from 'pino'
import { isDatabaseUnavailable, isServerOutOfResources, type Tx } from '../store/db.js'
import { LoadGauge, nextSlots, SLOT_RULES } from './slots.js'

/** A job as its worker sees it. */
export interface Job<T> {
  id: string
  /** The queue it was taken from. */
  name: string
  data: T
  /** Attempts before this one. */
  retryCount: number
  /** Attempts after the first that it may have. */
  retryLimit: number
}

/**
 * Says a thing at most once every 30 s for the whole process, counting the times it was not
 * said: an outage is told once, not once per job that waits for it.
 */
class OncePerWhile {
  private saidAt = -Infinity
  private unsaid = 0
  say (tell: () => void): void {
    if (performance.now() - this.saidAt < 30_000) {
      this.unsaid++
      return
    }
    this.saidAt = performance.now()
    tell()
    this.unsaid = 0
  }

  since (): number { return this.unsaid + 1 }
}
const outageSaid = new OncePerWhile()

/** How long a running job waits for a database that went away before its attempt fails. */
const OUTAGE_PATIENCE_MS = 120_000

/**
 * Where a queue's jobs are taken from and settled (lane.ts). Every settle is fenced on the
 * worker and attempt that took the job, and says whether it changed it: false when the
 * attempt was handed back meanwhile (its worker took too long, or was taken to be lost).
 */
export interface JobLane<T> {
  /** Marks up to `batchSize` waiting jobs active and returns them; `running`: the jobs this worker runs. */
  fetch: (batchSize: number, running?: ReadonlySet<string>) => Promise<Array<Job<T>>>
  /** Waits until a waiting job may be taken, `maxMs` at most (`signal`: the queue was woken, or stops). */
  untilDue: (maxMs: number, signal: AbortSignal) => Promise<void>
  complete: (job: Job<T>, output: object) => Promise<boolean>
  /**
   * Ends the attempt: retried with backoff while it has attempts left, unless `permanent`;
   * `failed`: for good. `giveUp`, when it fails for good: run in the same transaction (see
   * JobHandler.onGiveUp); should it throw, the job fails without it and the sweep's pass runs it.
   */
  fail: (
    job: Job<T>, message: string, permanent?: boolean, giveUp?: GiveUp
  ) => Promise<{ settled: boolean, failed: boolean }>
  /** Puts a running job back until `until`, without spending one of its attempts. */
  stepAside?: (job: Job<T>, until: Date) => Promise<boolean>
  /** Moves a running job to queue `to`, its attempts untouched. */
  move?: (job: Job<T>, to: string) => Promise<boolean>
  /** Hands running jobs back unspent (a shutdown): they wait to be taken again at once. */
  handBack: (jobs: ReadonlyArray<Job<T>>, message: string) => Promise<void>
  /** Resolves if the database answers. */
  ping: () => Promise<void>
}

/**
 * How an attempt at a job ended: done, to be tried again, given up, put back for later
 * (deferred), moved to another queue, or too late (stale: its attempt had been handed back).
 */
export interface JobSettled {
  queue: string
  outcome: 'completed' | 'retried' | 'failed' | 'deferred' | 'moved' | 'stale'
  seconds: number
  /** The job's output, when completed. */
  output?: object
}

/**
 * An attempt that ran into the end of its lease: stopped, so that it never runs beside the
 * retry its expiry starts (its signal says so; see JobHandler.run).
 */
export class LeaseEnded extends Error {
  constructor (readonly seconds: number) {
    super(`the attempt ran for ${seconds} s, the most its queue allows, and was stopped`)
  }
}

/** An attempt of a worker that was taken for lost: handed back meanwhile, it stops (see JobQueue.beat). */
export class AttemptLost extends Error {
  constructor () {
    super('the worker was taken for lost and its attempt handed back: it was stopped')
  }
}

/** What a queue tells of its work: each attempt settled, each fetch and how many jobs it took (metrics listen). */
export interface QueueEvents {
  'job.settled': [JobSettled]
  'jobs.fetched': [{ queue: string, found: number }]
}

/** An attempt's lease ends a tenth early, so that it has stopped before its expiry hands it to another. */
const LEASE_MARGIN = 0.9

/** What a queue's worker does with each job. */
export interface JobHandler<T, O extends object> {
  /**
   * Does the job; what it returns is the job's output. Throwing fails the attempt (retried
   * with backoff). `signal` aborts when the attempt's lease ends (see LeaseEnded): work
   * that can take long listens to it.
   */
  run: (job: Job<T>, signal: AbortSignal) => Promise<O>
  /**
   * Completes the job with its output; the lane's complete() unless the handler writes it
   * otherwise (fenced as the lane's: false when the attempt was handed back).
   */
  complete?: (job: Job<T>, output: O) => Promise<boolean>
  /** Whether an error cannot go away by trying again (no retry is spent on it). */
  isPermanent?: (err: unknown) => boolean
  /**
   * When an error only says "not yet" (the job's host is busy): the time to run the job
   * again. The job goes back to the queue until then, its attempts untouched, and frees
   * its worker's slot at once.
   */
  deferredUntil?: (err: unknown) => Date | undefined
  /**
   * When an error says the job belongs on another queue (a crawl that needs the browser):
   * that queue. The job moves there, its attempts untouched, and frees its slot at once.
   */
  movedTo?: (err: unknown) => string | undefined
  /**
   * After the last attempt failed, whatever ended it (this worker, the sweep's expiry, a
   * crash): what is left to do, in `tx`, the transaction that fails the job (or, for a job
   * the sweep failed, the one that marks it given up), so that both commit or neither does;
   * and, returned, whom to tell once they have. Once per job (`err` only when it was this
   * worker's failure); a give-up that throws is run again by the sweep until it runs.
   */
  onGiveUp?: GiveUpOf<T>
}

/** What to tell once a give-up has committed (the job.failed event), if anything. */
export type Told = (() => void) | undefined

/** A job's give-up, run in the transaction `tx` (see JobHandler.onGiveUp). */
type GiveUpOf<T> = (job: Job<T>, reason: string, err: unknown, tx: Tx) => Promise<Told>

/** A give-up bound to its job, run in the transaction `tx` (see JobHandler.onGiveUp). */
export type GiveUp = (tx: Tx) => Promise<Told>

/**
 * Keeps up to `concurrency` jobs of one queue running, fetching more from its lane as
 * soon as a slot frees, and settles each job on its own as it ends: a batch settled
 * together would wait for its slowest job, and could complete one whose retry already runs.
 */
export class JobPuller<T, O extends object = object> {
  private readonly inflight = new Map<string, Promise<void>>()
  private readonly running = new Map<string, Job<T>>()
  /** Each running attempt's controller: its signal is the job's (JobHandler.run). */
  private readonly attempts = new Map<string, AbortController>()
  private stopping = false
  private idle: AbortController | undefined
  /** Jobs were committed since the last fetch began: that fetch may have come too early to see them. */
  private woken = false
  private loopDone: Promise<void> | undefined
  /** Set when stopping gives up on the jobs in flight: none waits any longer for the database. */
  private abandoned = false
  private readonly abandon = new AbortController()
  /** The jobs it runs at once now: from `concurrency` up to `maxConcurrency` (see slots.ts). */
  private slots: number
  /** Every slot was taken, with jobs left waiting, since the slots were last sized. */
  private allTaken = false
  private sizedAt = performance.now()
  private readonly gauge: LoadGauge | undefined

  constructor (
    private readonly lane: JobLane<T>,
    private readonly name: string,
    private readonly concurrency: number,
    private readonly pollMs: number,
    private readonly handler: JobHandler<T, O>,
    private readonly log: Logger,
    private readonly onSettled: (settled: JobSettled) => void = () => {},
    /** How long an attempt may run before the sweep takes it to be lost (its expiry); none: no limit. */
    private readonly leaseMs?: number,
    /** Gives up a job whose last attempt is failing (JobQueue.runGiveUp): the handler's onGiveUp, in `tx`. */
    private readonly giveUp: GiveUpOf<T> = async () => undefined,
    /** The most jobs it may grow to run at once while the process has room (none: `concurrency`, always). */
    private readonly maxConcurrency = concurrency
  ) {
    this.slots = concurrency
    this.gauge = maxConcurrency > concurrency ? new LoadGauge() : undefined
  }

  /** Sizes the slots once an interval has passed: more while all are taken and the process has room. */
  private sizeSlots (): void {
    if (!this.gauge || performance.now() - this.sizedAt < SLOT_RULES.everyMs) return
    const slots = nextSlots(this.slots, this.concurrency, this.maxConcurrency, this.allTaken, this.gauge.read())
    if (slots !== this.slots) this.log.debug({ queue: this.name, from: this.slots, to: slots }, 'job slots sized')
    this.slots = slots
    this.allTaken = false
    this.sizedAt = performance.now()
  }

  private onError (err: unknown): void {
    if (isDatabaseUnavailable(err)) {
      outageSaid.say(() => { this.log.warn({ queue: this.name, err: (err as Error).message }, 'database unavailable') })
    } else this.log.error({ err, queue: this.name }, 'job queue error')
  }

  /**
   * Runs one job and settles it: complete, or fail so that its lane retries it with
   * backoff; after the last attempt, or at once for an error the handler calls
   * permanent, the handler's onGiveUp.
   */
  private async settle (job: Job<T>): Promise<void> {
    const { handler } = this
    const started = performance.now()
    const settled = (outcome: JobSettled['outcome'], output?: O) => {
      this.onSettled({ queue: this.name, outcome, seconds: (performance.now() - started) / 1000, output })
    }
    const attempt = new AbortController()
    this.attempts.set(job.id, attempt)
    const lease = this.leaseMs === undefined
      ? undefined
      : setTimeout(() => { attempt.abort(new LeaseEnded(Math.round(this.leaseMs! * LEASE_MARGIN / 1000))) },
        this.leaseMs * LEASE_MARGIN).unref()
    try {
      const output = await this.whileDatabaseAway(async () => await handler.run(job, attempt.signal))
      clearTimeout(lease)
      const done = await this.whileDatabaseAway(async () => {
        if (handler.complete) return await handler.complete(job, output)
        return await this.lane.complete(job, output)
      })
      if (done === false) return this.stale(job, settled)
      settled('completed', output)
    } catch (thrown) {
      clearTimeout(lease)
      // Whatever the work threw once its signal fired, the reason is the signal's.
      const err = attempt.signal.aborted ? attempt.signal.reason : thrown
      const until = handler.deferredUntil?.(err)
      const { lane } = this
      if (until && lane.stepAside) {
        const put = await this.whileDatabaseAway(async () => await lane.stepAside!(job, until))
        if (!put) return this.stale(job, settled)
        settled('deferred')
        // This worker may be napping until its next poll: it wakes for the job's new time.
        this.wake()
        return
      }
      const to = handler.movedTo?.(err)
      if (to && lane.move) {
        const moved = await this.whileDatabaseAway(async () => await lane.move!(job, to))
        if (!moved) return this.stale(job, settled)
        settled('moved')
        return
      }
      const message = (err as Error)?.message ?? String(err)
      const permanent = handler.isPermanent?.(err) ?? false
      // The last attempt is given up in the transaction that fails it: whoever sees the job
      // failed sees what giving up did (the domain's error, the page's), and a process that
      // dies in between leaves the job running for nobody, for the sweep to fail and give up.
      const last = permanent || job.retryCount >= job.retryLimit
      const giveUp = last ? async (tx: Tx) => await this.giveUp(job, message, err, tx) : undefined
      const ended = await this.whileDatabaseAway(async () => await this.lane.fail(job, message, permanent, giveUp))
      if (!ended.settled) return this.stale(job, settled)
      this.log.warn(
        { jobId: job.id, queue: this.name, attempt: job.retryCount + 1, last: ended.failed },
        `job attempt failed: ${message}`
      )
      settled(ended.failed ? 'failed' : 'retried')
    }
  }

  /** An attempt that ended after it was handed back: its result is dropped; its retry is another's. */
  private stale (job: Job<T>, settled: (outcome: JobSettled['outcome']) => void): void {
    this.log.warn({ jobId: job.id, queue: this.name, attempt: job.retryCount + 1 },
      'the attempt was handed back before it ended (its lease ran out, or its worker was taken to be lost): ' +
      'its result is dropped')
    settled('stale')
  }

  /**
   * Whether `err` came from a database that cannot be reached: a connection error (whose
   * codes, ECONNREFUSED and the like, a failed fetch of a page shares) while the database
   * does not answer either.
   */
  private async databaseIsAway (err: unknown): Promise<boolean> {
    if (!isDatabaseUnavailable(err)) return false
    // A server out of connections may answer the ping on one just freed: its refusal is reason enough.
    if (isServerOutOfResources(err)) return true
    try {
      await this.lane.ping()
      return false
    } catch {
      return true
    }
  }

  /**
   * Runs `step` again while it fails because the database cannot be reached (a restart, a
   * failover), waiting 0.5 s and doubling to 8 s, for up to OUTAGE_PATIENCE_MS: a job
   * the outage interrupted neither spends one of its attempts nor waits for its expiry
   * once the database is back. The job's steps are idempotent: each one's writes commit together.
   */
  private async whileDatabaseAway<R>(step: () => Promise<R>): Promise<R> {
    const giveUpAt = Date.now() + OUTAGE_PATIENCE_MS
    for (let waitMs = 500; ; waitMs = Math.min(waitMs * 2, 8000)) {
      try {
        return await step()
      } catch (err) {
        if (this.abandoned || Date.now() + waitMs > giveUpAt || !(await this.databaseIsAway(err))) throw err
        outageSaid.say(() => {
          this.log.warn({ queue: this.name, err: (err as Error).message, jobsWaiting: outageSaid.since() },
            'database unavailable; jobs wait for it without spending an attempt')
        })
        await sleep(waitMs, undefined, { signal: this.abandon.signal }).catch(() => {})
      }
    }
  }

  start (): void {
    this.loopDone = this.loop()
  }

  private async loop (): Promise<void> {
    while (!this.stopping) {
      this.sizeSlots()
      // Fetch in handfuls, not one by one: each fetch is a query.
      const handful = Math.max(1, Math.floor(this.slots / 2))
      const free = this.slots - this.inflight.size
      if (free < handful && this.inflight.size > 0) {
        // Too few free to fetch: it runs as many as it may.
        this.allTaken = true
        // Slots that can grow are sized while their jobs wait, not only when one ends.
        const nap = new AbortController()
        const waits = [...this.inflight.values()]
        if (this.gauge) waits.push(sleep(SLOT_RULES.everyMs, undefined, { signal: nap.signal }).catch(() => {}))
        await Promise.race(waits)
        nap.abort()
        continue
      }
      let jobs: Array<Job<T>> = []
      this.woken = false
      try {
        jobs = await this.lane.fetch(free, new Set(this.inflight.keys()))
      } catch (err) {
        this.onError(err)
      }
      // As many as it asked for: more may be waiting.
      if (jobs.length >= free) this.allTaken = true
      if (jobs.length === 0) {
        // Stopped during the fetch: no wait for a due job (the watch waits for as long as it takes).
        if (this.woken || this.stopping) continue
        this.idle = new AbortController()
        try {
          await this.lane.untilDue(this.pollMs, this.idle.signal)
        } catch (err) {
          this.onError(err)
          await sleep(this.pollMs, undefined, { signal: this.idle.signal }).catch(() => {})
        }
        this.idle = undefined
        continue
      }
      for (const job of jobs) {
        const done = this.settle(job)
          .catch(err => {
            this.onError(err)
          })
          .finally(() => {
            this.inflight.delete(job.id)
            this.running.delete(job.id)
            this.attempts.delete(job.id)
          })
        this.inflight.set(job.id, done)
        this.running.set(job.id, job)
      }
    }
  }

  /** Stops every attempt it runs with `reason` (their signals fire); how many. */
  stopAttempts (reason: Error): number {
    for (const attempt of this.attempts.values()) attempt.abort(reason)
    return this.attempts.size
  }

  /** Looks for jobs now if it is waiting for its next poll (new jobs were just committed). */
  wake (): void {
    this.woken = true
    this.idle?.abort()
  }

  /**
   * Stops fetching, gives jobs in flight `graceMs` to finish, and hands the rest back
   * unspent: a deploy costs no job one of its attempts.
   */
  async stop (graceMs: number): Promise<void> {
    this.stopping = true
    this.idle?.abort()
    await this.loopDone
    if (this.inflight.size > 0) await Promise.race([Promise.allSettled(this.inflight.values()), sleep(graceMs)])
    this.abandoned = true
    this.abandon.abort()
    const left = [...this.running.values()]
    if (left.length === 0) return
    // Without a database, the jobs stay active until the sweep finds their worker gone.
    await this.lane.handBack(left, 'the worker shut down while the job was running').catch(err => {
      this.onError(err)
    })
  }
}
