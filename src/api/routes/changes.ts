import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { notFound } from '../../vocabulary/errors.js'
import { getChange, listChanges } from '../../store/changes.js'
import { acknowledgeChanges } from '../../services/feedback.js'
import { CHANGE_TYPES, normalTags, SEVERITIES, TagSchema } from '../../vocabulary/core.js'
import { appBaseUrl } from '../../config.js'
import { changesCsv, EXPORT_CAP, exportName } from '../../services/exports.js'
import type { ApiDeps } from '../deps.js'
import { Change, DateTime, IdParams, PageTypeSchema, literals, Uuid } from '../schemas.js'
import { CursorParam, historyMeta, paginationFields, readCursor, responses } from '../responses.js'

const MULTI = ['severity', 'changeType', 'pageType'] as const

/** An Accept header that asks for CSV before JSON. */
const wantsCsv = (accept: string | undefined) => /\btext\/csv\b/.test(accept ?? '') && !/\bapplication\/json\b/.test(accept ?? '')

export const changeRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db, config }) => {
  app.get(
    '/changes',
    {
      // `?severity=high,critical` reads as `?severity=high&severity=critical`.
      preValidation: async req => {
        const q = req.query as Record<string, unknown>
        for (const key of MULTI) {
          const v = q[key]
          if (v !== undefined) {
            q[key] = (Array.isArray(v) ? v : [v])
              .flatMap(x => String(x).split(','))
              .map(x => x.trim())
              .filter(Boolean)
          }
        }
      },
      schema: {
        operationId: 'listChanges',
        tags: ['changes'],
        summary: 'List changes across domains',
        description:
          'Every change of the organisation, newest first. `severity`, `changeType` and `pageType` take several ' +
          'values, ' +
          'repeated or comma-separated. `since` (inclusive) and `until` (exclusive) bound createdAt. `q` is a ' +
          'full-text search ' +
          '(PostgreSQL websearch syntax: words, "quoted phrases", -excluded) in summaries and in every changed ' +
          'line of the whole diff (`diffData.hunks`), not only the passages of `before` and `after`. ' +
          '`meta.total` counts ' +
          'up to 1,000, within a small time budget; when `meta.totalCapped` is true, total is a lower bound ("at ' +
          'least"). With `format=csv` (or `Accept: text/csv`), the answer is the matching changes as CSV ' +
          `(text/csv; the newest ${EXPORT_CAP.toLocaleString('en')} at most, page and pageSize ignored): createdAt, ` +
          'domain, pageUrl, pageType, changeType, severity, confidence, summary, acknowledgedAt and link (the change ' +
          'in the web app), then the fact that leads it as its alert told it (`diffData.facts[0]`): leadKind, ' +
          'leadSubject (a price\'s plan, a section\'s heading…), leadBefore, leadAfter and leadPercent (empty where ' +
          'it has none); a cell a spreadsheet would run as a formula is written as text.',
        querystring: Type.Object(
          {
            ...paginationFields(20, 100),
            cursor: CursorParam,
            severity: Type.Optional(Type.Array(literals(SEVERITIES), { maxItems: 4 })),
            changeType: Type.Optional(Type.Array(literals(CHANGE_TYPES), { maxItems: 7 })),
            pageType: Type.Optional(Type.Array(PageTypeSchema, { maxItems: 7 })),
            domainId: Type.Optional(Uuid),
            tag: Type.Optional({ ...TagSchema, description: 'only changes of domains with this tag (an addition)' }),
            pageId: Type.Optional(Uuid),
            since: Type.Optional(DateTime),
            until: Type.Optional(DateTime),
            acknowledged: Type.Optional(Type.Boolean()),
            q: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            format: Type.Optional(literals(['json', 'csv'] as const, {
              description: 'csv: the matching changes as a spreadsheet (text/csv), as `Accept: text/csv` asks'
            }))
          },
          { additionalProperties: false }
        ),
        response: responses(200, Type.Array(Type.Ref(Change)), [], { list: true })
      }
    },
    async (req, reply) => {
      const { page, pageSize, since, until, format, cursor: given, ...rest } = req.query
      const cursor = readCursor(given)
      const filters = {
        ...rest,
        tag: rest.tag === undefined ? undefined : normalTags([rest.tag])[0],
        since: since ? new Date(since) : undefined,
        until: until ? new Date(until) : undefined
      }
      if (format === 'csv' || (format === undefined && wantsCsv(req.headers.accept))) {
        const body = await changesCsv(db, req.principal!.org.id, filters, appBaseUrl(config))
        return await reply.type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${exportName('changes')}"`).send(body)
      }
      const { items, next, ...counted } = await listChanges(db, req.principal!.org.id, filters, page, pageSize, cursor)
      return { data: items, meta: historyMeta(counted, page, pageSize, next) }
    }
  )

  app.get(
    '/changes/:id',
    {
      schema: {
        operationId: 'getChange',
        tags: ['changes'],
        summary: 'One change',
        params: IdParams,
        response: responses(200, Type.Ref(Change), [404])
      }
    },
    async req => {
      const change = await getChange(db, req.principal!.org.id, req.params.id)
      if (!change) throw notFound('Change')
      return { data: change }
    }
  )

  app.post(
    '/changes/:id/acknowledge',
    {
      schema: {
        operationId: 'acknowledgeChange',
        tags: ['changes'],
        summary: 'Acknowledge a change',
        description:
          'Sets acknowledgedAt and acknowledgedBy (the id of the calling API key; `acknowledgedByKind` key). ' +
          'Idempotent: acknowledging again ' +
          'keeps the first time and key.',
        params: IdParams,
        response: responses(200, Type.Ref(Change), [404])
      }
    },
    async req => {
      const by = { keyId: req.principal!.keyId }
      const [change] = await acknowledgeChanges(db, req.principal!.org.id, [req.params.id], by)
      if (!change) throw notFound('Change')
      return { data: change }
    }
  )

  app.delete(
    '/changes/:id/acknowledge',
    {
      schema: {
        operationId: 'unacknowledgeChange',
        tags: ['changes'],
        summary: 'Undo an acknowledgement',
        description: 'Sets acknowledgedAt and acknowledgedBy back to null. Idempotent.',
        params: IdParams,
        response: responses(200, Type.Ref(Change), [404])
      }
    },
    async req => {
      const [change] = await acknowledgeChanges(db, req.principal!.org.id, [req.params.id], null)
      if (!change) throw notFound('Change')
      return { data: change }
    }
  )
}
