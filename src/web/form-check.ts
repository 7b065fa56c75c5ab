import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsPlugin from 'ajv-formats'
import type { TSchema } from '@sinclair/typebox'
import { NoiseRulesSchema } from '../vocabulary/core.js'
import { AppError } from '../vocabulary/errors.js'

// A form's input is checked against the API's schema for the same input, by the validator
// the API's routes use (Ajv with its formats, as Fastify runs it): what the API refuses,
// the app refuses, and nothing the API refuses is quietly clamped or cut by a form.

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv) => Ajv
const ajv = addFormats(new Ajv({ strict: false, allErrors: false }))
// The shared schemas a form's schema refers to by $id, as the API registers them.
ajv.addSchema(NoiseRulesSchema)
const compiled = new WeakMap<TSchema, ValidateFunction>()

/** The form's field an error is about: the property it names, past any index (`/domains/0` is `domains`). */
function fieldOf (error: ErrorObject): string {
  if (error.keyword === 'required') return String(error.params.missingProperty)
  return error.instancePath.split('/').filter(p => p !== '' && !/^\d+$/.test(p)).pop() ?? ''
}

/**
 * Throws a VALIDATION_ERROR for the first field of `input` that `schema` refuses, in the
 * words of `say` for that field (else the validator's), with the field named for the form.
 */
export function checkForm (schema: TSchema, input: unknown, say: Readonly<Record<string, string>> = {}): void {
  let validate = compiled.get(schema)
  if (!validate) compiled.set(schema, validate = ajv.compile(schema))
  if (validate(input)) return
  const error = validate.errors![0]!
  const field = fieldOf(error)
  const said = say[field] ?? `${field || 'the form'} ${error.message ?? 'is not valid'}`
  throw new AppError('VALIDATION_ERROR', said, field ? { field } : undefined)
}
