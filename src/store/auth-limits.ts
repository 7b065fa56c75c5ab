import { sql } from 'kysely'
import type { Db } from './db.js'

// Counters of attempts in a window, by key (`account:<e-mail>`, `address:<ip>`,
// `reset:<e-mail>`…), shared by every process of a deployment: failed sign-ins, reset
// requests, wrong current passwords. A counter starts again once its window has passed.

/** Counts one attempt of `key` and returns how many its window now holds. */
export async function countAttempt (db: Db, key: string, windowMs: number, now = new Date()): Promise<number> {
  const since = new Date(now.getTime() - windowMs)
  const row = await sql<{ failures: number }>`
    INSERT INTO auth_failures AS f (key, failures, window_start) VALUES (${key}, 1, ${now})
    ON CONFLICT (key) DO UPDATE SET
      failures = CASE WHEN f.window_start <= ${since} THEN 1 ELSE f.failures + 1 END,
      window_start = CASE WHEN f.window_start <= ${since} THEN ${now} ELSE f.window_start END
    RETURNING failures`.execute(db)
  return row.rows[0].failures
}

/** How many attempts each key's window holds now, and when each window ends. */
export async function attemptsOf (
  db: Db, keys: readonly string[], windowMs: number, now = new Date()
): Promise<Map<string, { count: number, endsAt: Date }>> {
  if (keys.length === 0) return new Map()
  const rows = await db.selectFrom('auth_failures').select(['key', 'failures', 'window_start'])
    .where('key', 'in', keys).where('window_start', '>', new Date(now.getTime() - windowMs)).execute()
  return new Map(rows.map(r => [r.key, {
    count: r.failures, endsAt: new Date(new Date(r.window_start).getTime() + windowMs)
  }]))
}

export async function forgetAttempts (db: Db, key: string): Promise<void> {
  await db.deleteFrom('auth_failures').where('key', '=', key).execute()
}

/** Counters whose window ended before `before`: nothing reads them any more. */
export async function deleteStaleAttempts (db: Db, before: Date): Promise<number> {
  const r = await db.deleteFrom('auth_failures').where('window_start', '<', before).executeTakeFirst()
  return Number(r.numDeletedRows)
}
