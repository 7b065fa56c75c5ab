import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../../vocabulary/errors.js'
import { PLANS } from '../../vocabulary/plans.js'
import { SsoSettingsInputSchema, type SsoSettingsInput } from '../../vocabulary/sso.js'
import { checkForm } from '../form-check.js'
import { backchannelLogoutUri, redirectUri, ssoDeps } from '../../services/sso.js'
import { configureSso, removeSso, ssoSettings } from '../../services/sso-settings.js'
import { checkDomainProof } from '../../services/sso-domains.js'
import { field, page, requireRole, viewerOf, type WebDeps } from '../context.js'
import { html } from '../views/layout.js'
import { SsoPage } from '../views/sso.js'

// An owner's single sign-on settings (services/sso-settings.ts).

/** What the form says of a field the API's schema refuses. */
const SAY = {
  issuer: "Give the identity provider's issuer, an address such as https://login.example.com",
  clientId: 'Give the client id the identity provider gave you',
  clientSecret: 'The client secret is 500 characters at most',
  domains: 'Give one to twenty different e-mail domains, such as example.com',
  defaultRole: 'Choose the role of a first sign-in'
}

export async function ssoRoutes (app: FastifyInstance, deps: WebDeps) {
  const sso = ssoDeps(deps.db, deps.settings)

  const show = async (
    req: FastifyRequest, reply: FastifyReply, extra: Partial<Parameters<typeof SsoPage>[0]> = {}, status = 200
  ) => {
    const person = requireRole(req, 'owner')
    const done = (req.query as Record<string, string>).done
    return await page(reply, html(SsoPage({
      viewer: viewerOf(req, reply),
      settings: await ssoSettings(sso, person.org),
      redirectUri: redirectUri(sso.baseUrl),
      backchannelLogoutUri: backchannelLogoutUri(sso.baseUrl),
      allowed: PLANS[person.org.plan].features.singleSignOn,
      notice: {
        saved: 'Single sign-on is saved. A domain signs its people in once it is proven: publish its TXT record, ' +
          'then check it below.',
        off: 'Single sign-on is off.',
        proven: 'The domain is proven: its people sign in through your provider.',
        unproven: 'The domain is not proven yet: its record was not found (see below).'
      }[done ?? ''],
      ...extra
    })), status)
  }

  app.get('/sso', async (req, reply) => await show(req, reply))

  app.post('/sso', async (req, reply) => {
    const person = requireRole(req, 'owner')
    const form = {
      issuer: field(req.body, 'issuer').trim(),
      clientId: field(req.body, 'clientId').trim(),
      domains: field(req.body, 'domains'),
      defaultRole: field(req.body, 'defaultRole'),
      required: field(req.body, 'required') === '1'
    }
    const secret = field(req.body, 'clientSecret').trim()
    try {
      const input = {
        issuer: form.issuer,
        clientId: form.clientId,
        ...(secret ? { clientSecret: secret } : {}),
        domains: form.domains.split(/[\s,;]+/).map(d => d.trim().toLowerCase()).filter(Boolean),
        defaultRole: form.defaultRole,
        required: form.required
      }
      // The API's schema decides, as it does for PUT /api/sso.
      checkForm(SsoSettingsInputSchema, input, SAY)
      await configureSso(sso, person, person.org, input as SsoSettingsInput)
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode === 403 || err.statusCode >= 500) throw err
      return await show(req, reply, { error: err.message, form }, err.statusCode)
    }
    return await reply.redirect('/app/sso?done=saved', 303)
  })

  app.post('/sso/domains/check', async (req, reply) => {
    const person = requireRole(req, 'owner')
    try {
      const state = await checkDomainProof(sso, person, person.org, field(req.body, 'domain'))
      return await reply.redirect(`/app/sso?done=${state.verified ? 'proven' : 'unproven'}`, 303)
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode === 403 || err.statusCode >= 500) throw err
      return await show(req, reply, { error: err.message }, err.statusCode)
    }
  })

  app.post('/sso/delete', async (req, reply) => {
    const person = requireRole(req, 'owner')
    await removeSso(sso, person, person.org)
    return await reply.redirect('/app/sso?done=off', 303)
  })
}
