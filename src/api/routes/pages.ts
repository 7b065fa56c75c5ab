import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { requireDomain } from '../../services/domains.js'
import { addPageByHand, changePage, removePage } from '../../services/pages.js'
import { listPages, pageView } from '../../store/pages.js'
import type { ApiDeps } from '../deps.js'
import {
  CreatedPage,
  IdParams,
  NoiseRules,
  Page,
  PageTypeSchema,
  Pagination,
  RenderModeSchema,
  responses,
  Uuid
} from '../schemas.js'

const PageParams = Type.Object({ id: Uuid, pageId: Uuid }, { additionalProperties: false })

export const pageRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db, queue }) => {
  const ctx = { db, queue }
  app.get(
    '/domains/:id/pages',
    {
      schema: {
        operationId: 'listPages',
        tags: ['pages'],
        summary: 'List the pages of a domain',
        description: 'Oldest first. Pages with `page` (1-based) and `pageSize` (default 100, at most 500).',
        params: IdParams,
        querystring: Pagination(100, 500),
        response: responses(200, Type.Array(Type.Ref(Page)), [404], { list: true })
      }
    },
    async req => {
      const domain = await requireDomain(ctx, req.principal!.org.id, req.params.id)
      const { page, pageSize } = req.query
      const { items, total } = await listPages(db, domain.id, page, pageSize)
      return { data: items, meta: { total, page, pageSize } }
    }
  )

  app.post(
    '/domains/:id/pages',
    {
      schema: {
        operationId: 'createPage',
        tags: ['pages'],
        summary: 'Add a page by hand',
        description:
          "The URL's host must be the domain or one of its subdomains. The URL is normalised (fragment and " +
          'tracking parameters dropped, host lower-cased) before it is compared and stored. Its first crawl is ' +
          'queued at once. ' +
          "Takes one page of the plan's pages-per-domain allowance. A `pageType` given is kept as given (confidence " +
          '1.00, `pageTypeSource` person) and never re-typed. Without one, the page is typed as discovery types ' +
          'pages: from its URL at once (`pageTypeSource` address; `other` when the URL says nothing), then from its ' +
          'title, headings and text after its first crawl (`pageTypeSource` content).',
        params: IdParams,
        body: Type.Object({
          url: Type.String({ minLength: 1, maxLength: 2048, description: 'full http(s) URL' }),
          pageType: Type.Optional(PageTypeSchema)
        }, { additionalProperties: false }),
        response: responses(201, Type.Ref(CreatedPage), [402, 404, 409], { description: 'created; first crawl queued' })
      }
    },
    async (req, reply) => {
      const page = await addPageByHand(
        ctx,
        req.principal!.org,
        req.params.id,
        req.body.url,
        req.body.pageType
      )
      return await reply.code(201).send({ data: pageView(page) })
    }
  )

  app.patch(
    '/domains/:id/pages/:pageId',
    {
      schema: {
        operationId: 'updatePage',
        tags: ['pages'],
        summary: 'Update a page: monitoring, type, priority, noise rules and rendering',
        description:
          'Pages with monitoring disabled are skipped by the scheduler and by the crawl endpoint. New noise rules ' +
          'take ' +
          'effect on the next crawl, which records a new baseline (no change) read under them.',
        params: PageParams,
        body: Type.Object(
          {
            monitoringEnabled: Type.Optional(Type.Boolean()),
            pageType: Type.Optional(PageTypeSchema),
            priority: Type.Optional(
              Type.Integer({ minimum: 1, maximum: 10, description: '1 (lowest) to 10; higher pages are crawled first' })
            ),
            noiseRules: Type.Optional(Type.Ref(NoiseRules)),
            render: Type.Optional(
              Type.Union([RenderModeSchema, Type.Null()], {
                description: 'auto (fetch plainly, use the browser when the page needs it), always or never; ' +
                  "null: the domain's setting"
              })
            ),
            screenshots: Type.Optional(Type.Boolean({
              description: 'keep a screenshot with each snapshot (the page is then rendered in the browser)'
            })),
            visualThreshold: Type.Optional(Type.Union([Type.Number({ minimum: 0.01, maximum: 100 }), Type.Null()], {
              description: 'report a change seen only in the screenshots when at least this percentage of the page ' +
                'changed; null (default): the pictures are evidence attached to changes found in the text'
            }))
          },
          { additionalProperties: false, minProperties: 1 }
        ),
        response: responses(200, Type.Ref(Page), [404])
      }
    },
    async req => {
      const page = await changePage(ctx, req.principal!.org.id, req.params.id, req.params.pageId, req.body)
      return { data: pageView(page) }
    }
  )

  app.delete(
    '/domains/:id/pages/:pageId',
    {
      schema: {
        operationId: 'deletePage',
        tags: ['pages'],
        summary: 'Delete a page with its snapshots and changes',
        description: 'The page allowance it took is not given back.',
        params: PageParams,
        response: responses(200, Type.Object({ deleted: Type.Boolean(), message: Type.String() }), [404])
      }
    },
    async req => {
      const page = await removePage(ctx, req.principal!.org.id, req.params.id, req.params.pageId)
      return { data: { deleted: true, message: `Page ${page.url} deleted with its snapshots and changes` } }
    }
  )
}
