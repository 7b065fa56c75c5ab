import { Kysely, Migrator, PostgresDialect, sql, type Migration, type MigrationProvider } from 'kysely'
import pg from 'pg'
import { FIRST_MIGRATIONS } from './migrations-0001.js'
import { MIGRATIONS_0013 } from './migrations-0013.js'
import { MIGRATIONS_0024 } from './migrations-0024.js'
import { MIGRATIONS_0033 } from './migrations-0033.js'

// One list of migrations for PGlite and PostgreSQL. Each is a list of single
// statements because PGlite's parameterised protocol takes one statement at a time.
const migrations: Record<string, string[]> = {
  ...FIRST_MIGRATIONS, ...MIGRATIONS_0013, ...MIGRATIONS_0024, ...MIGRATIONS_0033
}

class StaticProvider implements MigrationProvider {
  async getMigrations (): Promise<Record<string, Migration>> {
    return Object.fromEntries(
      Object.entries(migrations).map(([name, statements]) => [
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

/**
 * Migrates to the latest schema, or up to the migration `upTo` (for tests of an upgrade).
 * Given a URL, on a connection of its own to it: the migrator's lock is a session's, which
 * a pooler in transaction mode would leave held on whichever server connection took it,
 * and every other process would wait on it for an hour.
 */
export async function migrate (db: Kysely<any> | string, upTo?: string): Promise<void> {
  if (typeof db === 'string') {
    const pool = new pg.Pool({ connectionString: db, max: 1 })
    const session = new Kysely<any>({ dialect: new PostgresDialect({ pool }) })
    try {
      await migrate(session, upTo)
    } finally {
      await session.destroy()
    }
    return
  }
  const migrator = new Migrator({ db, provider: new StaticProvider() })
  const { error, results } = upTo ? await migrator.migrateTo(upTo) : await migrator.migrateToLatest()
  const failed = results?.find(r => r.status === 'Error')
  if (error) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? String(error)}`)
  }
}
