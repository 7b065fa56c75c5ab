import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { AppError, isUniqueViolation, notFound } from '../../errors.js'
import { assertCanCreate } from '../../plans/usage.js'
import { belongsToDomain, normalizeUrl } from '../../crawl/url.js'
import { findDomain, listPages, pageView } from '../../store/domains.js'
import { addPage } from '../../store/pages.js'
import type { ApiDeps } from '../deps.js'
import { CreatedPage, IdParams, Page, PageTypeSchema, Pagination, responses } from '../schemas.js'

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
      const page = await db.transaction().execute(async (tx) => {
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
}
