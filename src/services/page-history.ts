import { gunzipSync } from 'node:zlib'
import { buildDiff } from '../detection/detect.js'
import { notFound } from '../vocabulary/errors.js'
import type { PricingTable } from '../vocabulary/core.js'
import { listChanges } from '../store/changes.js'
import { getSnapshotWithText, listSnapshots } from '../store/page-versions.js'
import type { Db } from '../store/db.js'
import { passagesView, type ChangeView } from './change-view.js'

// A watched page's history, for a person: its snapshots and changes as one timeline, the
// text of any version, two versions compared, and a pricing page's prices over time.

export interface TimelineEntry {
  at: Date
  snapshot?: { id: string, textLength: number, status: number | null, pictured: boolean }
  change?: {
    id: string
    summary: string
    severity: string
    changeType: string
    snapshotBeforeId: string | null
    snapshotAfterId: string | null
  }
}

const TIMELINE = 50

/** The page's newest snapshots and its changes among them, newest first. */
export async function pageTimeline (db: Db, orgId: string, pageId: string, page: number) {
  const [snapshots, changes] = await Promise.all([
    listSnapshots(db, pageId, page, TIMELINE),
    listChanges(db, orgId, { pageId }, 1, 500)
  ])
  const oldest = snapshots.items.at(-1)?.created_at
  const entries: TimelineEntry[] = ([
    ...snapshots.items.map(s => ({
      at: new Date(s.created_at),
      snapshot: { id: s.id, textLength: s.text_length, status: s.http_status, pictured: s.width !== null }
    })),
    ...changes.items
      .filter(c => !oldest || new Date(c.createdAt) >= new Date(oldest))
      .map(c => ({
        at: new Date(c.createdAt),
        change: {
          id: c.id,
          summary: c.summary,
          severity: c.severity,
          changeType: c.changeType,
          snapshotBeforeId: c.snapshotBeforeId,
          snapshotAfterId: c.snapshotAfterId
        }
      }))
  ] as TimelineEntry[])
    .sort((a: TimelineEntry, b: TimelineEntry) => b.at.getTime() - a.at.getTime() || (a.change ? -1 : 1))
  return { entries, total: snapshots.total, page, pageSize: TIMELINE, changes: changes.items }
}

/** The most lines of a version's document shown or compared (its reader reads it whole). */
const MAX_DOCUMENT_LINES = 20_000

/**
 * A version's document (an API description, a feed) as lines to read and compare: JSON
 * indented, one member per line (its keys sorted, as the reader compares it: a key that
 * moved is no change), anything else as written.
 */
function documentLines (gzip: Uint8Array): string[] {
  const text = gunzipSync(gzip).toString('utf8')
  let shown = text
  if (/^\s*[{[]/.test(text)) {
    try {
      shown = JSON.stringify(JSON.parse(text), (_key, value: unknown) => value && typeof value === 'object' &&
        !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : value, 2)
    } catch { /* shown as written */ }
  }
  return shown.split(/\r?\n/).slice(0, MAX_DOCUMENT_LINES)
}

/** One version of the page: its text as stored, and the document it was read with (its lines), if any. */
export async function pageVersion (db: Db, pageId: string, snapshotId: string) {
  const s = await getSnapshotWithText(db, pageId, snapshotId)
  if (!s) throw notFound('Version')
  const document = s.document_gzip && s.document_url
    ? { url: s.document_url, lines: documentLines(s.document_gzip) }
    : undefined
  return {
    id: s.id,
    at: new Date(s.created_at),
    lines: s.content === '' ? [] : s.content.split('\n'),
    ...(document ? { document } : {})
  }
}

/**
 * Two versions of the page (`latest`: its newest) and their plain comparison, as a change's
 * diff is: what a person chooses to compare is compared line by line, no reader between.
 */
export async function compareVersions (db: Db, pageId: string, fromId: string, toId: string) {
  const [from, to] = await Promise.all([pageVersion(db, pageId, fromId), pageVersion(db, pageId, toId)])
  const diff = buildDiff({ lines: from.lines, comparable: from.lines }, { lines: to.lines, comparable: to.lines })
  return { from, to, diff }
}

/**
 * Two versions of the page compared, as a change's passages are shown; and, for a page read
 * with a document (an API reference's description, a changelog's feed), its documents
 * compared the same way: the change may have come from there.
 */
export async function versionsCompared (db: Db, pageId: string, fromId: string, toId: string, page: number): Promise<{
  from: Date
  to: Date
  view: ChangeView
  document?: { url: string, view: ChangeView }
}> {
  const { from, to, diff } = await compareVersions(db, pageId, fromId, toId)
  const documents = from.document ?? to.document
    ? {
        url: (to.document ?? from.document)!.url,
        before: from.document?.lines ?? [],
        after: to.document?.lines ?? []
      }
    : undefined
  const documentDiff = documents && buildDiff(
    { lines: documents.before, comparable: documents.before }, { lines: documents.after, comparable: documents.after })
  return {
    from: from.at,
    to: to.at,
    view: passagesView(diff.hunks, to.lines, page),
    ...(documents && documentDiff
      ? { document: { url: documents.url, view: passagesView(documentDiff.hunks, documents.after, 1) } }
      : {})
  }
}

export interface PriceSeries {
  /** "Pro", "Pro (yearly)", with the currency and period it is in. */
  name: string
  unit: string
  points: Array<{ at: Date, amount: number, text: string }>
}

/**
 * A pricing page's prices over time, from the tables its price changes hold: each plan's
 * price of one currency and period is a series, its first point the table before the
 * first change, then one point per change that saw it. Up to eight series, the most
 * moved first.
 */
export function priceHistory (
  changes: ReadonlyArray<{
    createdAt: Date | string
    diffData: { pricing?: { before: PricingTable, after: PricingTable } }
  }>
): PriceSeries[] {
  const series = new Map<string, PriceSeries>()
  const add = (table: PricingTable, at: Date) => {
    for (const plan of table.plans) {
      for (const p of plan.prices) {
        const key = `${plan.name}|${p.currency}|${p.period}|${p.billing ?? ''}`
        const s = series.get(key) ?? {
          name: `${plan.name}${p.billing === 'yearly' ? ' (billed yearly)' : ''}`,
          unit: `${p.currency}${p.period ? `/${p.period}` : ''}`,
          points: []
        }
        const last = s.points.at(-1)
        if (!last || last.amount !== p.amount || last.at.getTime() !== at.getTime()) {
          s.points.push({ at, amount: p.amount, text: p.text })
        }
        series.set(key, s)
      }
    }
  }
  const time = (c: { createdAt: Date | string }) => new Date(c.createdAt).getTime()
  const priced = changes.filter(c => c.diffData.pricing).sort((a, b) => time(a) - time(b))
  if (priced.length === 0) return []
  // The table before the first change stands at that change's time minus a moment: the price the page had then.
  add(priced[0].diffData.pricing!.before, new Date(new Date(priced[0].createdAt).getTime() - 1))
  for (const c of priced) add(c.diffData.pricing!.after, new Date(c.createdAt))
  const moves = (s: PriceSeries) => new Set(s.points.map(p => p.amount)).size
  return [...series.values()].sort((a, b) => moves(b) - moves(a)).slice(0, 8)
}
