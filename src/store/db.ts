import { execFile } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { CompiledQuery, Kysely, PostgresDialect, sql, type Transaction } from 'kysely'
import pg from 'pg'
import { PGliteDialect } from './pglite-dialect.js'
import { PGliteThread } from './pglite-thread.js'
import { migrate } from './migrations.js'
import type { Database } from './schema.js'

export type Db = Kysely<Database>
/** An open transaction. A Tx is also a Db, so store functions that take a Db run in either. */
export type Tx = Transaction<Database>

/** The shape pg-boss 10 accepts as its `db` option. */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>
}

export interface Store {
  db: Db
  kind: 'pglite' | 'postgres'
  /** For pg-boss: on PGlite it must share our one session; on PostgreSQL it opens its own pool. */
  queueConnection: { db: SqlExecutor } | { connectionString: string }
  /**
   * Makes the space of deleted rows reusable and refreshes the planner's statistics.
   * PostgreSQL's autovacuum does this; PGlite has no background processes, and without
   * it every snapshot the retention sweep deletes would stay on disk for good.
   */
  vacuum(): Promise<void>
  close(): Promise<void>
}

// pg returns int8 and numeric as strings; we only use int8 for counts, which fit a number.
pg.types.setTypeParser(20, (v: string) => Number(v))

export interface StoreOptions {
  databaseUrl?: string
  dataDir: string
  /** Told of an idle PostgreSQL connection the server dropped; the pool replaces it on the next query. */
  onConnectionLost?: (err: Error) => void
}

export async function openStore (opts: StoreOptions): Promise<Store> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 30 })
    // An idle connection that the server drops (restart, failover) must not crash the process.
    pool.on('error', err => {
      opts.onConnectionLost?.(err)
    })
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
    await migrate(db)
    return {
      db,
      kind: 'postgres',
      queueConnection: { connectionString: opts.databaseUrl },
      vacuum: async () => {},
      close: async () => {
        await db.destroy()
      }
    }
  }
  const inMemory = opts.dataDir === 'memory://'
  if (!inMemory) {
    mkdirSync(opts.dataDir, { recursive: true })
    if (!existsSync(join(opts.dataDir, 'PG_VERSION'))) await initDataDir(opts.dataDir)
  }
  const pglite = await PGliteThread.open({ dataDir: inMemory ? undefined : opts.dataDir, postgresqlconf: PGLITE_CONF })
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) })
  await migrate(db)
  return {
    db,
    kind: 'pglite',
    queueConnection: {
      db: {
        async executeSql (text, values) {
          if (values && values.length > 0) return await pglite.query(text, values)
          const results = await pglite.exec(text)
          return results[results.length - 1] ?? { rows: [] }
        }
      }
    },
    vacuum: async () => {
      await sql`VACUUM (ANALYZE)`.execute(db)
    },
    close: async () => {
      await db.destroy()
    }
  }
}

// PGlite's defaults are a server's: 128 MB of shared buffers inside the process's own
// WASM memory. The files are in the OS page cache anyway, so a small buffer pool costs
// little speed and keeps the service's memory small.
const PGLITE_CONF = [
  'max_connections = 10',
  'shared_buffers = 16MB',
  'wal_buffers = 1MB',
  'max_wal_size = 1GB',
  'min_wal_size = 80MB',
  "datestyle = 'iso, mdy'",
  "timezone = 'Etc/GMT0'",
  "log_timezone = 'Etc/GMT0'",
  'lc_messages = C',
  'lc_monetary = C',
  'lc_numeric = C',
  'lc_time = C',
  "default_text_search_config = 'pg_catalog.english'"
]

/**
 * Creates a new data directory in a short-lived child process: PGlite's initdb grows
 * the WASM memory of the process that runs it to ~600 MB, which a process never gives
 * back. The service then opens the directory at its normal size.
 */
async function initDataDir (dataDir: string): Promise<void> {
  const pglite = import.meta.resolve('@electric-sql/pglite')
  const script = `const { PGlite } = await import(${JSON.stringify(pglite)}); ` +
    `await (await PGlite.create(${JSON.stringify(dataDir)})).close()`
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script])
}

/** pg-boss's `db` option over an open transaction, so a job is enqueued atomically with its rows. */
export function txSqlExecutor (tx: Tx): SqlExecutor {
  return {
    async executeSql (text, values) {
      const result = await tx.executeQuery(CompiledQuery.raw(text, values ?? []))
      return { rows: result.rows as any[] }
    }
  }
}

/** PostgreSQL's unique_violation, from pg or PGlite. */
export function isUniqueViolation (err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === '23505'
}

/** Whether the database answers (/readyz). */
export async function ping (db: Db): Promise<void> {
  await sql`SELECT 1`.execute(db)
}
