import { timingSafeEqual, createHash } from 'node:crypto'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { AppError, notFound } from '../../vocabulary/errors.js'
import { appBaseUrl } from '../../config.js'
import { PlanNameSchema as PlanSchema } from '../../vocabulary/core.js'
import { InvitationInputSchema, KeyInputSchema } from '../../vocabulary/people.js'
import type { Mailer } from '../../mail/mailer.js'
import { invitationMail, resetMail } from '../../mail/messages.js'
import { addUser, invite, LINK_LIFETIME_MS, normalizeEmail, requestReset } from '../../services/accounts.js'
import { listMembers } from '../../store/accounts.js'
import { createOrg, updateOrg } from '../../services/orgs.js'
import { findOrg, listKeys, listOrgs, orgView } from '../../store/orgs.js'
import type { Principals } from '../../services/principals.js'
import { actingAs } from '../../services/audit.js'
import { makeApiKey, revokeApiKey } from '../../services/keys.js'
import type { ApiDeps } from '../deps.js'

const Id = Type.Object({ id: Type.String({ format: 'uuid' }) })

const digest = (s: string) => createHash('sha256').update(s).digest()

/** Tenant management for operators; only mounted when ADMIN_TOKEN is set, and not in the public description. */
export const adminRoutes: FastifyPluginAsyncTypebox<
  ApiDeps & { adminToken: string, principals: Principals, mailer: Mailer }
> = async (app, { db, config, adminToken, principals, mailer, versions }) => {
  const expected = digest(adminToken)
  app.addHook('onRequest', async req => {
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')
    if (!m || !timingSafeEqual(digest(m[1]), expected)) {
      throw new AppError('UNAUTHORIZED', 'Invalid or missing admin token')
    }
    actingAs({ kind: 'operator', label: 'operator' }, undefined)
  })
  // An operator's write to an organisation moves its version before the answer leaves, as the
  // organisation's own writes do (api/guard.ts): its next read is never a kept answer from before.
  app.addHook('onSend', async (req, reply, payload) => {
    const orgId = (req.params as { id?: string } | undefined)?.id
    const ofAnOrg = req.routeOptions.url?.startsWith('/admin/orgs/:id') === true
    if (req.method !== 'GET' && reply.statusCode < 400 && orgId && ofAnOrg) versions.wrote(orgId)
    return payload
  })

  app.post(
    '/orgs',
    {
      schema: { body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), plan: PlanSchema }) }
    },
    async (req, reply) => {
      const { org, apiKey, keyId } = await createOrg(db, req.body.name.trim(), req.body.plan)
      // The key's id as well, so that the first key can be revoked through DELETE /admin/keys/:id.
      return await reply.code(201).send({ data: { org: orgView(org), apiKey, keyId } })
    }
  )

  app.get('/orgs', async () => ({ data: (await listOrgs(db)).map(orgView) }))

  app.patch(
    '/orgs/:id',
    {
      schema: {
        params: Id,
        body: Type.Object({
          plan: Type.Optional(PlanSchema),
          trialEndsAt: Type.Optional(Type.String({ format: 'date-time' }))
        })
      }
    },
    async req => {
      const org = await updateOrg(db, req.params.id, {
        plan: req.body.plan,
        trialEndsAt: req.body.trialEndsAt ? new Date(req.body.trialEndsAt) : undefined
      })
      if (!org) throw notFound('Organisation')
      principals.forgetOrg(org.id)
      return { data: orgView(org) }
    }
  )

  // The body is optional (`{"scope": "read", "name": "CI"}`): a bare POST makes an unnamed write key, as before.
  app.post('/orgs/:id/keys', {
    schema: { params: Id, body: KeyInputSchema },
    preValidation: async req => { req.body ??= {} }
  }, async (req, reply) => {
    const { scope, name } = req.body
    const org = await findOrg(db, req.params.id)
    if (!org) throw notFound('Organisation')
    const key = await makeApiKey(db, org.id, { scope, name })
    return await reply.code(201).send({ data: key })
  })

  app.get('/orgs/:id/keys', { schema: { params: Id } }, async req => {
    const org = await findOrg(db, req.params.id)
    if (!org) throw notFound('Organisation')
    return { data: await listKeys(db, org.id) }
  })

  // People, for operators: members, a person made directly, invitations and password resets. The links come
  // back in the answer (the operator passes them on) and are e-mailed too when SMTP_URL is set.
  const base = appBaseUrl(config)
  const requireOrg = async (id: string) => {
    const org = await findOrg(db, id)
    if (!org) throw notFound('Organisation')
    return org
  }
  const Person = InvitationInputSchema.properties

  app.get('/orgs/:id/members', { schema: { params: Id } }, async req => {
    const org = await requireOrg(req.params.id)
    const members = await listMembers(db, org.id)
    return {
      data: members.map(m => ({ id: m.id, email: m.email, name: m.name, role: m.role, createdAt: m.created_at }))
    }
  })

  app.post('/orgs/:id/members', {
    schema: {
      params: Id,
      body: Type.Object({
        ...Person,
        password: Type.String({ minLength: 1, maxLength: 200 }),
        name: Type.Optional(Type.String({ maxLength: 200 }))
      })
    }
  }, async (req, reply) => {
    const org = await requireOrg(req.params.id)
    const user = await addUser(db, org.id, req.body, req.body.role)
    const data = { id: user.id, email: user.email, name: user.name, role: req.body.role }
    return await reply.code(201).send({ data })
  })

  app.post('/orgs/:id/invitations', { schema: { params: Id, body: Type.Object(Person) } }, async (req, reply) => {
    const org = await requireOrg(req.params.id)
    const now = new Date()
    const { secret, email } = await invite(db, { role: 'owner' }, org.id, req.body.email, req.body.role, now)
    const link = `${base}/app/invite/${secret}`
    const mail = invitationMail({ to: email, inviter: 'An operator', orgName: org.name, role: req.body.role, link })
    const mailed = Boolean(config.smtpUrl) && await mailer.send(mail)
    const expiresAt = new Date(now.getTime() + LINK_LIFETIME_MS.invite)
    return await reply.code(201).send({ data: { email, role: req.body.role, link, expiresAt, mailed } })
  })

  app.post('/password-resets', { schema: { body: Type.Object({ email: Person.email }) } }, async (req, reply) => {
    const now = new Date()
    const secret = await requestReset(db, req.body.email, now)
    // Operators may know who has an account: unlike the sign-in page, an unknown e-mail is a 404.
    if (!secret) throw notFound('Account')
    const email = normalizeEmail(req.body.email)!
    const link = `${base}/app/reset/${secret}`
    const mailed = Boolean(config.smtpUrl) && await mailer.send(resetMail({ to: email, link }))
    const expiresAt = new Date(now.getTime() + LINK_LIFETIME_MS.reset)
    return await reply.code(201).send({ data: { email, link, expiresAt, mailed } })
  })

  app.delete('/keys/:id', { schema: { params: Id } }, async req => {
    await revokeApiKey(db, req.params.id)
    principals.forgetKey(req.params.id)
    return { data: { revoked: true, id: req.params.id } }
  })
}
