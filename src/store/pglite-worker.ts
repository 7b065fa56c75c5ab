import { readFile, rename, writeFile } from 'node:fs/promises'
import v8 from 'node:v8'
import { parentPort, workerData } from 'node:worker_threads'
import { PGlite, types, type Results, type Transaction } from '@electric-sql/pglite'
import type { Notification, PGliteThreadOptions, Reply, Request, ThreadError, ThreadResult } from './pglite-thread.js'

// The worker's end of pglite-thread.ts: owns the PGlite instance and runs what the
// main thread asks, in the order asked; PGlite's own mutex keeps a transaction's
// queries apart from everyone else's.

const options = workerData as PGliteThreadOptions
// V8 compiles PostgreSQL's WebAssembly in two tiers, and the optimising tier's code and
// the compiler memory it leaves behind came to 60–85 MB of the process, for crawls no
// faster (the database's time goes to its one session, not its code): the baseline
// tier alone serves. The flag is the process's, so it reaches undici's small HTTP
// parser too. CPU-heavy queries (full-text search over many rows) run up to 1.5× slower.
v8.setFlagsFromString('--liftoff-only')
// PGlite's own bytea codec goes a byte at a time through strings: a 300 KB picture took 87 ms
// to send and 56 ms to read on this thread, with the garbage to match; Buffer's hex codec
// is native (2–3 ms). A value read is copied out of Buffer's shared pool, or the whole
// pool would cross to the main thread with it.
const bytea = {
  serialize: (bytes: Uint8Array) =>
    `\\x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`,
  parse: (text: string) => {
    const bytes = Buffer.from(text.slice(2), 'hex')
    return bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes)
  }
}
// One object: given a directory of `undefined` (in memory), PGlite drops the options beside it.
const db = await PGlite.create({
  dataDir: options.seedFile ? 'memory://' : options.dataDir,
  postgresqlconf: options.postgresqlconf,
  serializers: { [types.BYTEA]: bytea.serialize },
  parsers: { [types.BYTEA]: bytea.parse },
  ...(options.seedFile ? { loadDataDir: new Blob([await readFile(options.seedFile)]) } : {})
})
const port = parentPort!
// PGlite tells its listeners of a notification before the statement (or the commit) that
// sent it returns, so the main thread hears of a write before it hears that it committed.
for (const channel of options.channels) {
  await db.listen(channel, payload => {
    port.postMessage({ channel, payload } satisfies Notification)
  })
}

/** Open transactions: the handle their queries go to and the resolver that ends them. */
const open = new Map<number, { tx: Transaction, finish: (commit: boolean) => void, done: Promise<void> }>()

function asThreadError (err: unknown): ThreadError {
  const e = err as Record<string, unknown>
  const fields: ThreadError = { message: String(e?.message ?? err) }
  for (const key of [
    'code',
    'detail',
    'hint',
    'constraint',
    'table',
    'column',
    'schema',
    'severity',
    'position',
    'where'
  ]) {
    const v = e?.[key]
    if (typeof v === 'string' || typeof v === 'number') fields[key] = v
  }
  return fields
}

function target (tx: number | undefined): Pick<Transaction, 'query' | 'exec'> {
  if (tx === undefined) return db
  const t = open.get(tx)
  if (!t) throw new Error(`transaction ${tx} is not open`)
  return t.tx
}

async function begin (id: number): Promise<number> {
  return await new Promise<number>((resolve, reject) => {
    let finish!: (commit: boolean) => void
    const ended = new Promise<boolean>(_resolve => {
      finish = _resolve
    })
    const done = db
      .transaction(async tx => {
        open.set(id, { tx, finish, done })
        resolve(id)
        if (!(await ended)) await tx.rollback()
      })
      .then(
        () => {},
        err => {
          reject(err)
          throw err
        }
      )
    // An `end` awaits `done`; until one does, a failure here must not go unhandled.
    done.catch(() => {})
  })
}

/** What crosses back of a statement's result: its rows and how many it changed. */
const threadResult = (r: Results): ThreadResult => ({ rows: r.rows, affectedRows: r.affectedRows })

async function handle (req: Request): Promise<unknown> {
  switch (req.op) {
    case 'query': {
      return threadResult(await target(req.tx).query(req.sql, req.params))
    }
    case 'exec': {
      const results = await target(req.tx).exec(req.sql)
      return results.map(threadResult)
    }
    case 'batch':
      return await db.transaction(async tx => {
        const results = []
        for (const s of req.statements) results.push(threadResult(await tx.query(s.sql, s.params)))
        return results
      })
    case 'begin':
      return await begin(req.id)
    case 'end': {
      const t = open.get(req.tx)
      if (!t) throw new Error(`transaction ${req.tx} is not open`)
      open.delete(req.tx)
      t.finish(req.commit)
      await t.done
      return undefined
    }
    case 'dump': {
      // Written aside and renamed: a reader never sees half a file.
      const aside = `${req.file}.${process.pid}.${Date.now()}`
      await writeFile(aside, Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer()))
      await rename(aside, req.file)
      return undefined
    }
    case 'close': {
      await db.close()
      return undefined
    }
  }
}

// PGlite runs one statement at a time, and a transaction holds it until it ends. Requests
// wait here rather than in PGlite's own queue, so that they run in an order of ours: the
// open transaction's own first (nothing else can run), then what a person or a client is
// waiting for (`urgent`: asked while serving a request), then the rest (the pipeline),
// each in the order asked. A read of the API waits for the statement and the transaction
// in flight, not behind every crawl's statements queued before it.
const waiting = { urgent: [] as Request[], rest: [] as Request[] }
let openTx: number | undefined
let busy = false

const ofOpenTx = (r: Request) => 'tx' in r && r.tx !== undefined && r.tx === openTx

function takeNext (): Request | undefined {
  for (const list of [waiting.urgent, waiting.rest]) {
    const at = openTx === undefined ? (list.length > 0 ? 0 : -1) : list.findIndex(ofOpenTx)
    if (at >= 0) return list.splice(at, 1)[0]
  }
  return undefined
}

function runNext (): void {
  if (busy) return
  const req = takeNext()
  if (!req) return
  busy = true
  handle(req).then(
    value => {
      if (req.op === 'begin') openTx = value as number
      if (req.op === 'end') openTx = undefined
      port.postMessage({ id: req.id, ok: true, value } satisfies Reply)
    },
    err => {
      if (req.op === 'end') openTx = undefined
      port.postMessage({ id: req.id, ok: false, error: asThreadError(err) } satisfies Reply)
    }
  ).finally(() => {
    busy = false
    runNext()
  })
}

port.on('message', (req: Request) => {
  (req.urgent ? waiting.urgent : waiting.rest).push(req)
  runNext()
})
