import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { SIGNATURE_HEADER, TOLERANCE_SECONDS } from '../../alerts/signature.js'
import { WebhookCreateSchema, WebhookPatchSchema } from '../../vocabulary/webhooks.js'
import {
  changeWebhook,
  createWebhook,
  removeWebhook,
  requireEndpoint,
  sendTestEvent,
  type DestinationRules
} from '../../services/webhooks.js'
import { deliveryView, endpointView, listDeliveries, listEndpoints } from '../../store/webhooks.js'
import type { ApiDeps } from '../deps.js'
import { IdParams } from '../schemas.js'
import { CreatedWebhookEndpoint, WebhookDelivery, WebhookEndpoint } from '../schemas-alerts.js'
import { HistoryPagination, historyMeta, Pagination, readCursor, responses } from '../responses.js'

const SIGNING =
  'Every webhook request carries `X-Sitewatch-Event`, `X-Sitewatch-Delivery` (the same on every retry of a delivery: ' +
  `use it to process each delivery once) and \`${SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex>\`. To verify, ` +
  'compute HMAC-SHA256 with the endpoint\'s secret over `<t>.<raw request body>`, compare it to v1 in constant time, ' +
  `and reject the request when t is more than ${TOLERANCE_SECONDS} seconds from your clock (a replay). Failed ` +
  'deliveries (no 2xx ' +
  'within 15 s) are retried with exponential backoff, 6 attempts in all; retries survive restarts.'

export const webhookRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db, queue, config }) => {
  const ctx = { db, queue }
  const rules: DestinationRules = {
    hostMap: config.alertHostMap,
    allowPrivateNetworks: config.alertAllowPrivateNetworks
  }

  app.post(
    '/webhooks',
    {
      schema: {
        operationId: 'createWebhook',
        tags: ['alerts'],
        summary: 'Add a webhook or Slack destination',
        description:
          'Events: change.detected (with the Change, its page and domain) and job.failed. Plans with realtime alerts ' +
          'get each change as it is detected; digest plans get one changes.digest message a day. Slack ' +
          'destinations need ' +
          'features.slackIntegration; filters beyond the defaults need features.customAlertRules (403 otherwise). ' +
          `${SIGNING}`,
        body: WebhookCreateSchema,
        response: responses(201, Type.Ref(CreatedWebhookEndpoint), [])
      }
    },
    async (req, reply) => {
      return await reply.code(201).send({ data: await createWebhook(ctx, rules, req.principal!.org, req.body) })
    }
  )

  app.get(
    '/webhooks',
    {
      schema: {
        operationId: 'listWebhooks',
        tags: ['alerts'],
        summary: 'List webhook and Slack destinations',
        querystring: Pagination(20, 100),
        response: responses(200, Type.Array(Type.Ref(WebhookEndpoint)), [], { list: true })
      }
    },
    async req => {
      const { page, pageSize } = req.query
      const { items, total } = await listEndpoints(db, req.principal!.org.id, page, pageSize)
      return { data: items, meta: { total, page, pageSize } }
    }
  )

  app.get(
    '/webhooks/:id',
    {
      schema: {
        operationId: 'getWebhook',
        tags: ['alerts'],
        summary: 'One destination',
        params: IdParams,
        response: responses(200, Type.Ref(WebhookEndpoint), [404])
      }
    },
    async req => ({ data: endpointView(await requireEndpoint(ctx, req.principal!.org.id, req.params.id)) })
  )

  app.patch(
    '/webhooks/:id',
    {
      schema: {
        operationId: 'updateWebhook',
        tags: ['alerts'],
        summary: 'Update a destination',
        params: IdParams,
        body: WebhookPatchSchema,
        response: responses(200, Type.Ref(WebhookEndpoint), [404])
      }
    },
    async req => {
      return { data: await changeWebhook(ctx, rules, req.principal!.org, req.params.id, req.body) }
    }
  )

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        operationId: 'deleteWebhook',
        tags: ['alerts'],
        summary: 'Delete a destination and its delivery history',
        params: IdParams,
        response: responses(200, Type.Object({ deleted: Type.Boolean(), message: Type.String() }), [404])
      }
    },
    async req => {
      const host = await removeWebhook(ctx, req.principal!.org.id, req.params.id)
      return { data: { deleted: true, message: `Destination ${host} deleted` } }
    }
  )

  app.post(
    '/webhooks/:id/test',
    {
      schema: {
        operationId: 'testWebhook',
        tags: ['alerts'],
        summary: 'Send a test event',
        description: 'Queues a webhook.test delivery (signed like any other); follow it in the deliveries list.',
        params: IdParams,
        response: responses(200, Type.Ref(WebhookDelivery), [404])
      }
    },
    async req => {
      return { data: deliveryView(await sendTestEvent(ctx, req.principal!.org, req.params.id)) }
    }
  )

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: ['alerts'],
        summary: 'Recent deliveries of a destination, newest first',
        description: 'Deliveries are kept 30 days. `meta.total` is exact; `cursor` reads the page after ' +
          '`meta.nextCursor`.',
        params: IdParams,
        querystring: HistoryPagination(20, 100),
        response: responses(200, Type.Array(Type.Ref(WebhookDelivery)), [404], { list: true })
      }
    },
    async req => {
      const endpoint = await requireEndpoint(ctx, req.principal!.org.id, req.params.id)
      const { page, pageSize } = req.query
      const { items, total, next } = await listDeliveries(db, endpoint.id, page, pageSize, readCursor(req.query.cursor))
      return { data: items, meta: historyMeta({ total }, page, pageSize, next) }
    }
  )
}
