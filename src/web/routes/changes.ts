import type { FastifyInstance, FastifyRequest } from 'fastify'
import { appBaseUrl } from '../../config.js'
import { FACT_SUBJECTS, type FactSubject } from '../../vocabulary/core.js'
import { notFound } from '../../vocabulary/errors.js'
import {
  CHANGE_TYPES, MAX_TAG_LENGTH, normalTags, roleAllows, SEVERITIES, type ChangeType, type Severity
} from '../../vocabulary/core.js'
import { changeView } from '../../services/change-view.js'
import { requireDomain } from '../../services/domains.js'
import { changesCsv, exportName } from '../../services/exports.js'
import { changeImage, type ChangeImage } from '../../services/images.js'
import { changeShareLinks, createShareLink, revokeLink, sharedChange } from '../../services/share.js'
import { type ChangeFilters, getChange, listChanges } from '../../store/changes.js'
import { domainNames, orgTags } from '../../store/domains.js'
import { shareLinksOn } from '../../store/orgs.js'
import { findPage, pageAddresses } from '../../store/pages.js'
import { listLearnedRules } from '../../store/learned.js'
import { listPageEvents } from '../../store/page-events.js'
import { acknowledgeChanges, giveVerdict, learnFrom, offersFor } from '../../services/feedback.js'
import { fields, field, page, requireRole, UUID, viewerOf, type WebDeps } from '../context.js'
import { ChangePage, Inbox, SharedChangePage, type InboxFilters } from '../views/changes.js'
import { html } from '../views/layout.js'
import { id, notice, pageOf } from './common.js'

// The inbox of changes (filters, a date range, pages of 50, CSV of the filter), a change
// of its own (acknowledged, or marked back as not reviewed; shared by a link), and what a
// share link opens.

/** New and removed pages are shown in the inbox this many days. */
const PAGE_EVENTS_DAYS = 30

/** Changes shown on one page of the inbox. */
export const INBOX_PAGE_SIZE = 50

const DAY = /^\d{4}-\d{2}-\d{2}$/
const dayOf = (v: string | undefined) => v && DAY.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) ? v : undefined

/** The inbox's filters as the query gives them, anything unknown left out. */
function inboxFilters (q: Record<string, string | undefined>): InboxFilters {
  return {
    severity: SEVERITIES.includes(q.severity as Severity) ? q.severity : undefined,
    changeType: CHANGE_TYPES.includes(q.changeType as ChangeType) ? q.changeType : undefined,
    domainId: q.domainId && UUID.test(q.domainId) ? q.domainId : undefined,
    tag: normalTags([q.tag?.slice(0, MAX_TAG_LENGTH) ?? ''])[0],
    acknowledged: q.acknowledged === 'true' || q.acknowledged === 'false' ? q.acknowledged : undefined,
    q: q.q?.trim().slice(0, 200) || undefined,
    from: dayOf(q.from),
    to: dayOf(q.to)
  }
}

/** The store's filters of the inbox's: days are whole UTC days, `to` included. */
function storeFilters (f: InboxFilters): ChangeFilters {
  return {
    severity: f.severity ? [f.severity as Severity] : undefined,
    changeType: f.changeType ? [f.changeType as ChangeType] : undefined,
    domainId: f.domainId,
    tag: f.tag,
    acknowledged: f.acknowledged === undefined ? undefined : f.acknowledged === 'true',
    q: f.q,
    since: f.from ? new Date(`${f.from}T00:00:00Z`) : undefined,
    until: f.to ? new Date(Date.parse(`${f.to}T00:00:00Z`) + 86_400_000) : undefined
  }
}

export async function changeRoutes (app: FastifyInstance, deps: WebDeps) {
  const { db, queue, settings: config } = deps
  const ctx = { db, queue, ruleChecks: deps.ruleChecks }
  const base = appBaseUrl(config)

  app.get('/changes', async (req, reply) => {
    const org = req.person!.org
    const filters = inboxFilters(req.query as Record<string, string | undefined>)
    const pageNo = Math.min(1000, pageOf(req.query))
    const error = filters.from && filters.to && filters.from > filters.to
      ? `"From" (${filters.from}) is after "To" (${filters.to}): no change can be in between.`
      : undefined
    const [{ items, total, capped }, domains, tags, pageEvents] = await Promise.all([
      listChanges(db, org.id, storeFilters(filters), pageNo, INBOX_PAGE_SIZE),
      domainNames(db, org.id, 500),
      orgTags(db, org.id),
      listPageEvents(db, org.id, { limit: 10, since: new Date(Date.now() - PAGE_EVENTS_DAYS * 86_400_000) })
    ])
    const addresses = await pageAddresses(db, org.id, items.map(c => c.pageId))
    return await page(reply, html(Inbox({
      viewer: viewerOf(req, reply),
      changes: items,
      addresses,
      total,
      capped,
      page: pageNo,
      pageSize: INBOX_PAGE_SIZE,
      filters,
      domains,
      tags,
      pageEvents: filters.domainId ? pageEvents.filter(e => e.domainId === filters.domainId) : pageEvents,
      notice: notice(req.query),
      ...(error ? { error } : {})
    })))
  })

  app.get('/changes.csv', async (req, reply) => {
    const filters = storeFilters(inboxFilters(req.query as Record<string, string | undefined>))
    const body = await changesCsv(db, req.person!.org.id, filters, base)
    return await reply.type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${exportName('changes')}"`).send(body)
  })

  // The selected changes, acknowledged or marked back as not reviewed.
  app.post('/changes/acknowledge', async (req, reply) => {
    const person = requireRole(req, 'viewer')
    const ids = fields(req.body, 'ids').filter(x => UUID.test(x)).slice(0, 100)
    const back = field(req.body, 'state') === 'to-review'
    await acknowledgeChanges(db, person.org.id, ids, back ? null : { userId: person.userId })
    return await reply.redirect(`/app/changes?done=${back ? 'unacknowledged' : 'acknowledged'}`, 303)
  })

  const changePage = async (req: FastifyRequest, changeId: string) => {
    const org = req.person!.org
    const change = await getChange(db, org.id, changeId)
    if (!change) throw notFound('Change')
    const [pageRow, domain, links] = await Promise.all([
      findPage(db, org.id, change.domainId, change.pageId),
      requireDomain(ctx, org.id, change.domainId),
      changeShareLinks(db, org.id, change.id)
    ])
    return {
      change,
      pageUrl: pageRow?.url ?? '',
      pageName: pageRow?.name ?? null,
      domain: domain.hostname,
      acknowledger: change.acknowledgedByKind === 'person' ? change.acknowledgedBy : null,
      links
    }
  }

  app.get('/changes/:id', async (req, reply) => {
    const { links, ...shown } = await changePage(req, id(req.params))
    const sharing = await shareLinksOn(db, req.person!.org.id)
    const viewer = viewerOf(req, reply)
    return await page(reply, html(ChangePage({
      viewer,
      ...shown,
      view: await changeView(db, shown.change, pageOf(req.query)),
      feedback: roleAllows(viewer.role, 'editor') ? await feedbackOf(shown.change) : undefined,
      share: sharing ? { links } : undefined,
      notice: notice(req.query)
    })))
  })

  /** What a change's verdict could teach, and what was learned from it. */
  const feedbackOf = async (change: NonNullable<Awaited<ReturnType<typeof getChange>>>) => ({
    offers: change.verdict === 'not_important' ? offersFor(change) : [],
    learned: (await listLearnedRules(db, change.orgId, change.pageId)).filter(r => r.fromChangeId === change.id)
  })

  const teacher = (person: { userId: string, email: string }) => ({ by: { userId: person.userId }, name: person.email })

  app.post('/changes/:id/feedback', async (req, reply) => {
    const person = requireRole(req, 'editor')
    const verdict = field(req.body, 'verdict')
    if (verdict !== 'important' && verdict !== 'not_important') throw notFound('Verdict')
    await giveVerdict(ctx, person.org.id, id(req.params), verdict, teacher(person))
    const done = verdict === 'important' ? 'pinned' : 'not-important'
    return await reply.redirect(`/app/changes/${id(req.params)}?done=${done}`, 303)
  })

  app.post('/changes/:id/learn', async (req, reply) => {
    const person = requireRole(req, 'editor')
    const kind = field(req.body, 'kind')
    if (kind !== 'mute' && kind !== 'lower') throw notFound('Offer')
    const [factKind, subject] = [field(req.body, 'factKind'), field(req.body, 'factSubject')]
    const fact = (FACT_SUBJECTS as readonly string[]).includes(factKind) && subject
      ? { kind: factKind as FactSubject, subject }
      : undefined
    await learnFrom(ctx, person.org.id, id(req.params), kind, teacher(person), fact)
    return await reply.redirect(`/app/changes/${id(req.params)}?done=learned`, 303)
  })

  for (const [action, by] of [['acknowledge', true], ['unacknowledge', false]] as const) {
    app.post(`/changes/:id/${action}`, async (req, reply) => {
      const person = requireRole(req, 'viewer')
      const acknowledger = by ? { userId: person.userId } : null
      const [change] = await acknowledgeChanges(db, person.org.id, [id(req.params)], acknowledger)
      if (!change) throw notFound('Change')
      return await reply.redirect(`/app/changes/${change.id}?done=${by ? 'acknowledged' : 'unacknowledged'}`, 303)
    })
  }

  // A share link is made on purpose, shown once, and revoked one by one.
  app.post('/changes/:id/share', async (req, reply) => {
    const person = requireRole(req, 'viewer')
    const changeId = id(req.params)
    const link = await createShareLink(db, base, { orgId: person.org.id, userId: person.userId }, changeId)
    const { links, ...shown } = await changePage(req, changeId)
    return await page(reply, html(ChangePage({
      viewer: viewerOf(req, reply),
      ...shown,
      view: await changeView(db, shown.change, 1),
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

  const image = (which: string) => {
    if (!['before', 'after', 'diff'].includes(which)) throw notFound('Image')
    return which as ChangeImage
  }
  // A shared change's images, checked against its link (live, sharing on) at every request.
  app.get('/shared/:id/:token/images/:which', { config: { public: true } }, async (req, reply) => {
    const which = image((req.params as Record<string, string>).which)
    const { found } = await shared(req)
    const png = await changeImage(db, found.change.id, which, found.change.orgId)
    reply.header('x-robots-tag', 'noindex, nofollow')
    return await reply.type('image/png').header('cache-control', 'private, no-store').send(png)
  })

  app.get('/changes/:id/images/:which', async (req, reply) => {
    const which = image((req.params as Record<string, string>).which)
    const png = await changeImage(db, id(req.params), which, req.person!.org.id)
    return await reply.type('image/png').header('cache-control', 'private, max-age=3600').send(png)
  })
}
