import type PgBoss from 'pg-boss'
import { CompiledQuery } from 'kysely'
import type { Db, SqlExecutor, Tx } from '../store/db.js'
import { recordJobStates, type BossJob } from './job-records.js'
import type { Job, JobLane } from './puller.js'

// A queue pg-boss runs, through its public API only: fetch, complete, fail, cancel and
// getJobById, each inside a transaction of ours that also writes what we keep of it: the
// job's record (discoveries, briefs: see job-records.ts) and, on the embedded database,
// which jobs this process holds (held_jobs), so that the next process hands back those a
// dead one left running rather than waiting for their expiry.

/** pg-boss's `db` option over an open transaction, so that its statements commit with ours. */
export function txSqlExecutor (tx: Tx): SqlExecutor {
  return {
    async executeSql (text, values) {
      const result = await tx.executeQuery(CompiledQuery.raw(text, values ?? []))
      return { rows: result.rows as any[] }
    }
  }
}

export class BossLane<T> implements JobLane<T> {
  constructor (
    private readonly boss: PgBoss,
    private readonly db: Db,
    readonly name: string,
    private readonly keeps: { records: boolean, holds: boolean }
  ) {}

  /** Whether anything of ours is written beside pg-boss's changes (else they need no transaction of ours). */
  private get keepsAnything (): boolean {
    return this.keeps.records || this.keeps.holds
  }

  async fetch (batchSize: number): Promise<Array<Job<T>>> {
    if (!this.keepsAnything) return await this.boss.fetch<T>(this.name, { batchSize, includeMetadata: true }) ?? []
    return await this.db.transaction().execute(async tx => {
      const db = txSqlExecutor(tx)
      const jobs = await this.boss.fetch<T>(this.name, { batchSize, includeMetadata: true, db }) ?? []
      if (jobs.length === 0) return []
      if (this.keeps.records) await recordJobStates(tx, jobs)
      if (this.keeps.holds) {
        await tx.insertInto('held_jobs').values(jobs.map(j => ({ id: j.id, queue: this.name })))
          .onConflict(oc => oc.column('id').doNothing()).execute()
      }
      return jobs
    })
  }

  /** pg-boss's public API does not say when its next job is due: the worker polls. */
  async untilDue (): Promise<number | null> {
    return null
  }

  async complete (job: Job<T>, output: object): Promise<void> {
    await this.settled([job.id], async db => {
      await this.boss.complete(this.name, job.id, output, { db })
    })
  }

  async fail (ids: readonly string[], message: string, permanent = false): Promise<void> {
    await this.settled(ids, async db => {
      for (const id of ids) await this.boss.fail(this.name, id, { message }, { db })
      // A failure no retry can mend ends the job now: pg-boss would have retried it.
      if (permanent) await this.boss.cancel(this.name, [...ids], { db })
    })
  }

  /**
   * Reads jobs `ids` again, which an expiry may have ended behind their worker's back:
   * those no longer running have their records written and are no longer held. Returns them.
   */
  async reread (ids: readonly string[]): Promise<BossJob[]> {
    const ended = (await this.jobs(ids)).filter(j => j.state !== 'active')
    if (ended.length === 0) return []
    await this.db.transaction().execute(async tx => {
      if (this.keeps.records) await recordJobStates(tx, ended)
      await tx.deleteFrom('held_jobs').where('id', 'in', ended.map(j => j.id)).execute()
    })
    return ended
  }

  /** Fails the attempts at jobs `ids` that are still running: a process that died left them (see handBackOrphans). */
  async handBack (ids: readonly string[], message: string): Promise<number> {
    await this.reread(ids)
    const running = (await this.jobs(ids)).filter(j => j.state === 'active').map(j => j.id)
    if (running.length > 0) await this.fail(running, message)
    // Those pg-boss no longer keeps.
    await this.db.deleteFrom('held_jobs').where('id', 'in', [...ids]).execute()
    return running.length
  }

  async ping (): Promise<void> {
    await this.boss.getDb().executeSql('SELECT 1', [])
  }

  /** Runs `step` (pg-boss's change of jobs `ids`) in a transaction that also writes what we keep of them. */
  private async settled (ids: readonly string[], step: (db: SqlExecutor) => Promise<void>): Promise<void> {
    if (!this.keepsAnything) {
      await step(this.boss.getDb())
      return
    }
    await this.db.transaction().execute(async tx => {
      const db = txSqlExecutor(tx)
      await step(db)
      if (this.keeps.records) await recordJobStates(tx, await this.jobs(ids, db))
      if (this.keeps.holds) await tx.deleteFrom('held_jobs').where('id', 'in', [...ids]).execute()
    })
  }

  /** Jobs `ids` as pg-boss has them now (a job it no longer keeps is left out). */
  async jobs (ids: readonly string[], db?: SqlExecutor): Promise<BossJob[]> {
    const found: BossJob[] = []
    for (const id of ids) {
      const job = await this.boss.getJobById(this.name, id, { db, includeArchive: true })
      if (job) found.push(job)
    }
    return found
  }
}
