import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { EMAIL_DOMAIN, SsoDomainStateSchema, SsoSettingsInputSchema, SsoSettingsSchema } from '../../vocabulary/sso.js'
import { ssoDeps } from '../../services/sso.js'
import { configureSso, removeSso, ssoSettings } from '../../services/sso-settings.js'
import { checkDomainProof } from '../../services/sso-domains.js'
import type { ApiDeps } from '../deps.js'
import { Nullable } from '../schemas.js'
import { responses } from '../responses.js'

// The organisation's single sign-on (services/sso.ts), as its owners set it in the app.

const OWNERS =
  'Changing it is an owner\'s: a key acts with the role its maker has now (a key the operator made, as an owner). '

export const ssoRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db, config }) => {
  const sso = ssoDeps(db, config)

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
      description: 'People whose e-mail is of a proven domain of `domains` sign in through the provider ' +
        '(authorization code with PKCE, the ID token\'s signature checked against the provider\'s keys, the client ' +
        'authentication the provider advertises). A domain is proven by a DNS TXT record (`domainProofs` says which ' +
        'and where; `POST /api/sso/domains/{domain}/check` looks); a domain another organisation proved is a 409. ' +
        'A person\'s first sign-in makes their account and joins with `defaultRole`; an address that already has an ' +
        'account is linked to its provider identity (issuer, subject) only once its person proves the account. A ' +
        'session the provider opens reaches this organisation only. With `required`, members\' passwords are ' +
        'refused (owners keep theirs). The issuer\'s discovery document is read before saving, and the issuer must ' +
        'be written as the provider writes it: settings it cannot serve are a 400 that says why. A new issuer or ' +
        `client ends the sessions the old one opened. ${OWNERS}The client secret is sealed at rest and never returned.`,
      body: SsoSettingsInputSchema,
      response: responses(200, Type.Ref(SsoSettingsSchema), [409])
    }
  }, async req => ({
    data: await configureSso(sso, req.principal!, req.principal!.org, req.body)
  }))

  app.post('/sso/domains/:domain/check', {
    schema: {
      operationId: 'checkSsoDomain',
      tags: ['sso'],
      summary: 'Looks for the DNS TXT record that proves a claimed domain',
      description: 'Looks up `txtName` now. Found with `txtValue`, the domain is proven and its people sign in ' +
        'through the provider; proven domains are looked at again each day, and a record gone takes the proof away. ' +
        `404: the domain is not claimed here; 409: another organisation proved it first. ${OWNERS}`,
      params: Type.Object({ domain: Type.String({ pattern: EMAIL_DOMAIN, maxLength: 253 }) }),
      response: responses(200, Type.Ref(SsoDomainStateSchema), [404, 409])
    }
  }, async req => ({
    data: await checkDomainProof(sso, req.principal!, req.principal!.org, req.params.domain)
  }))

  app.delete('/sso', {
    schema: {
      operationId: 'deleteSso',
      tags: ['sso'],
      summary: 'Turns single sign-on off',
      description: 'Passwords work again; people who never had one reset one; the sessions the provider opened ' +
        `end. ${OWNERS}`,
      response: responses(200, Type.Object({ removed: Type.Boolean() }), [404])
    }
  }, async req => {
    await removeSso(sso, req.principal!, req.principal!.org)
    return { data: { removed: true } }
  })
}
