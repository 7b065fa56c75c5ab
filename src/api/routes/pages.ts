import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { AppError, isUniqueViolation, notFound } from '../../errors.js'
import { assertCanCreate } from '../../plans/usage.js'
import { belongsToDomain, normalizeUrl } from '../../crawl/url.js'
import { findDomain, listPages, pageView, type PageRow } from '../../store/domains.js'
import type { NoiseRules as NoiseRulesValue } from '../../store/schema.js'
import { addPage } from '../../store/pages.js'
import type { ApiDeps } from '../deps.js'
import { checkNoiseRules } from '../../changes/rules.js'
import { CreatedPage, IdParams, NoiseRules, Page, PageTypeSchema, Pagination, responses, Uuid } from '../schemas.js'

const PageParams = Type.Object({ id: Uuid, pageId: Uuid }, { additionalProperties: false })

export const pageRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db, queue }) => {
  app.get('/domains/:id/pages', {
    schema: {
      operationId: 'listPages',
      tags: ['pages'],
      summary: 'List the pages of a domain',
      description: 'Oldest first. Pages with `page` (1-based) and `pageSize` (default 100, at most 500).',
      params: IdParams,
      querystring: Pagination(100, 500),
      response: responses(200, Type.Array(Type.Ref(Page)), [404], { list: true })
    }
  }, async (req) => {
    const domain = await findDomain(db, req.principal!.org.id, req.params.id)
    if (!domain) throw notFound('Domain')
    const { page, pageSize } = req.query
    const { items, total } = await listPages(db, domain.id, page, pageSize)
    return { data: items, meta: { total, page, pageSize } }
  })

  app.post('/domains/:id/pages', {
    schema: {
      operationId: 'createPage',
      tags: ['pages'],
      summary: 'Add a page by hand',
      description: 'The URL\'s host must be the domain or one of its subdomains. The URL is normalised (fragment and ' +
        'tracking parameters dropped, host lower-cased) before it is compared and stored. Its first crawl is queued at once. ' +
        'Takes one page of the plan\'s pages-per-domain allowance.',
      params: IdParams,
      body: Type.Object({
        url: Type.String({ minLength: 1, maxLength: 2048, description: 'full http(s) URL' }),
        pageType: Type.Optional(PageTypeSchema)
      }),
      response: responses(201, Type.Ref(CreatedPage), [402, 404, 409], { description: 'created; first crawl queued' })
    }
  }, async (req, reply) => {
    const org = req.principal!.org
    const domain = await findDomain(db, org.id, req.params.id)
    if (!domain) throw notFound('Domain')
    const url = normalizeUrl(req.body.url)
    if (!url) throw new AppError('VALIDATION_ERROR', 'url must be an absolute http or https URL', { field: 'url' })
    if (!belongsToDomain(new URL(url).hostname, domain.hostname)) {
      throw new AppError('VALIDATION_ERROR', `URL host must be ${domain.hostname} or one of its subdomains`, { field: 'url' })
    }
    assertCanCreate(org)
    try {
      const page = await queue.transaction(db, async (tx) => {
        const row = await addPage(tx, org, domain, { url, pageType: req.body.pageType ?? 'other', confidence: 1 })
        await queue.enqueueCrawls(tx, [{ orgId: org.id, domainId: domain.id, pageId: row.id, url: row.url }])
        return row
      })
      return await reply.code(201).send({ data: pageView(page) })
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('CONFLICT', `${url} is already monitored for ${domain.hostname}`)
      throw err
    }
  })

  const findPage = async (orgId: string, domainId: string, pageId: string) => {
    const page = await db.selectFrom('pages').selectAll().where('id', '=', pageId).where('domain_id', '=', domainId).where('org_id', '=', orgId).executeTakeFirst()
    if (!page) throw notFound('Page')
    return page
  }

  app.patch('/domains/:id/pages/:pageId', {
    schema: {
      operationId: 'updatePage',
      tags: ['pages'],
      summary: 'Update a page: monitoring, type, priority and noise rules',
      description: 'Pages with monitoring disabled are skipped by the scheduler and by the crawl endpoint. New noise rules take ' +
        'effect on the next crawl, which records a new baseline (no change) read under them.',
      params: PageParams,
      body: Type.Object({
        monitoringEnabled: Type.Optional(Type.Boolean()),
        pageType: Type.Optional(PageTypeSchema),
        priority: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, description: '1 (lowest) to 10; higher pages are crawled first' })),
        noiseRules: Type.Optional(Type.Ref(NoiseRules))
      }, { additionalProperties: false, minProperties: 1 }),
      response: responses(200, Type.Ref(Page), [404])
    }
  }, async (req) => {
    const org = req.principal!.org
    await findPage(org.id, req.params.id, req.params.pageId)
    const { monitoringEnabled, pageType, priority, noiseRules } = req.body as {
      monitoringEnabled?: boolean, pageType?: PageRow['page_type'], priority?: number, noiseRules?: NoiseRulesValue
    }
    if (noiseRules) {
      const problems = checkNoiseRules(noiseRules)
      if (problems.length > 0) throw new AppError('VALIDATION_ERROR', problems[0].message, { field: problems[0].field, issues: problems })
    }
    const row = await db.updateTable('pages').set({
      ...(monitoringEnabled !== undefined ? { monitoring_enabled: monitoringEnabled } : {}),
      ...(pageType !== undefined ? { page_type: pageType, page_type_confidence: '1.00' } : {}),
      ...(priority !== undefined ? { priority } : {}),
      ...(noiseRules !== undefined ? { noise_rules: JSON.stringify(noiseRules), rebaseline: true } : {})
    }).where('id', '=', req.params.pageId).returningAll().executeTakeFirstOrThrow()
    return { data: pageView(row) }
  })

  app.delete('/domains/:id/pages/:pageId', {
    schema: {
      operationId: 'deletePage',
      tags: ['pages'],
      summary: 'Delete a page with its snapshots and changes',
      description: 'The page allowance it took is not given back.',
      params: PageParams,
      response: responses(200, Type.Object({ deleted: Type.Boolean(), message: Type.String() }), [404])
    }
  }, async (req) => {
    const page = await findPage(req.principal!.org.id, req.params.id, req.params.pageId)
    await db.deleteFrom('pages').where('id', '=', page.id).execute()
    return { data: { deleted: true, message: `Page ${page.url} deleted with its snapshots and changes` } }
  })
}
