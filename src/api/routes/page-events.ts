import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { listPageEvents } from '../../store/page-events.js'
import { literals, PAGE_EVENT_KINDS } from '../../vocabulary/core.js'
import type { ApiDeps } from '../deps.js'
import { Uuid } from '../schemas.js'
import { PageEvent } from '../schemas-alerts.js'
import { responses } from '../responses.js'

// New and removed pages (store/page-events.ts): what the weekly discovery found that was
// not watched, and the watched pages that are gone.

export const pageEventRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db }) => {
  app.get('/page-events', {
    schema: {
      operationId: 'listPageEvents',
      tags: ['pages'],
      summary: 'New and removed pages, newest first',
      description: "Each domain's pages are discovered again every week (and on POST /api/domains/:id/discover). " +
        'A page found that is not watched is recorded once (`discovered`); one of a type that matters (pricing, ' +
        'features, terms, security, api_docs, changelog) is watched at once while the plan allows (`watched`), ' +
        'the others wait for a person (add them with POST /api/domains/:id/pages). A watched page that has ' +
        'answered 404 or 410 for a week, or that the sitemaps listed and list no more (read whole), is recorded ' +
        'once as `removed`. Webhooks receive `page.discovered` (pages ' +
        'of a type that matters) and `page.removed` when they list those events. At most `limit` events (default ' +
        '50, at most 500).',
      querystring: Type.Object({
        domainId: Type.Optional(Uuid),
        kind: Type.Optional(literals(PAGE_EVENT_KINDS)),
        limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 })
      }, { additionalProperties: false }),
      response: responses(200, Type.Array(Type.Ref(PageEvent)), [])
    }
  }, async req => ({
    data: await listPageEvents(db, req.principal!.org.id, {
      domainId: req.query.domainId, kind: req.query.kind, limit: req.query.limit
    })
  }))
}
