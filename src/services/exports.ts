import { stringify } from 'csv-stringify/sync'
import { changesForExport, type ChangeFilters, EXPORT_CAP } from '../store/changes.js'
import type { Db } from '../store/db.js'
import { allAuditEvents, type AuditFilters } from '../store/audit-events.js'
import { recordEvent } from './audit.js'

// What leaves Sitewatch for a spreadsheet: a filter's changes, a domain's pages, as CSV
// (RFC 4180, a header row, UTF-8). A cell that a spreadsheet would run as a formula
// (=, +, -, @ first) is written as text: page text is the watched sites', not ours.

const csv = (header: string[], rows: unknown[][]) =>
  stringify([header, ...rows], { escape_formulas: true, record_delimiter: 'windows' })

/** The changes that pass `filters`, newest first, at most EXPORT_CAP; `appBase` makes each one's link. */
export async function changesCsv (db: Db, orgId: string, filters: ChangeFilters, appBase: string): Promise<string> {
  const rows = await changesForExport(db, orgId, filters)
  await exported(db, orgId, 'changes', rows.length, filters)
  return csv(
    [
      'createdAt', 'domain', 'pageUrl', 'pageType', 'changeType', 'severity', 'confidence', 'summary',
      'acknowledgedAt', 'link', 'leadKind', 'leadSubject', 'leadBefore', 'leadAfter', 'leadPercent'
    ],
    rows.map(r => [
      r.created_at.toISOString(), r.hostname, r.url, r.page_type, r.change_type, r.severity,
      Number(r.confidence).toFixed(2), r.summary, r.acknowledged_at?.toISOString() ?? '',
      `${appBase}/app/changes/${r.id}`,
      // The fact that leads the change, as its alert told it (a price's plan, its two values, its move).
      r.lead?.kind ?? '', r.lead?.subject ?? '', r.lead?.before ?? '', r.lead?.after ?? '', r.lead?.percent ?? ''
    ])
  )
}

export { EXPORT_CAP }

/** An export reveals the organisation: it is in the audit log, with what it held. */
async function exported (db: Db, orgId: string, what: string, rows: number, filters: object): Promise<void> {
  const given = Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined))
  await recordEvent(db, { action: 'data.exported', orgId, objectLabel: what, details: { rows, filters: given } })
}

/** The audit events that pass `filters`, newest first, every one (a log is read whole). */
export async function auditCsv (db: Db, orgId: string, filters: AuditFilters): Promise<string> {
  const rows: unknown[][] = []
  for await (const batch of allAuditEvents(db, orgId, filters)) {
    for (const e of batch) {
      rows.push([
        e.at.toISOString(), e.actor.kind, e.actor.label, e.actor.userId ?? e.actor.keyId ?? '', e.ip ?? '', e.action,
        e.object.type, e.object.id ?? '', e.object.label ?? '', JSON.stringify(e.details), e.traceId ?? ''
      ])
    }
  }
  await exported(db, orgId, 'audit events', rows.length, filters)
  return csv(['at', 'actorKind', 'actor', 'actorId', 'ip', 'action', 'objectType', 'objectId', 'object', 'details',
    'traceId'], rows)
}

/** A domain's pages as a spreadsheet's rows. */
export function pagesCsv (pages: ReadonlyArray<{
  url: string
  pageType: string
  status: string
  monitoringEnabled: boolean
  priority: number
  lastCheckAt: Date | null
  lastChangeAt: Date | null
  lastError: string | null
  failure: { kind: string } | null
}>): string {
  return csv(
    ['url', 'pageType', 'status', 'failure', 'monitored', 'priority', 'lastCheckAt', 'lastChangeAt', 'lastError'],
    pages.map(p => [
      p.url, p.pageType, p.status, p.failure?.kind ?? '', p.monitoringEnabled ? 'yes' : 'no', p.priority,
      p.lastCheckAt?.toISOString() ?? '', p.lastChangeAt?.toISOString() ?? '', p.lastError ?? ''
    ])
  )
}

/** A file name's date part, so that exports sort by when they were made. */
export const exportName = (what: string, at = new Date()) => `sitewatch-${what}-${at.toISOString().slice(0, 10)}.csv`
