import type { PGlite, Transaction as PGliteTransaction } from '@electric-sql/pglite'
import {
  CompiledQuery, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler,
  type DatabaseConnection, type Dialect, type Driver, type Kysely, type QueryResult
} from 'kysely'

// PGlite is one session. Its own transaction() holds a mutex that every other
// query()/exec() waits on, so a Kysely transaction must run inside it: a raw BEGIN
// on the shared session (as generic dialects do) would let the job queue's polling
// queries run inside our transaction.

type Queryable = Pick<PGliteTransaction, 'query'>

class PGliteConnection implements DatabaseConnection {
  /** Set while a transaction is open; queries then go to it. */
  tx: Queryable | undefined
  private endTx: ((commit: boolean) => void) | undefined
  private txDone: Promise<unknown> | undefined

  constructor (private readonly pg: PGlite) {}

  async executeQuery<R> (query: CompiledQuery): Promise<QueryResult<R>> {
    const target: Queryable = this.tx ?? this.pg
    const result = await target.query<R>(query.sql, [...query.parameters])
    return {
      rows: result.rows,
      ...(result.affectedRows !== undefined ? { numAffectedRows: BigInt(result.affectedRows) } : {})
    }
  }

  async * streamQuery<R> (query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    yield await this.executeQuery<R>(query)
  }

  async begin (): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.txDone = this.pg.transaction(async (tx) => {
        this.tx = tx
        resolve()
        const commit = await new Promise<boolean>(res => { this.endTx = res })
        if (!commit) await tx.rollback()
      }).catch((err) => { reject(err) })
    })
  }

  async end (commit: boolean): Promise<void> {
    const done = this.txDone
    this.endTx?.(commit)
    this.tx = undefined
    this.endTx = undefined
    this.txDone = undefined
    await done
  }
}

class PGliteDriver implements Driver {
  constructor (private readonly pg: PGlite) {}
  async init (): Promise<void> {}
  // Each acquisition gets its own connection object; PGlite's mutex does the queuing.
  async acquireConnection (): Promise<DatabaseConnection> { return new PGliteConnection(this.pg) }
  async beginTransaction (conn: DatabaseConnection): Promise<void> { await (conn as PGliteConnection).begin() }
  async commitTransaction (conn: DatabaseConnection): Promise<void> { await (conn as PGliteConnection).end(true) }
  async rollbackTransaction (conn: DatabaseConnection): Promise<void> { await (conn as PGliteConnection).end(false) }
  async releaseConnection (): Promise<void> {}
  async destroy (): Promise<void> { if (!this.pg.closed) await this.pg.close() }
}

export class PGliteDialect implements Dialect {
  constructor (private readonly pg: PGlite) {}
  createAdapter () { return new PostgresAdapter() }
  createDriver () { return new PGliteDriver(this.pg) }
  createQueryCompiler () { return new PostgresQueryCompiler() }
  createIntrospector (db: Kysely<any>) { return new PostgresIntrospector(db) }
}
