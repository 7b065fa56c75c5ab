import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import ts from 'typescript'
import { inRepo } from '../helpers/paths.js'
import { startTestService, type TestService } from '../helpers/service.js'

// store/schema.ts is written by hand beside the migrations: this reads its Database with
// TypeScript's checker and holds it against the tables the migrations made, column by
// column, nullability included, so that the two cannot drift apart unseen.

/** Each table of schema.ts's Database: its columns, and whether each reads as nullable. */
function declaredTables (): Map<string, Map<string, boolean>> {
  const file = inRepo('src/store/schema.ts')
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext
  })
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(file)!
  const database = source.statements.find((s): s is ts.InterfaceDeclaration =>
    ts.isInterfaceDeclaration(s) && s.name.text === 'Database')!
  const tables = new Map<string, Map<string, boolean>>()
  for (const table of checker.getTypeAtLocation(database).getProperties()) {
    const columns = new Map<string, boolean>()
    for (const column of checker.getTypeOfSymbol(table).getProperties()) {
      let type = checker.getTypeOfSymbol(column)
      // A ColumnType (Generated, CreatedAt, …) reads as its __select__ type.
      const selected = type.getProperty('__select__')
      if (selected) type = checker.getTypeOfSymbol(selected)
      // `unknown` (a JSON column read as anything) holds null too.
      const holdsNull = (t: ts.Type) => (t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Unknown | ts.TypeFlags.Any)) !== 0
      columns.set(column.name, type.isUnion() ? type.types.some(holdsNull) : holdsNull(type))
    }
    tables.set(table.name, columns)
  }
  return tables
}

describe("the store's types and the migrated database", () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ ROLE: 'api' })
  })
  after(async () => {
    await t.stop()
  })

  it('every table of schema.ts has exactly the columns the migrations made, each nullable as the database says', async () => {
    const { rows } = await sql<{ table: string, column: string, nullable: string }>`
      SELECT table_name AS table, column_name AS column, is_nullable AS nullable FROM information_schema.columns
      WHERE table_schema = current_schema()`.execute(t.service.store.db)
    const made = new Map<string, Map<string, boolean>>()
    for (const r of rows) made.set(r.table, (made.get(r.table) ?? new Map()).set(r.column, r.nullable === 'YES'))
    const declared = declaredTables()
    assert.ok(declared.size > 20, 'schema.ts was read')
    const drift: string[] = []
    for (const [table, columns] of declared) {
      const inDatabase = made.get(table)
      if (!inDatabase) {
        drift.push(`${table}: no such table`)
        continue
      }
      for (const [column, nullable] of columns) {
        if (!inDatabase.has(column)) drift.push(`${table}.${column}: no such column`)
        else if (nullable !== inDatabase.get(column)) drift.push(`${table}.${column}: ${nullable ? '' : 'not '}null in schema.ts`)
      }
      for (const column of inDatabase.keys()) if (!columns.has(column)) drift.push(`${table}.${column}: not in schema.ts`)
    }
    assert.deepEqual(drift, [])
  })
})
