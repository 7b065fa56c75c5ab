import { randomUUID } from 'node:crypto'
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { deliveryView, endpointView } from '../../alerts/endpoints.js'
import { queueDeliveries } from '../../alerts/dispatch.js'
import { newSecret, SIGNATURE_HEADER, TOLERANCE_SECONDS } from '../../alerts/signature.js'
import { isPublicAddress } from '../../crawl/address.js'
import { AppError, notFound } from '../../errors.js'
import { PLANS } from '../../plans/plans.js'
import type { OrgRow } from '../../plans/usage.js'
import { ALERT_EVENTS, CHANGE_TYPES, SEVERITIES, type AlertEvent, type ChangeType, type PageType, type Severity } from '../../store/schema.js'
import type { ApiDeps } from '../deps.js'
import { DateTime, IdParams, literals, PageTypeSchema, Pagination, responses, Uuid } from '../schemas.js'

const SIGNING = `Every webhook request carries \`X-Sitewatch-Event\`, \`X-Sitewatch-Delivery\` (the same on every retry of a delivery: ` +
  `use it to process each delivery once) and \`${SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex>\`. To verify, compute ` +
  `HMAC-SHA256 with the endpoint's secret over \`<t>.<raw request body>\`, compare it to v1 in constant time, and reject ` +
  `the request when t is more than ${TOLERANCE_SECONDS} seconds from your clock (a replay). Failed deliveries (no 2xx within ` +
  '15 s) are retried with exponential backoff, 6 attempts in all; retries survive restarts.'

const filterFields = {
  events: Type.Optional(Type.Array(literals(ALERT_EVENTS), { minItems: 1, uniqueItems: true, description: 'default: all events' })),
  minSeverity: Type.Optional(literals(SEVERITIES, { description: 'default low (everything); a custom alert rule' })),
  changeTypes: Type.Optional(Type.Union([Type.Array(literals(CHANGE_TYPES), { minItems: 1, uniqueItems: true }), Type.Null()], { description: 'null: all; a custom alert rule' })),
  domainIds: Type.Optional(Type.Union([Type.Array(Uuid, { minItems: 1, maxItems: 100, uniqueItems: true }), Type.Null()], { description: 'null: all; a custom alert rule' })),
  pageTypes: Type.Optional(Type.Union([Type.Array(PageTypeSchema, { minItems: 1, uniqueItems: true }), Type.Null()], { description: 'null: all; a custom alert rule' }))
}

const Endpoint = Type.Object({
  id: Uuid,
  kind: literals(['webhook', 'slack'] as const),
  url: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  enabled: Type.Boolean(),
  events: Type.Array(literals(ALERT_EVENTS)),
  minSeverity: literals(SEVERITIES),
  changeTypes: Type.Union([Type.Array(literals(CHANGE_TYPES)), Type.Null()]),
  domainIds: Type.Union([Type.Array(Uuid), Type.Null()]),
  pageTypes: Type.Union([Type.Array(PageTypeSchema), Type.Null()]),
  createdAt: DateTime,
  updatedAt: DateTime
}, { $id: 'WebhookEndpoint', title: 'WebhookEndpoint' })

const CreatedEndpoint = Type.Object({ ...Endpoint.properties, secret: Type.String({ description: 'the signing secret, shown only here' }) },
  { $id: 'CreatedWebhookEndpoint', title: 'CreatedWebhookEndpoint' })

const Delivery = Type.Object({
  id: Uuid,
  endpointId: Uuid,
  eventType: Type.String({ description: 'change.detected, job.failed, changes.digest or webhook.test' }),
  eventId: Type.String(),
  status: literals(['pending', 'delivered', 'failed'] as const),
  attempts: Type.Integer(),
  responseStatus: Type.Union([Type.Integer(), Type.Null()]),
  durationMs: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  createdAt: DateTime,
  lastAttemptAt: Type.Union([DateTime, Type.Null()]),
  deliveredAt: Type.Union([DateTime, Type.Null()])
}, { $id: 'WebhookDelivery', title: 'WebhookDelivery' })

export const WEBHOOK_SCHEMAS = [Endpoint, CreatedEndpoint, Delivery]

interface EndpointInput {
  url?: string
  kind?: 'webhook' | 'slack'
  description?: string | null
  enabled?: boolean
  events?: AlertEvent[]
  minSeverity?: Severity
  changeTypes?: ChangeType[] | null
  domainIds?: string[] | null
  pageTypes?: PageType[] | null
}

export const webhookRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db, queue, config }) => {
  /** The URL rules: http(s), no credentials, no private address (the delivery checks DNS again, every time). */
  async function checkUrl (raw: string, kind: 'webhook' | 'slack'): Promise<string> {
    let url: URL
    try { url = new URL(raw) } catch { throw new AppError('VALIDATION_ERROR', 'url must be an absolute URL', { field: 'url' }) }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new AppError('VALIDATION_ERROR', 'url must be http or https', { field: 'url' })
    if (url.username || url.password) throw new AppError('VALIDATION_ERROR', 'url must not carry credentials', { field: 'url' })
    if (kind === 'slack' && (url.protocol !== 'https:' || url.hostname !== 'hooks.slack.com' || !url.pathname.startsWith('/services/'))) {
      throw new AppError('VALIDATION_ERROR', 'a Slack destination is an incoming-webhook URL: https://hooks.slack.com/services/…', { field: 'url' })
    }
    const host = url.hostname.replace(/^\[|\]$/g, '')
    if (!config.crawlHostMap.has(url.hostname) && !config.crawlAllowPrivateNetworks) {
      const addresses = isIP(host) ? [host] : await lookup(host, { all: true }).then(r => r.map(a => a.address), () => [])
      if (host === 'localhost' || addresses.some(a => !isPublicAddress(a))) {
        throw new AppError('VALIDATION_ERROR', 'url must point to a public address', { field: 'url' })
      }
    }
    return url.toString()
  }

  async function checkPlanAndFilters (org: OrgRow, input: EndpointInput, kind: 'webhook' | 'slack') {
    const plan = PLANS[org.plan]
    if (kind === 'slack' && !plan.features.slackIntegration) throw new AppError('FORBIDDEN', `The ${org.plan} plan does not include Slack integration`)
    const custom = (input.minSeverity !== undefined && input.minSeverity !== 'low') ||
      (input.changeTypes ?? null) !== null || (input.domainIds ?? null) !== null || (input.pageTypes ?? null) !== null
    if (custom && !plan.features.customAlertRules) {
      throw new AppError('FORBIDDEN', `The ${org.plan} plan does not include custom alert rules (minSeverity, changeTypes, domainIds, pageTypes); they come with enterprise`)
    }
    if (input.domainIds?.length) {
      const owned = await db.selectFrom('domains').select('id').where('org_id', '=', org.id).where('id', 'in', input.domainIds).execute()
      if (owned.length !== input.domainIds.length) throw new AppError('VALIDATION_ERROR', 'domainIds names a domain that does not exist', { field: 'domainIds' })
    }
  }

  const findEndpoint = async (orgId: string, id: string) => {
    const row = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst()
    if (!row) throw notFound('Webhook endpoint')
    return row
  }

  app.post('/webhooks', {
    schema: {
      operationId: 'createWebhook',
      tags: ['alerts'],
      summary: 'Add a webhook or Slack destination',
      description: `Events: change.detected (with the Change, its page and domain) and job.failed. Plans with realtime alerts ` +
        `get each change as it is detected; digest plans get one changes.digest message a day. Slack destinations need ` +
        `features.slackIntegration; filters beyond the defaults need features.customAlertRules (403 otherwise). ${SIGNING}`,
      body: Type.Object({
        url: Type.String({ minLength: 1, maxLength: 2048 }),
        kind: Type.Optional(literals(['webhook', 'slack'] as const, { description: 'default webhook' })),
        description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
        enabled: Type.Optional(Type.Boolean()),
        ...filterFields
      }, { additionalProperties: false }),
      response: responses(201, Type.Ref(CreatedEndpoint), [])
    }
  }, async (req, reply) => {
    const org = req.principal!.org
    const input = req.body as EndpointInput & { url: string }
    const kind = input.kind ?? 'webhook'
    await checkPlanAndFilters(org, input, kind)
    const url = await checkUrl(input.url, kind)
    const secret = newSecret()
    const row = await db.insertInto('webhook_endpoints').values({
      org_id: org.id,
      kind,
      url,
      secret,
      description: input.description ?? null,
      enabled: input.enabled ?? true,
      events: input.events ?? [...ALERT_EVENTS],
      min_severity: input.minSeverity ?? 'low',
      change_types: input.changeTypes ?? null,
      domain_ids: input.domainIds ?? null,
      page_types: input.pageTypes ?? null
    }).returningAll().executeTakeFirstOrThrow()
    return await reply.code(201).send({ data: { ...endpointView(row), secret } })
  })

  app.get('/webhooks', {
    schema: {
      operationId: 'listWebhooks',
      tags: ['alerts'],
      summary: 'List webhook and Slack destinations',
      querystring: Pagination(20, 100),
      response: responses(200, Type.Array(Type.Ref(Endpoint)), [], { list: true })
    }
  }, async (req) => {
    const { page, pageSize } = req.query
    const orgId = req.principal!.org.id
    const [rows, count] = await Promise.all([
      db.selectFrom('webhook_endpoints').selectAll().where('org_id', '=', orgId).orderBy('created_at', 'desc').orderBy('id')
        .limit(pageSize).offset((page - 1) * pageSize).execute(),
      db.selectFrom('webhook_endpoints').select(eb => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId).executeTakeFirstOrThrow()
    ])
    return { data: rows.map(endpointView), meta: { total: Number(count.n), page, pageSize } }
  })

  app.get('/webhooks/:id', {
    schema: { operationId: 'getWebhook', tags: ['alerts'], summary: 'One destination', params: IdParams, response: responses(200, Type.Ref(Endpoint), [404]) }
  }, async (req) => ({ data: endpointView(await findEndpoint(req.principal!.org.id, req.params.id)) }))

  app.patch('/webhooks/:id', {
    schema: {
      operationId: 'updateWebhook',
      tags: ['alerts'],
      summary: 'Update a destination',
      params: IdParams,
      body: Type.Object({
        url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
        description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
        enabled: Type.Optional(Type.Boolean()),
        ...filterFields
      }, { additionalProperties: false, minProperties: 1 }),
      response: responses(200, Type.Ref(Endpoint), [404])
    }
  }, async (req) => {
    const org = req.principal!.org
    const current = await findEndpoint(org.id, req.params.id)
    const input = req.body as EndpointInput
    await checkPlanAndFilters(org, {
      minSeverity: input.minSeverity ?? current.min_severity,
      changeTypes: input.changeTypes !== undefined ? input.changeTypes : current.change_types,
      domainIds: input.domainIds !== undefined ? input.domainIds : current.domain_ids,
      pageTypes: input.pageTypes !== undefined ? input.pageTypes : current.page_types
    }, current.kind)
    const url = input.url !== undefined ? await checkUrl(input.url, current.kind) : undefined
    const row = await db.updateTable('webhook_endpoints').set({
      updated_at: new Date(),
      ...(url !== undefined ? { url } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      ...(input.events !== undefined ? { events: input.events } : {}),
      ...(input.minSeverity !== undefined ? { min_severity: input.minSeverity } : {}),
      ...(input.changeTypes !== undefined ? { change_types: input.changeTypes } : {}),
      ...(input.domainIds !== undefined ? { domain_ids: input.domainIds } : {}),
      ...(input.pageTypes !== undefined ? { page_types: input.pageTypes } : {})
    }).where('id', '=', current.id).returningAll().executeTakeFirstOrThrow()
    return { data: endpointView(row) }
  })

  app.delete('/webhooks/:id', {
    schema: {
      operationId: 'deleteWebhook',
      tags: ['alerts'],
      summary: 'Delete a destination and its delivery history',
      params: IdParams,
      response: responses(200, Type.Object({ deleted: Type.Boolean(), message: Type.String() }), [404])
    }
  }, async (req) => {
    const row = await findEndpoint(req.principal!.org.id, req.params.id)
    await db.deleteFrom('webhook_endpoints').where('id', '=', row.id).execute()
    return { data: { deleted: true, message: `Destination ${new URL(row.url).host} deleted` } }
  })

  app.post('/webhooks/:id/test', {
    schema: {
      operationId: 'testWebhook',
      tags: ['alerts'],
      summary: 'Send a test event',
      description: 'Queues a webhook.test delivery (signed like any other); follow it in the deliveries list.',
      params: IdParams,
      response: responses(200, Type.Ref(Delivery), [404])
    }
  }, async (req) => {
    const org = req.principal!.org
    const endpoint = await findEndpoint(org.id, req.params.id)
    const id = randomUUID()
    const [deliveryId] = await queue.transaction(db, tx => queueDeliveries(tx, queue, [{
      endpoint_id: endpoint.id, org_id: org.id, event_type: 'webhook.test', event_id: id, payload: { message: 'Sitewatch test event', endpointId: endpoint.id }
    }]))
    const row = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', deliveryId).executeTakeFirstOrThrow()
    return { data: deliveryView(row) }
  })

  app.get('/webhooks/:id/deliveries', {
    schema: {
      operationId: 'listWebhookDeliveries',
      tags: ['alerts'],
      summary: 'Recent deliveries of a destination, newest first',
      params: IdParams,
      querystring: Pagination(20, 100),
      response: responses(200, Type.Array(Type.Ref(Delivery)), [404], { list: true })
    }
  }, async (req) => {
    const endpoint = await findEndpoint(req.principal!.org.id, req.params.id)
    const { page, pageSize } = req.query
    const [rows, count] = await Promise.all([
      db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpoint.id).orderBy('created_at', 'desc').orderBy('id')
        .limit(pageSize).offset((page - 1) * pageSize).execute(),
      db.selectFrom('webhook_deliveries').select(eb => eb.fn.countAll<number>().as('n')).where('endpoint_id', '=', endpoint.id).executeTakeFirstOrThrow()
    ])
    return { data: rows.map(deliveryView), meta: { total: Number(count.n), page, pageSize } }
  })
}
