import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { AppError, isUniqueViolation, notFound } from '../../errors.js'
import { assertCanCreate, consume } from '../../plans/usage.js'
import { parseDomainInput } from '../../crawl/url.js'
import { domainView, findDomain, getDomainDetails, getDomainListItem, listDomains } from '../../store/domains.js'
import type { ApiDeps } from '../deps.js'
import { CreatedDomain, DomainDetails, DomainListItem, IdParams, Pagination, responses } from '../schemas.js'

export const domainRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db, queue, config }) => {
  const mappedHosts = new Set(config.crawlHostMap.keys())

  app.get('/domains', {
    schema: {
      operationId: 'listDomains',
      tags: ['domains'],
      summary: 'List domains',
      description: 'Newest first. Pages with `page` (1-based) and `pageSize` (default 20, at most 100).',
      querystring: Pagination(20, 100),
      response: responses(200, Type.Array(Type.Ref(DomainListItem)), [], { list: true })
    }
  }, async (req) => {
    const { page, pageSize } = req.query
    const { items, total } = await listDomains(db, req.principal!.org.id, page, pageSize)
    return { data: items, meta: { total, page, pageSize } }
  })

  app.post('/domains', {
    schema: {
      operationId: 'createDomain',
      tags: ['domains'],
      summary: 'Add a domain',
      description: 'Queues a page discovery job and takes one unit of the domains quota. `domain` is a bare hostname: it is ' +
        'trimmed and lower-cased, and an internationalised name is stored in its ASCII form (bücher.de → xn--bcher-kva.de); ' +
        'a scheme, path, port or trailing dot is rejected (400), as are IP addresses, localhost and hosts without a public suffix.',
      body: Type.Object({
        domain: Type.String({ minLength: 1, maxLength: 253, description: 'hostname, e.g. example.com' }),
        displayName: Type.Optional(Type.String({ maxLength: 200 }))
      }),
      response: responses(201, Type.Ref(CreatedDomain), [402, 409], { description: 'created; discovery queued' })
    }
  }, async (req, reply) => {
    const parsed = parseDomainInput(req.body.domain, mappedHosts)
    if ('error' in parsed) throw new AppError('VALIDATION_ERROR', parsed.error, { field: 'domain' })
    const org = req.principal!.org
    try {
      const created = await queue.transaction(db, async (tx) => {
        const domain = await tx.insertInto('domains')
          .values({ org_id: org.id, hostname: parsed.hostname, display_name: req.body.displayName?.trim() || null })
          .returningAll().executeTakeFirstOrThrow()
        await consume(tx, org, 'domains')
        const discoveryJobId = await queue.enqueueDiscovery(tx, { orgId: org.id, domainId: domain.id })
        return { ...domainView(domain), discoveryJobId }
      })
      return await reply.code(201).send({ data: created })
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('CONFLICT', `Domain ${parsed.hostname} already exists for this organisation`)
      throw err
    }
  })

  app.get('/domains/:id', {
    schema: {
      operationId: 'getDomain',
      tags: ['domains'],
      summary: 'Domain details with its pages and recent changes',
      params: IdParams,
      response: responses(200, Type.Ref(DomainDetails), [404])
    }
  }, async (req) => {
    const domain = await findDomain(db, req.principal!.org.id, req.params.id)
    if (!domain) throw notFound('Domain')
    return { data: await getDomainDetails(db, domain) }
  })

  app.patch('/domains/:id', {
    schema: {
      operationId: 'updateDomain',
      tags: ['domains'],
      summary: 'Rename, pause or resume a domain',
      description: '`paused: true` stops its scheduled crawls (status paused); `paused: false` resumes them (status active), and ' +
        'pages that fell due meanwhile are crawled at the next scheduler turn. A domain paused because its trial expired ' +
        'resumes only with a plan (402 TRIAL_EXPIRED).',
      params: IdParams,
      body: Type.Object({
        displayName: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
        paused: Type.Optional(Type.Boolean())
      }, { additionalProperties: false, minProperties: 1 }),
      response: responses(200, Type.Ref(DomainListItem), [402, 404])
    }
  }, async (req) => {
    const org = req.principal!.org
    const domain = await findDomain(db, org.id, req.params.id)
    if (!domain) throw notFound('Domain')
    const { displayName, paused } = req.body
    if (paused === false && domain.status === 'paused') assertCanCreate(org)
    const pausing = paused === true && domain.status !== 'paused'
    const resuming = paused === false && domain.status === 'paused'
    await db.updateTable('domains').set({
      updated_at: new Date(),
      ...(displayName !== undefined ? { display_name: displayName?.trim() || null } : {}),
      ...(pausing ? { status: 'paused', paused_reason: 'manual' } : {}),
      ...(resuming ? { status: 'active', paused_reason: null } : {})
    }).where('id', '=', domain.id).execute()
    return { data: await getDomainListItem(db, org.id, domain.id) }
  })

  app.delete('/domains/:id', {
    schema: {
      operationId: 'deleteDomain',
      tags: ['domains'],
      summary: 'Delete a domain with its pages, snapshots and changes',
      description: 'Quota is not restored.',
      params: IdParams,
      response: responses(200, Type.Object({ deleted: Type.Boolean(), message: Type.String() }), [404])
    }
  }, async (req) => {
    const deleted = await db.deleteFrom('domains').where('id', '=', req.params.id).where('org_id', '=', req.principal!.org.id)
      .returning('hostname').executeTakeFirst()
    if (!deleted) throw notFound('Domain')
    return { data: { deleted: true, message: `Domain ${deleted.hostname} deleted with its pages, snapshots and changes` } }
  })

  app.post('/domains/:id/discover', {
    config: { tier: 'heavy' },
    schema: {
      operationId: 'discoverDomain',
      tags: ['domains'],
      summary: 'Re-run page discovery',
      description: 'Heavy rate tier (10 per hour).',
      params: IdParams,
      response: responses(200, Type.Object({ domain: Type.String(), discoveryJobId: Type.String(), message: Type.String() }), [402, 404])
    }
  }, async (req) => {
    const org = req.principal!.org
    const domain = await findDomain(db, org.id, req.params.id)
    if (!domain) throw notFound('Domain')
    assertCanCreate(org)
    const discoveryJobId = await queue.transaction(db, tx => queue.enqueueDiscovery(tx, { orgId: org.id, domainId: domain.id }))
    return { data: { domain: domain.hostname, discoveryJobId, message: `Discovery queued for ${domain.hostname}` } }
  })

  app.post('/domains/:id/crawl', {
    config: { tier: 'heavy' },
    schema: {
      operationId: 'crawlDomain',
      tags: ['domains'],
      summary: 'Crawl all monitored pages now',
      description: 'Heavy rate tier (10 per hour). Takes one manual recheck from the quota. Queues one crawl per page with ' +
        'monitoring enabled, except pages whose crawl is already waiting or running (`jobIds` lists the new jobs only).',
      params: IdParams,
      response: responses(200, Type.Object({
        domain: Type.String(), queued: Type.Integer(), jobIds: Type.Array(Type.String()), message: Type.String()
      }), [402, 404])
    }
  }, async (req) => {
    const org = req.principal!.org
    const domain = await findDomain(db, org.id, req.params.id)
    if (!domain) throw notFound('Domain')
    const { jobIds, pending } = await queue.transaction(db, async (tx) => {
      await consume(tx, org, 'manualRechecks')
      const pages = await tx.selectFrom('pages').select(['id', 'url']).where('domain_id', '=', domain.id)
        .where('monitoring_enabled', '=', true).orderBy('priority', 'desc').orderBy('created_at').execute()
      const queued = await queue.enqueueCrawls(tx, pages.map(p => ({ orgId: org.id, domainId: domain.id, pageId: p.id, url: p.url })))
      return { jobIds: pages.flatMap(p => queued.get(p.id) ?? []), pending: pages.length - queued.size }
    })
    const message = jobIds.length === 0 && pending === 0
      ? `No pages to crawl for ${domain.hostname}: no page has monitoring enabled`
      : `Queued ${jobIds.length} crawl job${jobIds.length === 1 ? '' : 's'} for ${domain.hostname}` +
        (pending > 0 ? ` (${pending} page${pending === 1 ? '' : 's'} already had a crawl waiting or running)` : '')
    return { data: { domain: domain.hostname, queued: jobIds.length, jobIds, message } }
  })
}
