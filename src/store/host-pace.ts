import { sql } from 'kysely'
import type { Db, Tx } from './db.js'

// Per-host politeness kept in the database, so that every process of a deployment keeps
// the same promise to a watched site: at most `concurrency` requests in flight and at
// least the host's delay between two starts, counted across the fleet. The host's row
// is the lock: a turn is taken in one short transaction that holds it. Times are the
// database's clock_timestamp(), read once the lock is held (now() would be the time the
// transaction began, before any wait for the lock).
//
// - next_start: the earliest time the next request may start (a turn moves it on by the delay);
// - planned: the cursor of turns promised to queued jobs (their start_after), so that a
//   big crawl is released at the host's pace instead of all at once;
// - backoff_until: a 429's or 503's Retry-After, for every worker;
// - delay_ms: the host's robots.txt Crawl-delay, when longer than ours.

/** A time in epoch milliseconds as SQL, to the microsecond (a Date would round it to the millisecond). */
const at = (ms: number) => sql`to_timestamp(${ms / 1000}::float8)`

export interface PaceRules {
  concurrency: number
  delayMs: number
  /** How long a lease lives: a worker that dies mid-request frees its place after this. */
  leaseMs: number
  /** A turn farther away than this is not waited for: the caller is told when to come back. */
  maxWaitMs: number
  /**
   * Added to the delay after each turn: how late a request may start and still keep the
   * delay to the next one. A later start moves its turn, or gives it up (see HostTurn.recheck).
   */
  slackMs: number
}

export type Turn = { startAt: number, lease: string } | { busyUntil: Date }

/**
 * Takes the next turn of `host`, or says when to come back: when the host has
 * `concurrency` requests in flight, or its next free start is more than maxWaitMs away.
 * Coming back is itself a promised turn (the planned cursor moves on), so that callers
 * turned away return one by one, not all at once. One round trip: the database's
 * take_host_turn (migration 0017), which holds the host's row while it decides.
 */
export async function takeTurn (db: Db, host: string, rules: PaceRules, crawlDelayMs = 0): Promise<Turn> {
  const { rows: [row] } = await sql<{ start_ms: number | null, lease: string | null, busy_until_ms: number | null }>`
    SELECT start_ms, lease, busy_until_ms FROM take_host_turn(${host}, ${crawlDelayMs}, ${rules.delayMs},
      ${rules.concurrency}, ${rules.maxWaitMs}, ${rules.leaseMs}, ${rules.slackMs})`.execute(db)
  if (row.lease === null || row.start_ms === null) return { busyUntil: new Date(Number(row.busy_until_ms)) }
  return { startAt: Number(row.start_ms), lease: row.lease }
}

/**
 * A turn's time, asked when it has come (see recheck_host_turn, migration 0032): the same
 * while on time once the answer has reached the worker (`leadMs` from now); when late and
 * no later turn was given, moved to now and the lead; none when a later one was (the turn
 * is passed); the end of a Retry-After that came meanwhile.
 */
export async function recheckTurn (
  db: Db, host: string, startAt: number, rules: PaceRules, crawlDelayMs = 0, leadMs = 0
): Promise<{ startAt: number } | { busyUntil: Date } | undefined> {
  const { rows: [row] } = await sql<{ start_ms: number | null, busy_until_ms: number | null }>`
    SELECT start_ms, busy_until_ms FROM recheck_host_turn(${host}, ${startAt}::float8, ${crawlDelayMs},
      ${rules.delayMs}, ${rules.slackMs}, ${leadMs}::float8)`.execute(db)
  if (row.busy_until_ms !== null) return { busyUntil: new Date(Number(row.busy_until_ms)) }
  return row.start_ms === null ? undefined : { startAt: Number(row.start_ms) }
}

/** The request of this lease has ended: its place is free. Returns how many the host had in flight with it. */
export async function endTurn (db: Db, lease: string): Promise<number> {
  // The count reads the table as the statement began: the lease ended is among them.
  const { rows } = await sql<{ n: number }>`
    WITH gone AS (DELETE FROM host_leases WHERE id = ${lease} RETURNING host)
    SELECT (SELECT count(*) FROM host_leases l WHERE l.host = gone.host AND l.expires_at > now())::int AS n
    FROM gone`.execute(db)
  return rows[0]?.n ?? 0
}

/** The host asked us to wait (Retry-After): no request of any worker starts before then. */
export async function holdHost (db: Db, host: string, ms: number): Promise<void> {
  await sql`
    INSERT INTO host_pace AS p (host, backoff_until)
    VALUES (${host}, clock_timestamp() + ${ms} * interval '1 millisecond')
    ON CONFLICT (host) DO UPDATE SET backoff_until = greatest(p.backoff_until, EXCLUDED.backoff_until)`.execute(db)
}

/**
 * Promises `count` turns of `host` to jobs being queued: the times they may start, one
 * delay apart after the turns already promised. A promise is a hint for the queue (the
 * job's start_after), not a turn: the job still takes one when it runs.
 */
export async function planTurns (tx: Tx, host: string, count: number, delayMs: number): Promise<Date[]> {
  const { rows: [row] } = await sql<{ base_ms: string, delay_ms: number }>`
    WITH cur AS (
      INSERT INTO host_pace AS p (host) VALUES (${host})
      ON CONFLICT (host) DO UPDATE SET host = EXCLUDED.host
      RETURNING p.next_start, p.planned, p.backoff_until, p.delay_ms
    )
    SELECT (extract(epoch FROM greatest(planned, next_start, backoff_until, now())) * 1000)::float8 AS base_ms,
      delay_ms FROM cur`.execute(tx)
  const delay = Math.max(delayMs, row.delay_ms)
  const base = Number(row.base_ms)
  await sql`UPDATE host_pace SET planned = ${at(base + count * delay)} WHERE host = ${host}`.execute(tx)
  return Array.from({ length: count }, (_, i) => new Date(base + i * delay))
}
