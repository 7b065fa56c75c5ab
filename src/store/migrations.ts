import {
  DEFAULT_MIGRATION_TABLE, Kysely, Migrator, PostgresDialect, sql, type Migration, type MigrationProvider
} from 'kysely'
import pg from 'pg'
import { BASELINE, BASELINE_THROUGH } from './migrations/baseline.js'
import { FIRST_MIGRATIONS } from './migrations/history-0001.js'
import { MIGRATIONS_0013 } from './migrations/history-0013.js'
import { MIGRATIONS_0024 } from './migrations/history-0024.js'
import { MIGRATIONS_0033 } from './migrations/history-0033.js'

// One schema for PGlite and PostgreSQL. A new database starts from the baseline (the schema
// the history's steps make, written by scripts/write-baseline.ts); an older one runs the
// steps of the history it lacks. Then both run the steps after the baseline. Each step is a
// list of single statements because PGlite's parameterised protocol takes one at a time.

/** The steps up to the baseline, by name: what a database made before it still runs. */
export const HISTORY: Record<string, string[]> = {
  ...FIRST_MIGRATIONS, ...MIGRATIONS_0013, ...MIGRATIONS_0024, ...MIGRATIONS_0033
}

/** The steps after the baseline: a new table or column goes here, at the end. */
const STEPS: Record<string, string[]> = {}

/**
 * Kysely's list of migrations, by name. For a new database, the history's first name runs
 * the baseline and the others run nothing, so that each is recorded as done.
 */
class StaticProvider implements MigrationProvider {
  constructor (private readonly fromBaseline: boolean) {}

  async getMigrations (): Promise<Record<string, Migration>> {
    const names = Object.keys(HISTORY)
    const baseline = ['SET LOCAL check_function_bodies = off', ...BASELINE]
    const history = this.fromBaseline
      ? Object.fromEntries(names.map((name, i) => [name, i === 0 ? baseline : []]))
      : HISTORY
    return Object.fromEntries(
      Object.entries({ ...history, ...STEPS }).map(([name, statements]) => [
        name,
        {
          async up (db: Kysely<any>) {
            for (const statement of statements) await sql.raw(statement).execute(db)
          }
        }
      ])
    )
  }
}

export interface MigrateOptions {
  /** Up to this step only (a test of an upgrade); a step before the baseline's end runs the history. */
  upTo?: string
  /** The history's steps even on a new database (the baseline's writer, and its test). */
  oldSteps?: boolean
}

/**
 * Migrates to the latest schema. Given a URL, on a connection of its own to it: the
 * migrator's lock is a session's, which a pooler in transaction mode would leave held on
 * whichever server connection took it, and every other process would wait on it for an hour.
 */
export async function migrate (db: Kysely<any> | string, opts: MigrateOptions = {}): Promise<void> {
  if (typeof db === 'string') {
    const pool = new pg.Pool({ connectionString: db, max: 1 })
    const session = new Kysely<any>({ dialect: new PostgresDialect({ pool }) })
    try {
      await migrate(session, opts)
    } finally {
      await session.destroy()
    }
    return
  }
  const beforeBaseline = opts.upTo !== undefined && opts.upTo < BASELINE_THROUGH
  const fromBaseline = !opts.oldSteps && !beforeBaseline && await isNew(db)
  const migrator = new Migrator({ db, provider: new StaticProvider(fromBaseline) })
  const { error, results } = opts.upTo ? await migrator.migrateTo(opts.upTo) : await migrator.migrateToLatest()
  const failed = results?.find(r => r.status === 'Error')
  if (error) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? String(error)}`)
  }
}

/**
 * No step has run here. Read before the migrator's lock: two processes that both find a new
 * database both offer the baseline, and the second, under the lock, finds it done.
 */
async function isNew (db: Kysely<any>): Promise<boolean> {
  const table = await sql<{ made: boolean }>`SELECT to_regclass(${DEFAULT_MIGRATION_TABLE}) IS NOT NULL AS made`
    .execute(db)
  if (!table.rows[0].made) return true
  const done = await sql`SELECT 1 FROM ${sql.table(DEFAULT_MIGRATION_TABLE)} LIMIT 1`.execute(db)
  return done.rows.length === 0
}
