import { setTimeout as sleep } from 'node:timers/promises'
import type PgBoss from 'pg-boss'
import type { Logger } from 'pino'
import { isDatabaseUnavailable } from '../store/db.js'

export type Job<T> = PgBoss.JobWithMetadata<T>

/** How long a running job waits for a database that went away before its attempt fails. */
const OUTAGE_PATIENCE_MS = 120_000

/** Makes an active job's next failure its last (pg-boss's fail() then marks it failed, not retry). */
const NO_MORE_RETRIES =
  "UPDATE pgboss.job SET retry_limit = retry_count WHERE name = $1 AND id = $2 AND state = 'active'"

/** Puts an active job back in the queue until `start_after`, without spending one of its attempts. */
const STEP_ASIDE = "UPDATE pgboss.job SET state = 'created', start_after = $3, started_on = NULL " +
  "WHERE name = $1 AND id = $2 AND state = 'active'"

/** Milliseconds until the queue's next waiting job may start (null: none waiting). */
const NEXT_DUE = 'SELECT (extract(epoch FROM min(start_after) - now()) * 1000)::float8 AS ms FROM pgboss.job ' +
  "WHERE name = $1 AND state < 'active'"

/**
 * How a queue's jobs are taken, when not in pg-boss's own order: crawls are taken only
 * when their host is free (see JobQueue.pull).
 */
export interface JobPicker<T> {
  /** Marks up to `batchSize` waiting jobs active and returns them. */
  fetch: (batchSize: number) => Promise<Array<Job<T>>>
  /** Milliseconds until a waiting job may be taken (null: none waiting). */
  untilDue: () => Promise<number | null>
}

/** Where a change of jobs' states runs: a connection to the queue's database, or a transaction on it. */
export type QueueDb = ReturnType<PgBoss['getDb']>

/**
 * Runs `step`, a change of some jobs' states in the queue, on the connection it is
 * given; `step` returns the ids of the jobs it changed. A queue whose jobs have records
 * (see job-records.ts) runs it in a transaction that writes them too.
 */
export type JobTransition = (step: (db: QueueDb) => Promise<readonly string[]>) => Promise<void>

/** How an attempt at a job ended: done, to be tried again, given up, or put back for later (deferred). */
export interface JobSettled {
  queue: string
  outcome: 'completed' | 'retried' | 'failed' | 'deferred' | 'moved'
  seconds: number
  /** The job's output, when completed. */
  output?: object
}

/** What a queue's worker does with each job. */
export interface JobHandler<T, O extends object> {
  /** Does the job; what it returns is the job's output. Throwing fails the attempt (retried with backoff). */
  run: (job: Job<T>) => Promise<O>
  /** Completes the job with its output; pg-boss's complete() unless the handler writes it otherwise. */
  complete?: (job: Job<T>, output: O) => Promise<void>
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
  /** After the last attempt failed: what is left to do, and whom to tell. */
  onGiveUp?: (job: Job<T>, reason: string, err: unknown) => Promise<void>
}

/**
 * Keeps up to `concurrency` jobs of one queue running, fetching more from pg-boss as
 * soon as a slot frees, and leaves completing or failing each job to `run`. (pg-boss's
 * own batch workers wait for a whole batch and then complete all of it, which can mark
 * a job completed while its retry is already running elsewhere.)
 */
export class JobPuller<T, O extends object = object> {
  private readonly inflight = new Map<string, Promise<void>>()
  private stopping = false
  private idle: AbortController | undefined
  /** Jobs were committed since the last fetch began: that fetch may have come too early to see them. */
  private woken = false
  private loopDone: Promise<void> | undefined
  /** Set when stopping gives up on the jobs in flight: none waits any longer for the database. */
  private abandoned = false
  private readonly abandon = new AbortController()

  constructor (
    private readonly boss: PgBoss,
    private readonly name: string,
    private readonly concurrency: number,
    private readonly pollMs: number,
    private readonly handler: JobHandler<T, O>,
    private readonly log: Logger,
    private readonly onSettled: (settled: JobSettled) => void = () => {},
    private readonly move: (from: string, id: string, to: string) => Promise<void> = async () => {
      throw new Error('this queue moves no jobs')
    },
    private readonly picker?: JobPicker<T>,
    private readonly transition: JobTransition = async step => {
      await step(boss.getDb())
    }
  ) {}

  private onError (err: unknown): void {
    if (isDatabaseUnavailable(err)) {
      this.log.warn({ queue: this.name, err: (err as Error).message }, 'database unavailable')
    } else this.log.error({ err, queue: this.name }, 'job queue error')
  }

  /**
   * Runs one job and settles it: complete, or fail so that pg-boss retries it with
   * backoff; after the last attempt, or at once for an error the handler calls
   * permanent, the handler's onGiveUp.
   */
  private async settle (job: Job<T>): Promise<void> {
    const { handler } = this
    const started = performance.now()
    const settled = (outcome: JobSettled['outcome'], output?: O) => {
      this.onSettled({ queue: this.name, outcome, seconds: (performance.now() - started) / 1000, output })
    }
    try {
      const output = await this.whileDatabaseAway(async () => await handler.run(job))
      await this.whileDatabaseAway(async () => {
        if (handler.complete) await handler.complete(job, output)
        else {
          await this.transition(async db => {
            await this.boss.complete(this.name, job.id, output, { db })
            return [job.id]
          })
        }
      })
      settled('completed', output)
    } catch (err) {
      const until = handler.deferredUntil?.(err)
      if (until) {
        await this.whileDatabaseAway(async () => {
          await this.transition(async db => {
            await db.executeSql(STEP_ASIDE, [this.name, job.id, until.toISOString()])
            return [job.id]
          })
        })
        settled('deferred')
        // This worker may be napping until its next poll: it wakes for the job's new time.
        this.wake()
        return
      }
      const to = handler.movedTo?.(err)
      if (to) {
        await this.whileDatabaseAway(async () => {
          await this.move(this.name, job.id, to)
        })
        settled('moved')
        return
      }
      const message = (err as Error)?.message ?? String(err)
      const permanent = handler.isPermanent?.(err) ?? false
      const last = permanent || job.retryCount >= job.retryLimit
      this.log.warn(
        { jobId: job.id, queue: this.name, attempt: job.retryCount + 1, last },
        `job attempt failed: ${message}`
      )
      await this.whileDatabaseAway(async () => {
        await this.transition(async db => {
          if (permanent) await db.executeSql(NO_MORE_RETRIES, [this.name, job.id])
          await this.boss.fail(this.name, job.id, { message }, { db })
          return [job.id]
        })
      })
      settled(last ? 'failed' : 'retried')
      if (last) {
        await handler.onGiveUp?.(job, message, err).catch(e => {
          this.log.error({ err: e, jobId: job.id }, 'after-failure step failed')
        })
      }
    }
  }

  /**
   * Whether `err` came from a database that cannot be reached: a connection error (whose
   * codes, ECONNREFUSED and the like, a failed fetch of a page shares) while the database
   * does not answer either.
   */
  private async databaseIsAway (err: unknown): Promise<boolean> {
    if (!isDatabaseUnavailable(err)) return false
    try {
      await this.boss.getDb().executeSql('SELECT 1', [])
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
        this.log.warn({ queue: this.name, err: (err as Error).message }, 'database unavailable; the job waits for it')
        await sleep(waitMs, undefined, { signal: this.abandon.signal }).catch(() => {})
      }
    }
  }

  start (): void {
    this.loopDone = this.loop()
  }

  private async loop (): Promise<void> {
    // Fetch in handfuls, not one by one: each fetch is a query.
    const handful = Math.max(1, Math.floor(this.concurrency / 2))
    while (!this.stopping) {
      const free = this.concurrency - this.inflight.size
      if (free < handful && this.inflight.size > 0) {
        await Promise.race(this.inflight.values())
        continue
      }
      let jobs: Array<Job<T>> = []
      this.woken = false
      try {
        if (this.picker) jobs = await this.picker.fetch(free)
        else {
          await this.transition(async db => {
            jobs = (await this.boss.fetch<T>(this.name, { batchSize: free, includeMetadata: true, db })) ?? []
            return jobs.map(j => j.id)
          })
        }
      } catch (err) {
        this.onError(err)
      }
      if (jobs.length === 0) {
        if (this.woken) continue
        this.idle = new AbortController()
        const napMs = Math.min(this.pollMs, await this.untilNextDue())
        await sleep(napMs, undefined, { signal: this.idle.signal }).catch(() => {})
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
          })
        this.inflight.set(job.id, done)
      }
    }
  }

  /**
   * How long until the next waiting job of the queue may start: crawls are queued for
   * their host's turn (start_after), and the worker wakes for it rather than at its next poll.
   */
  private async untilNextDue (): Promise<number> {
    try {
      const nextDue = async () => {
        const { rows } = await this.boss.getDb().executeSql(NEXT_DUE, [this.name]) as
          { rows: Array<{ ms: number | null }> }
        return rows[0]?.ms
      }
      const ms = this.picker ? await this.picker.untilDue() : await nextDue()
      return ms === null || ms === undefined ? this.pollMs : Math.max(20, ms)
    } catch (err) {
      this.onError(err)
      return this.pollMs
    }
  }

  /** Looks for jobs now if it is waiting for its next poll (new jobs were just committed). */
  wake (): void {
    this.woken = true
    this.idle?.abort()
  }

  /** Stops fetching, gives jobs in flight `graceMs` to finish, and hands the rest back (failed, so retried). */
  async stop (graceMs: number): Promise<void> {
    this.stopping = true
    this.idle?.abort()
    await this.loopDone
    if (this.inflight.size > 0) await Promise.race([Promise.allSettled(this.inflight.values()), sleep(graceMs)])
    this.abandoned = true
    this.abandon.abort()
    const left = [...this.inflight.keys()]
    if (left.length === 0) return
    // Without a database, the jobs stay active until they expire, and are retried then.
    const message = 'worker shut down while the job was running'
    await this.transition(async db => {
      for (const id of left) await this.boss.fail(this.name, id, { message }, { db })
      return left
    }).catch(err => {
      this.onError(err)
    })
  }
}
