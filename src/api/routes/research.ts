import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { notFound } from '../../vocabulary/errors.js'
import { BriefSchema, BriefSummarySchema } from '../../vocabulary/research.js'
import { briefMarkdown } from '../../research/markdown.js'
import { requireDomain } from '../../services/domains.js'
import { requestResearch } from '../../services/research.js'
import { findBrief, listBriefs } from '../../store/research.js'
import type { ApiDeps } from '../deps.js'
import { IdParams, literals } from '../schemas.js'
import { Pagination, responses } from '../responses.js'

const CREDIT_RULES =
  'Costs one research credit (`/api/usage` limits.researchCredits: 10 a month on starter, 50 on trial and pro, ' +
  'unlimited on enterprise); with none left it answers 402 QUOTA_EXCEEDED `{resource: "researchCredits", used, ' +
  'limit}` and queues nothing. A brief whose job fails after all its attempts gives its credit back to the ' +
  'billing period that paid for it (`creditRefunded`), within a minute also when that last attempt was lost with ' +
  'its process; the contract\'s "never refunded" is about deleting things.'

export const researchRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db, queue }) => {
  const ctx = { db, queue }

  app.post(
    '/domains/:id/research',
    {
      config: { tier: 'heavy' },
      schema: {
        operationId: 'researchDomain',
        tags: ['research'],
        summary: 'Buy a research brief of the domain',
        description:
          'Queues a `research.domain` job (type `research` in /api/jobs) that builds a brief from everything ' +
          'Sitewatch holds on the domain: company, pricing, features, security and compliance claims, legal pages, ' +
          'API, release cadence and activity, each fact with its source. Answers 202: the brief is ready when ' +
          '`GET /api/research/{briefId}` says `status: ready`, usually within seconds. ' + CREDIT_RULES +
          ' Heavy rate tier (per hour; see the rate limits above).',
        params: IdParams,
        response: responses(
          202,
          Type.Object({
            briefId: Type.String({ format: 'uuid' }),
            jobId: Type.String(),
            domain: Type.String(),
            status: literals(['queued'] as const),
            message: Type.String()
          }),
          [402, 404],
          { description: 'accepted: the brief is queued' }
        )
      }
    },
    async (req, reply) => {
      const { domain, briefId, jobId } = await requestResearch(ctx, req.principal!.org, req.params.id)
      const message = `Research brief of ${domain.hostname} queued`
      const data = { briefId, jobId, domain: domain.hostname, status: 'queued' as const, message }
      return await reply.code(202).send({ data })
    }
  )

  app.get(
    '/domains/:id/research',
    {
      schema: {
        operationId: 'listResearchBriefs',
        tags: ['research'],
        summary: "A domain's research briefs",
        description: 'Newest first, without their sections. Pages with `page` (1-based) and `pageSize` (default 20, ' +
          'at most 100).',
        params: IdParams,
        querystring: Pagination(20, 100),
        response: responses(200, Type.Array(Type.Ref(BriefSummarySchema)), [404], { list: true })
      }
    },
    async req => {
      const org = req.principal!.org
      const domain = await requireDomain(ctx, org.id, req.params.id)
      const { page, pageSize } = req.query
      const { items, total } = await listBriefs(db, org.id, domain.id, page, pageSize)
      return { data: items, meta: { total, page, pageSize } }
    }
  )

  app.get(
    '/research/:id',
    {
      schema: {
        operationId: 'getResearchBrief',
        tags: ['research'],
        summary: 'One research brief, as JSON or Markdown',
        description:
          'Each section is `included` with its facts and `sources` (page URL and snapshot or change time), or left ' +
          'out with a `reason`. `format=markdown` answers the same brief as `text/markdown`, for pasting into a ' +
          'document. Another organisation\'s brief is 404.',
        params: IdParams,
        querystring: Type.Object({
          format: Type.Optional(literals(['json', 'markdown'] as const, { description: 'json (default) or markdown' }))
        }, { additionalProperties: false }),
        response: {
          ...responses(200, Type.Ref(BriefSchema), [404]),
          200: {
            description: 'the brief',
            content: {
              'application/json': { schema: Type.Object({ data: Type.Ref(BriefSchema) }) },
              'text/markdown': { schema: { type: 'string' } }
            }
          }
        }
      }
    },
    async (req, reply) => {
      const brief = await findBrief(db, req.principal!.org.id, req.params.id)
      if (!brief) throw notFound('Research brief')
      if (req.query.format === 'markdown') {
        return await reply.type('text/markdown; charset=utf-8').send(briefMarkdown(brief))
      }
      return { data: brief }
    }
  )
}
