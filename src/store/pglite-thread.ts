import { Worker } from 'node:worker_threads'
import { servingRequest } from './urgency.js'

// PGlite runs PostgreSQL compiled to WASM on the thread that calls it. On the main
// thread it took half of the CPU the service had for crawling (parsing HTML, serving
// the API), so it runs on a worker thread of its own: the database gets the second core,
// as a PostgreSQL server would. Queries and their rows cross as structured clones.

export interface ThreadResult<R = any> {
  rows: R[]
  affectedRows?: number
}

/** What crosses from the worker when a query fails: the message and PostgreSQL's fields (code, detail, …). */
export type ThreadError = { message: string } & Record<string, string | number | undefined>

/** A statement and its parameters. */
export interface Statement { sql: string, params: unknown[] }

/** `urgent`: asked while serving a request (see urgency.ts); the worker runs it before the pipeline's. */
export type Request = { id: number, urgent?: boolean } & (
  | { op: 'query', sql: string, params: unknown[], tx?: number }
  | { op: 'exec', sql: string, tx?: number }
  | { op: 'batch', statements: Statement[] }
  | { op: 'begin' }
  | { op: 'end', tx: number, commit: boolean }
  | { op: 'dump', file: string }
  | { op: 'close' })

export type Reply = { id: number, ok: true, value?: unknown } | { id: number, ok: false, error: ThreadError }

/** A NOTIFY on one of the channels the worker listens on. */
export interface Notification { channel: string, payload: string }

export interface PGliteThreadOptions {
  dataDir?: string
  /**
   * In memory only: a dump of a data directory (see dumpTo) the database starts from, in
   * place of a new one (tests start a migrated database without initdb or migrations).
   */
  seedFile?: string
  postgresqlconf: string[]
  /** The channels whose notifications are passed to `onNotification`. */
  channels: string[]
}

/** The main thread's end: PGlite's query, exec and transaction, answered by the worker. */
export class PGliteThread {
  private readonly pending = new Map<number, { resolve: (v: any) => void, reject: (e: Error) => void }>()
  private nextId = 1
  private failure: Error | undefined
  closed = false
  /** Told of each notification, in the order the database sent it, before the reply of the statement that sent it. */
  onNotification: (n: Notification) => void = () => {}

  private constructor (private readonly worker: Worker) {
    worker.on('message', (reply: Reply | Notification) => {
      if (!('id' in reply)) {
        this.onNotification(reply)
        return
      }
      const waiting = this.pending.get(reply.id)
      if (!waiting) return
      this.pending.delete(reply.id)
      if (reply.ok) waiting.resolve(reply.value)
      else waiting.reject(Object.assign(new Error(reply.error.message), reply.error))
    })
    const fail = (err: Error) => {
      this.failure ??= err
      this.closed = true
      for (const p of this.pending.values()) p.reject(new Error(err.message, { cause: err }))
      this.pending.clear()
    }
    worker.on('error', fail)
    worker.on('exit', code => {
      fail(new Error(`the database thread exited (code ${code})`))
    })
  }

  static async open (options: PGliteThreadOptions): Promise<PGliteThread> {
    // The thread's own JavaScript only passes queries and rows along: a small young
    // generation does (V8's default grows to 48 MB).
    const limits = { workerData: options, resourceLimits: { maxYoungGenerationSizeMb: 4 } }
    // Under tsx (tests, dev) this module is TypeScript and so is its worker, which
    // needs tsx registered in its own thread first.
    const worker = import.meta.url.endsWith('.ts')
      ? new Worker(
          `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(tsx => { tsx.register(); return ` +
          `import(${JSON.stringify(new URL('./pglite-worker.ts', import.meta.url).href)}) })`,
          { eval: true, ...limits }
      )
      : new Worker(new URL('./pglite-worker.js', import.meta.url), limits)
    const thread = new PGliteThread(worker)
    await thread.call({ op: 'query', sql: 'SELECT 1', params: [] })
    return thread
  }

  private async call<T>(request: DistributiveOmit<Request, 'id'>): Promise<T> {
    // A new error each time, with this caller's stack: the first one's says nothing of who called later.
    if (this.failure) throw new Error(this.failure.message, { cause: this.failure })
    const id = this.nextId++
    // The worker's stack says nothing useful; a failure gets the caller's.
    const caller = new Error()
    return await new Promise<T>((resolve, reject) => {
      this.pending.set(id, {
        resolve,
        reject: err => {
          err.stack = `${err.name}: ${err.message}\n${caller.stack?.split('\n').slice(2).join('\n') ?? ''}`
          reject(err)
        }
      })
      this.worker.postMessage({ ...request, id, ...(servingRequest() ? { urgent: true } : {}) })
    })
  }

  async query<R>(sql: string, params: unknown[] = [], tx?: number): Promise<ThreadResult<R>> {
    return await this.call({ op: 'query', sql, params, tx })
  }

  /** Several statements in one text, without parameters; one result per statement. */
  async exec (sql: string, tx?: number): Promise<ThreadResult[]> {
    return await this.call({ op: 'exec', sql, tx })
  }

  /**
   * Runs `statements` in one transaction, each after the previous one, in one request: the
   * transaction holds the database only as long as its statements run, not while the
   * caller's thread is busy between two of them. One failing rolls back all.
   */
  async batch (statements: Statement[]): Promise<ThreadResult[]> {
    return await this.call({ op: 'batch', statements })
  }

  /** Opens a transaction; until it ends, only queries that name it run. */
  async begin (): Promise<number> {
    return await this.call({ op: 'begin' })
  }

  async end (tx: number, commit: boolean): Promise<void> {
    await this.call({ op: 'end', tx, commit })
  }

  /** Writes the data directory, as a tar file, to `file` (what seedFile starts from). */
  async dumpTo (file: string): Promise<void> {
    await this.call({ op: 'dump', file })
  }

  async close (): Promise<void> {
    if (this.closed) return
    await this.call({ op: 'close' })
    this.closed = true
    await this.worker.terminate()
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never
