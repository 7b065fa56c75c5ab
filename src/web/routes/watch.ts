import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { appBaseUrl } from '../../config.js'
import { parseDomainInput } from '../../crawl/url.js'
import { AppError, notFound } from '../../domain/errors.js'
import { asPlanAllows, describeUsage } from '../../domain/plans.js'
import {
  CHANGE_TYPES, PAGE_TYPES, SEVERITIES, type ChangeType, type PageType, type RenderMode, type Severity
} from '../../domain/vocabulary.js'
import { crawlNow, createDomain, removeDomain, requireDomain } from '../../services/domains.js'
import { changeImage, type ChangeImage } from '../../services/images.js'
import { addPageByHand, changePage, removePage } from '../../services/pages.js'
import { pageTimeline, pageVersion, priceHistory, versionsCompared } from '../../services/page-history.js'
import { requestResearch } from '../../services/research.js'
import { changeShareLinks, createShareLink, revokeLink, sharedChange } from '../../services/share.js'
import { changeView } from '../../services/change-view.js'
import { currentPeriod } from '../../store/billing.js'
import { getChange, listChanges, openChangesByDomain, setAcknowledged } from '../../store/changes.js'
import { domainNames, getDomainDetails, listDomainSummaries } from '../../store/domains.js'
import { shareLinksOn } from '../../store/orgs.js'
import { findPage, onePageView } from '../../store/pages.js'
import { findBrief, listBriefs } from '../../store/research.js'
import { briefMarkdown } from '../../research/markdown.js'
import { field, fields, page, type Person, requireRole, UUID, viewerOf, type WebDeps } from '../context.js'
import { ChangePage, Inbox, SharedChangePage, type InboxFilters } from '../views/changes.js'
import { DomainList, DomainPage } from '../views/domains.js'
import { ResearchPage } from '../views/research.js'
import { PageView } from '../views/page.js'
import { html } from '../views/layout.js'

// Domains, their pages, and their changes: what people come for.

const id = (params: unknown, name = 'id') => {
  const v = (params as Record<string, string>)[name]
  if (!UUID.test(v)) throw notFound('This')
  return v
}
const lines = (s: string) => s.split(/\r?\n/).map(l => l.trim()).filter(Boolean)
const DONE: Record<string, string> = {
  added: 'Domain added: Sitewatch is discovering its pages.',
  crawl: 'A crawl of every monitored page is queued.',
  page: 'Page added: its first check is queued.',
  saved: 'Page settings saved.',
  acknowledged: 'Acknowledged.',
  typed: 'The page\'s type is saved: Sitewatch keeps your choice.',
  'page-deleted': 'The page is deleted, with its versions and changes.',
  unshared: 'The share link is revoked: it no longer opens this change, nor its pictures.',
  deleted: 'Domain deleted.',
  'org-deleted': 'The organisation is deleted. You are now in another of yours.'
}
const notice = (q: unknown) => DONE[(q as Record<string, string>).done ?? '']
/** The page of a long list asked for (?page=), 1 when none or not a number. */
const pageOf = (q: unknown) =>
  Math.min(10_000, Math.max(1, Number.parseInt((q as Record<string, string>).page ?? '1', 10) || 1))

export async function watchRoutes (app: FastifyInstance, deps: WebDeps) {
  const { db, queue, settings: config } = deps
  const ctx = { db, queue }
  const mappedHosts = new Set(config.crawlHostMap.keys())
  const base = appBaseUrl(config)

  const domainList = async (orgId: string) => {
    const items = await listDomainSummaries(db, orgId, 100)
    const open = await openChangesByDomain(db, orgId, items.map(d => d.id))
    return items.map(d => ({ ...d, open: open.get(d.id) ?? {} }))
  }

  app.get('/domains', async (req, reply) => {
    const org = req.person!.org
    const domains = (await domainList(org.id)).map(d => asPlanAllows(d, org))
    return await page(reply, html(DomainList({ viewer: viewerOf(req, reply), domains, notice: notice(req.query) })))
  })

  app.post('/domains', async (req, reply) => {
    const person = requireRole(req, 'editor')
    const raw = field(req.body, 'domain')
    try {
      const parsed = parseDomainInput(raw, mappedHosts)
      if ('error' in parsed) throw new AppError('VALIDATION_ERROR', parsed.error)
      const created = await createDomain(ctx, person.org, parsed.hostname)
      return await reply.redirect(`/app/domains/${created.id}?done=added`, 303)
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode === 403) throw err
      const domains = await domainList(person.org.id)
      const list = DomainList({ viewer: viewerOf(req, reply), domains, error: err.message, value: raw })
      return await page(reply, html(list),
        err.statusCode)
    }
  })

  const showDomain = async (req: FastifyRequest, reply: FastifyReply, error?: string, status = 200) => {
    const org = req.person!.org
    const domain = await requireDomain(ctx, org.id, id(req.params))
    const details = asPlanAllows(await getDomainDetails(db, domain), org)
    const usage = describeUsage(org, await currentPeriod(db, org, new Date()))
    const briefs = await listBriefs(db, org.id, domain.id, 1, 5)
    return await page(reply, html(DomainPage({
      viewer: viewerOf(req, reply),
      domain: details,
      rechecksLeft: usage.limits.manualRechecks.remaining,
      research: { creditsLeft: usage.limits.researchCredits.remaining, briefs: briefs.items },
      error,
      notice: notice(req.query)
    })), status)
  }

  app.get('/domains/:id', async (req, reply) => await showDomain(req, reply))

  /** A form's action: done → back to the domain with a notice; a refusal the person can fix → the domain with it. */
  const onDomain = (action: (req: FastifyRequest & { person: Person }) => Promise<string>) =>
    async (req: FastifyRequest, reply: FastifyReply) => {
      requireRole(req, 'editor')
      try {
        return await reply.redirect(await action(req as FastifyRequest & { person: Person }), 303)
      } catch (err) {
        if (!(err instanceof AppError) || err.statusCode === 403 || err.statusCode === 404) throw err
        return await showDomain(req, reply, err.message, err.statusCode)
      }
    }

  app.post('/domains/:id/crawl', onDomain(async req => {
    await crawlNow(ctx, req.person.org, id(req.params))
    return `/app/domains/${id(req.params)}?done=crawl`
  }))

  app.post('/domains/:id/research', onDomain(async req => {
    const { briefId } = await requestResearch(ctx, req.person.org, id(req.params))
    return `/app/research/${briefId}`
  }))

  const requireBrief = async (req: FastifyRequest) => {
    const brief = await findBrief(db, req.person!.org.id, id(req.params))
    if (!brief) throw notFound('Research brief')
    return brief
  }

  app.get('/research/:id', async (req, reply) =>
    await page(reply, html(ResearchPage({ viewer: viewerOf(req, reply), brief: await requireBrief(req) }))))

  app.get('/research/:id/markdown', async (req, reply) => {
    const brief = await requireBrief(req)
    const name = `research-${brief.domain}-${new Date(brief.createdAt).toISOString().slice(0, 10)}.md`
    return await reply.type('text/markdown; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}"`)
      .send(briefMarkdown(brief))
  })

  app.post('/domains/:id/pages', onDomain(async req => {
    await addPageByHand(ctx, req.person.org, id(req.params), field(req.body, 'url'), undefined)
    return `/app/domains/${id(req.params)}?done=page`
  }))

  const showPage = async (req: FastifyRequest, reply: FastifyReply, error?: string, status = 200) => {
    const org = req.person!.org
    const [domainId, pageId] = [id(req.params), id(req.params, 'pageId')]
    const domain = await requireDomain(ctx, org.id, domainId)
    const row = await findPage(db, org.id, domainId, pageId)
    if (!row) throw notFound('Page')
    const q = req.query as Record<string, string | undefined>
    const known = (v: string | undefined) => v !== undefined && UUID.test(v) ? v : undefined
    const [view, timeline, version, compared] = await Promise.all([
      onePageView(db, row),
      pageTimeline(db, org.id, pageId, pageOf(req.query)),
      known(q.version) ? pageVersion(db, pageId, q.version!) : undefined,
      known(q.from) && known(q.to) ? versionsCompared(db, pageId, q.from!, q.to!, 1) : undefined
    ])
    const base = `/app/domains/${domainId}/pages/${pageId}`
    return await page(reply, html(PageView({
      viewer: viewerOf(req, reply),
      domain: { id: domain.id, domain: domain.hostname, render: domain.render },
      page: { ...view, domainId },
      timeline,
      prices: view.pageType === 'pricing' ? priceHistory(timeline.changes) : [],
      ...(version ? { version } : {}),
      ...(compared
        ? { compared: { ...compared, href: (n: number) => `${base}?from=${q.from}&to=${q.to}&page=${n}#compared` } }
        : {}),
      error,
      notice: notice(req.query)
    })), status)
  }
  app.get('/domains/:id/pages/:pageId', async (req, reply) => await showPage(req, reply))

  /** A page's form: done → back to the page with a notice; a refusal the person can fix → the page with it. */
  const onPage = (action: (req: FastifyRequest & { person: Person }) => Promise<string>) =>
    async (req: FastifyRequest, reply: FastifyReply) => {
      requireRole(req, 'editor')
      try {
        return await reply.redirect(await action(req as FastifyRequest & { person: Person }), 303)
      } catch (err) {
        if (!(err instanceof AppError) || err.statusCode === 403 || err.statusCode === 404) throw err
        return await showPage(req, reply, err.message, err.statusCode)
      }
    }

  app.post('/domains/:id/pages/:pageId/type', onPage(async req => {
    const pageType = field(req.body, 'pageType')
    if (!(PAGE_TYPES as readonly string[]).includes(pageType)) {
      throw new AppError('VALIDATION_ERROR', 'Choose one of the page types.')
    }
    const pageId = id(req.params, 'pageId')
    await changePage(ctx, req.person.org.id, id(req.params), pageId, { pageType: pageType as PageType })
    return `/app/domains/${id(req.params)}/pages/${id(req.params, 'pageId')}?done=typed`
  }))

  app.post('/domains/:id/pages/:pageId/delete', onPage(async req => {
    await removePage(ctx, req.person.org.id, id(req.params), id(req.params, 'pageId'))
    return `/app/domains/${id(req.params)}?done=page-deleted`
  }))

  app.post('/domains/:id/pages/:pageId', onDomain(async req => {
    const render = field(req.body, 'render')
    const priority = Number(field(req.body, 'priority'))
    await changePage(ctx, req.person.org.id, id(req.params), id(req.params, 'pageId'), {
      monitoringEnabled: field(req.body, 'monitoringEnabled') === 'on',
      ...(Number.isInteger(priority) && priority >= 1 && priority <= 10 ? { priority } : {}),
      render: ['auto', 'always', 'never'].includes(render) ? render as RenderMode : null,
      noiseRules: {
        ignoreSelectors: lines(field(req.body, 'ignoreSelectors')),
        ignorePatterns: lines(field(req.body, 'ignorePatterns')),
        includeSelectors: lines(field(req.body, 'includeSelectors'))
      }
    })
    return field(req.body, 'back') === 'page'
      ? `/app/domains/${id(req.params)}/pages/${id(req.params, 'pageId')}?done=saved`
      : `/app/domains/${id(req.params)}?done=saved`
  }))

  app.post('/domains/:id/delete', onDomain(async req => {
    await removeDomain(ctx, req.person.org.id, id(req.params))
    return '/app/domains?done=deleted'
  }))

  app.get('/changes', async (req, reply) => {
    const org = req.person!.org
    const q = req.query as Record<string, string | undefined>
    const filters: InboxFilters = {
      severity: SEVERITIES.includes(q.severity as Severity) ? q.severity : undefined,
      changeType: CHANGE_TYPES.includes(q.changeType as ChangeType) ? q.changeType : undefined,
      domainId: q.domainId && UUID.test(q.domainId) ? q.domainId : undefined,
      acknowledged: q.acknowledged === 'true' || q.acknowledged === 'false' ? q.acknowledged : undefined,
      q: q.q?.trim().slice(0, 200) || undefined
    }
    const pageNo = Math.min(1000, Math.max(1, Number.parseInt(q.page ?? '1', 10) || 1))
    const pageSize = 25
    const [{ items, total }, domains] = await Promise.all([
      listChanges(db, org.id, {
        severity: filters.severity ? [filters.severity as Severity] : undefined,
        changeType: filters.changeType ? [filters.changeType as ChangeType] : undefined,
        domainId: filters.domainId,
        acknowledged: filters.acknowledged === undefined ? undefined : filters.acknowledged === 'true',
        q: filters.q
      }, pageNo, pageSize),
      domainNames(db, org.id, 500)
    ])
    return await page(reply, html(Inbox({
      viewer: viewerOf(req, reply),
      changes: items,
      total,
      page: pageNo,
      pageSize,
      filters,
      domains,
      notice: notice(req.query)
    })))
  })

  app.post('/changes/acknowledge', async (req, reply) => {
    const person = requireRole(req, 'viewer')
    const ids = fields(req.body, 'ids').filter(x => UUID.test(x)).slice(0, 100)
    await setAcknowledged(db, person.org.id, ids, { userId: person.userId })
    return await reply.redirect('/app/changes?done=acknowledged', 303)
  })

  app.get('/changes/:id', async (req, reply) => {
    const org = req.person!.org
    const change = await getChange(db, org.id, id(req.params))
    if (!change) throw notFound('Change')
    const [pageRow, domain, sharing, links, view] = await Promise.all([
      findPage(db, org.id, change.domainId, change.pageId),
      requireDomain(ctx, org.id, change.domainId),
      shareLinksOn(db, org.id),
      changeShareLinks(db, org.id, change.id),
      changeView(db, change, pageOf(req.query))
    ])
    return await page(reply, html(ChangePage({
      viewer: viewerOf(req, reply),
      change,
      pageUrl: pageRow?.url ?? '',
      domain: domain.hostname,
      acknowledger: change.acknowledgedByKind === 'person' ? change.acknowledgedBy : null,
      view,
      share: sharing ? { links } : undefined,
      notice: notice(req.query)
    })))
  })

  // A share link is made on purpose, shown once, and revoked one by one.
  app.post('/changes/:id/share', async (req, reply) => {
    const person = requireRole(req, 'viewer')
    const changeId = id(req.params)
    const link = await createShareLink(db, base, { orgId: person.org.id, userId: person.userId }, changeId)
    const change = await getChange(db, person.org.id, changeId)
    const [pageRow, domain, links, view] = await Promise.all([
      findPage(db, person.org.id, change!.domainId, change!.pageId),
      requireDomain(ctx, person.org.id, change!.domainId),
      changeShareLinks(db, person.org.id, changeId),
      changeView(db, change!, 1)
    ])
    return await page(reply, html(ChangePage({
      viewer: viewerOf(req, reply),
      change: change!,
      pageUrl: pageRow?.url ?? '',
      domain: domain.hostname,
      acknowledger: change!.acknowledgedByKind === 'person' ? change!.acknowledgedBy : null,
      view,
      share: { links, created: link },
      notice: 'A share link is made: copy it now, it is shown only once.'
    })))
  })

  app.post('/changes/:id/share/:linkId/revoke', async (req, reply) => {
    const person = requireRole(req, 'viewer')
    const linkId = (req.params as Record<string, string>).linkId
    if (!UUID.test(linkId)) throw notFound('Share link')
    await revokeLink(db, person.org.id, linkId)
    return await reply.redirect(`/app/changes/${id(req.params)}?done=unshared`, 303)
  })

  const shared = async (req: FastifyRequest) => {
    const token = (req.params as Record<string, string>).token
    const found = await sharedChange(db, id(req.params), token)
    if (!found) throw notFound('Change')
    return { found, token }
  }
  app.get('/shared/:id/:token', { config: { public: true } }, async (req, reply) => {
    const { found, token } = await shared(req)
    reply.header('x-robots-tag', 'noindex, nofollow')
    const self = `/app/shared/${found.change.id}/${token}`
    return await page(reply, html(SharedChangePage({
      ...found,
      view: await changeView(db, found.change, pageOf(req.query)),
      self,
      images: { before: `${self}/images/before`, after: `${self}/images/after`, diff: `${self}/images/diff` }
    })))
  })
  // A shared change's images, checked against its link (live, sharing on) at every request.
  app.get('/shared/:id/:token/images/:which', { config: { public: true } }, async (req, reply) => {
    const which = (req.params as Record<string, string>).which
    if (!['before', 'after', 'diff'].includes(which)) throw notFound('Image')
    const { found } = await shared(req)
    const image = await changeImage(db, found.change.id, which as ChangeImage, found.change.orgId)
    reply.header('x-robots-tag', 'noindex, nofollow')
    return await reply.type('image/png').header('cache-control', 'private, no-store').send(image)
  })

  app.post('/changes/:id/acknowledge', async (req, reply) => {
    const person = requireRole(req, 'viewer')
    const [change] = await setAcknowledged(db, person.org.id, [id(req.params)], { userId: person.userId })
    if (!change) throw notFound('Change')
    return await reply.redirect(`/app/changes/${change.id}?done=acknowledged`, 303)
  })

  app.get('/changes/:id/images/:which', async (req, reply) => {
    const which = (req.params as Record<string, string>).which
    if (!['before', 'after', 'diff'].includes(which)) throw notFound('Image')
    const image = await changeImage(db, id(req.params), which as ChangeImage, req.person!.org.id)
    return await reply.type('image/png').header('cache-control', 'private, max-age=3600').send(image)
  })
}
