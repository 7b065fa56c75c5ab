import {
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult
} from 'kysely'
import type { PGliteThread, ThreadResult } from './pglite-thread.js'

// PGlite is one session. Its own transaction() holds a mutex that every other
// query()/exec() waits on, so a Kysely transaction must run inside it: a raw BEGIN
// on the shared session (as generic dialects do) would let the job queue's polling
// queries run inside our transaction.

/** What the database's thread answered, as Kysely's result. */
export function asQueryResult<R> (result: ThreadResult<R>): QueryResult<R> {
  return {
    rows: result.rows,
    ...(result.affectedRows !== undefined ? { numAffectedRows: BigInt(result.affectedRows) } : {})
  }
}

class PGliteConnection implements DatabaseConnection {
  /** Set while a transaction is open; queries then go to it. */
  private tx: number | undefined

  constructor (private readonly pg: PGliteThread) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return asQueryResult(await this.pg.query<R>(query.sql, [...query.parameters], this.tx))
  }

  async * streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    yield await this.executeQuery<R>(query)
  }

  async begin (): Promise<void> {
    this.tx = await this.pg.begin()
  }

  async end (commit: boolean): Promise<void> {
    const tx = this.tx
    this.tx = undefined
    if (tx !== undefined) await this.pg.end(tx, commit)
  }
}

class PGliteDriver implements Driver {
  constructor (private readonly pg: PGliteThread) {}
  async init (): Promise<void> {}
  // Each acquisition gets its own connection object; PGlite's mutex does the queuing.
  async acquireConnection (): Promise<DatabaseConnection> {
    return new PGliteConnection(this.pg)
  }

  async beginTransaction (conn: DatabaseConnection): Promise<void> {
    await (conn as PGliteConnection).begin()
  }

  async commitTransaction (conn: DatabaseConnection): Promise<void> {
    await (conn as PGliteConnection).end(true)
  }

  async rollbackTransaction (conn: DatabaseConnection): Promise<void> {
    await (conn as PGliteConnection).end(false)
  }

  async releaseConnection (): Promise<void> {}
  async destroy (): Promise<void> {
    await this.pg.close()
  }
}

export class PGliteDialect implements Dialect {
  constructor (private readonly pg: PGliteThread) {}
  createAdapter () {
    return new PostgresAdapter()
  }

  createDriver () {
    return new PGliteDriver(this.pg)
  }

  createQueryCompiler () {
    return new PostgresQueryCompiler()
  }

  createIntrospector (db: Kysely<any>) {
    return new PostgresIntrospector(db)
  }
}
