import type { Selectable } from 'kysely'
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from '../store/schema.js'

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
    minSeverity: e.min_severity,
    changeTypes: e.change_types,
    domainIds: e.domain_ids,
    pageTypes: e.page_types,
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
