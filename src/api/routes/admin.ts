import { timingSafeEqual, createHash } from 'node:crypto'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { AppError, notFound } from '../../domain/errors.js'
import { KEY_SCOPES, PlanNameSchema as PlanSchema, type KeyScope } from '../../domain/vocabulary.js'
import { createOrg, updateOrg } from '../../services/orgs.js'
import { findOrg, issueKey, listKeys, listOrgs, orgView, revokeKey } from '../../store/orgs.js'
import type { Principals } from '../../services/principals.js'
import type { ApiDeps } from '../deps.js'

const Id = Type.Object({ id: Type.String({ format: 'uuid' }) })

const digest = (s: string) => createHash('sha256').update(s).digest()

/** Tenant management for operators; only mounted when ADMIN_TOKEN is set, and not in the public description. */
export const adminRoutes: FastifyPluginAsyncTypebox<ApiDeps & { adminToken: string, principals: Principals }> = async (
  app,
  { db, adminToken, principals }
) => {
  const expected = digest(adminToken)
  app.addHook('onRequest', async req => {
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')
    if (!m || !timingSafeEqual(digest(m[1]), expected)) {
      throw new AppError('UNAUTHORIZED', 'Invalid or missing admin token')
    }
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

  // The body is optional (`{"scope": "read"}`): a bare POST makes a write key, as before scopes.
  app.post('/orgs/:id/keys', { schema: { params: Id } }, async (req, reply) => {
    const scope = (req.body as { scope?: unknown } | undefined)?.scope
    if (scope !== undefined && !KEY_SCOPES.includes(scope as KeyScope)) {
      throw new AppError('VALIDATION_ERROR', 'scope must be one of: read, write', { field: 'scope' })
    }
    const org = await findOrg(db, req.params.id)
    if (!org) throw notFound('Organisation')
    return await reply.code(201).send({ data: await issueKey(db, org.id, { scope: scope as KeyScope | undefined }) })
  })

  app.get('/orgs/:id/keys', { schema: { params: Id } }, async req => {
    const org = await findOrg(db, req.params.id)
    if (!org) throw notFound('Organisation')
    return { data: await listKeys(db, org.id) }
  })

  app.delete('/keys/:id', { schema: { params: Id } }, async req => {
    if (!(await revokeKey(db, req.params.id))) throw notFound('API key')
    principals.forgetKey(req.params.id)
    return { data: { revoked: true, id: req.params.id } }
  })
}
