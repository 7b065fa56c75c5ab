import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { PGliteThread } from '../../src/store/pglite-thread.js'
import { serveRequest } from '../../src/store/urgency.js'

// The embedded database answers from a worker thread; what crosses must behave as
// PGlite itself would.
describe('PGlite on its own thread', () => {
  let db: PGliteThread
  before(async () => {
    db = await PGliteThread.open({ postgresqlconf: ['shared_buffers = 16MB'], channels: [] })
    await db.exec('CREATE TABLE t (id int PRIMARY KEY, at timestamptz, data jsonb, bin bytea)')
  })
  after(async () => {
    await db.close()
  })

  it('returns rows with their types: numbers, dates, JSON, bytes', async () => {
    const at = new Date('2026-01-02T03:04:05.000Z')
    const r = await db.query('INSERT INTO t VALUES ($1, $2, $3, $4) RETURNING *', [
      1,
      at,
      JSON.stringify({ a: [1] }),
      Buffer.from([7, 8])
    ])
    assert.equal(r.affectedRows, 1)
    assert.deepEqual(r.rows[0], { id: 1, at, data: { a: [1] }, bin: new Uint8Array([7, 8]) })
  })

  it('bytes cross exactly both ways: every byte value, a view into a larger buffer, a picture-sized value', async () => {
    const every = Buffer.from(Array.from({ length: 256 }, (_, i) => i))
    const backing = Buffer.concat([Buffer.from('before'), every, Buffer.from('after')])
    const view = backing.subarray(6, 6 + 256)
    const large = randomBytes(300_000)
    for (const [id, bytes] of [[10, view], [11, large], [12, Buffer.alloc(0)]] as const) {
      const r = await db.query<{ bin: Uint8Array, md5: string, len: number }>(
        'INSERT INTO t (id, bin) VALUES ($1, $2) RETURNING bin, md5(bin) AS md5, length(bin) AS len', [id, bytes])
      const { bin, md5, len } = r.rows[0]
      assert.equal(len, bytes.byteLength)
      assert.equal(md5, createHash('md5').update(bytes).digest('hex'))
      assert.ok(Buffer.from(bin).equals(bytes))
      // Only the value's own bytes cross to this thread, not a pool it was cut from.
      assert.equal(bin.buffer.byteLength, bin.byteLength)
    }
    await db.query('DELETE FROM t WHERE id >= 10')
  })

  it("fails with PostgreSQL's code and fields, and the stack of the caller", async function callerOfTheFailingQuery () {
    await assert.rejects(db.query('INSERT INTO t (id) VALUES (1)'), (err: Error & Record<string, unknown>) => {
      assert.equal(err.code, '23505')
      assert.equal(err.constraint, 't_pkey')
      assert.match(err.stack ?? '', /callerOfTheFailingQuery/)
      return true
    })
  })

  it('a transaction holds the database: other queries wait for it, a rollback leaves nothing', async () => {
    const tx = await db.begin()
    await db.query('INSERT INTO t (id) VALUES (2)', [], tx)
    let outsideDone = false
    const outside = db.query<{ n: number }>('SELECT count(*)::int AS n FROM t').then(r => {
      outsideDone = true
      return r.rows[0].n
    })
    await new Promise(resolve => setTimeout(resolve, 50))
    assert.equal(outsideDone, false)
    await db.end(tx, false)
    assert.equal(await outside, 1)
  })

  it('a committed transaction keeps its rows; an unknown transaction is an error', async () => {
    const tx = await db.begin()
    await db.exec('INSERT INTO t (id) VALUES (3); INSERT INTO t (id) VALUES (4)', tx)
    await db.end(tx, true)
    assert.deepEqual((await db.query('SELECT id FROM t ORDER BY id')).rows, [{ id: 1 }, { id: 3 }, { id: 4 }])
    await assert.rejects(db.query('SELECT 1', [], 999), /transaction 999 is not open/)
  })

  it('a batch is one transaction: each statement sees the ones before it, one failing leaves nothing', async () => {
    const results = await db.batch([
      { sql: 'INSERT INTO t (id) VALUES ($1)', params: [10] },
      { sql: 'UPDATE t SET data = $1 WHERE id = $2 RETURNING id', params: [JSON.stringify({ b: 1 }), 10] }
    ])
    assert.deepEqual(results.map(r => r.affectedRows), [1, 1])
    assert.deepEqual(results[1].rows, [{ id: 10 }])
    await assert.rejects(db.batch([
      { sql: 'INSERT INTO t (id) VALUES ($1)', params: [11] },
      { sql: 'INSERT INTO t (id) VALUES ($1)', params: [10] }
    ]), (err: Error & Record<string, unknown>) => err.code === '23505')
    assert.deepEqual((await db.query('SELECT id FROM t WHERE id >= 10 ORDER BY id')).rows, [{ id: 10 }])
  })

  it("what serves a request runs before the pipeline's statements asked earlier, once the open transaction ends", async () => {
    const tx = await db.begin()
    const order: string[] = []
    const note = (name: string) => (r: unknown) => { order.push(name); return r }
    const pipeline = Array.from({ length: 10 }, (_, i) => db.query('SELECT pg_sleep(0.001)').then(note(`pipeline ${i}`)))
    const served = serveRequest({ ip: null, traceId: null, audited: 0 }, async () => await db.query('SELECT 1')).then(note('request'))
    // The open transaction's own statements run at once, ahead of everyone waiting.
    await db.query('INSERT INTO t (id) VALUES (5)', [], tx).then(note('transaction'))
    await db.end(tx, false)
    await Promise.all([...pipeline, served])
    assert.deepEqual(order.slice(0, 2), ['transaction', 'request'])
    assert.equal(order.length, 12)
  })
})
