import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type TSchema } from '@sinclair/typebox'
import { appBaseUrl } from '../../config.js'
import { ChangeTypeSchema, literals, MailModeSchema, SEVERITIES, TagSchema } from '../../vocabulary/core.js'
import { alertSettings, changeAlertSettings, feedUrls } from '../../services/mail-alerts.js'
import { keyFeedToken, listEmails, rotateKeyFeedToken } from '../../store/mail-alerts.js'
import { audited } from '../../services/audit.js'
import type { ApiDeps } from '../deps.js'
import { PageTypeSchema, Uuid } from '../schemas.js'
import { EmailDelivery, MailSettings } from '../schemas-alerts.js'
import { HistoryPagination, historyMeta, readCursor, responses } from '../responses.js'

const orNull = <T extends TSchema>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()], { description: 'null: all' }))

const FeedLinks = Type.Object({
  changes: Type.String({ description: "the organisation's feed; add ?severity=, changeType=, pageType= to filter" }),
  domain: Type.String({ description: "one domain's feed: put the domain's id in place of {domainId}" })
})

/** Members' e-mail alert settings, the e-mail delivery log, and the addresses of the Atom feeds. */
export const mailAlertRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db, config }) => {
  const base = appBaseUrl(config)

  app.get('/alert-settings', {
    schema: {
      operationId: 'listAlertSettings',
      tags: ['alerts'],
      summary: "Every member's e-mail alert settings",
      description: 'Members choose in the web app (Alerts) or here. Until they do, the plan decides: a message for ' +
        'each change on trial, pro and enterprise, a daily digest at 08:00 UTC on starter.',
      response: responses(200, Type.Array(Type.Ref(MailSettings)), [])
    }
  }, async req => ({ data: await alertSettings(db, req.principal!.org) }))

  app.put('/alert-settings/:userId', {
    schema: {
      operationId: 'updateAlertSettings',
      tags: ['alerts'],
      summary: "Change a member's e-mail alert settings",
      description: 'Fields left out keep their value. realtime is not offered on starter (a digest plan); ' +
        'changeTypes, domainIds, pageTypes and tags are custom alert rules (enterprise, else 403). Saving resumes ' +
        'alerts paused for bounces.',
      params: Type.Object({ userId: Uuid }),
      body: Type.Object({
        mode: Type.Optional(MailModeSchema),
        minSeverity: Type.Optional(literals(SEVERITIES)),
        changeTypes: orNull(Type.Array(ChangeTypeSchema, { minItems: 1, uniqueItems: true })),
        domainIds: orNull(Type.Array(Uuid, { minItems: 1, maxItems: 100, uniqueItems: true })),
        pageTypes: orNull(Type.Array(PageTypeSchema, { minItems: 1, uniqueItems: true })),
        tags: orNull(Type.Array(TagSchema, {
          minItems: 1, maxItems: 20, description: 'only changes of domains with one of these tags (an addition)'
        })),
        timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        hour: Type.Optional(Type.Integer({ minimum: 0, maximum: 23 })),
        weekday: Type.Optional(Type.Integer({ minimum: 0, maximum: 6 }))
      }, { additionalProperties: false }),
      response: responses(200, Type.Ref(MailSettings), [404])
    }
  }, async req => ({ data: await changeAlertSettings(db, req.principal!.org, req.params.userId, req.body) }))

  app.get('/email-deliveries', {
    schema: {
      operationId: 'listEmailDeliveries',
      tags: ['alerts'],
      summary: 'The alert e-mails sent, newest first',
      description: 'One row per message: a change (realtime) or a digest. A 4xx from the SMTP server is retried ' +
        'with backoff (6 attempts); a 5xx fails the message, and three in a row pause that member\'s alerts ' +
        '(`pausedReason` in their settings). `meta.total` counts up to 1,000 (`meta.totalCapped` past it); ' +
        '`cursor` reads the page after `meta.nextCursor`.',
      querystring: HistoryPagination(20, 100),
      response: responses(200, Type.Array(Type.Ref(EmailDelivery)), [], { list: true })
    }
  }, async req => {
    const { page, pageSize } = req.query
    const { items, next, ...counted } =
      await listEmails(db, req.principal!.org.id, page, pageSize, readCursor(req.query.cursor))
    return { data: items, meta: historyMeta(counted, page, pageSize, next) }
  })

  app.get('/feeds', {
    schema: {
      operationId: 'getFeedLinks',
      tags: ['alerts'],
      summary: "The addresses of the organisation's Atom feeds, for this API key",
      description: 'They carry a secret token instead of a key, for feed readers: share them as you would a key. ' +
        'They are this key\'s: revoking the key ends them (the app shows admins the organisation\'s own addresses, ' +
        'and each member theirs).',
      response: responses(200, FeedLinks, [])
    }
  }, async req => ({ data: feedUrls(base, await keyFeedToken(db, req.principal!.keyId)) }))

  app.post('/feeds/rotate', {
    schema: {
      operationId: 'rotateFeedLinks',
      tags: ['alerts'],
      summary: 'New feed addresses for this API key; its old ones stop working',
      response: responses(200, FeedLinks, [])
    }
  }, async req => {
    const token = await audited(db, { action: 'feed.rotated', details: { of: 'api key' } },
      async tx => await rotateKeyFeedToken(tx, req.principal!.keyId))
    return { data: feedUrls(base, token) }
  })
}
