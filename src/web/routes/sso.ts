import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../../vocabulary/errors.js'
import { PLANS } from '../../vocabulary/plans.js'
import { EMAIL_DOMAIN, SSO_ROLES } from '../../vocabulary/sso.js'
import { backchannelLogoutUri, redirectUri, ssoDeps } from '../../services/sso.js'
import { configureSso, removeSso, ssoSettings } from '../../services/sso-settings.js'
import { checkDomainProof } from '../../services/sso-domains.js'
import { field, page, requireRole, viewerOf, type WebDeps } from '../context.js'
import { html } from '../views/layout.js'
import { SsoPage } from '../views/sso.js'

// An owner's single sign-on settings (services/sso.ts).

export async function ssoRoutes (app: FastifyInstance, deps: WebDeps) {
  const sso = ssoDeps(deps.db, deps.settings)
  const domainPattern = new RegExp(EMAIL_DOMAIN)

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
      const role = SSO_ROLES.find(r => r === form.defaultRole)
      if (!role) throw new AppError('VALIDATION_ERROR', 'Choose the role of a first sign-in')
      const domains = form.domains.split(/[\s,;]+/).map(d => d.trim().toLowerCase()).filter(Boolean)
      if (domains.length === 0 || domains.length > 20 || domains.some(d => d.length > 253 || !domainPattern.test(d))) {
        throw new AppError('VALIDATION_ERROR', 'Give one to twenty e-mail domains, such as example.com')
      }
      await configureSso(sso, person, person.org, {
        issuer: form.issuer,
        clientId: form.clientId,
        ...(secret ? { clientSecret: secret } : {}),
        domains,
        defaultRole: role,
        required: form.required
      })
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
