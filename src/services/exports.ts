import { stringify } from 'csv-stringify/sync'
import { changesForExport, type ChangeFilters, EXPORT_CAP } from '../store/changes.js'
import type { Db } from '../store/db.js'

// What leaves Sitewatch for a spreadsheet: a filter's changes, a domain's pages, as CSV
// (RFC 4180, a header row, UTF-8). A cell that a spreadsheet would run as a formula
// (=, +, -, @ first) is written as text: page text is the watched sites', not ours.

const csv = (header: string[], rows: unknown[][]) =>
  stringify([header, ...rows], { escape_formulas: true, record_delimiter: 'windows' })

/** The changes that pass `filters`, newest first, at most EXPORT_CAP; `appBase` makes each one's link. */
export async function changesCsv (db: Db, orgId: string, filters: ChangeFilters, appBase: string): Promise<string> {
  const rows = await changesForExport(db, orgId, filters)
  return csv(
    [
      'createdAt', 'domain', 'pageUrl', 'pageType', 'changeType', 'severity', 'confidence', 'summary',
      'acknowledgedAt', 'link'
    ],
    rows.map(r => [
      r.created_at.toISOString(), r.hostname, r.url, r.page_type, r.change_type, r.severity,
      Number(r.confidence).toFixed(2), r.summary, r.acknowledged_at?.toISOString() ?? '',
      `${appBase}/app/changes/${r.id}`
    ])
  )
}

export { EXPORT_CAP }

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
