import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { parseDomainInput } from '../../crawl/url.js'
import { AppError } from '../../vocabulary/errors.js'
import { asPlanAllows } from '../../vocabulary/plans.js'
import { MAX_TAGS, normalTags, TagSchema } from '../../vocabulary/core.js'
import {
  changeDomain,
  crawlNow,
  createDomain,
  rediscover,
  removeDomain,
  requireDomainDetails
} from '../../services/domains.js'
import { getDomainListItem, listDomains } from '../../store/domains.js'
import { PAGE_SUMMARIES } from '../../store/pages.js'
import type { ApiDeps } from '../deps.js'
import { CreatedDomain, DomainDetails, DomainListItem, IdParams, RenderModeSchema } from '../schemas.js'
import { paginationFields, responses } from '../responses.js'

export const domainRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db, queue, config }) => {
  const ctx = { db, queue }
  const mappedHosts = new Set(config.crawlHostMap.keys())

  app.get(
    '/domains',
    {
      schema: {
        operationId: 'listDomains',
        tags: ['domains'],
        summary: 'List domains',
        description: 'Newest first. Pages with `page` (1-based) and `pageSize` (default 20, at most 100). `tag` ' +
          '(an addition to the contract) lists only the domains with that tag.',
        querystring: Type.Object({ ...paginationFields(20, 100), tag: Type.Optional(TagSchema) },
          { additionalProperties: false }),
        response: responses(200, Type.Array(Type.Ref(DomainListItem)), [], { list: true })
      }
    },
    async req => {
      const { page, pageSize, tag } = req.query
      const only = tag === undefined ? {} : { tag: normalTags([tag])[0] }
      const { items, total } = await listDomains(db, req.principal!.org.id, page, pageSize, only)
      return { data: items.map(d => asPlanAllows(d, req.principal!.org)), meta: { total, page, pageSize } }
    }
  )

  app.post(
    '/domains',
    {
      schema: {
        operationId: 'createDomain',
        tags: ['domains'],
        summary: 'Add a domain',
        description:
          'Queues a page discovery job and takes one unit of the domains quota. `domain` is a bare hostname: it is ' +
          'trimmed and lower-cased, and an internationalised name is stored in its ASCII form (bücher.de → ' +
          'xn--bcher-kva.de); ' +
          'a scheme, path, port or trailing dot is rejected (400), as are IP addresses, localhost and hosts ' +
          'without a public suffix.',
        body: Type.Object({
          domain: Type.String({
            minLength: 1, maxLength: 253, description: 'hostname, e.g. example.com', examples: ['example.com']
          }),
          displayName: Type.Optional(Type.String({ maxLength: 200, examples: ['Example Inc.'] })),
          tags: Type.Optional(Type.Array(TagSchema, { maxItems: MAX_TAGS, description: 'an addition to the contract' }))
        }),
        response: responses(201, Type.Ref(CreatedDomain), [402, 409], { description: 'created; discovery queued' })
      }
    },
    async (req, reply) => {
      const parsed = parseDomainInput(req.body.domain, mappedHosts)
      if ('error' in parsed) throw new AppError('VALIDATION_ERROR', parsed.error, { field: 'domain' })
      const created = await createDomain(ctx, req.principal!.org, parsed.hostname, req.body.displayName, req.body.tags)
      return await reply.code(201).send({ data: created })
    }
  )

  app.get(
    '/domains/:id',
    {
      schema: {
        operationId: 'getDomain',
        tags: ['domains'],
        summary: 'Domain details with its pages and recent changes',
        params: IdParams,
        response: responses(200, Type.Ref(DomainDetails), [404])
      }
    },
    async req => {
      const org = req.principal!.org
      return { data: asPlanAllows(await requireDomainDetails(ctx, org.id, req.params.id, PAGE_SUMMARIES), org) }
    }
  )

  app.patch(
    '/domains/:id',
    {
      schema: {
        operationId: 'updateDomain',
        tags: ['domains'],
        summary: 'Rename, tag, pause or resume a domain, or set how its pages are rendered',
        description:
          '`paused: true` stops its scheduled crawls (status paused); `paused: false` resumes them (status ' +
          'active), and ' +
          'pages that fell due meanwhile are crawled at the next scheduler turn. A domain paused because its trial ' +
          'expired ' +
          'resumes only with a plan (402 TRIAL_EXPIRED).',
        params: IdParams,
        body: Type.Object(
          {
            displayName: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
            paused: Type.Optional(Type.Boolean()),
            render: Type.Optional({
              ...RenderModeSchema,
              description: 'how its pages are fetched unless a page says otherwise: auto (plainly, and in a browser ' +
                'when a page needs one), always (in a browser) or never'
            }),
            tags: Type.Optional(Type.Array(TagSchema, {
              maxItems: MAX_TAGS, description: 'its tags, all of them (an empty list removes every tag)'
            }))
          },
          { additionalProperties: false, minProperties: 1 }
        ),
        response: responses(200, Type.Ref(DomainListItem), [402, 404])
      }
    },
    async req => {
      const org = req.principal!.org
      await changeDomain(ctx, org, req.params.id, req.body)
      return { data: asPlanAllows(await getDomainListItem(db, org.id, req.params.id), org) }
    }
  )

  app.delete(
    '/domains/:id',
    {
      schema: {
        operationId: 'deleteDomain',
        tags: ['domains'],
        summary: 'Delete a domain with its pages, snapshots and changes',
        description: 'Quota is not restored.',
        params: IdParams,
        response: responses(200, Type.Object({ deleted: Type.Boolean(), message: Type.String() }), [404])
      }
    },
    async req => {
      const hostname = await removeDomain(ctx, req.principal!.org.id, req.params.id)
      return { data: { deleted: true, message: `Domain ${hostname} deleted with its pages, snapshots and changes` } }
    }
  )

  app.post(
    '/domains/:id/discover',
    {
      config: { tier: 'heavy' },
      schema: {
        operationId: 'discoverDomain',
        tags: ['domains'],
        summary: 'Re-run page discovery',
        description: 'Heavy rate tier (per hour; see the rate limits above). A domain has one discovery at a time: ' +
          'while one is waiting or running, this answers with its job (`discoveryJobId`) and queues no other.',
        params: IdParams,
        response: responses(
          200,
          Type.Object({ domain: Type.String(), discoveryJobId: Type.String(), message: Type.String() }),
          [402, 404]
        )
      }
    },
    async req => {
      const { domain, discoveryJobId, message } = await rediscover(ctx, req.principal!.org, req.params.id)
      return { data: { domain: domain.hostname, discoveryJobId, message } }
    }
  )

  app.post(
    '/domains/:id/crawl',
    {
      config: { tier: 'heavy' },
      schema: {
        operationId: 'crawlDomain',
        tags: ['domains'],
        summary: 'Crawl all monitored pages now',
        description:
          'Heavy rate tier (per hour; see the rate limits above). Takes one manual recheck from the quota. ' +
          'Queues one crawl per page with ' +
          'monitoring enabled, except pages whose crawl is already waiting or running (`jobIds` lists the new jobs ' +
          'only).',
        params: IdParams,
        response: responses(
          200,
          Type.Object({
            domain: Type.String(),
            queued: Type.Integer(),
            jobIds: Type.Array(Type.String()),
            message: Type.String()
          }),
          [402, 404]
        )
      }
    },
    async req => {
      const { domain, jobIds, pending } = await crawlNow(ctx, req.principal!.org, req.params.id)
      const message =
        jobIds.length === 0 && pending === 0
          ? `No pages to crawl for ${domain.hostname}: no page has monitoring enabled`
          : `Queued ${jobIds.length} crawl job${jobIds.length === 1 ? '' : 's'} for ${domain.hostname}` +
            (pending > 0 ? ` (${pending} page${pending === 1 ? '' : 's'} already had a crawl waiting or running)` : '')
      return { data: { domain: domain.hostname, queued: jobIds.length, jobIds, message } }
    }
  )
}
