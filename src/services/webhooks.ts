import { randomUUID } from 'node:crypto'
import { pointsToPublicAddress } from '../crawl/address.js'
import { AppError, notFound } from '../vocabulary/errors.js'
import { PLANS, type Org } from '../vocabulary/plans.js'
import { ALERT_EVENTS, normalTags, type EndpointKind } from '../vocabulary/core.js'
import { filtersOfMatch, type Filters } from '../vocabulary/alert-rules.js'
import { type JobQueue } from '../queue/queue.js'
import { QUEUE } from '../queue/queues.js'
import { inTransaction, type Tx } from '../store/db.js'
import { countOwnedDomains } from '../store/domains.js'
import {
  deleteEndpoint,
  endpointView,
  findEndpoint,
  getDelivery,
  insertDeliveries,
  insertEndpoint,
  updateEndpoint,
  type EndpointRow,
  type EndpointSettings,
  type NewDelivery
} from '../store/webhooks.js'
import type { ServiceContext } from './context.js'
import { audited, recordAudit } from './audit.js'

/** Where a client may send alerts: public addresses, and what ALERT_HOST_MAP and ALERT_ALLOW_PRIVATE_NETWORKS allow. */
export interface DestinationRules {
  hostMap: ReadonlyMap<string, URL>
  allowPrivateNetworks: boolean
}

/** The URL rules: http(s), no credentials, a Slack incoming webhook for Slack, no private address. */
async function checkUrl (raw: string, kind: EndpointKind, rules: DestinationRules): Promise<string> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new AppError('VALIDATION_ERROR', 'url must be an absolute URL', { field: 'url' })
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new AppError('VALIDATION_ERROR', 'url must be http or https', { field: 'url' })
  }
  if (url.username || url.password) {
    throw new AppError('VALIDATION_ERROR', 'url must not carry credentials', { field: 'url' })
  }
  if (
    kind === 'slack' &&
    (url.protocol !== 'https:' || url.hostname !== 'hooks.slack.com' || !url.pathname.startsWith('/services/'))
  ) {
    throw new AppError(
      'VALIDATION_ERROR',
      'a Slack destination is an incoming-webhook URL: https://hooks.slack.com/services/…',
      { field: 'url' }
    )
  }
  if (!(await pointsToPublicAddress(url, rules))) {
    throw new AppError('VALIDATION_ERROR', 'url must point to a public address', { field: 'url' })
  }
  return url.toString()
}

/** Slack needs features.slackIntegration, filters beyond the defaults features.customAlertRules (403 otherwise). */
async function checkPlanAndFilters (
  ctx: ServiceContext,
  org: Org,
  s: EndpointSettings,
  kind: EndpointKind
): Promise<void> {
  const plan = PLANS[org.plan]
  if (kind === 'slack' && !plan.features.slackIntegration) {
    throw new AppError('FORBIDDEN', `The ${org.plan} plan does not include Slack integration`)
  }
  const custom =
    (s.minSeverity !== undefined && s.minSeverity !== 'low') ||
    (s.changeTypes ?? null) !== null ||
    (s.domainIds ?? null) !== null ||
    (s.pageTypes ?? null) !== null ||
    (s.tags ?? null) !== null
  if (custom && !plan.features.customAlertRules) {
    throw new AppError(
      'FORBIDDEN',
      `The ${org.plan} plan does not include custom alert rules ` +
        '(minSeverity, changeTypes, domainIds, pageTypes, tags); they come with enterprise'
    )
  }
  if (s.domainIds?.length && (await countOwnedDomains(ctx.db, org.id, s.domainIds)) !== s.domainIds.length) {
    throw new AppError('VALIDATION_ERROR', 'domainIds names a domain that does not exist', { field: 'domainIds' })
  }
}

export async function requireEndpoint (ctx: ServiceContext, orgId: string, id: string): Promise<EndpointRow> {
  const row = await findEndpoint(ctx.db, orgId, id)
  if (!row) throw notFound('Webhook endpoint')
  return row
}

/** A new destination, with its signing secret (the only time it is shown). */
export async function createWebhook (
  ctx: ServiceContext,
  rules: DestinationRules,
  org: Org,
  input: EndpointSettings & { url: string, kind?: EndpointKind }
) {
  const kind = input.kind ?? 'webhook'
  await checkPlanAndFilters(ctx, org, input, kind)
  const url = await checkUrl(input.url, kind, rules)
  const row = await inTransaction(ctx.db, async tx => {
    const row = await insertEndpoint(tx, org.id, kind, {
      ...input, url, events: input.events ?? [...ALERT_EVENTS], tags: keptTags(input.tags)
    })
    await recordAudit(tx, {
      action: 'webhook.created',
      objectId: row.id,
      objectLabel: hostOf(url),
      details: settingsSaid(input)
    })
    return row
  })
  return { ...endpointView(row), secret: row.secret }
}

/** Changes a destination; its filters as they will be are checked against the plan. */
export async function changeWebhook (
  ctx: ServiceContext,
  rules: DestinationRules,
  org: Org,
  id: string,
  input: EndpointSettings
) {
  const current = await requireEndpoint(ctx, org.id, id)
  const was = filtersOfMatch(current.match)
  const filters: Filters = {
    minSeverity: input.minSeverity ?? was.minSeverity,
    changeTypes: input.changeTypes !== undefined ? input.changeTypes : was.changeTypes,
    domainIds: input.domainIds !== undefined ? input.domainIds : was.domainIds,
    pageTypes: input.pageTypes !== undefined ? input.pageTypes : was.pageTypes,
    tags: input.tags !== undefined ? keptTags(input.tags) ?? null : was.tags
  }
  await checkPlanAndFilters(ctx, org, filters, current.kind)
  const url = input.url !== undefined ? await checkUrl(input.url, current.kind, rules) : undefined
  const note = {
    action: 'webhook.updated' as const,
    objectId: current.id,
    objectLabel: hostOf(url ?? current.url),
    details: settingsSaid(input)
  }
  const row = await audited(ctx.db, note, async tx => await updateEndpoint(tx, current.id, { ...input, url, filters }))
  return endpointView(row)
}

/** What the audit log keeps of a destination: its host (a Slack address is its secret). */
const hostOf = (url: string) => new URL(url).host

/** What the audit log says of a destination's settings: all but its address. */
function settingsSaid (input: EndpointSettings & { url?: string }): Record<string, unknown> {
  const { url: _url, ...said } = input
  return said
}

/** A filter's tags as domains keep them (normalTags); null and undefined as they are. */
const keptTags = (tags: string[] | null | undefined) => tags ? normalTags(tags) : tags

/** Deletes a destination and its delivery history; the host it pointed to. */
export async function removeWebhook (ctx: ServiceContext, orgId: string, id: string): Promise<string> {
  const row = await requireEndpoint(ctx, orgId, id)
  await audited(ctx.db, { action: 'webhook.deleted', objectId: row.id, objectLabel: hostOf(row.url) }, async tx => {
    await deleteEndpoint(tx, row.id)
  })
  return hostOf(row.url)
}

/** Inserts deliveries (once per endpoint and event) and queues a delivery job for each new one; their ids. */
export async function queueDeliveries (tx: Tx, queue: JobQueue, deliveries: NewDelivery[]): Promise<string[]> {
  const inserted = await insertDeliveries(tx, deliveries)
  await queue.enqueueFair(tx, QUEUE.deliver,
    inserted.map(d => ({ deliveryId: d.id, orgId: d.org_id, key: d.endpoint_id })))
  return inserted.map(d => d.id)
}

/** Queues a webhook.test delivery to the destination, signed like any other. */
export async function sendTestEvent (ctx: ServiceContext, org: Org, id: string) {
  const endpoint = await requireEndpoint(ctx, org.id, id)
  const [deliveryId] = await ctx.queue.transaction(ctx.db, async tx => {
    await recordAudit(tx, { action: 'webhook.tested', objectId: endpoint.id, objectLabel: hostOf(endpoint.url) })
    return await queueDeliveries(tx, ctx.queue, [
      {
        endpoint_id: endpoint.id,
        org_id: org.id,
        event_type: 'webhook.test',
        event_id: randomUUID(),
        payload: { message: 'Sitewatch test event', endpointId: endpoint.id }
      }
    ])
  })
  return await getDelivery(ctx.db, deliveryId)
}
