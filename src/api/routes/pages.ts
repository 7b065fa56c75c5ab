import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { requireDomain } from '../../services/domains.js'
import { compareVersions } from '../../services/page-history.js'
import { addPageByHand, changePage, crawlPageNow, removePage, requirePage } from '../../services/pages.js'
import { listPages, onePageView, pageView } from '../../store/pages.js'
import { getSnapshot, getSnapshotWithText, listSnapshots } from '../../store/page-versions.js'
import { screenshotOf } from '../../store/screenshots.js'
import { notFound } from '../../vocabulary/errors.js'
import { PageOutlineSchema, RulesPreviewSchema } from '../../vocabulary/outline.js'
import { pageOutline, previewRules } from '../../services/page-outline.js'
import { PageNameSchema, PagePatchSchema } from '../../vocabulary/pages.js'
import type { ApiDeps } from '../deps.js'
import {
  CreatedPage, DateTime, DiffData, IdParams, Nullable, NoiseRules, Page, PageTypeSchema,
  Uuid
} from '../schemas.js'
import { HistoryPagination, historyMeta, Pagination, readCursor, responses } from '../responses.js'

const PageParams = Type.Object({ id: Uuid, pageId: Uuid }, { additionalProperties: false })
const SnapshotParams = Type.Object({
  id: Uuid,
  pageId: Uuid,
  snapshotId: Type.Union([Uuid, Type.Literal('latest')], { description: 'a snapshot id, or latest' })
}, { additionalProperties: false })

const snapshotFields = {
  id: Uuid,
  createdAt: DateTime,
  contentHash: Type.String({ description: 'SHA-256 of the noise-masked text' }),
  httpStatus: Type.Integer(),
  contentType: Nullable(Type.String()),
  textLength: Type.Integer({ description: 'characters of extracted text' }),
  screenshot: Nullable(Type.Object({
    url: Type.String({ description: 'the PNG, with the same key' }),
    width: Type.Integer(),
    height: Type.Integer()
  }))
}
const SnapshotSummary = Type.Object(snapshotFields, { $id: 'SnapshotSummary', title: 'SnapshotSummary' })
const Snapshot = Type.Object({
  ...snapshotFields,
  pageId: Uuid,
  text: Type.String({
    description: 'the text Sitewatch compares, one block per line: headings as "# …" (one # per level), list ' +
      'items as "- …", table rows as "| a | b |"; navigation, footers, scripts and cookie banners left out'
  })
}, { $id: 'Snapshot', title: 'Snapshot' })
const PageWithSnapshot = Type.Object({
  ...Page.properties,
  latestSnapshot: Nullable(Type.Ref(SnapshotSummary))
}, { $id: 'PageDetails', title: 'PageDetails' })

type SnapshotRow = {
  id: string
  created_at: Date
  content_hash: string
  http_status: number
  content_type: string | null
  text_length: number
  width: number | null
  height: number | null
}

export const pageRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db, queue, ruleChecks, readings }) => {
  const ctx = { db, queue, ruleChecks, readings }
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
      const { items, total } = await listPages(db, domain, page, pageSize)
      return { data: items, meta: { total, page, pageSize } }
    }
  )

  app.addSchema(SnapshotSummary)
  app.addSchema(Snapshot)
  app.addSchema(PageWithSnapshot)
  const base = (domainId: string, pageId: string) => `/api/domains/${domainId}/pages/${pageId}`
  const summary = (domainId: string, pageId: string, s: SnapshotRow) => ({
    id: s.id,
    createdAt: s.created_at,
    contentHash: s.content_hash,
    httpStatus: s.http_status,
    contentType: s.content_type,
    textLength: Number(s.text_length),
    screenshot: s.width === null || s.height === null
      ? null
      : { url: `${base(domainId, pageId)}/snapshots/${s.id}/screenshot`, width: s.width, height: s.height }
  })

  app.get(
    '/domains/:id/pages/:pageId',
    {
      schema: {
        operationId: 'getPage',
        tags: ['pages'],
        summary: 'One page, with its latest snapshot',
        description: 'The page and a summary of its latest snapshot (null before its first crawl). Its text is at ' +
          '`…/snapshots/latest`.',
        params: PageParams,
        response: responses(200, Type.Ref(PageWithSnapshot), [404])
      }
    },
    async req => {
      const page = await requirePage(ctx, req.principal!.org.id, req.params.id, req.params.pageId)
      const latest = await getSnapshot(db, page.id, 'latest')
      const latestSnapshot = latest ? summary(page.domain_id, page.id, latest) : null
      return { data: { ...(await onePageView(db, page)), latestSnapshot } }
    }
  )

  app.get(
    '/domains/:id/pages/:pageId/snapshots',
    {
      schema: {
        operationId: 'listSnapshots',
        tags: ['pages'],
        summary: "A page's snapshots, newest first",
        description: 'A snapshot is recorded for the first crawl and for each crawl that found the text changed ' +
          "(kept for the plan's history retention; a page's latest is always kept). Without their text: read one " +
          'for it. Pages with `page` (1-based) and `pageSize` (default 20, at most 100), or `cursor` (the page ' +
          'after `meta.nextCursor`). `meta.total` is exact.',
        params: PageParams,
        querystring: HistoryPagination(20, 100),
        response: responses(200, Type.Array(Type.Ref(SnapshotSummary)), [404], { list: true })
      }
    },
    async req => {
      const page = await requirePage(ctx, req.principal!.org.id, req.params.id, req.params.pageId)
      const { page: n, pageSize } = req.query
      const { items, total, next } = await listSnapshots(db, page.id, n, pageSize, readCursor(req.query.cursor))
      const data = items.map(s => summary(page.domain_id, page.id, s))
      return { data, meta: historyMeta({ total }, n, pageSize, next) }
    }
  )

  app.get(
    '/domains/:id/pages/:pageId/compare',
    {
      schema: {
        operationId: 'compareSnapshots',
        tags: ['pages'],
        summary: 'Any two snapshots of a page compared (an addition to the contract)',
        description: 'The plain line-by-line comparison of the two texts, in the shape of a change\'s `diffData` ' +
          '(`before` and `after` are the two texts, `hunks` what differs, `stats` its size): what a person chooses ' +
          'to compare is compared as it reads, no structured reader between. `from` and `to` are snapshot ids of ' +
          'the page (`latest`: its newest); either may be the older. 404 when one is not a snapshot of this page.',
        params: PageParams,
        querystring: Type.Object({
          from: Type.Union([Uuid, Type.Literal('latest')], { description: 'the snapshot compared from' }),
          to: Type.Union([Uuid, Type.Literal('latest')], { description: 'the snapshot compared to' })
        }, { additionalProperties: false }),
        response: responses(200, Type.Object({
          from: Type.Object({ id: Uuid, createdAt: DateTime }),
          to: Type.Object({ id: Uuid, createdAt: DateTime }),
          diff: Type.Ref(DiffData)
        }), [404])
      }
    },
    async req => {
      const page = await requirePage(ctx, req.principal!.org.id, req.params.id, req.params.pageId)
      const { from, to, diff } = await compareVersions(db, page.id, req.query.from, req.query.to)
      return {
        data: {
          from: { id: from.id, createdAt: from.at.toISOString() },
          to: { id: to.id, createdAt: to.at.toISOString() },
          diff
        }
      }
    }
  )

  app.get(
    '/domains/:id/pages/:pageId/snapshots/:snapshotId',
    {
      schema: {
        operationId: 'getSnapshot',
        tags: ['pages'],
        summary: 'One snapshot of a page with its full text (latest: the newest)',
        description: "A change's `snapshotBeforeId` and `snapshotAfterId` name the snapshots on either side of it.",
        params: SnapshotParams,
        response: responses(200, Type.Ref(Snapshot), [404])
      }
    },
    async req => {
      const page = await requirePage(ctx, req.principal!.org.id, req.params.id, req.params.pageId)
      const s = await getSnapshotWithText(db, page.id, req.params.snapshotId)
      if (!s) throw notFound('Snapshot')
      return { data: { ...summary(page.domain_id, page.id, s), pageId: page.id, text: s.content } }
    }
  )

  app.get(
    '/domains/:id/pages/:pageId/snapshots/:snapshotId/screenshot',
    {
      schema: {
        operationId: 'getSnapshotScreenshot',
        tags: ['pages'],
        summary: "A snapshot's screenshot (PNG), when the page was rendered in the browser",
        params: SnapshotParams,
        response: {
          ...responses(200, Type.Null(), [404]),
          200: {
            description: 'the image (PNG)',
            content: { 'image/png': { schema: { type: 'string', format: 'binary' } } }
          }
        }
      }
    },
    async (req, reply) => {
      const page = await requirePage(ctx, req.principal!.org.id, req.params.id, req.params.pageId)
      const s = await getSnapshot(db, page.id, req.params.snapshotId)
      const shot = s && await screenshotOf(db, s.id)
      if (!shot) throw notFound('The screenshot of this snapshot')
      return await reply.type('image/png').header('cache-control', 'private, max-age=3600').send(shot.image)
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
          url: Type.String({
            minLength: 1, maxLength: 2048, description: 'full http(s) URL', examples: ['https://example.com/pricing']
          }),
          pageType: Type.Optional(PageTypeSchema),
          name: Type.Optional(PageNameSchema)
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
        req.body.pageType,
        req.body.name
      )
      return await reply.code(201).send({ data: await onePageView(db, page) })
    }
  )

  app.patch(
    '/domains/:id/pages/:pageId',
    {
      schema: {
        operationId: 'updatePage',
        tags: ['pages'],
        summary: 'Update a page: its name, monitoring, type, priority, noise rules and rendering',
        description:
          'Pages with monitoring disabled are skipped by the scheduler and by the crawl endpoint. New noise rules ' +
          'take ' +
          'effect on the next crawl, which records a new baseline (no change) read under them.',
        params: PageParams,
        body: PagePatchSchema,
        response: responses(200, Type.Ref(Page), [404])
      }
    },
    async req => {
      const page = await changePage(ctx, req.principal!.org.id, req.params.id, req.params.pageId, req.body)
      return { data: pageView(page, page.intelligence) }
    }
  )

  app.addSchema(PageOutlineSchema)
  app.addSchema(RulesPreviewSchema)
  app.get(
    '/domains/:id/pages/:pageId/outline',
    {
      schema: {
        operationId: 'getPageOutline',
        tags: ['pages'],
        summary: "A page's outline: its blocks to watch only or to ignore, and how often each moved",
        description: 'The blocks Sitewatch reads in the page\'s last version, in page order (sections with their ' +
          'heading, cards, paragraphs, lists, tables; at most 400), each with a selector that selects it alone: put ' +
          'it in the page\'s `noiseRules.includeSelectors` to watch only it, or `ignoreSelectors` to leave it out. ' +
          'Selectors name a block by what lasts: an id without a number, a landmark, a heading\'s words — ' +
          '`:heading("Plans")` is a heading with these words (case, spacing and a leading section number aside), ' +
          '`:section("Plans")` that heading and what follows it up to the next heading of its level — before a ' +
          'class name, before a position. `churn` counts the moves of each block\'s text in the page\'s versions ' +
          'of the last 30 days (at most 30), how many came with a recorded change, and whether a person marked ' +
          'one important. Nothing is ignored by itself.',
        params: PageParams,
        response: responses(200, Type.Ref(PageOutlineSchema), [404])
      }
    },
    async req => ({ data: await pageOutline(ctx, req.principal!.org.id, req.params.id, req.params.pageId) })
  )

  app.post(
    '/domains/:id/pages/:pageId/outline/preview',
    {
      config: { changesNothing: true },
      schema: {
        operationId: 'previewPageRules',
        tags: ['pages'],
        summary: 'Try noise rules on a page before saving them',
        description: 'Changes nothing. The text the next check would compare with these rules, read from the ' +
          "page's last version, and what each of its changes of the last 30 days (at most 30) would have been: " +
          'still a change reading the same lines (`kept`), a change reading other lines (`changed`), or none ' +
          '(`muted`). Selectors and patterns are tried; facts left out and learned rules are not. Rules that cannot ' +
          'run are a 400, as in PATCH. A key of scope write: it tries what a PATCH would save.',
        params: PageParams,
        body: Type.Object({ noiseRules: Type.Ref(NoiseRules) }, { additionalProperties: false }),
        response: responses(200, Type.Ref(RulesPreviewSchema), [400, 404])
      }
    },
    async req => ({
      data: await previewRules(ctx, req.principal!.org.id, req.params.id, req.params.pageId, req.body.noiseRules)
    })
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

  app.post(
    '/domains/:id/pages/:pageId/crawl',
    {
      config: { tier: 'heavy' },
      schema: {
        operationId: 'crawlPage',
        tags: ['pages'],
        summary: 'Check one page now',
        description:
          'Heavy rate tier (per hour; see the rate limits above). Queues a crawl of this page. It takes no manual ' +
          'recheck: the quota counts a crawl of a whole domain (`POST /api/domains/{id}/crawl`), and one page ' +
          'checked again is not a domain-wide recheck (402 only once a trial has ended). When its crawl is already ' +
          'waiting or running, nothing is queued (`queued` 0, `jobId` null). A page whose monitoring is off is a ' +
          '409: turn it on first.',
        params: PageParams,
        response: responses(
          200,
          Type.Object({
            pageId: Uuid,
            url: Type.String(),
            queued: Type.Integer({ minimum: 0, maximum: 1 }),
            jobId: Nullable(Type.String()),
            message: Type.String()
          }),
          [402, 404, 409]
        )
      }
    },
    async req => {
      const { page, jobId } = await crawlPageNow(ctx, req.principal!.org, req.params.id, req.params.pageId)
      const message = jobId
        ? `Queued a crawl of ${page.url}`
        : `A crawl of ${page.url} is already waiting or running: nothing more was queued`
      return { data: { pageId: page.id, url: page.url, queued: jobId ? 1 : 0, jobId, message } }
    }
  )
}
