import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { parseDomainInput, pastedHost, pastedPage } from '../../crawl/url.js'
import { AppError } from '../../vocabulary/errors.js'
import { asPlanAllows, describeUsage } from '../../vocabulary/plans.js'
import { normalTags } from '../../vocabulary/core.js'
import {
  addDomains, changeDomain, crawlNow, createDomain, pastedLines, rediscover, removeDomain, requireDomainDetails
} from '../../services/domains.js'
import { exportName, pagesCsv } from '../../services/exports.js'
import { addPagesByHand } from '../../services/pages.js'
import { requestResearch } from '../../services/research.js'
import { currentPeriod } from '../../store/billing.js'
import { openChangesByDomain } from '../../store/changes.js'
import { listDomainSummaries } from '../../store/domains.js'
import { listBriefs } from '../../store/research.js'
import { PAGE_VIEWS } from '../../store/pages.js'
import { field, flashAndReturn, page, requireRole, viewerOf, type WebDeps } from '../context.js'
import { DomainList, DomainPage, type LineResult } from '../views/domains.js'
import { html } from '../views/layout.js'
import { formAction, heavyActions, id, notice, outOf } from './common.js'

// The domains: the list, adding one or several, a domain's page, and what can be done
// to it (crawl now, discover again, research, add pages, export its pages, delete).

export async function domainRoutes (app: FastifyInstance, deps: WebDeps) {
  const { db, queue, settings: config } = deps
  const ctx = { db, queue }
  const mappedHosts = new Set(config.crawlHostMap.keys())

  const showList = async (
    req: FastifyRequest, reply: FastifyReply, extra: { error?: string, value?: string, results?: LineResult[] } = {},
    status = 200
  ) => {
    const org = req.person!.org
    const tag = normalTags([(req.query as Record<string, string | undefined>).tag ?? ''])[0]
    const items = await listDomainSummaries(db, org.id, 100, tag)
    const open = await openChangesByDomain(db, org.id, items.map(d => d.id))
    const domains = items.map(d => asPlanAllows({ ...d, open: open.get(d.id) ?? {} }, org))
    return await page(reply, html(DomainList({
      viewer: viewerOf(req, reply),
      domains,
      tag,
      outOfDomains: await outOf(db, org, 'domains', 'domains'),
      notice: notice(req.query),
      ...extra
    })), status)
  }

  app.get('/domains', async (req, reply) => await showList(req, reply))

  // One domain (a pasted address gives its host, and its page), or a list of them, each said what became of it.
  app.post('/domains', async (req, reply) => {
    const person = requireRole(req, 'editor')
    // The address of a page of a domain watched already adds that page to it.
    const addPage = async (domainId: string, url: string) => (await addPagesByHand(ctx, person.org, domainId, [url]))[0]
    const list = field(req.body, 'domains')
    if (list.trim()) {
      try {
        const results = await addDomains(ctx, person.org, pastedLines(list), mappedHosts, addPage)
        return await showList(req, reply, { results })
      } catch (err) {
        if (!(err instanceof AppError)) throw err
        return await showList(req, reply, { error: err.message }, err.statusCode)
      }
    }
    const raw = field(req.body, 'domain')
    try {
      const parsed = parseDomainInput(pastedHost(raw), mappedHosts)
      if ('error' in parsed) throw new AppError('VALIDATION_ERROR', parsed.error)
      // An address of one of its pages adds the domain and that page: its discovery reads it first.
      const asked = pastedPage(raw)
      const created = await createDomain(ctx, person.org, parsed.hostname, undefined, [], asked ? [asked] : [])
      return await reply.redirect(`/app/domains/${created.id}?done=${asked ? 'added-page' : 'added'}`, 303)
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode === 403) throw err
      if (err.code === 'CONFLICT' && pastedPage(raw)) {
        return await showList(req, reply, { results: await addDomains(ctx, person.org, [raw], mappedHosts, addPage) })
      }
      return await showList(req, reply, { error: err.message, value: raw }, err.statusCode)
    }
  })

  const showDomain = async (req: FastifyRequest, reply: FastifyReply, results?: LineResult[]) => {
    const org = req.person!.org
    const details = asPlanAllows(await requireDomainDetails(ctx, org.id, id(req.params), PAGE_VIEWS), org)
    const usage = describeUsage(org, await currentPeriod(db, org, new Date()))
    const briefs = await listBriefs(db, org.id, details.id, 1, 5)
    // A heavy button that cannot work is off, saying what ran out and when it comes back.
    const heavy = await heavyActions(app, req)
    return await page(reply, html(DomainPage({
      viewer: viewerOf(req, reply),
      domain: details,
      rechecksLeft: usage.limits.manualRechecks.remaining,
      outOfRechecks: await outOf(db, org, 'manualRechecks', 'manual rechecks') ?? heavy.out,
      hourLeft: heavy.left,
      research: {
        creditsLeft: usage.limits.researchCredits.remaining,
        briefs: briefs.items,
        outOfCredits: await outOf(db, org, 'researchCredits', 'research credits') ?? heavy.out
      },
      ...(results ? { results } : {}),
      notice: notice(req.query)
    })))
  }

  app.get('/domains/:id', async (req, reply) => await showDomain(req, reply))
  // Where the form that adds pages posts: its address, opened again, is the domain's page.
  app.get('/domains/:id/pages', async (req, reply) => await reply.redirect(`/app/domains/${id(req.params)}`, 303))

  const onDomain = formAction(config, req => `/app/domains/${id(req.params)}`)

  app.post('/domains/:id/crawl', { config: { tier: 'heavy' } }, onDomain(async req => {
    const { jobIds, pending } = await crawlNow(ctx, req.person.org, id(req.params), { onlyIfQueued: true })
    const done = jobIds.length > 0 ? 'crawl' : pending > 0 ? 'crawl-pending' : 'crawl-nothing'
    return `/app/domains/${id(req.params)}?done=${done}`
  }))

  app.post('/domains/:id/tags', onDomain(async req => {
    const tags = field(req.body, 'tags').split(',')
    await changeDomain(ctx, req.person.org, id(req.params), { tags })
    return `/app/domains/${id(req.params)}?done=tagged`
  }))

  app.post('/domains/:id/discover', { config: { tier: 'heavy' } }, onDomain(async req => {
    const { queued } = await rediscover(ctx, req.person.org, id(req.params))
    return `/app/domains/${id(req.params)}?done=${queued ? 'discover' : 'discover-pending'}`
  }))

  app.post('/domains/:id/research', { config: { tier: 'heavy' } }, onDomain(async req => {
    const { briefId } = await requestResearch(ctx, req.person.org, id(req.params))
    return `/app/research/${briefId}`
  }))

  // One address or several, each said what became of it on the domain's page.
  app.post('/domains/:id/pages', async (req, reply) => {
    const person = requireRole(req, 'editor')
    const domainId = id(req.params)
    try {
      const urls = pastedLines(field(req.body, 'urls') || field(req.body, 'url'))
      if (urls.length === 0) throw new AppError('VALIDATION_ERROR', 'Paste at least one address.')
      return await showDomain(req, reply, await addPagesByHand(ctx, person.org, domainId, urls))
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode === 403 || err.statusCode === 404) throw err
      return await flashAndReturn(config, req, reply, err.message, `/app/domains/${domainId}`)
    }
  })

  app.get('/domains/:id/pages.csv', async (req, reply) => {
    const org = req.person!.org
    const details = await requireDomainDetails(ctx, org.id, id(req.params), PAGE_VIEWS)
    return await reply.type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${exportName(`${details.domain}-pages`)}"`)
      .send(pagesCsv(details.pages))
  })

  app.post('/domains/:id/delete', onDomain(async req => {
    await removeDomain(ctx, req.person.org.id, id(req.params))
    return '/app/domains?done=deleted'
  }))
}
