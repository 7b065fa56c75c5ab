import { randomBytes, randomUUID } from 'node:crypto'
import { sql, type Selectable } from 'kysely'
import type { AlertEvent, EndpointKind } from '../vocabulary/core.js'
import { filtersOfMatch, matchOfFilters, type Filters } from '../vocabulary/alert-rules.js'
import type { Db } from './db.js'
import { after, createdUs, pageOf, type Cursor } from './lists.js'
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from './schema.js'

// Alert destinations (webhook endpoints, Slack included) and their deliveries.

export type EndpointRow = Selectable<WebhookEndpointsTable>
export type DeliveryRow = Selectable<WebhookDeliveriesTable>

export function endpointView (e: EndpointRow) {
  return {
    id: e.id,
    kind: e.kind,
    url: e.url,
    description: e.description,
    enabled: e.enabled,
    events: e.events,
    ...filtersOfMatch(e.match),
    createdAt: e.created_at,
    updatedAt: e.updated_at
  }
}

export function deliveryView (d: DeliveryRow) {
  return {
    id: d.id,
    endpointId: d.endpoint_id,
    eventType: d.event_type,
    eventId: d.event_id,
    status: d.status,
    attempts: d.attempts,
    responseStatus: d.response_status,
    durationMs: d.duration_ms,
    error: d.error,
    createdAt: d.created_at,
    lastAttemptAt: d.last_attempt_at,
    deliveredAt: d.delivered_at
  }
}

/** What a client sets on a destination; filters left out are null (everything). */
export interface EndpointSettings extends Partial<Filters> {
  url?: string
  description?: string | null
  enabled?: boolean
  events?: AlertEvent[]
}

/** The signing secret of a new endpoint: shown to the client once, kept to sign every delivery. */
function newSecret (): string {
  return `whsec_${randomBytes(24).toString('base64url')}`
}

export async function insertEndpoint (
  db: Db,
  orgId: string,
  kind: EndpointKind,
  s: EndpointSettings & { url: string, events: AlertEvent[] }
): Promise<EndpointRow> {
  return await db
    .insertInto('webhook_endpoints')
    .values({
      org_id: orgId,
      kind,
      url: s.url,
      secret: newSecret(),
      description: s.description ?? null,
      enabled: s.enabled ?? true,
      events: s.events,
      match: JSON.stringify(matchOfFilters({
        minSeverity: s.minSeverity ?? 'low',
        changeTypes: s.changeTypes ?? null,
        domainIds: s.domainIds ?? null,
        pageTypes: s.pageTypes ?? null,
        tags: s.tags ?? null
      }))
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** Sets what `s` gives; its filters, when given, are the whole of them (the caller merged them with the old). */
export async function updateEndpoint (
  db: Db, id: string, s: EndpointSettings & { filters?: Filters }
): Promise<EndpointRow> {
  return await db
    .updateTable('webhook_endpoints')
    .set({
      updated_at: new Date(),
      ...(s.url !== undefined ? { url: s.url } : {}),
      ...(s.description !== undefined ? { description: s.description } : {}),
      ...(s.enabled !== undefined ? { enabled: s.enabled } : {}),
      ...(s.events !== undefined ? { events: s.events } : {}),
      ...(s.filters !== undefined ? { match: JSON.stringify(matchOfFilters(s.filters)) } : {})
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function findEndpoint (db: Db, orgId: string, id: string): Promise<EndpointRow | undefined> {
  return await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .executeTakeFirst()
}

export async function listEndpoints (db: Db, orgId: string, page: number, pageSize: number) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute(),
    db
      .selectFrom('webhook_endpoints')
      .select(eb => eb.fn.countAll<number>().as('n'))
      .where('org_id', '=', orgId)
      .executeTakeFirstOrThrow()
  ])
  return { items: rows.map(endpointView), total: Number(count.n) }
}

/** Deletes an endpoint with its delivery history (the foreign key cascades). */
export async function deleteEndpoint (db: Db, id: string): Promise<void> {
  await db.deleteFrom('webhook_endpoints').where('id', '=', id).execute()
}

/** The enabled endpoints of these organisations that asked for `event`. */
export async function endpointsFor (db: Db, orgIds: string[], event: AlertEvent): Promise<EndpointRow[]> {
  if (orgIds.length === 0) return []
  return await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('org_id', 'in', orgIds)
    .where('enabled', '=', true)
    .where(sql<boolean>`${event} = ANY(events)`)
    .execute()
}

export interface NewDelivery {
  endpoint_id: string
  org_id: string
  event_type: string
  event_id: string
  payload: Record<string, unknown>
}

/** Inserts deliveries, once per endpoint and event (a repeat is skipped); the new ones' ids. */
export async function insertDeliveries (
  tx: Db, deliveries: NewDelivery[]
): Promise<Array<{ id: string, endpoint_id: string, org_id: string }>> {
  if (deliveries.length === 0) return []
  return await tx
    .insertInto('webhook_deliveries')
    .values(deliveries.map(d => ({ ...d, id: randomUUID(), payload: JSON.stringify(d.payload) })))
    .onConflict(oc => oc.columns(['endpoint_id', 'event_type', 'event_id']).doNothing())
    .returning(['id', 'endpoint_id', 'org_id'])
    .execute()
}

export async function getDelivery (db: Db, id: string): Promise<DeliveryRow> {
  return await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

export async function listDeliveries (db: Db, endpointId: string, page: number, pageSize: number, cursor?: Cursor) {
  let q = db.selectFrom('webhook_deliveries').selectAll().select(createdUs('created_at'))
    .where('endpoint_id', '=', endpointId)
  if (cursor) q = q.where(after('created_at', 'id', cursor))
  const [rows, count] = await Promise.all([
    q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(pageSize + 1)
      .offset(cursor ? 0 : (page - 1) * pageSize).execute(),
    db
      .selectFrom('webhook_deliveries')
      .select(eb => eb.fn.countAll<number>().as('n'))
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirstOrThrow()
  ])
  const { page: shown, next } = pageOf(rows, pageSize)
  return { items: shown.map(deliveryView), total: Number(count.n), next }
}

/** A delivery with where and how it goes, for an attempt at it. */
export async function findDeliveryToSend (db: Db, id: string) {
  return await db
    .selectFrom('webhook_deliveries as w')
    .innerJoin('webhook_endpoints as e', 'e.id', 'w.endpoint_id')
    .select([
      'w.id',
      'w.event_type',
      'w.status',
      'w.payload',
      'w.created_at',
      'e.url',
      'e.kind',
      'e.secret',
      'e.enabled'
    ])
    .where('w.id', '=', id)
    .executeTakeFirst()
}

/** Fails a delivery still pending (its endpoint disabled, its attempts given up); one delivered stays so. */
export async function markDeliveryFailed (db: Db, id: string, error: string): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ status: 'failed', error })
    .where('id', '=', id).where('status', '=', 'pending').execute()
}

export interface DeliveryAttempt {
  status?: number
  durationMs?: number
  error: string | null
  lastAttempt: boolean
}

/** Records one attempt: delivered when it has no error, failed when it was the last, else still pending. */
export async function recordAttempt (db: Db, id: string, a: DeliveryAttempt, at = new Date()): Promise<void> {
  const delivered = a.error === null
  await db
    .updateTable('webhook_deliveries')
    .set({
      attempts: sql`attempts + 1`,
      last_attempt_at: at,
      response_status: a.status ?? null,
      duration_ms: a.durationMs ?? null,
      error: a.error,
      status: delivered ? 'delivered' : a.lastAttempt ? 'failed' : 'pending',
      ...(delivered ? { delivered_at: at } : {})
    })
    .where('id', '=', id)
    .execute()
}
