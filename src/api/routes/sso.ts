import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { appBaseUrl } from '../../config.js'
import { SsoSettingsInputSchema, SsoSettingsSchema } from '../../vocabulary/sso.js'
import type { Role } from '../../vocabulary/core.js'
import { configureSso, removeSso, ssoSettings, type SsoDeps } from '../../services/sso.js'
import { memberRole } from '../../store/accounts.js'
import type { Principal } from '../../store/orgs.js'
import type { ApiDeps } from '../deps.js'
import { Nullable } from '../schemas.js'
import { responses } from '../responses.js'

// The organisation's single sign-on (services/sso.ts), as its owners set it in the app.

const OWNERS =
  'Changing it is an owner\'s: a key acts with the role its maker has now (a key the operator made, as an owner). '

export const ssoRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db, config }) => {
  const sso: SsoDeps = { db, baseUrl: appBaseUrl(config), allowInsecure: config.ssoAllowInsecureIssuers }
  /** The role a key acts with: its maker's, now. */
  const roleOf = async (p: Principal): Promise<Role> =>
    p.createdBy ? (await memberRole(db, p.org.id, p.createdBy)) ?? 'viewer' : 'owner'

  app.get('/sso', {
    schema: {
      operationId: 'getSso',
      tags: ['sso'],
      summary: "The organisation's single sign-on, or null",
      response: responses(200, Nullable(Type.Ref(SsoSettingsSchema)), [])
    }
  }, async req => ({ data: await ssoSettings(sso, req.principal!.org) }))

  app.put('/sso', {
    schema: {
      operationId: 'putSso',
      tags: ['sso'],
      summary: 'Sets single sign-on with OpenID Connect (enterprise plan)',
      description: 'People whose e-mail is of `domains` sign in through the provider (authorization code with ' +
        'PKCE); the first sign-in of a verified address joins the organisation with `defaultRole`. With ' +
        '`required`, members\' passwords are refused (owners keep theirs). The issuer\'s discovery document is ' +
        'read before saving: settings it cannot serve are a 400 that says why. A domain another organisation ' +
        `signs in is a 409. ${OWNERS}The client secret is never returned.`,
      body: SsoSettingsInputSchema,
      response: responses(200, Type.Ref(SsoSettingsSchema), [409])
    }
  }, async req => ({
    data: await configureSso(sso, { role: await roleOf(req.principal!) }, req.principal!.org, req.body)
  }))

  app.delete('/sso', {
    schema: {
      operationId: 'deleteSso',
      tags: ['sso'],
      summary: 'Turns single sign-on off',
      description: `Passwords work again; people who never had one reset one. ${OWNERS}`,
      response: responses(200, Type.Object({ removed: Type.Boolean() }), [404])
    }
  }, async req => {
    await removeSso(sso, { role: await roleOf(req.principal!) }, req.principal!.org)
    return { data: { removed: true } }
  })
}
