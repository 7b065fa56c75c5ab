import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { verifyImageLink } from '../../alerts/signature.js'
import { AppError, notFound } from '../../vocabulary/errors.js'
import { requirePage } from '../../services/pages.js'
import { changeImage } from '../../services/images.js'
import { latestScreenshot } from '../../store/screenshots.js'
import type { ApiDeps } from '../deps.js'
import { literals, Uuid } from '../schemas.js'
import { responses } from '../responses.js'

/** A PNG answer in /openapi.json, with the usual error answers. */
const png = (description: string) => ({
  ...responses(200, Type.Null(), [404]),
  200: { description, content: { 'image/png': { schema: { type: 'string', format: 'binary' } } } }
})

const WhichSchema = literals(['before', 'after', 'diff'] as const)

/**
 * The keyless links of webhook and Slack payloads (see signedImageLinks): outside /api
 * and its key check, answered only for a valid, unexpired signature.
 */
export const publicImageRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db, linkSecret }) => {
  app.get(
    '/changes/:id/images/:which',
    {
      schema: {
        operationId: 'getChangeImageByLink',
        tags: ['changes'],
        summary: "A change's image through a signed link from a webhook or Slack payload (no key)",
        description:
          'Payloads of change.detected carry `change.images` {before, after, diff} when the change has screenshots ' +
          'and PUBLIC_BASE_URL is set. Each link works for 7 days; a missing, wrong or expired signature is 401.',
        security: [],
        params: Type.Object({ id: Uuid, which: WhichSchema }),
        querystring: Type.Object({
          expires: Type.Integer({ description: 'Unix time the link stops working' }),
          signature: Type.String({ maxLength: 128 })
        }),
        response: png('the image (PNG)')
      }
    },
    async (req, reply) => {
      const { id, which } = req.params
      if (!verifyImageLink(linkSecret, id, which, req.query.expires, req.query.signature)) {
        throw new AppError('UNAUTHORIZED', 'This image link is not valid or has expired')
      }
      const image = await changeImage(db, id, which)
      return await reply.type('image/png').header('cache-control', 'private, max-age=3600').send(image)
    }
  )
}

export const imageRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, deps) => {
  const { db } = deps
  const ctx = { db, queue: deps.queue }

  app.get(
    '/changes/:id/images/:which',
    {
      schema: {
        operationId: 'getChangeImage',
        tags: ['changes'],
        summary: "A change's screenshots: before, after, or both side by side with the changed regions marked",
        description:
          'Pages rendered in the browser, or with screenshots on, keep their first screenshot and one with each ' +
          'change (PNG, the full page up to 8,000 px tall); a change\'s before is the last one kept. 404 when either ' +
          'side of the change has none.',
        params: Type.Object({ id: Uuid, which: WhichSchema }),
        response: png('the image (PNG)')
      }
    },
    async (req, reply) => {
      const image = await changeImage(db, req.params.id, req.params.which, req.principal!.org.id)
      return await reply.type('image/png').header('cache-control', 'private, max-age=3600').send(image)
    }
  )

  app.get(
    '/domains/:id/pages/:pageId/screenshot',
    {
      schema: {
        operationId: 'getPageScreenshot',
        tags: ['pages'],
        summary: "The page's latest screenshot",
        params: Type.Object({ id: Uuid, pageId: Uuid }, { additionalProperties: false }),
        response: png('the latest screenshot (PNG)')
      }
    },
    async (req, reply) => {
      const page = await requirePage(ctx, req.principal!.org.id, req.params.id, req.params.pageId)
      const shot = await latestScreenshot(db, page.id)
      if (!shot) throw notFound('A screenshot of this page')
      return await reply.type('image/png').header('cache-control', 'private, max-age=60').send(shot.image)
    }
  )
}
