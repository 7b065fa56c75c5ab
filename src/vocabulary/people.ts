import { Type } from '@sinclair/typebox'
import { KeyScopeSchema, RoleSchema } from './core.js'

// What makes an invitation and an API key, in the operators' API (/admin) and in the app's
// forms alike (web/form-check.ts).

export const InvitationInputSchema = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 254 }),
  role: RoleSchema
})

/** An API key's scope (write by default) and a name to tell it by. */
export const KeyInputSchema = Type.Object({
  scope: Type.Optional(KeyScopeSchema),
  name: Type.Optional(Type.String({ maxLength: 100 }))
}, { additionalProperties: false })
