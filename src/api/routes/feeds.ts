import { createHash } from 'node:crypto'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Feed } from 'feed'
import { appBaseUrl } from '../../config.js'
import { AppError, notFound } from '../../vocabulary/errors.js'
import {
  CHANGE_TYPES, normalTags, SEVERITIES, TagSchema, UUID, type ChangeType, type PageType, type Severity
} from '../../vocabulary/core.js'
import { listChanges } from '../../store/changes.js'
import { toldPageEvents } from '../../store/page-events.js'
import { domainHostname } from '../../store/domains.js'
import { pagePlaces } from '../../store/pages.js'
import { orgOfFeedToken } from '../../store/mail-alerts.js'
import type { ApiDeps } from '../deps.js'
import { literals, PageTypeSchema } from '../schemas.js'
import { responses } from '../responses.js'
import { isCurrent } from '../validators.js'

const ENTRIES = 50
const MULTI = ['severity', 'changeType', 'pageType'] as const
const words = (t: string) => t.replaceAll('_', ' ')
const line = (l: { type: string, content: string }) =>
  l.type === 'deletion' ? `<p><del>${esc(l.content)}</del></p>` : `<p><ins>${esc(l.content)}</ins></p>`
const esc = (s: string) => s.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`)

/** RFC 9110's order: If-None-Match decides when sent; If-Modified-Since only without it. */
function unchanged (v: { ifNoneMatch?: string, ifModifiedSince?: string }, etag: string, modified: string): boolean {
  // The API's one comparison (RFC 9110's weak one): behind a proxy that weakens ETags, a feed still answers 304.
  if (v.ifNoneMatch !== undefined) return isCurrent(v.ifNoneMatch, etag)
  if (v.ifModifiedSince === undefined) return false
  const since = Date.parse(v.ifModifiedSince)
  return !Number.isNaN(since) && Date.parse(modified) <= since
}

/** New and removed pages stay in the feeds this many days. */
const PAGE_EVENT_DAYS = 30

const atom = (description: string) => ({
  ...responses(200, Type.Null(), [400, 404]),
  200: { description, content: { 'application/atom+xml': { schema: { type: 'string' } } } },
  304: { description: 'unchanged since the ETag given in If-None-Match (or, without it, since If-Modified-Since)' }
})

/**
 * Atom feeds of an organisation's changes, and of one domain's: outside /api, for feed
 * readers, which send no key; the secret in the path is the organisation's feed token
 * (shown in the app's Alerts page and at GET /api/feeds). Entries are the stored changes,
 * newest first, with stable `tag:` ids; an ETag lets a reader skip an unchanged feed.
 */
export const feedRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db, config }) => {
  const base = appBaseUrl(config)
  const authority = new URL(base).hostname
  const querystring = Type.Object({
    severity: Type.Optional(Type.Array(literals(SEVERITIES), { maxItems: 4 })),
    changeType: Type.Optional(Type.Array(literals(CHANGE_TYPES), { maxItems: CHANGE_TYPES.length })),
    pageType: Type.Optional(Type.Array(PageTypeSchema, { maxItems: 7 })),
    tag: Type.Optional({ ...TagSchema, description: 'only changes of domains with this tag' })
  })
  const commaLists = async (req: { query: unknown }) => {
    const q = req.query as Record<string, unknown>
    for (const key of MULTI) {
      const v = q[key]
      if (v === undefined) continue
      q[key] = (Array.isArray(v) ? v : [v]).flatMap(x => String(x).split(',')).map(x => x.trim()).filter(Boolean)
    }
  }
  const Token = Type.String({ minLength: 10, maxLength: 100, description: "the organisation's feed token" })

  const serve = async (
    token: string,
    filters: { severity?: Severity[], changeType?: ChangeType[], pageType?: PageType[], tag?: string },
    domainId: string | undefined,
    self: string,
    validators: { ifNoneMatch?: string, ifModifiedSince?: string }
  ) => {
    const org = await orgOfFeedToken(db, token)
    if (!org) throw notFound('Feed')
    const hostname = domainId ? await domainHostname(db, domainId, org.id) : undefined
    if (domainId && hostname === undefined) throw notFound('Domain')
    const tag = filters.tag === undefined ? undefined : normalTags([filters.tag])[0]
    const { items } = await listChanges(db, org.id, { ...filters, tag, domainId }, 1, ENTRIES)
    // New and removed pages go in a feed that asks for no kind of change (they have no severity nor type).
    const plain = !filters.severity?.length && !filters.changeType?.length
    const since = new Date(Date.now() - PAGE_EVENT_DAYS * 86_400_000)
    const wanted = (e: { page_type: PageType, domain_tags: string[] }) =>
      (!filters.pageType?.length || filters.pageType.includes(e.page_type)) && (!tag || e.domain_tags.includes(tag))
    const events = plain
      ? (await toldPageEvents(db, org.id, { from: since, to: new Date(), domainId, limit: 20 })).filter(wanted)
      : []
    const places = await pagePlaces(db, org.id, items.map(c => c.pageId))
    const state = [...items.map(c => `${c.id}:${c.acknowledgedAt ? 1 : 0}`), ...events.map(e => e.id)].join(',')
    const etag = `"${createHash('sha256').update(`${self}|${state}`).digest('base64url').slice(0, 27)}"`
    const modified = (items[0]?.createdAt ? new Date(items[0].createdAt) : new Date(org.created_at)).toUTCString()
    if (unchanged(validators, etag, modified)) return { etag, modified, body: undefined }
    const feed = new Feed({
      title: hostname ? `${hostname} — changes on Sitewatch` : `${org.name} — changes on Sitewatch`,
      id: `tag:${authority},2026:${hostname ? `domain/${domainId}` : `org/${org.id}`}/changes`,
      link: hostname ? `${base}/app/changes?domainId=${domainId}` : `${base}/app/changes`,
      updated: items[0]?.createdAt ?? org.created_at,
      generator: 'Sitewatch',
      copyright: '',
      feedLinks: { atom: self }
    })
    for (const c of items) {
      const lines = c.diffData.hunks.flatMap(h => h.lines).filter(l => l.type !== 'context').slice(0, 12)
      const place = places.get(c.pageId)
      const where = place ? `${place.domain}: ` : ''
      feed.addItem({
        // The feed library writes a title as HTML (in CDATA): a page's words are escaped, so that no
        // markup of a watched page, and no "]]>", reaches a reader as anything but text.
        title: esc(`[${c.severity}] ${where}${c.summary}`),
        id: `tag:${authority},2026:change/${c.id}`,
        link: `${base}/app/changes/${c.id}`,
        date: c.createdAt,
        description: esc(`${where}${words(c.changeType)}, severity ${c.severity}, confidence ${c.confidence}`),
        content: `<p><strong>${esc(c.severity)}</strong> ${esc(words(c.changeType))}: ${esc(c.summary)}</p>` +
          (place ? `<p>On <a href="${esc(place.url)}">${esc(place.url)}</a> (${esc(place.domain)})</p>` : '') +
          lines.map(line).join('')
      })
    }
    for (const e of events) {
      const what = e.kind === 'discovered'
        ? `New ${words(e.page_type)} page on ${e.hostname}${e.watched ? ', now watched' : ''}`
        : `Page gone from ${e.hostname}${e.reason ? ` (${e.reason})` : ''}`
      feed.addItem({
        title: esc(`${what}: ${e.url}`),
        id: `tag:${authority},2026:page-event/${e.id}`,
        link: `${base}/app/changes`,
        date: e.created_at,
        description: esc(what),
        content: `<p>${esc(what)}: <a href="${esc(e.url)}">${esc(e.url)}</a></p>`
      })
    }
    return { etag, modified, body: feed.atom1() }
  }

  const validators = (h: Record<string, string | string[] | undefined>) => ({
    ifNoneMatch: typeof h['if-none-match'] === 'string' ? h['if-none-match'] : undefined,
    ifModifiedSince: typeof h['if-modified-since'] === 'string' ? h['if-modified-since'] : undefined
  })

  const answer = async (reply: any, result: { etag: string, modified: string, body: string | undefined }) => {
    reply.header('etag', result.etag).header('last-modified', result.modified)
    reply.header('cache-control', 'private, max-age=300')
    if (result.body === undefined) return await reply.code(304).send()
    return await reply.type('application/atom+xml; charset=utf-8').send(result.body)
  }

  app.get('/:token/changes.atom', {
    preValidation: commaLists,
    schema: {
      operationId: 'getChangesFeed',
      tags: ['alerts'],
      summary: "An Atom feed of the organisation's changes (no key: the feed token is in the path)",
      description: 'The newest 50 changes, filtered like GET /api/changes (severity, changeType, pageType; ' +
        'repeated or ' +
        'comma-separated). Entry ids are `tag:` URIs that never change; links go to the change in the web app. ' +
        'Send the ETag back in If-None-Match, or Last-Modified in If-Modified-Since, for a 304 when nothing changed.',
      security: [],
      params: Type.Object({ token: Token }),
      querystring,
      response: atom('the feed (Atom 1.0)')
    }
  }, async (req, reply) => {
    const self = `${base}/feeds/${req.params.token}/changes.atom`
    return await answer(reply, await serve(req.params.token, req.query, undefined, self, validators(req.headers)))
  })

  app.get('/:token/domains/:file', {
    preValidation: commaLists,
    schema: {
      operationId: 'getDomainChangesFeed',
      tags: ['alerts'],
      summary: "An Atom feed of one domain's changes: /feeds/{token}/domains/{domainId}.atom",
      security: [],
      params: Type.Object({ token: Token, file: Type.String({ pattern: '^[0-9a-fA-F-]{36}\\.atom$' }) }),
      querystring,
      response: atom('the feed (Atom 1.0)')
    }
  }, async (req, reply) => {
    const domainId = req.params.file.slice(0, 36)
    if (!UUID.test(domainId)) throw new AppError('VALIDATION_ERROR', 'the file name is a domain id and .atom')
    const self = `${base}/feeds/${req.params.token}/domains/${req.params.file}`
    return await answer(reply, await serve(req.params.token, req.query, domainId, self, validators(req.headers)))
  })
}
