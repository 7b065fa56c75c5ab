import { sql } from 'kysely'
import type { Db } from './db.js'

// Per-host politeness kept in the database, so that every process of a deployment keeps
// the same promise to a watched site: at most `concurrency` requests in flight and at
// least the host's delay between two starts, counted across the fleet. One row per host:
//
// - next_start: the earliest time the next request may start (a turn moves it on by the delay);
// - backoff_until: a 429's or 503's Retry-After, for every worker;
// - delay_ms: the host's robots.txt Crawl-delay, when longer than ours;
//
// and a lease per request in flight, which expires if its worker dies. A crawl takes its
// host's turn in the statement that takes it from the queue (queue/crawl-order.ts); any
// other request (robots.txt, a discovery, a sitemap, a document, a crawl whose turn went
// late) takes one here. Times are the database's clock_timestamp(), read once the host's
// row is locked (now() would be the time the transaction began, before any wait for the lock).

export interface PaceRules {
  concurrency: number
  delayMs: number
  /** How long a lease lives: a worker that dies mid-request frees its place after this. */
  leaseMs: number
  /** A turn farther away than this is not waited for: the caller is told when to come back. */
  maxWaitMs: number
  /** Added to the delay after each turn: how late a request may start and still keep the delay to the next one. */
  slackMs: number
  /** How far ahead of now a free host's turn is given (see paceRules). */
  leadMs: number
}

/**
 * How late a request may start after its turn and still keep the delay to the next one:
 * a twentieth of the delay (10 ms at least: a timer and a busy event loop are that late),
 * added to it between turns.
 */
export const turnSlackMs = (delayMs: number) => delayMs > 0 ? Math.max(10, Math.round(delayMs / 20)) : 0

/** The rules of every host's turns, from the service's settings (see config.ts). */
export function paceRules (settings: {
  crawlPerHostConcurrency: number
  crawlPerHostDelayMs: number
  crawlTimeoutMs: number
  renderTimeoutMs: number
}): PaceRules {
  return {
    concurrency: settings.crawlPerHostConcurrency,
    delayMs: settings.crawlPerHostDelayMs,
    // A request ends within its timeout; a lease outlives it only when its worker died.
    leaseMs: Math.max(settings.crawlTimeoutMs, settings.renderTimeoutMs) + 10_000,
    // Sleeping through a few of the host's delays is cheaper than stepping aside and coming back.
    maxWaitMs: Math.max(1000, 4 * settings.crawlPerHostDelayMs),
    slackMs: turnSlackMs(settings.crawlPerHostDelayMs),
    // A host free now gives its turn this much later, the time a worker needs to be ready to write the
    // request (a crawl's page row and robots.txt; an answer's way back), so that the turn is not lost.
    leadMs: settings.crawlPerHostDelayMs > 0 ? Math.min(100, settings.crawlPerHostDelayMs) : 0
  }
}

export type Turn = { startAt: number, lease: string } | { busyUntil: Date }

/**
 * Takes the next turn of `host`, or says when to come back: when the host has
 * `concurrency` requests in flight, or its next free start is more than maxWaitMs away.
 * `passedAt`: the start of a turn the caller gave up because it went late; while it is
 * the last one given, the new turn starts now rather than a delay after it (a turn lost
 * costs its host a whole delay). One round trip: the database's take_host_turn (migration
 * 0035), which holds the host's row while it decides.
 */
export async function takeTurn (
  db: Db, host: string, rules: PaceRules, crawlDelayMs = 0, passedAt?: number
): Promise<Turn> {
  const { rows: [row] } = await sql<{ start_ms: number | null, lease: string | null, busy_until_ms: number | null }>`
    SELECT start_ms, lease, busy_until_ms FROM take_host_turn(${host}, ${crawlDelayMs}, ${rules.delayMs},
      ${rules.concurrency}, ${rules.maxWaitMs}, ${rules.leaseMs}, ${rules.slackMs}, ${rules.leadMs},
      ${passedAt ?? null}::float8)`.execute(db)
  if (row.lease === null || row.start_ms === null) return { busyUntil: new Date(Number(row.busy_until_ms)) }
  return { startAt: Number(row.start_ms), lease: row.lease }
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

/** Ends every lease: for a database only this process uses (the embedded one), whose leases are its last run's. */
export async function forgetLeases (db: Db): Promise<void> {
  await sql`DELETE FROM host_leases`.execute(db)
}
