import { Type, type TSchema } from '@sinclair/typebox'

// How the vocabulary writes a schema (core.ts, diff-data.ts). Imports nothing of ours.

/**
 * A string that is one of `values`: a JSON Schema `enum` (what OpenAPI client generators
 * read as one enum type, and what ajv checks with the allowed values in its error).
 */
export const literals = <T extends string>(values: readonly T[], opts: { description?: string } = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...opts })

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
