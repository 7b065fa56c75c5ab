import { gunzipSync } from 'node:zlib'
import { buildDiff, findMoney } from '../detection/detect.js'
import { notFound } from '../vocabulary/errors.js'
import type { Fact, FactKind, PricingTable } from '../vocabulary/core.js'
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
 * A pricing page's prices over time: each plan's price of one currency, period, billing
 * and kind is a series, read from the tables its price changes hold (its first point the
 * table before the first change, then one point per change that saw it), and every price
 * move its changes' alerts told (their facts: a usage price cut the tables did not hold,
 * a page read as text) is on its plan's line too. Up to eight series, the most moved first.
 */
export function priceHistory (
  changes: ReadonlyArray<{
    createdAt: Date | string
    diffData: { pricing?: { before: PricingTable, after: PricingTable }, facts?: readonly Fact[] }
  }>
): PriceSeries[] {
  const series = new Map<string, PriceSeries>()
  const point = (name: string, unit: string, at: Date, amount: number, text: string) => {
    const key = `${name}|${unit}`
    const s = series.get(key) ?? { name, unit, points: [] }
    const last = s.points.at(-1)
    if (!last || last.amount !== amount || last.at.getTime() !== at.getTime()) s.points.push({ at, amount, text })
    series.set(key, s)
  }
  const unitOf = (currency: string, period: string) => `${currency}${period ? `/${period}` : ''}`
  const add = (table: PricingTable, at: Date) => {
    for (const plan of table.plans) {
      for (const p of plan.prices) {
        const name = `${plan.name}${p.label ? ` – ${p.label}` : ''}${p.billing === 'yearly' ? ' (billed yearly)' : ''}`
        point(name, unitOf(p.currency, p.period), at, p.amount, p.text)
      }
    }
  }
  const time = (c: { createdAt: Date | string }) => new Date(c.createdAt).getTime()
  const sorted = [...changes].sort((a, b) => time(a) - time(b))
  const priced = sorted.filter(c => c.diffData.pricing)
  // The table before the first change stands at that change's time minus a moment: the price the page had then.
  if (priced.length > 0) add(priced[0].diffData.pricing!.before, new Date(time(priced[0]) - 1))
  for (const c of priced) add(c.diffData.pricing!.after, new Date(time(c)))
  for (const c of sorted) {
    for (const f of c.diffData.facts ?? []) {
      if (!MOVES.includes(f.kind) || !f.subject) continue
      const [was, is] = [findMoney(f.before ?? '')[0], findMoney(f.after ?? '')[0]]
      // The price before the move, where its line does not already stand at it just before.
      const line = was && series.get(`${f.subject}|${unitOf(was.currency, was.period)}`)
      const prior = line?.points.filter(x => x.at.getTime() < time(c))
        .reduce<PriceSeries['points'][number] | undefined>((a, x) => !a || x.at > a.at ? x : a, undefined)
      if (was && prior?.amount !== was.amount) {
        point(f.subject, unitOf(was.currency, was.period), new Date(time(c) - 1), was.amount, was.raw)
      }
      if (is) point(f.subject, unitOf(is.currency, is.period), new Date(time(c)), is.amount, is.raw)
    }
  }
  for (const s of series.values()) {
    s.points.sort((a, b) => a.at.getTime() - b.at.getTime())
    // A point told twice (by the table and by the facts) is drawn once.
    s.points = s.points.filter((x, i, all) =>
      i === 0 || x.at.getTime() !== all[i - 1].at.getTime() || x.amount !== all[i - 1].amount)
  }
  const moves = (s: PriceSeries) => new Set(s.points.map(p => p.amount)).size
  return [...series.values()].sort((a, b) => moves(b) - moves(a)).slice(0, 8)
}

/** The facts that put a price on a plan's line. */
const MOVES: readonly FactKind[] = ['price_up', 'price_down', 'price_changed', 'price_added', 'price_removed']
