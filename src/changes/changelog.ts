import type { AnyNode, Element } from 'domhandler'
import { DomUtils, parseDocument, parseFeed } from 'htmlparser2'
import type { ChangelogEntry, DiffData, Severity } from '../domain/vocabulary.js'
import type { DetectedChange } from './classify.js'
import { fold, LANGUAGES, matcher, MONTHS, RELEASE_WORDS } from './lexicon.js'
import { cut, plain } from './quote.js'
import { blockText, contains, lineKey, SKIPPED, takeOver } from './structure.js'

// A changelog page as entries: version and/or date, title, items. Read from headed
// release sections (Keep a Changelog rendered to HTML, "November 20, 2026" headings) or,
// when no heading names a release, from release cards (an element around each <time>).
// A new entry is a change of its own, weighed by what it says; an old entry edited is a
// low one; the same entries re-ordered or re-rendered are nothing. Pure: HTML in.

export interface ChangelogReading {
  entries: ChangelogEntry[]
  /** The text of the entries' blocks (see lineKey): a text change made only of them is the entries' to report. */
  lines: Set<string>
}

const VERSION = /(?<![\p{L}\d.])v?(\d+\.\d+(?:\.\d+)?(?:-[0-9A-Za-z.]+)?)(?![\d.]*\d)/u
const ISO_DATE = /\b(\d{4})-(\d{2})-(\d{2})\b/
const MONTH_NAMES = [...MONTHS.keys()].join('|')
const DAY_MONTH_YEAR =
  new RegExp(`\\b(\\d{1,2})\\.?\\s+(?:de\\s+)?(${MONTH_NAMES})\\.?,?\\s+(?:de\\s+)?(\\d{4})\\b`, 'i')
const MONTH_DAY_YEAR = new RegExp(`\\b(${MONTH_NAMES})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'i')
/** Keep a Changelog's sections: an item under one is written "Section: item". */
const KAC_SECTION = /^(?:added|changed|deprecated|removed|fixed|security|new|improved|improvements|fixes|bug fixes)$/i
const HEADING = /^h([1-6])$/
const MAX_ITEMS = 50

/** The date a text writes, as YYYY-MM-DD, and what it was written as. */
function dateIn (text: string): { iso: string, written: string } | undefined {
  const folded = fold(text)
  const pad = (n: number | string) => String(n).padStart(2, '0')
  let m = ISO_DATE.exec(folded)
  if (m) return { iso: `${m[1]}-${m[2]}-${m[3]}`, written: m[0] }
  m = DAY_MONTH_YEAR.exec(folded)
  if (m) return { iso: `${m[3]}-${pad(MONTHS.get(m[2].toLowerCase())!)}-${pad(m[1])}`, written: m[0] }
  m = MONTH_DAY_YEAR.exec(folded)
  if (m) return { iso: `${m[3]}-${pad(MONTHS.get(m[1].toLowerCase())!)}-${pad(m[2])}`, written: m[0] }
  return undefined
}

/** A heading's or card's version, date and what is left of its words. */
function named (text: string): { version?: string, date?: string, rest: string } {
  const date = dateIn(text)
  let rest = fold(text)
  if (date) rest = rest.replace(date.written, ' ')
  const version = VERSION.exec(rest)?.[1]
  if (version) rest = rest.replace(VERSION, ' ')
  rest = rest.replace(/\[\s*\]|\(\s*\)|\b(?:version|release|v)\b/gi, ' ').replace(/^[\s\-–—:|·•,]+|[\s\-–—:|·•,]+$/g, '')
  // The words as the page wrote them (accents back): their span in the original text.
  const kept = rest ? text.slice(fold(text).indexOf(rest), fold(text).indexOf(rest) + rest.length) : ''
  return { ...(version ? { version } : {}), ...(date ? { date: date.iso } : {}), rest: kept.trim() }
}

const elementsOf = (root: AnyNode[]): Element[] => DomUtils.findAll(() => true, root)
const isBlockParent = (el: Element) => el.children.some(c => c.type === 'tag' && /^(?:p|ul|ol|li|div|h\d|section|article)$/.test(c.name))

export function readChangelog (html: string): ChangelogReading {
  const doc = parseDocument(html)
  for (const el of DomUtils.findAll(e => SKIPPED.has(e.name), doc.children)) DomUtils.removeElement(el)
  const lines = new Set<string>()
  const entries = headedEntries(doc.children, lines)
  return { entries: entries.length > 0 ? entries : cardEntries(doc.children, lines), lines }
}

/** The RSS or Atom feeds a page links to (`<link rel="alternate">`). */
export function feedLinks (html: string, pageUrl: string): string[] {
  const links = DomUtils.findAll(e => e.name === 'link' && /\balternate\b/i.test(e.attribs.rel ?? '') &&
    /(?:rss|atom)\+xml/i.test(e.attribs.type ?? ''), parseDocument(html).children)
  const out: string[] = []
  for (const l of links) {
    try {
      const url = new URL(l.attribs.href ?? '', pageUrl)
      if (/^https?:$/.test(url.protocol) && !out.includes(url.href)) out.push(url.href)
    } catch { /* not an address */ }
  }
  return out
}

/** A changelog's feed as entries: each item's title (its version and date), its date, its content's items. */
export function readFeed (xml: string): ChangelogReading {
  const feed = parseFeed(xml)
  if (!feed) throw new Error('not an RSS or Atom feed')
  const lines = new Set<string>()
  const entries = feed.items.slice(0, 500).map(item => {
    const n = named(item.title ?? '')
    const body = parseDocument(item.description ?? '')
    const listed = DomUtils.findAll(e => e.name === 'li', body.children).map(blockText).filter(Boolean)
    const items = listed.length > 0
      ? listed
      : DomUtils.findAll(e => e.name === 'p', body.children).map(blockText).filter(Boolean)
    const text = items.length > 0 ? items : [blockText(body)].filter(Boolean)
    for (const x of [item.title ?? '', ...text]) lines.add(lineKey(x))
    const published = item.pubDate && !Number.isNaN(item.pubDate.getTime()) ? item.pubDate : undefined
    const date = published ? published.toISOString().slice(0, 10) : n.date
    return entryOf({ ...n, ...(date ? { date } : {}) }, n.rest, text.slice(0, MAX_ITEMS))
  })
  return { entries, lines }
}

/** Entries under headings that name a version or a date, at the level most of them share. */
function headedEntries (root: AnyNode[], lines: Set<string>): ChangelogEntry[] {
  const all = elementsOf(root)
  const headings = all.map((el, order) => ({ el, order, level: Number(HEADING.exec(el.name)?.[1] ?? 0) }))
    .filter(h => h.level > 0)
  const releases = headings.filter(h => { const n = named(blockText(h.el)); return n.version ?? n.date })
  if (releases.length === 0) return []
  const counts = new Map<number, number>()
  for (const r of releases) counts.set(r.level, (counts.get(r.level) ?? 0) + 1)
  const level = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0][0]
  const order = new Map(all.map((el, i) => [el, i]))
  const entries: ChangelogEntry[] = []
  for (const r of releases.filter(x => x.level === level)) {
    const end = headings.find(h => h.order > r.order && h.level <= level)?.order ?? Infinity
    const within = all.filter(el => order.get(el)! > r.order && order.get(el)! < end)
    const n = named(blockText(r.el))
    lines.add(lineKey(blockText(r.el)))
    const items: string[] = []
    let section: string | undefined
    let title = n.rest
    const lists = within.some(el => el.name === 'li')
    const hasItems = (li: Element) => within.some(x => x !== li && x.name === 'li' && contains(li, x))
    for (const el of within) {
      const h = HEADING.exec(el.name)
      const text = blockText(el)
      if (h) {
        lines.add(lineKey(text))
        if (KAC_SECTION.test(text)) section = text
        else if (!title) title = text
        else section = text
      } else if (lists ? el.name === 'li' && !hasItems(el) : el.name === 'p') {
        if (!text) continue
        lines.add(lineKey(text))
        if (items.length < MAX_ITEMS) items.push(section && KAC_SECTION.test(section) ? `${section}: ${text}` : text)
      } else if (!isBlockParent(el) && text) {
        lines.add(lineKey(text))
      }
    }
    entries.push(entryOf(n, title, items))
  }
  return entries
}

/** Release cards: the element around each <time> that holds no other, its heading the title. */
function cardEntries (root: AnyNode[], lines: Set<string>): ChangelogEntry[] {
  const times = DomUtils.findAll(e => e.name === 'time', root)
  const entries: ChangelogEntry[] = []
  for (const time of times) {
    let card: Element = time
    while (card.parent?.type === 'tag' && !times.some(t => t !== time && contains(card.parent as Element, t))) {
      card = card.parent
    }
    if (card === time) continue
    const inside = elementsOf(card.children)
    const heading = inside.find(el => HEADING.test(el.name))
    const date = dateIn(time.attribs.datetime ?? '') ?? dateIn(blockText(time))
    const n = named(heading ? blockText(heading) : '')
    const lists = inside.some(el => el.name === 'li')
    const items = inside.filter(el => lists ? el.name === 'li' : el.name === 'p' && !contains(el, time))
      .map(blockText).filter(Boolean).slice(0, MAX_ITEMS)
    for (const el of inside) if (!isBlockParent(el) && blockText(el)) lines.add(lineKey(blockText(el)))
    lines.add(lineKey(blockText(time)))
    entries.push(entryOf({ ...n, ...(date ? { date: date.iso } : {}) }, n.rest, items))
  }
  return entries
}

function entryOf (n: { version?: string, date?: string }, title: string, items: string[]): ChangelogEntry {
  const entry: ChangelogEntry = { title: title || n.version || n.date || items[0] || '', items }
  if (n.version) entry.version = n.version
  if (n.date) entry.date = n.date
  return entry
}

/** An entry's identity across versions of the page: its version, else its date and title. */
const entryKey = (e: ChangelogEntry) => e.version ? `v ${e.version}` : `d ${e.date ?? ''} ${lineKey(e.title)}`
const sameEntry = (a: ChangelogEntry, b: ChangelogEntry) =>
  lineKey(a.title) === lineKey(b.title) && a.items.length === b.items.length &&
  a.items.every((x, i) => lineKey(x) === lineKey(b.items[i]))

const words = (kind: keyof typeof RELEASE_WORDS) => matcher(RELEASE_WORDS[kind], LANGUAGES)

/** What a new entry is, by what it says: its type and severity. */
function weigh (e: ChangelogEntry): { changeType: DetectedChange['changeType'], severity: Severity } {
  const text = fold([e.title, ...e.items].join('\n'))
  const added = words('added').test(text)
  const changeType = added ? 'feature_added' : 'content_change'
  if (words('breaking').test(text)) return { changeType, severity: 'critical' }
  if (words('removed').test(text) || words('security').test(text) || words('pricing').test(text)) {
    return { changeType, severity: 'high' }
  }
  if (words('deprecated').test(text) || added) return { changeType, severity: 'medium' }
  return { changeType, severity: 'low' }
}

const MAX_SUMMARY = 200
const EDITED = { changeType: 'content_change', severity: 'low' } as const

function summaryOf (e: ChangelogEntry, edited: boolean): string {
  const name = [e.version, e.date && e.version ? `(${e.date})` : e.date].filter(Boolean).join(' ')
  const lead = edited ? `Changelog ${name} edited` : `Changelog ${name}`
  const title = e.title && e.title !== e.version && e.title !== e.date ? e.title : ''
  const shown = [title, ...e.items.filter(i => i !== title).slice(0, title ? 1 : 2)].filter(Boolean).map(x => plain(x))
  const more = e.items.length - (shown.length - (title ? 1 : 0))
  return cut(`${lead}: ${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}`, MAX_SUMMARY)
}

/** New entries and edited ones, between two readings of a changelog. */
export function changelogChanges (
  before: ChangelogEntry[], after: ChangelogEntry[], diff: Omit<DiffData, 'changelog'>
): DetectedChange[] {
  const was = new Map(before.map(e => [entryKey(e), e]))
  const out: DetectedChange[] = []
  for (const e of after) {
    const old = was.get(entryKey(e))
    if (old && sameEntry(old, e)) continue
    // An old entry edited is a low content_change, whatever it says.
    const { changeType, severity } = old ? EDITED : weigh(e)
    const summary = summaryOf(e, old !== undefined)
    out.push({ changeType, severity, confidence: 0.9, summary, diffData: { ...diff, changelog: e } })
  }
  return out
}

/**
 * The changes of a changelog page's text with its entries read on both sides: a text
 * change made only of entries' lines is left to them, and each new or edited entry is a
 * change with that text's diff.
 */
export function withChangelog (
  text: DetectedChange[], before: ChangelogReading, after: ChangelogReading
): DetectedChange[] {
  if (before.entries.length === 0 || after.entries.length === 0) return text
  const ours = (line: string) => {
    const key = lineKey(plain(line))
    return key === '' || before.lines.has(key) || after.lines.has(key)
  }
  const { kept, diff } = takeOver(text, ours)
  return [...changelogChanges(before.entries, after.entries, diff), ...kept]
}
