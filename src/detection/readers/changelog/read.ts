import type { AnyNode, Element } from 'domhandler'
import { DomUtils } from 'htmlparser2'
import { parseDom, parseFeedBounded, removeNodes } from '../../text/dom.js'
import type { ChangelogEntry, Fact } from '../../../vocabulary/core.js'
import { judge } from '../../../vocabulary/facts.js'
import { dateIn } from '../../words/dates.js'
import { fold, LANGUAGES, matcher, RELEASE_WORDS } from '../../words/lexicon.js'
import { cut, plain } from '../../text/quote.js'
import { lineKey } from '../../text/hunks.js'
import { blockText, ownLines } from '../../text/node-text.js'
import {
  type ChangedLine, contains, Spans, type StructuredChange, type StructuredReading, WITH_PLACES
} from '../structure.js'
import { isSkipped } from '../../text/extract.js'
import { isBlockTag, tagOf } from '../../text/tags.js'

// A changelog page as entries: version and/or date, title, items. Read from headed
// release sections (Keep a Changelog rendered to HTML, "November 20, 2026" headings) or,
// when no heading names a release, from release cards (an element around each <time>).
// A new entry is a change of its own, weighed by what it says; an old entry edited is a
// low one; the same entries re-ordered or re-rendered are nothing. Pure: HTML in.

export interface ChangelogReading {
  entries: ChangelogEntry[]
  /** The text of the entries' blocks (see lineKey), each with the entries (their entryKey) it is written in. */
  lines: Map<string, Set<string>>
  /** Where the entries' blocks stand in the page (a feed's entries: nowhere in it). */
  spans?: Spans
}

/** An entry not yet released: Keep a Changelog's "[Unreleased]", in the seven languages. */
const UNRELEASED = /^\[?(?:unreleased|upcoming|non publié|à venir|unveröffentlicht|demnächst|sin publicar|próximamente|non rilasciato|in arrivo|niet uitgebracht|binnenkort|não lançado|em breve)\]?(?:\s+changes)?$/iu

const VERSION = /(?<![\p{L}\d.])v?(\d+\.\d+(?:\.\d+)?(?:-[0-9A-Za-z.]+)?)(?![\d.]*\d)/u
/** Keep a Changelog's sections: an item under one is written "Section: item". */
const KAC_SECTION = /^(?:added|changed|deprecated|removed|fixed|security|new|improved|improvements|fixes|bug fixes)$/i
/** A heading of a release's notes that names nothing (GitHub's "What's Changed"): neither its title nor a section. */
const NOTES_HEADING = /^(?:what['’]?s (?:changed|new)|new contributors|highlights|changes|other changes|full changelog|release notes)$/i
const HEADING = /^h([1-6])$/
const MAX_ITEMS = 50

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

/** What a page's reading holds of its entries' blocks: their lines and where they stand. */
type EntryPlaces = Required<Omit<ChangelogReading, 'entries'>>

const elementsOf = (root: AnyNode[]): Element[] => DomUtils.findAll(() => true, root)

export function readChangelog (html: string): ChangelogReading {
  const doc = parseDom(html, WITH_PLACES)
  removeNodes(DomUtils.findAll(e => isSkipped(tagOf(e.name), e.attribs), doc.children))
  const reading: EntryPlaces = { lines: new Map(), spans: new Spans() }
  const entries = headedEntries(doc.children, reading)
  return { entries: entries.length > 0 ? entries : cardEntries(doc.children, reading), ...reading }
}

/** The RSS or Atom feeds a page links to (`<link rel="alternate">`). */
export function feedLinks (html: string, pageUrl: string): string[] {
  const links = DomUtils.findAll(e => e.name === 'link' && /\balternate\b/i.test(e.attribs.rel ?? '') &&
    /(?:rss|atom)\+xml/i.test(e.attribs.type ?? ''), parseDom(html).children)
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
  const feed = parseFeedBounded(xml)
  if (!feed) throw new Error('not an RSS or Atom feed')
  const lines: ChangelogReading['lines'] = new Map()
  const entries = feed.items.slice(0, 500).map(item => {
    const n = named(item.title ?? '')
    const body = parseDom(item.description ?? '')
    const listed = DomUtils.findAll(e => e.name === 'li', body.children).map(blockText).filter(Boolean)
    const items = listed.length > 0
      ? listed
      : DomUtils.findAll(e => e.name === 'p', body.children).map(blockText).filter(Boolean)
    const text = items.length > 0 ? items : [blockText(body)].filter(Boolean)
    const published = item.pubDate && !Number.isNaN(item.pubDate.getTime()) ? item.pubDate : undefined
    const date = published ? published.toISOString().slice(0, 10) : n.date
    const entry = entryOf({ ...n, ...(date ? { date } : {}) }, n.rest, text.slice(0, MAX_ITEMS))
    for (const x of [item.title ?? '', ...text]) own(lines, x, entryKey(entry))
    return entry
  })
  return { entries, lines }
}

/** A heading's text as an entry's name: its version and date, or that it is not yet released. */
function release (text: string): { version?: string, date?: string, rest: string, unreleased?: true } | undefined {
  if (UNRELEASED.test(text.trim())) return { rest: '', unreleased: true }
  const n = named(text)
  return n.version ?? n.date ? n : undefined
}

/** Adds a block's text to the reading's lines, as written in `entry`. */
function own (lines: ChangelogReading['lines'], text: string, entry: string): void {
  const key = lineKey(text)
  lines.set(key, (lines.get(key) ?? new Set()).add(entry))
}

/** An entry's blocks in the reading: their lines as extraction writes them, and where they stand. */
function ownBlocks (reading: EntryPlaces, blocks: Element[], entry: string): void {
  for (const el of blocks) {
    for (const line of ownLines(el)) own(reading.lines, line, entry)
    reading.spans.add(el, entry)
  }
}

/**
 * The largest element around each release heading that holds no other release, if one
 * holds more than its heading: found from how many releases each element holds, counted
 * once up from each (a changelog of thousands of releases is read in linear time).
 */
function boxesOf (releases: readonly Element[]): (heading: Element) => Element | undefined {
  const held = new Map<AnyNode, number>()
  for (const r of releases) {
    for (let el = r.parent; el && el.type === 'tag'; el = el.parent) held.set(el, (held.get(el) ?? 0) + 1)
  }
  return heading => {
    let box: Element | undefined
    for (let el = heading.parent; el && el.type === 'tag' && (held.get(el) ?? 0) <= 1; el = el.parent) {
      box = el as Element
    }
    return box
  }
}

/** Entries under headings that name a version or a date, at the level most of them share. */
function headedEntries (root: AnyNode[], reading: EntryPlaces): ChangelogEntry[] {
  const all = elementsOf(root)
  const headings = all.map((el, order) => ({ el, order, level: Number(HEADING.exec(el.name)?.[1] ?? 0) }))
    .filter(h => h.level > 0)
  const releases = headings.filter(h => release(blockText(h.el)) !== undefined)
  if (releases.filter(r => !release(blockText(r.el))!.unreleased).length === 0) return []
  const counts = new Map<number, number>()
  for (const r of releases) counts.set(r.level, (counts.get(r.level) ?? 0) + 1)
  const level = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0][0]
  const entries: ChangelogEntry[] = []
  const atLevel = releases.filter(x => x.level === level)
  const boxOf = boxesOf(atLevel.map(x => x.el))
  const headingAt = new Map(headings.map((h, i) => [h, i]))
  for (const r of atLevel) {
    // A release's own box (GitHub's <section> per release): the largest element around its
    // heading that holds no other release. A heading of its level inside it is its notes'
    // ("## What's Changed"), not the next entry.
    const box = boxOf(r.el)
    const inBox = (h: { el: Element, level: number }) => h.level === level && box !== undefined && contains(box, h.el)
    let end = all.length
    for (let i = headingAt.get(r)! + 1; i < headings.length; i++) {
      const h = headings[i]!
      if (h.level <= level && !inBox(h)) {
        end = h.order
        break
      }
    }
    const within = all.slice(r.order + 1, end)
    const n = release(blockText(r.el))!
    const items: string[] = []
    let section: string | undefined
    let title = n.rest
    const lists = within.some(el => el.name === 'li')
    const hasItems = (li: Element) => DomUtils.findOne(x => x.name === 'li', li.children) !== null
    for (const el of within) {
      const h = HEADING.exec(el.name)
      const text = blockText(el)
      if (h) {
        if (KAC_SECTION.test(text)) section = text
        else if (NOTES_HEADING.test(text)) section = undefined
        else if (!title) title = text
        else section = text
      } else if (lists ? el.name === 'li' && !hasItems(el) : el.name === 'p') {
        const labelled = section && KAC_SECTION.test(section) ? `${section}: ${text}` : text
        if (text && items.length < MAX_ITEMS) items.push(labelled)
      }
    }
    const entry = entryOf(n, title, items)
    // The entry's lines as extraction writes them: each block's own ("<li><p>…</p><p>…</p></li>" is
    // two), its box's too (GitHub's date beside the release's heading).
    ownBlocks(reading, [...(box ? [box] : []), r.el, ...within].filter(el => isBlockTag(el.name)), entryKey(entry))
    entries.push(entry)
  }
  return entries
}

/** Release cards: the element around each <time> that holds no other, its heading the title. */
function cardEntries (root: AnyNode[], reading: EntryPlaces): ChangelogEntry[] {
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
    const entry = entryOf({ ...n, ...(date ? { date: date.iso } : {}) }, n.rest, items)
    // The card's lines as extraction writes them (its date is the card's own, beside its blocks).
    ownBlocks(reading, [card, ...inside].filter(el => isBlockTag(el.name)), entryKey(entry))
    entries.push(entry)
  }
  return entries
}

function entryOf (
  n: { version?: string, date?: string, unreleased?: true }, title: string, items: string[]
): ChangelogEntry {
  const named = title || n.version || n.date || (n.unreleased ? 'Unreleased' : items[0])
  const entry: ChangelogEntry = { title: named || '', items }
  if (n.version) entry.version = n.version
  if (n.date) entry.date = n.date
  if (n.unreleased) entry.unreleased = true
  return entry
}

/** An entry's identity across versions of the page: not yet released, else its version, else its date and title. */
const entryKey = (e: ChangelogEntry) =>
  e.unreleased ? 'unreleased' : e.version ? `v ${e.version}` : `d ${e.date ?? ''} ${lineKey(e.title)}`
const sameEntry = (a: ChangelogEntry, b: ChangelogEntry) =>
  lineKey(a.title) === lineKey(b.title) && a.items.length === b.items.length &&
  a.items.every((x, i) => lineKey(x) === lineKey(b.items[i]))

const words = (kind: keyof typeof RELEASE_WORDS) => matcher(RELEASE_WORDS[kind], LANGUAGES)

/**
 * An entry as a fact: new (weighed by what it says: breaking, a removal, a deprecation;
 * adding), or edited. A release that says nothing of these and is no fix or tuning
 * brings something (a card that names its feature, "Customer portal"): it adds.
 */
function factOf (e: ChangelogEntry, how: 'new' | 'edited' | 'released'): Fact {
  const subject = e.version ?? e.date ?? e.title
  if (how === 'edited') return { kind: 'release_edited', subject }
  const text = fold([e.title, ...e.items].join('\n'))
  const release = words('breaking').test(text)
    ? 'breaking'
    : words('removed').test(text) || words('security').test(text) || words('pricing').test(text)
      ? 'removal'
      : words('deprecated').test(text) ? 'deprecation' : 'plain'
  const adds = words('added').test(text) || (release === 'plain' && !words('maintenance').test(text))
  return { kind: 'release_added', subject, release, adds }
}

const MAX_SUMMARY = 200

/**
 * An item that says how the release was made, not what it brings: a pull request's or a
 * commit's reference, a chore, a dependency bumped, thanks to a contributor. It never
 * leads a summary while an item that says what changed is there.
 */
const HOUSEKEEPING = new RegExp('^(?:' + [
  '(?:pr|pull request|mr)\\s*#?\\d+\\b', '#\\d+\\b', '[0-9a-f]{7,40}\\b',
  '(?:chore|ci|build|tests?|docs|style|refactor|perf)(?:\\([^)]*\\))?!?:', 'merge (?:pull request|branch)',
  '@[\\w-]+ made (?:their|his|her) first contribution',
  'bump(?:ed|s)? \\S+ from \\S+ to\\b', 'update[sd]? (?:the )?dependenc', 'thanks? (?:to )?@'
].join('|') + ')|\\bthanks? (?:to )?@[\\w-]+!?\\s*$', 'i')

/** Who wrote an item and where, as GitHub's generated notes end it (" by @ann in #103"): not what it says. */
const ATTRIBUTION = /\s+by @[\w-]+(?: in (?:#\d+|https?:\/\/\S+))?\s*$/

function summaryOf (e: ChangelogEntry, how: 'new' | 'edited' | 'released'): string {
  const name = e.unreleased
    ? 'Unreleased'
    : [e.version, e.date && e.version ? `(${e.date})` : e.date].filter(Boolean).join(' ')
  const lead = `Changelog ${name}${how === 'new' ? '' : ` ${how}`}`
  const title = e.title && e.title !== e.version && e.title !== e.date && e.title !== 'Unreleased' ? e.title : ''
  const items = e.items.filter(i => i !== title)
  // Tried as written ("chore: …") and without a section's label ("Changed: bump …").
  const housekeeping = (i: string) => HOUSEKEEPING.test(plain(i)) || HOUSEKEEPING.test(plain(i).replace(/^[\p{L} ]{1,20}:\s*/u, ''))
  const telling = items.filter(i => !housekeeping(i))
  // What the release brings first; housekeeping only when it is all there is.
  const ordered = telling.length > 0 ? [...telling, ...items.filter(i => !telling.includes(i))] : items
  const shown = [title, ...ordered.slice(0, title ? 1 : 2)].filter(Boolean).map(x => plain(x).replace(ATTRIBUTION, ''))
  const more = e.items.length - (shown.length - (title ? 1 : 0))
  return cut(`${lead}: ${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}`, MAX_SUMMARY)
}

/** Whether `e` releases what `pending` listed: most of its items were the unreleased entry's. */
function releases (pending: ChangelogEntry, e: ChangelogEntry): boolean {
  if (pending.items.length === 0 || e.unreleased) return false
  const listed = new Set(pending.items.map(lineKey))
  return e.items.filter(i => listed.has(lineKey(i))).length * 2 >= Math.max(pending.items.length, 1)
}

/**
 * New entries, releases and edited entries between two readings of a changelog, each a
 * change with the entry (and the keys of the entries it stands for on each side).
 */
function changelogChanges (
  before: ChangelogEntry[], after: ChangelogEntry[]
): Array<{ change: StructuredChange, before: string[], after: string[] }> {
  const was = new Map(before.map(e => [entryKey(e), e]))
  const pending = was.get('unreleased')
  const out: Array<{ change: StructuredChange, before: string[], after: string[] }> = []
  const released = pending ? after.find(e => !was.has(entryKey(e)) && releases(pending, e)) : undefined
  for (const e of after) {
    const key = entryKey(e)
    const old = was.get(key)
    if (old && sameEntry(old, e)) continue
    // The unreleased entry emptied by the release is part of it.
    if (released && key === 'unreleased') continue
    const how = e === released ? 'released' : old ? 'edited' : 'new'
    // An old entry edited is a low content_change, whatever it says (see facts.ts).
    const fact = factOf(e, how)
    out.push({
      change: {
        ...judge(fact, 'changelog'),
        confidence: 0.9,
        summary: summaryOf(e, how),
        diffData: { changelog: e, facts: [fact] }
      },
      before: how === 'released' ? [key, 'unreleased'] : [key],
      after: [key]
    })
  }
  return out
}

/**
 * Two readings of a changelog as a structured reading: each new entry (an unreleased one
 * too), each release of the unreleased entry and each old entry edited is a change; a
 * changed line of the text is explained when it is written in one of those entries, or
 * when it and the line it replaced are the same unchanged entry's (re-rendered). Entries
 * that only moved are the text comparison's (a move is no edit there).
 */
export function compareChangelogs (before: ChangelogReading, after: ChangelogReading): StructuredReading | undefined {
  if (before.entries.length === 0 || after.entries.length === 0) return undefined
  const found = changelogChanges(before.entries, after.entries)
  const told = { before: new Set(found.flatMap(f => f.before)), after: new Set(found.flatMap(f => f.after)) }
  const keyOf = (line: string) => lineKey(plain(line))
  // The entries a line is written in: by where it stands when that is known, else by its words.
  const entriesOf = (reading: ChangelogReading, line: { text: string, at?: number }) =>
    reading.spans && line.at !== undefined ? reading.spans.keysAt(line.at) : reading.lines.get(keyOf(line.text))
  const explains = ({ text, side, at, counterpart }: ChangedLine): boolean => {
    const entries = entriesOf(side === 'before' ? before : after, { text, at })
    if (!entries || entries.size === 0) return false
    if ([...entries].some(e => told[side].has(e))) return true
    if (counterpart === undefined) return false
    const others = entriesOf(side === 'before' ? after : before, counterpart)
    return others !== undefined && [...entries].some(e => others.has(e))
  }
  return { changes: found.map(f => f.change), explains }
}
