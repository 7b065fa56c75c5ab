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

/** Fastify's serializer factory (fast-json-stringify), remembering what it compiled. */
export function serializerCompilers (): Factory {
  const compilers = SerializerSelector()
  return (externalSchemas, options) => {
    const compile = compilers(externalSchemas, options)
    const shared = digest({ externalSchemas, options })
    return route => {
      let key: string
      try {
        key = `${shared}.${digest(route.schema)}`
      } catch {
        return compile(route) // a schema JSON cannot write (a cycle) is compiled each time
      }
      let serialize = compiled.get(key)
      if (!serialize) {
        serialize = compile(route)
        compiled.set(key, serialize)
      }
      return serialize
    }
  }
}
