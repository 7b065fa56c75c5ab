import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { sql, type RawBuilder } from 'kysely'
import type { Db, Tx } from '../store/db.js'
import { endAttempts, jobOf, TAKEN, type TakenRow } from './lane.js'
import type { Job } from './puller.js'
import type { QueuePolicy } from './queues.js'

// Which workers are alive, and the one sweep. A process that runs jobs is a worker: a row
// in `workers` whose heartbeat it renews every JOB_MAINTENANCE_SECONDS. The sweep (run at
// each beat, by every worker, idempotent) hands back the attempts of workers whose
// heartbeat stopped and of attempts that outlived their queue's lease, and leaves the jobs
// that failed for good to be given up (see JobQueue.giveUp).

/** A worker whose heartbeat is this many beats old is taken to be lost. */
export const BEATS_BEFORE_LOST = 6

export interface SweepResult {
  /** Attempts handed back, by why. */
  lost: number
  expired: number
  /** Of those, the jobs that failed for good (their attempts spent). */
  failed: Array<{ id: string, lane: string }>
}

export class Worker {
  readonly id = randomUUID()
  /** Since when this worker's beats have gone through without a gap: it judges others only after a lost interval. */
  private healthySince: number | undefined

  constructor (
    private readonly db: Db,
    private readonly beatMs: number
  ) {}

  get lostMs (): number {
    return this.beatMs * BEATS_BEFORE_LOST
  }

  /**
   * Registers the worker. `alone`: no other process can share the database (PGlite), so
   * the workers already listed were left by processes that died: they are lost now, not
   * after their heartbeat ages.
   */
  async start (alone: boolean): Promise<void> {
    if (alone) {
      await this.db.deleteFrom('workers').execute()
      this.healthySince = -Infinity
    }
    await this.db.insertInto('workers').values({ id: this.id, host: hostname(), pid: process.pid }).execute()
  }

  /**
   * Renews the heartbeat. Returns false when a sweep elsewhere took this worker for lost
   * (its row was gone): its attempts were handed back, and the ones still running are
   * stale. It is listed again, for the jobs it takes from now on.
   */
  async beat (): Promise<boolean> {
    try {
      const r = await sql`UPDATE workers SET heartbeat_at = now() WHERE id = ${this.id}`.execute(this.db)
      const listed = Number(r.numAffectedRows ?? 0) > 0
      if (!listed) {
        await this.db.insertInto('workers').values({ id: this.id, host: hostname(), pid: process.pid })
          .onConflict(oc => oc.column('id').doNothing()).execute()
      }
      this.healthySince ??= Date.now()
      return listed
    } catch (err) {
      this.healthySince = undefined
      throw err
    }
  }

  /**
   * Hands back the attempts no worker will finish: those of workers whose heartbeat is
   * older than BEATS_BEFORE_LOST beats (or who have no row), their attempt spent, as a
   * crash's; and those running longer than their queue's lease. After a gap in its own
   * beats (the database away), a worker waits a whole lost interval before it judges
   * others: they were cut off as it was.
   */
  async sweep (
    policies: Readonly<Record<string, QueuePolicy>>, retry: (lane: RawBuilder<unknown>) => RawBuilder<unknown>
  ): Promise<SweepResult> {
    const judges = this.healthySince !== undefined && Date.now() - this.healthySince >= this.lostMs
    let lost: Array<{ id: string, lane: string, failed: boolean }> = []
    if (judges) {
      const gone = sql`j.owner IS DISTINCT FROM ${this.id} AND NOT EXISTS (SELECT 1 FROM workers w
        WHERE w.id = j.owner AND w.heartbeat_at > now() - ${this.lostMs} * interval '1 millisecond')`
      lost = await endAttempts(this.db, gone, 'its worker stopped answering: the attempt is taken to be lost', retry)
      await sql`DELETE FROM workers WHERE id <> ${this.id}
        AND heartbeat_at < now() - ${this.lostMs} * interval '1 millisecond'`.execute(this.db)
    }
    const lanes = Object.entries(policies)
    const lease = sql`(CASE j.lane ${sql.join(lanes.map(([name, p]) =>
      sql`WHEN ${name} THEN ${p.expireSeconds}::float8`), sql` `)} ELSE 3600 END)`
    const expired = await endAttempts(this.db, sql`j.processed_at < now() - ${lease} * interval '1 second'`,
      'the attempt expired: its worker did not finish it within its lease', retry)
    return {
      lost: lost.length,
      expired: expired.length,
      failed: [...lost, ...expired].filter(j => j.failed).map(({ id, lane }) => ({ id, lane }))
    }
  }

  /** Leaves the list of workers (its jobs were handed back first). */
  async stop (): Promise<void> {
    await this.db.deleteFrom('workers').where('id', '=', this.id).execute()
  }
}

/** The jobs of `lanes` that failed for good and that nobody gave up yet, in pages of 32. */
export async function * failedNotGivenUp (db: Db, lanes: readonly string[]): AsyncGenerator<string> {
  let after = '00000000-0000-0000-0000-000000000000'
  for (;;) {
    const { rows } = await sql<{ id: string }>`
      SELECT id FROM jobs WHERE state = 'failed' AND gave_up_at IS NULL AND lane = ANY(${lanes}::text[])
        AND id > ${after}::uuid
      ORDER BY id LIMIT 32`.execute(db)
    for (const { id } of rows) yield id
    if (rows.length < 32) return
    after = rows[rows.length - 1]!.id
  }
}

/** Marks job `id` given up in `tx`, unless another pass holds or gave it up: the job and why it failed. */
export async function markGivenUp (tx: Tx, id: string): Promise<{ job: Job<unknown>, reason: string } | undefined> {
  const { rows: [r] } = await sql<TakenRow & { failed_reason: string | null }>`
    UPDATE jobs j SET gave_up_at = now()
    WHERE j.id = (SELECT id FROM jobs WHERE id = ${id} AND state = 'failed' AND gave_up_at IS NULL
      FOR UPDATE SKIP LOCKED)
    RETURNING ${sql.raw(TAKEN)}, j.failed_reason`.execute(tx)
  return r ? { job: jobOf(r), reason: r.failed_reason ?? 'failed' } : undefined
}
