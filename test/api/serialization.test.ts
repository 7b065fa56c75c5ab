import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fastJsonStringify from 'fast-json-stringify'
import { nullsAsTypes } from '../../src/api/output.js'
import { Change, DiffData } from '../../src/api/schemas.js'
import { startTestService, type TestService } from '../helpers/service.js'

// How answers are written (api/output.ts): a field that may be null is written by its type,
// without asking Ajv which branch of its `anyOf` the value matches (a check compiled on the
// first answer that holds one: 300 ms of the main thread, with every request waiting).

type Schema = Record<string, any>

/** The `anyOf`s of `schema`, wherever they are. */
function unions (schema: unknown, found: Schema[][] = []): Schema[][] {
  if (Array.isArray(schema)) for (const item of schema) unions(item, found)
  else if (typeof schema === 'object' && schema !== null) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'anyOf') found.push(value as Schema[])
      if (key !== 'examples' && key !== 'enum') unions(value, found)
    }
  }
  return found
}

type Options = Parameters<typeof fastJsonStringify>[1]
const shared = { DiffData } as unknown as NonNullable<Options>['schema']
/** fast-json-stringify's serializer of `schema` (its types do not take TypeBox's). */
const compile = (schema: unknown, options: Options) =>
  fastJsonStringify(schema as Parameters<typeof fastJsonStringify>[0], options) as unknown as (value: unknown) => string
const generated = (schema: unknown) =>
  (compile(schema, { schema: shared, mode: 'debug' }) as unknown as { code: string }).code

describe('how answers are written', () => {
  let t: TestService
  before(async () => { t = await startTestService() })
  after(async () => { await t.stop() })

  it('writes each field that may be null by its type: the only unions left are of a shared schema or null', async () => {
    const doc = (await t.api.get('/openapi.json')).body
    const answers = [doc.components.schemas, ...Object.values(doc.paths).flatMap((item: any) =>
      Object.values(item).map((operation: any) => operation.responses))]
    const before = unions(answers)
    assert.ok(before.filter(u => u.some(b => b.type === 'null')).length > 100, 'the contract has many fields that may be null')
    const left = unions(nullsAsTypes(answers))
    assert.ok(left.length > 0)
    for (const union of left) assert.ok(union.some(b => typeof b.$ref === 'string'), JSON.stringify(union))
  })

  it('writes a change as it did, with no check of its values', () => {
    const at = new Date('2026-12-01T10:00:00.000Z')
    const change = {
      id: '11111111-1111-4111-8111-111111111111',
      pageId: '22222222-2222-4222-8222-222222222222',
      domainId: '33333333-3333-4333-8333-333333333333',
      orgId: '44444444-4444-4444-8444-444444444444',
      changeType: 'price_change',
      severity: 'high',
      confidence: '0.90',
      summary: 'Pricing, Pro: "$10" → "$12"',
      diffData: { before: '$10', after: '$12', stats: { additions: 1, deletions: 1, changes: 1 }, hunks: [] },
      snapshotBeforeId: '55555555-5555-4555-8555-555555555555',
      snapshotAfterId: '66666666-6666-4666-8666-666666666666',
      acknowledgedAt: at,
      acknowledgedBy: null,
      acknowledgedByKind: 'person',
      createdAt: at,
      verdict: null,
      pinnedAt: null,
      learnedSeverity: { from: 'medium', ruleId: null },
      alertRule: null
    }
    const options: Options = { schema: shared }
    const asWritten = compile(Change, options)(change)
    assert.equal(compile(nullsAsTypes(Change), options)(change), asWritten)
    assert.deepEqual(JSON.parse(asWritten), {
      ...change, acknowledgedAt: at.toISOString(), createdAt: at.toISOString()
    })
    assert.match(generated(Change), /getSchemaValidator/, 'the contract\'s schema asks Ajv')
    assert.doesNotMatch(generated(nullsAsTypes(Change)), /getSchemaValidator/)
  })
})
