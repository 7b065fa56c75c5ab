import { createHash } from 'node:crypto'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'

// How answers are written. Fastify compiles a serializer for each route's response schemas
// when it starts: about 1.3 s of CPU for this service's routes, most of it fast-json-stringify
// checking and compiling the same schemas again. A compiled serializer is a pure function of
// its schema and the shared schemas it refers to, so a process keeps each one it compiled:
// a second service in the same process (a test file's, the worker beside the API) starts
// without compiling any again.

type Factory = ReturnType<typeof SerializerSelector>
type Compile = ReturnType<Factory>
type Serialize = ReturnType<Compile>

/** Serializers compiled in this process, by their schemas' digest (a few hundred at most: one per route and status). */
const compiled = new Map<string, Serialize>()

const digest = (value: unknown): string => createHash('sha256').update(JSON.stringify(value) ?? '').digest('base64url')

type Schema = Record<string, unknown>
/** Keywords whose values are values, not schemas (a property of that name is only left as written). */
const VALUES = new Set(['examples', 'enum', 'default', 'const'])
const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null

/**
 * `schema` as the serializer reads it, with each "this or null" (`anyOf: [X, {type: 'null'}]`,
 * the contract's way of writing a field that may be null) as `type: [X's type, 'null']`.
 * fast-json-stringify writes an `anyOf` by asking Ajv which branch a value matches: it
 * compiles that check on the first answer that holds such a value (a domain's first
 * changes took 300 ms of the main thread, with the reads and the crawl waiting) and runs it
 * on every value after. A list of types it tells apart with `typeof`. Any other `anyOf` is
 * left as written. The schemas the API documents and validates with are not touched.
 */
export function nullsAsTypes (schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullsAsTypes)
  if (!isSchema(schema)) return schema
  const out: Schema = {}
  for (const [key, value] of Object.entries(schema)) out[key] = VALUES.has(key) ? value : nullsAsTypes(value)
  const branches = out.anyOf
  if (!Array.isArray(branches) || branches.length !== 2) return out
  const nulls = branches.filter(b => isSchema(b) && b.type === 'null' && Object.keys(b).length === 1)
  const [other] = branches.filter(b => !nulls.includes(b))
  if (nulls.length !== 1 || !isSchema(other) || typeof other.type !== 'string' ||
    other.anyOf !== undefined || other.oneOf !== undefined || other.allOf !== undefined) return out
  const { anyOf: _, ...siblings } = out
  return { ...other, ...siblings, type: [other.type, 'null'] }
}

/** Fastify's serializer factory (fast-json-stringify), remembering what it compiled. */
export function serializerCompilers (): Factory {
  const compilers = SerializerSelector()
  return (externalSchemas, options) => {
    const shared = digest({ externalSchemas, options })
    const compile = compilers(nullsAsTypes(externalSchemas) as typeof externalSchemas, options)
    return route => {
      let key: string
      try {
        key = `${shared}.${digest(route.schema)}`
      } catch {
        return compile(route) // a schema JSON cannot write (a cycle) is compiled each time
      }
      let serialize = compiled.get(key)
      if (!serialize) {
        serialize = compile({ ...route, schema: nullsAsTypes(route.schema) as typeof route.schema })
        compiled.set(key, serialize)
      }
      return serialize
    }
  }
}
