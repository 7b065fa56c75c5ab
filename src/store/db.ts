import { execFile } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Kysely, PostgresDialect, sql, type CompiledQuery, type QueryResult, type Transaction } from 'kysely'
import pg from 'pg'
import { asQueryResult, PGliteDialect } from './pglite-dialect.js'
import { PGliteThread } from './pglite-thread.js'
import { DATA_CHANNEL, type DataVersions } from './data-versions.js'
import { ChannelListener, type ListenerCallbacks } from './listener.js'
import { servingRequest } from './urgency.js'
import { migrate } from './migrations.js'
import type { Database } from './schema.js'

export type Db = Kysely<Database>
/** An open transaction. A Tx is also a Db, so store functions that take a Db run in either. */
export type Tx = Transaction<Database>

/**
 * Runs `work` in a transaction: `db`'s own when it is one already (a use case called
 * inside another's transaction joins it), else a new one.
 */
export async function inTransaction<T> (db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.isTransaction ? await work(db as Tx) : await db.transaction().execute(work)
}

/**
 * The embedded databases, by their thread: PGlite runs PostgreSQL in single-user mode, where
 * timeouts (statement_timeout) are not enforced.
 */
const embedded = new WeakMap<Db, PGliteThread>()

/** Whether `db` enforces statement_timeout (a PostgreSQL server does; PGlite does not). */
export const enforcesTimeouts = (db: Db): boolean => !embedded.has(db)

/**
 * Runs `statements` in one transaction, each after the previous one; none may need another's
 * answer. On the embedded database they go as one request: a transaction opened statement by
 * statement holds its one session while this thread, busy with crawls, comes back to send
 * the next, and every read of the API waits meanwhile. Inside `db`'s own transaction, they
 * join it.
 */
export async function inOneTransaction (db: Db, statements: CompiledQuery[]): Promise<Array<QueryResult<any>>> {
  const thread = embedded.get(db)
  if (thread) {
    const results = await thread.batch(statements.map(s => ({ sql: s.sql, params: [...s.parameters] })))
    return results.map(asQueryResult)
  }
  return await inTransaction(db, async tx => {
    const results = []
    for (const s of statements) results.push(await tx.executeQuery(s))
    return results
  })
}

export interface Store {
  db: Db
  kind: 'pglite' | 'postgres'
  /**
   * Keeps a connection of its own listening on `channel` (PostgreSQL), each payload passed
   * to `on.heard`; undefined on PGlite, where one process sends and hears everything.
   */
  listen(channel: string, on: ListenerCallbacks): Promise<{ stop: () => Promise<void> }> | undefined
  /** Resolves when the database answers (/readyz). */
  ping(): Promise<void>
  /**
   * Keeps `versions` told of every committed write (migration 0025's notifications), until
   * the returned function is called. On PostgreSQL, a connection of its own listens;
   * `onError` hears when it is lost (it is opened again, and versions start a new epoch).
   */
  followWrites(versions: DataVersions, onError: (err: unknown) => void): Promise<() => Promise<void>>
  /** Connections of each PostgreSQL pool: open, idle, and callers waiting for one (none on PGlite). */
  poolUse(): PoolUse[]
  /**
   * Makes the space of deleted rows reusable and refreshes the planner's statistics.
   * PostgreSQL's autovacuum does this; PGlite has no background processes, and without
   * it every snapshot the retention sweep deletes would stay on disk for good.
   */
  vacuum(): Promise<void>
  close(): Promise<void>
}

export interface PoolUse {
  pool: 'store' | 'requests'
  open: number
  idle: number
  waiting: number
}

/**
 * A process's PostgreSQL connections, split by what it runs: the pipeline's (store) and
 * the requests' (serving: the API and the app, so that a read during a crawl waits for no
 * crawl's connection). `total` (DATABASE_POOL_SIZE) or, unset, 12 (14 for a process that
 * does both): with the two connections that listen, one API and four workers keep to 70 of
 * a stock server's 100 (a pool of 12 also crawled faster than one of 30: docs/operations.md).
 */
export function poolPlan (role: 'all' | 'api' | 'worker' | 'renderer', total?: number): PoolPlan {
  const n = Math.max(3, total ?? (role === 'all' ? 14 : 12))
  const serving = role === 'api' ? n - 2 : role === 'all' ? Math.ceil(n / 4) : 2
  return { store: n - serving, serving }
}
export interface PoolPlan { store: number, serving: number }

/** What a process planned against what the server had free when it started. */
export interface PoolFit extends PoolPlan {
  maxConnections: number
  free: number
  /** The plan was cut to fit half of what was free. */
  cut: boolean
}

/** The connections that listen (for new jobs, for writes) beside the pools. */
const LISTENERS = 2

// pg returns int8 and numeric as strings; we only use int8 for counts, which fit a number.
pg.types.setTypeParser(20, (v: string) => Number(v))

export interface StoreOptions {
  databaseUrl?: string
  /**
   * PostgreSQL: a session with the server, for what needs one (the migrations' lock, the
   * connections that LISTEN), when `databaseUrl` is a pooler in transaction mode. Unset:
   * `databaseUrl`.
   */
  directUrl?: string
  dataDir: string
  /** PostgreSQL: this process's connections (see poolPlan). */
  pools?: PoolPlan
  /** Told what the pools were fitted to, once they were (PostgreSQL). */
  onPoolsFitted?: (fit: PoolFit) => void
  /**
   * Told of a PostgreSQL connection that failed (the server restarted, failed over, or the
   * network dropped it). The query it was running fails; the pool opens a new one when next asked.
   */
  onConnectionLost?: (err: Error) => void
  /** With `dataDir` memory://: a migrated database's dump to start from (see PGliteThreadOptions.seedFile). */
  seedFile?: string
}

export async function openStore (opts: StoreOptions): Promise<Store> {
  if (opts.databaseUrl) {
    const onError = opts.onConnectionLost ?? (() => {})
    const plan = opts.pools ?? poolPlan('all')
    const pool = newPool(opts.databaseUrl, plan.store, onError)
    // What serves a request takes a connection of its own pool, so that an API read or a
    // form's write during a crawl waits for no crawl's connection (urgency.ts).
    const serving = newPool(opts.databaseUrl, plan.serving, onError)
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({
        pool: {
          connect: async () => await (servingRequest() ? serving : pool).connect(),
          end: async () => { await Promise.all([pool.end(), serving.end()]) }
        }
      })
    })
    const direct = opts.directUrl ?? opts.databaseUrl
    await migrate(direct === opts.databaseUrl ? db : direct)
    const fit = await fitToServer(db, plan)
    if (fit) {
      pool.options.max = fit.store
      serving.options.max = fit.serving
      opts.onPoolsFitted?.(fit)
    }
    const listen = async (channel: string, on: ListenerCallbacks): Promise<{ stop: () => Promise<void> }> => {
      // A probe goes through the pool, as every write's notification does: a listener that
      // does not hear it (behind a pooler in transaction mode) is not listening.
      const listener = new ChannelListener(direct, channel, on, async payload => {
        await sql`SELECT pg_notify(${channel}, ${payload})`.execute(db)
      })
      await listener.start()
      return listener
    }
    return {
      db,
      kind: 'postgres',
      listen,
      ping: async () => {
        await ping(db)
      },
      followWrites: async (versions, onError) => {
        const listener = await listen(DATA_CHANNEL, {
          heard: payload => { versions.heard(payload) },
          listening: () => { versions.listening() },
          lost: () => { versions.lost() },
          error: onError
        })
        return async () => { await listener.stop() }
      },
      poolUse: () => [
        { pool: 'store', open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount },
        { pool: 'requests', open: serving.totalCount, idle: serving.idleCount, waiting: serving.waitingCount }
      ],
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
  const pglite = await PGliteThread.open({
    dataDir: inMemory ? undefined : opts.dataDir,
    ...(inMemory && opts.seedFile ? { seedFile: opts.seedFile } : {}),
    postgresqlconf: PGLITE_CONF,
    channels: [DATA_CHANNEL]
  })
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) })
  embedded.set(db, pglite)
  await migrate(db)
  return {
    db,
    kind: 'pglite',
    listen: () => undefined,
    ping: async () => {
      await ping(db)
    },
    followWrites: async versions => {
      pglite.onNotification = n => { versions.heard(n.payload) }
      versions.listening()
      return async () => {
        pglite.onNotification = () => {}
        versions.lost()
      }
    },
    poolUse: () => [],
    vacuum: async () => {
      await sql`VACUUM (ANALYZE)`.execute(db)
    },
    close: async () => {
      await db.destroy()
    }
  }
}

/** Writes a dump of a new, migrated embedded database to `file`: what StoreOptions.seedFile starts from. */
export async function dumpMigrated (file: string): Promise<void> {
  const pglite = await PGliteThread.open({ postgresqlconf: PGLITE_CONF, channels: [] })
  try {
    await migrate(new Kysely<Database>({ dialect: new PGliteDialect(pglite) }))
    await pglite.dumpTo(file)
  } finally {
    await pglite.close()
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

/** PostgreSQL's unique_violation, from pg or PGlite. */
export function isUniqueViolation (err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === '23505'
}

/** Whether the database answers (/readyz). */
export async function ping (db: Db): Promise<void> {
  await sql`SELECT 1`.execute(db)
}

/**
 * The plan, cut when it is more than half of the connections the server has free now
 * (max_connections less the reserved ones and those open), so that the processes that
 * start after this one find room too. Undefined when the server does not say (a pooler
 * that does not pass current_setting through).
 */
async function fitToServer (db: Kysely<Database>, plan: PoolPlan): Promise<PoolFit | undefined> {
  let row: { max: number, reserved: number, open: number }
  try {
    row = (await sql<{ max: number, reserved: number, open: number }>`
      SELECT current_setting('max_connections')::int AS max,
        current_setting('superuser_reserved_connections')::int +
          coalesce(nullif(current_setting('reserved_connections', true), ''), '0')::int AS reserved,
        (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int AS open`.execute(db)).rows[0]
  } catch {
    return undefined
  }
  const free = row.max - row.reserved - row.open
  const share = Math.floor(free / 2) - LISTENERS
  const planned = plan.store + plan.serving
  if (planned <= share) return { ...plan, maxConnections: row.max, free, cut: false }
  const scale = Math.max(0, share) / planned
  return {
    store: Math.max(2, Math.floor(plan.store * scale)),
    serving: Math.max(1, Math.floor(plan.serving * scale)),
    maxConnections: row.max,
    free,
    cut: true
  }
}

/**
 * A pool whose every connection has an error listener. pg's pool listens for errors only
 * on idle connections; one that is lost while checked out (in a transaction, or running a
 * query) emits 'error' with nobody listening, and Node ends the process.
 */
function newPool (connectionString: string, max: number, onError: (err: Error) => void): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, keepAlive: true, connectionTimeoutMillis: 5000 })
  pool.on('error', onError)
  pool.on('connect', client => {
    client.on('error', onError)
  })
  return pool
}

// Errors that say the server cannot be reached or went away, rather than that a
// statement was wrong: node's socket errors, pg's own, and PostgreSQL's classes 08
// (connection exception) and 57P (operator intervention: shutdown, cannot connect now).
const UNREACHABLE = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN'
])
const LOST_CONNECTION = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed|not queryable/i

/**
 * Whether the server refused for want of resources (PostgreSQL's class 53: too many
 * connections, out of memory, disk full): the infrastructure's fault, not the work's.
 */
export function isServerOutOfResources (err: unknown): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined
  return typeof code === 'string' && code.startsWith('53')
}

/** Whether `err` means the database cannot be reached now (try again later), not that the request was wrong. */
export function isDatabaseUnavailable (err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false
  const { code, message } = err as { code?: unknown, message?: unknown }
  const connectionCode = typeof code === 'string' &&
    (UNREACHABLE.has(code) || code.startsWith('08') || code.startsWith('57P') || code.startsWith('53'))
  return connectionCode || (typeof message === 'string' && LOST_CONNECTION.test(message))
}
