import { Type, type Static } from '@sinclair/typebox'
import { literals } from './schema.js'

// Single sign-on's words: what an owner sets (services/sso.ts), and what is shown of it.

/** How a session the identity provider started is named (the sign-in's `via`, in the audit log). */
export const SIGNED_ON = 'single sign-on'

/** The roles a first sign-in may give: an owner is made by an owner, never by a provider. */
export const SSO_ROLES = ['viewer', 'editor', 'admin'] as const

const EMAIL_DOMAIN = '^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$'

export const SsoSettingsInputSchema = Type.Object({
  issuer: Type.String({
    format: 'uri',
    maxLength: 500,
    description: "the identity provider's issuer (https; its /.well-known/openid-configuration is read)"
  }),
  clientId: Type.String({ minLength: 1, maxLength: 300 }),
  clientSecret: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 500,
    description: 'required the first time; left out, the saved one is kept. Never shown again'
  })),
  domains: Type.Array(Type.String({ pattern: EMAIL_DOMAIN, maxLength: 253 }), {
    minItems: 1,
    maxItems: 20,
    uniqueItems: true,
    description: 'the e-mail domains the provider vouches for (lower case): people of these sign in through it'
  }),
  defaultRole: literals(SSO_ROLES, { description: 'the role of a person whose first sign-in joins the organisation' }),
  required: Type.Boolean({
    description: 'true: members of the vouched domains sign in only through the provider (their passwords refused, ' +
      'the sessions their passwords opened ended, invitations to them taken by their first sign-in); owners keep ' +
      'their password, a way back in when the provider fails, and guests of other domains keep theirs'
  })
}, { additionalProperties: false })
export type SsoSettingsInput = Static<typeof SsoSettingsInputSchema>

export const SsoSettingsSchema = Type.Object({
  issuer: Type.String(),
  clientId: Type.String(),
  domains: Type.Array(Type.String()),
  defaultRole: literals(SSO_ROLES),
  required: Type.Boolean(),
  /** Where the provider sends people back: register it as the client's redirect URI. */
  redirectUri: Type.String({ description: 'register this as the client\'s redirect URI at the provider' })
}, { $id: 'SsoSettings', title: 'SsoSettings' })
export type SsoSettings = Static<typeof SsoSettingsSchema>
