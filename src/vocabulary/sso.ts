import { Type, type Static } from '@sinclair/typebox'
import { literals, Nullable } from './schema.js'

// Single sign-on's words: what an owner sets (services/sso.ts), and what is shown of it.

/** How a session the identity provider started is named (the sign-in's `via`, in the audit log). */
export const SIGNED_ON = 'single sign-on'

/** The roles a first sign-in may give: an owner is made by an owner, never by a provider. */
export const SSO_ROLES = ['viewer', 'editor', 'admin'] as const

/** An e-mail domain as single sign-on takes it (lower case): the API's schema and the app's form test the same. */
export const EMAIL_DOMAIN = '^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$'

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
    description: 'the e-mail domains the provider vouches for (lower case). Each counts once the organisation ' +
      'proved it owns it (a DNS TXT record, see `domainProofs`); people of a proven domain sign in through the ' +
      'provider. A domain another organisation proved is a 409'
  }),
  defaultRole: literals(SSO_ROLES, { description: 'the role of a person whose first sign-in joins the organisation' }),
  required: Type.Boolean({
    description: 'true: members of the vouched domains sign in only through the provider (their passwords refused, ' +
      'the sessions their passwords opened ended, invitations to them taken by their first sign-in); owners keep ' +
      'their password, a way back in when the provider fails, and guests of other domains keep theirs'
  })
}, { additionalProperties: false })
export type SsoSettingsInput = Static<typeof SsoSettingsInputSchema>

export const SsoDomainStateSchema = Type.Object({
  domain: Type.String(),
  verified: Type.Boolean({
    description: 'the organisation proved it owns the domain: its people sign in through the provider'
  }),
  verifiedAt: Nullable(Type.String({ format: 'date-time' })),
  checkedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'when its TXT record was last looked at (proven domains are looked at again each day; a record ' +
      'gone takes the proof away)'
  }),
  problem: Type.Union([Type.String(), Type.Null()], { description: 'what the last look found, when not proven' }),
  txtName: Type.String({ description: 'publish a TXT record at this name…' }),
  txtValue: Type.String({ description: '…with this value, then ask `POST /api/sso/domains/{domain}/check`' })
}, { $id: 'SsoDomainState', title: 'SsoDomainState' })
export type SsoDomainState = Static<typeof SsoDomainStateSchema>

export const SsoSettingsSchema = Type.Object({
  issuer: Type.String(),
  clientId: Type.String(),
  domains: Type.Array(Type.String()),
  domainProofs: Type.Array(Type.Ref(SsoDomainStateSchema), {
    description: 'each claimed domain: the DNS TXT record that proves it, and whether it is proven'
  }),
  clientAuth: Type.String({
    description: 'how Sitewatch authenticates at the provider\'s token endpoint: the first of client_secret_basic, ' +
      'client_secret_post, client_secret_jwt and none that the provider advertises'
  }),
  defaultRole: literals(SSO_ROLES),
  required: Type.Boolean(),
  /** Where the provider sends people back: register it as the client's redirect URI. */
  redirectUri: Type.String({ description: 'register this as the client\'s redirect URI at the provider' }),
  backchannelLogoutUri: Type.String({
    description: 'register this as the client\'s back-channel logout URI: a person signed out or removed at the ' +
      'provider is signed out of Sitewatch'
  })
}, { $id: 'SsoSettings', title: 'SsoSettings' })
export type SsoSettings = Static<typeof SsoSettingsSchema>
