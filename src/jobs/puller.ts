import { setTimeout as sleep } from 'node:timers/promises'
import type PgBoss from 'pg-boss'

type Job<T> = PgBoss.JobWithMetadata<T>

/**
 * Keeps up to `concurrency` jobs of one queue running, fetching more from pg-boss as
 * soon as a slot frees, and leaves completing or failing each job to `run`. (pg-boss's
 * own batch workers wait for a whole batch and then complete all of it, which can mark
 * a job completed while its retry is already running elsewhere.)
 */
export class JobPuller<T> {
  private readonly inflight = new Map<string, Promise<void>>()
  private stopping = false
  private idle: AbortController | undefined
  /** Jobs were committed since the last fetch began: that fetch may have come too early to see them. */
  private woken = false
  private loopDone: Promise<void> | undefined

  constructor (
    private readonly boss: PgBoss,
    private readonly name: string,
    private readonly concurrency: number,
    private readonly pollMs: number,
    private readonly run: (job: Job<T>) => Promise<void>,
    private readonly onError: (err: unknown) => void
  ) {}

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
        jobs = await this.boss.fetch<T>(this.name, { batchSize: free, includeMetadata: true }) ?? []
      } catch (err) {
        this.onError(err)
      }
      if (jobs.length === 0) {
        if (this.woken) continue
        this.idle = new AbortController()
        await sleep(this.pollMs, undefined, { signal: this.idle.signal }).catch(() => {})
        this.idle = undefined
        continue
      }
      for (const job of jobs) {
        const done = this.run(job).catch(this.onError).finally(() => { this.inflight.delete(job.id) })
        this.inflight.set(job.id, done)
      }
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
    const left = [...this.inflight.keys()]
    await Promise.all(left.map(id => this.boss.fail(this.name, id, { message: 'worker shut down while the job was running' })))
  }
}
