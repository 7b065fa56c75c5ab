import { AjvCompiler, type BuildCompilerFromPool, type Options as AjvOptions } from '@fastify/ajv-compiler'
import type { FastifyInstance } from 'fastify'
import { AppError } from '../vocabulary/errors.js'

// What a request's values must be beyond what each route's schema says, in one place:
// how the schemas read them, and the values PostgreSQL or Ajv would mishandle.

type Validate = ((data: unknown) => boolean) & { errors?: unknown }

/**
 * Query strings, paths and headers are text, so their values are coerced to the schema's
 * types ("?page=2", "?severity=high,critical"); a JSON body has types of its own, and a
 * value of the wrong one ("priority": "5", "displayName": 123) is a 400, not a guess.
 */
export function validatorCompilers (): BuildCompilerFromPool {
  const compilers = AjvCompiler()
  return (externalSchemas, options) => {
    const coercing = compilers(externalSchemas, options)
    const exact = compilers(externalSchemas, {
      plugins: options?.plugins,
      onCreate: options?.onCreate,
      customOptions: { ...(options?.customOptions as AjvOptions), coerceTypes: false }
    })
    // Fastify calls the compiler with the route's definition, not a bare schema as the types say.
    return route =>
      (route as unknown as { httpPart?: string }).httpPart === 'body'
        ? exact(route)
        : finiteOnly(coercing(route) as unknown as Validate)
  }
}

/**
 * Ajv coerces "1e400" to Infinity and then skips `maximum`, which only looks at finite
 * numbers: such a value would reach a handler (and PostgreSQL) as a page number.
 */
function finiteOnly (validate: Validate): ReturnType<ReturnType<BuildCompilerFromPool>> {
  const checked: Validate = data => {
    if (!validate(data)) {
      checked.errors = validate.errors
      return false
    }
    for (const [key, value] of Object.entries(data ?? {})) {
      if ([value].flat().some(v => typeof v === 'number' && !Number.isFinite(v))) {
        checked.errors = [
          {
            instancePath: `/${key}`,
            schemaPath: '',
            keyword: 'maximum',
            params: {},
            message: 'must be a finite number'
          }
        ]
        return false
      }
    }
    checked.errors = null
    return true
  }
  return checked as ReturnType<ReturnType<BuildCompilerFromPool>>
}

/**
 * The dotted path of a string in `value` that holds U+0000 (keys included), if
 * any. A loop, not recursion: a body may nest thousands deep.
 */
function fieldWithNul (value: unknown): string | undefined {
  const pending: Array<[unknown, string]> = [[value, '']]
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, path] = next
    if (typeof item === 'string') {
      if (item.includes('\0')) return path
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, inner] of Object.entries(item)) {
        const at = path ? `${path}.${key}` : key
        if (key.includes('\0')) return at
        pending.push([inner, at])
      }
    }
  }
  return undefined
}

/** Checks every route's input gets on top of its schema; on the root app, so they reach all routes. */
export function addInputChecks (app: FastifyInstance): void {
  // PostgreSQL's text and jsonb cannot hold U+0000: refused here, or the insert fails as a 500.
  app.addHook('preValidation', async req => {
    for (const [location, value] of [
      ['params', req.params],
      ['query', req.query],
      ['body', req.body]
    ] as const) {
      const path = fieldWithNul(value)
      if (path === undefined) continue
      const field = path || location
      throw new AppError(
        'VALIDATION_ERROR',
        `${location === 'body' ? '' : `${location === 'query' ? 'query' : 'path'} parameter `}${field} must not ` +
        'contain a NUL character (\\u0000)',
        { field, location }
      )
    }
  })
  // Ajv checks a body's minProperties before it drops the fields the schema does not
  // name, so {"foo": 1} would reach an update with nothing to set.
  app.addHook('preHandler', async req => {
    const schema = req.routeOptions.schema?.body as
      { minProperties?: number, properties?: Record<string, unknown> } | undefined
    if (!schema?.minProperties || typeof req.body !== 'object' || req.body === null) return
    if (Object.keys(req.body).length >= schema.minProperties) return
    throw new AppError(
      'VALIDATION_ERROR',
      `body must set at least one of ${Object.keys(schema.properties ?? {}).join(', ')} (other fields are ignored)`,
      { field: 'body', location: 'body' }
    )
  })
}
