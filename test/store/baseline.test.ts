import assert from 'node:assert/strict'
import { describe, it, type TestContext } from 'node:test'
import { Kysely, sql } from 'kysely'
import { HISTORY, migrate } from '../../src/store/migrations.js'
import { BASELINE_THROUGH } from '../../src/store/migrations/baseline.js'
import { PGliteDialect } from '../../src/store/pglite-dialect.js'
import { PGliteThread } from '../../src/store/pglite-thread.js'

// A new database starts from the baseline (scripts/write-baseline.ts), an older one from the
// history's steps: both must end with the very same schema.

async function newDatabase (t: TestContext): Promise<Kysely<any>> {
  const thread = await PGliteThread.open({ postgresqlconf: [], channels: [] })
  const db = new Kysely<any>({ dialect: new PGliteDialect(thread) })
  t.after(async () => {
    await db.destroy()
  })
  return db
}

/**
 * Everything of the schema as the catalog prints it, one line each, sorted: tables and their
 * options, columns in order with type, default, nullability and generation, constraints,
 * indexes, triggers, functions. Kysely's own tables are left out.
 */
async function catalog (db: Kysely<any>): Promise<string[]> {
  const { rows } = await sql<{ line: string }>`
    WITH ours AS (
      SELECT c.oid, c.relname, c.relkind, c.relpersistence, c.reloptions FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relname NOT LIKE 'kysely_migration%')
    SELECT format('relation %s %s %s %s', relname, relkind, relpersistence, reloptions) AS line FROM ours
    UNION ALL
    SELECT format('column %s.%s #%s %s null=%s default=%s generated=%s identity=%s', o.relname, a.attname,
      row_number() OVER (PARTITION BY o.oid ORDER BY a.attnum), format_type(a.atttypid, a.atttypmod),
      NOT a.attnotnull, pg_get_expr(d.adbin, d.adrelid), a.attgenerated, a.attidentity)
    FROM ours o JOIN pg_attribute a ON a.attrelid = o.oid AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_attrdef d ON d.adrelid = o.oid AND d.adnum = a.attnum
    WHERE o.relkind IN ('r', 'p', 'v', 'm')
    UNION ALL
    SELECT format('constraint %s.%s %s', o.relname, k.conname, pg_get_constraintdef(k.oid))
    FROM pg_constraint k JOIN ours o ON o.oid = k.conrelid
    UNION ALL
    SELECT 'index ' || pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN ours o ON o.oid = i.indrelid
    UNION ALL
    SELECT 'trigger ' || pg_get_triggerdef(g.oid) FROM pg_trigger g JOIN ours o ON o.oid = g.tgrelid
    WHERE NOT g.tgisinternal
    UNION ALL
    SELECT 'function ' || pg_get_functiondef(p.oid) FROM pg_proc p
    WHERE p.pronamespace = current_schema()::regnamespace
    ORDER BY 1`.execute(db)
  return rows.map(r => r.line)
}

describe('the baseline', () => {
  it("makes a new database's schema the very one the history's steps make, and records every step as done", async t => {
    const [fromBaseline, fromSteps] = await Promise.all([newDatabase(t), newDatabase(t)])
    await migrate(fromBaseline)
    await migrate(fromSteps, { oldSteps: true })
    const [made, stepped] = await Promise.all([catalog(fromBaseline), catalog(fromSteps)])
    assert.ok(stepped.filter(l => l.startsWith('relation ')).length > 30, 'the catalog was read')
    assert.ok(stepped.some(l => l.startsWith('function ')) && stepped.some(l => l.startsWith('trigger ')))
    assert.deepEqual(made, stepped)

    // The history dropped columns on its way; the baseline never made them.
    const dropped = async (db: Kysely<any>) => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_attribute a
      JOIN pg_class c ON c.oid = a.attrelid AND c.relnamespace = current_schema()::regnamespace WHERE a.attisdropped`
      .execute(db)).rows[0].n
    assert.equal(await dropped(fromBaseline), 0, 'the new database was made from the baseline')
    assert.ok(await dropped(fromSteps) > 0)

    const done = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(fromBaseline)
    assert.deepEqual(done.rows.map(r => r.name), Object.keys(HISTORY))
    assert.equal(Object.keys(HISTORY).at(-1), BASELINE_THROUGH, 'the baseline is written through the last step of the history')
  })

  it('leaves a database made before it to the steps it lacks', async t => {
    const db = await newDatabase(t)
    await migrate(db, { upTo: '0020_page_events' })
    await sql`INSERT INTO orgs (name, plan) VALUES ('Acme', 'pro')`.execute(db)
    await migrate(db)
    const orgs = await sql<{ name: string }>`SELECT name FROM orgs`.execute(db)
    assert.deepEqual(orgs.rows, [{ name: 'Acme' }])
    const done = await sql<{ n: number }>`SELECT count(*)::int AS n FROM kysely_migration`.execute(db)
    assert.equal(done.rows[0].n, Object.keys(HISTORY).length)
  })
})
