import { mkdirSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import { CompiledQuery, Kysely, PostgresDialect, type Transaction } from 'kysely'
import pg from 'pg'
import { PGliteDialect } from './pglite-dialect.js'
import { migrate } from './migrations.js'
import type { Database } from './schema.js'

export type Db = Kysely<Database>
export type Tx = Transaction<Database>
/** A database handle or an open transaction: queries that take it run in either. */
export type Executor = Kysely<Database>

/** The shape pg-boss 10 accepts as its `db` option. */
export interface SqlExecutor {
  executeSql (text: string, values?: unknown[]): Promise<{ rows: any[] }>
}

export interface Store {
  db: Db
  kind: 'pglite' | 'postgres'
  /** For pg-boss: on PGlite it must share our one session; on PostgreSQL it opens its own pool. */
  queueConnection: { db: SqlExecutor } | { connectionString: string }
  close (): Promise<void>
}

// pg returns int8 and numeric as strings; we only use int8 for counts, which fit a number.
pg.types.setTypeParser(20, (v: string) => Number(v))

export async function openStore (opts: { databaseUrl?: string, dataDir: string }): Promise<Store> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 30 })
    // An idle connection that the server drops (restart, failover) must not crash the
    // process: the pool replaces it on the next query.
    pool.on('error', (err) => { console.error(JSON.stringify({ level: 40, msg: 'idle database connection lost', err: err.message })) })
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
    await migrate(db)
    return {
      db,
      kind: 'postgres',
      queueConnection: { connectionString: opts.databaseUrl },
      close: async () => { await db.destroy() }
    }
  }
  if (opts.dataDir !== 'memory://') mkdirSync(opts.dataDir, { recursive: true })
  const pglite = await PGlite.create(opts.dataDir === 'memory://' ? undefined : opts.dataDir)
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
    close: async () => { await db.destroy() }
  }
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
