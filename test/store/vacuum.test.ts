import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { openStore, type Store } from '../../src/store/db.js'

// PGlite runs no autovacuum: without the store's vacuum, the space of every deleted
// snapshot would stay taken and the data directory would only grow.
describe('the embedded database reuses the space of deleted rows', () => {
  let store: Store
  before(async () => {
    store = await openStore({ dataDir: 'memory://' })
    await sql`CREATE TABLE vacuum_probe (id serial PRIMARY KEY, content text)`.execute(store.db)
  })
  after(async () => {
    await store.close()
  })

  // Page-sized text that does not compress away, as snapshots hold.
  const content = (round: number, i: number) =>
    Array.from({ length: 400 }, (_, k) => `${round}.${i}.${k} ${((k * 2654435761) % 1e9).toString(36)} pricing`).join(
      '\n'
    )
  const fill = async (round: number) => {
    for (let i = 0; i < 60; i++) {
      await sql`INSERT INTO vacuum_probe (content) VALUES (${content(round, i)})`.execute(store.db)
    }
  }
  const size = async () =>
    (await sql<{ bytes: number }>`SELECT pg_total_relation_size('vacuum_probe')::int AS bytes`.execute(store.db))
      .rows[0].bytes

  it('after a vacuum, rows written where deleted ones were take no new space', async () => {
    await fill(0)
    const first = await size()
    await sql`DELETE FROM vacuum_probe`.execute(store.db)
    await store.vacuum()
    await fill(1)
    assert.ok((await size()) <= first * 1.1, `${await size()} bytes after refilling, ${first} before`)
  })

  it('without one, they would have taken as much again (what the test above guards against)', async () => {
    const before = await size()
    await sql`DELETE FROM vacuum_probe`.execute(store.db)
    await fill(2)
    assert.ok(
      (await size()) >= before * 1.5,
      `${await size()} bytes after refilling without a vacuum, ${before} before`
    )
  })
})
