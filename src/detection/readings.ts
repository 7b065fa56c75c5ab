import {
  type ChangeType, type DiffHunk, type PageType, SEVERITY_RANK as RANK, type Severity
} from '../vocabulary/core.js'
import { type EditKind, editKinds, type EditKinds, trivialPhrase } from './edit-kinds.js'
import {
  CORPORATE_MONEY_WORDS, fold as foldAccents, type Language, LEGAL_WORDS, matcher, ownLanguages, PLAN_LIMIT_WORDS,
  PRICE_WORDS, RESTRICTION_WORDS
} from './lexicon.js'
import { findMoney, type Money } from './money.js'
import { cut, plain, quoteEdit } from './quote.js'
import { cardsOf, headingText, isHeading, isItem, sectionApart, withoutTrivial } from './blocks.js'

// How one block of changed lines is read: as a price, plan or feature cards, a section, list
// items, an edit of terms, a plan's limits, trivial edits (a renumbering, typography, a
// spelling variant, a date of last update) or a plain edit of text. The readings are one
// ordered table (READINGS): the first that reads a block names it. Pure.

function labelOf (line: string, money: Money): string {
  const cells = line.startsWith('| ') ? line.slice(2, -2).split(' | ') : null
  if (cells && cells.length > 1) return cells.find(c => !c.includes(money.raw) && findMoney(c).length === 0) ?? ''
  const label = line
    .replace(money.raw, '')
    .replace(/^(#{1,6}|-) /, '')
    .replace(/[\s:–-]+$/, '')
    .replace(/^[\s:–-]+/, '')
    .trim()
  // A sentence around a price is no label: the plan's heading names it better.
  return label.length > 40 ? '' : label
}

export interface Part {
  hunk: DiffHunk
  removed: string[]
  added: string[]
  /** The heading above the block's first changed line, and that heading's line (-1: none). */
  section?: string
  sectionAt: number
  /** The block's changed lines in the new page (0-based, first and last). */
  from: number
  to: number
  /** An added line of the block is written in a price's or plan's markup: its money is a price. */
  priced: boolean
  /** What kinds of edit it holds (see edit-kinds.ts): worked out when first asked. */
  kinds?: EditKinds
}

/** What one block of changed lines is: its type, weight and the words that say it. */
export interface Reading {
  changeType: ChangeType
  severity: Severity
  confidence: number
  /** What changed, without the page and section it is in (those lead the summary). */
  phrase: string
  passages: number
  /** A price's own label (its plan, its row), which stands for the section. */
  label?: string
  /** A section or card added or removed: the heading above it is another section's, so none is named. */
  standsAlone?: boolean
  /** Only trivial edits (renumbering, typography, spelling, a date of last update): how many of each. */
  trivial?: EditKinds
  /** Trivial edits beside the substantive ones it was read from (lines renumbered around a new section). */
  trivialAlso?: Pick<EditKinds, 'counts' | 'updatedOn'>
}

/** Money with what makes it a price: a pricing page, a billing period, a plan's or price's words. */
function isPrice (m: Money, line: string, p: Part, pageType: PageType, language?: Language): boolean {
  const own = ownLanguages(language)
  const folded = foldAccents(line)
  if (matcher(CORPORATE_MONEY_WORDS, own).test(folded)) return false
  if (pageType === 'pricing' || m.period || p.priced) return true
  const words = matcher(PRICE_WORDS, own)
  return words.test(folded) || (p.section !== undefined && words.test(foldAccents(p.section)))
}

/** Beyond this, a line with money is a sentence about a price, not the price. */
const MAX_PRICE_LINE = 60

/** What a block of changed lines is read with: its page's type and language. */
export interface Context {
  pageType: PageType
  language?: Language
  /** The languages whose words count: the page's own and English. */
  own: readonly Language[]
  legalPage: boolean
}

/** Money that is a price, with the line it is on and that line's own label (its plan, its row). */
interface Priced { m: Money, line: string, label: string }

function priceReading (p: Part, ctx: Context): Reading | undefined {
  // Money in legal text is the text's edit: the legal rules weigh it.
  if (ctx.legalPage) return undefined
  const money = (lines: string[]): Priced[] =>
    lines.flatMap(l => findMoney(l).filter(m => isPrice(m, l, p, ctx.pageType, ctx.language))
      .map(m => ({ m, line: l, label: labelOf(l, m) })))
  const before = money(p.removed)
  const after = money(p.added)
  const key = (m: Money) => `${m.currency}${m.amount}/${m.period}`
  if (before.length === 0 && after.length === 0) return undefined
  // A whole section whose money is in its sentences ("billed at $0.50 per 1,000 requests") is a section.
  const inProse = [...before, ...after].every(x => plain(x.line).length > MAX_PRICE_LINE)
  if (inProse && sectionReading(p, ctx)) return undefined
  if (before.length > 0 && after.length > 0 && before.map(x => key(x.m)).join() === after.map(x => key(x.m)).join()) {
    return undefined
  }
  if ((before.length === 0 || after.length === 0) && ctx.pageType !== 'pricing') return undefined
  const pairs: string[] = []
  let severity: Severity = 'medium'
  const raise = (s: Severity) => {
    if (RANK[s] > RANK[severity]) severity = s
  }
  let label: string | undefined
  for (const [b, a] of pairPrices(before, after)) {
    if (b && a && key(b.m) === key(a.m)) continue
    const pairLabel = a?.label || b?.label || p.section || 'Price'
    label ??= pairLabel
    const pair = `${b?.m.raw ?? 'no price'} → ${a?.m.raw ?? 'no price'}`
    pairs.push(pairLabel === label ? pair : `${pairLabel}: ${pair}`)
    if (b && a && b.m.currency === a.m.currency && b.m.period === a.m.period) {
      if (a.m.amount > b.m.amount) raise(a.m.amount >= b.m.amount * 1.25 ? 'critical' : 'high')
    } else {
      raise('high')
    }
  }
  if (pairs.length === 0) return undefined
  const matched = before.length > 0 && after.length > 0
  return {
    changeType: 'price_change',
    severity,
    confidence: matched ? (before.length === after.length ? 0.95 : 0.85) : 0.75,
    phrase: pairs.join('; '),
    passages: 1,
    label
  }
}

/**
 * Old and new prices paired by their label (a plan's row, "Pro: $49"), never across two
 * labels; prices with no label of their own are paired in their order, with their kind
 * (currency and period) first. What is left has no counterpart ("no price").
 */
function pairPrices (
  before: readonly Priced[], after: readonly Priced[]
): Array<[Priced | undefined, Priced | undefined]> {
  const out: Array<[Priced | undefined, Priced | undefined]> = []
  const left = [...before]
  const take = (test: (b: Priced) => boolean) => {
    const i = left.findIndex(test)
    return i < 0 ? undefined : left.splice(i, 1)[0]
  }
  for (const a of after) {
    const b = a.label
      ? take(x => x.label === a.label)
      : take(x => !x.label && x.m.currency === a.m.currency && x.m.period === a.m.period) ?? take(x => !x.label)
    out.push([b, a])
  }
  for (const b of left) out.push([b, undefined])
  return out
}

const names = (items: string[]) => items.map(c => `"${cut(c, 60)}"`).join(', ')
const feature = (count: number) => `feature${count > 1 ? 's' : ''}`

/** Features and plans laid out as cards: a short heading and a sentence or two each, added or removed. */
function cardsReading (p: Part, ctx: Context): Reading | undefined {
  if (ctx.pageType !== 'features' && ctx.pageType !== 'pricing') return undefined
  const added = p.removed.length === 0 ? cardsOf(p.added) : undefined
  const removed = p.added.length === 0 ? cardsOf(p.removed) : undefined
  const cards = added ?? removed
  if (!cards) return undefined
  return {
    changeType: added ? 'feature_added' : 'feature_removed',
    severity: added ? 'medium' : 'high',
    confidence: 0.85,
    phrase: `${feature(cards.length)} ${names(cards)} ${added ? 'added' : 'removed'}`,
    passages: 1,
    standsAlone: true
  }
}

/** A section added or removed whole: a heading with its lines. */
function sectionReading (p: Part, ctx: Context): Reading | undefined {
  const addedHeadings = p.added.filter(isHeading)
  const removedHeadings = p.removed.filter(isHeading)
  const newSection = addedHeadings.length > 0 && p.removed.length === 0 && p.added.length > 1
  const goneSection = removedHeadings.length > 0 && p.added.length === 0 && p.removed.length > 1
  if (!newSection && !goneSection) return undefined
  const lines = newSection ? p.added : p.removed
  const headings = lines.filter(isHeading).map(headingText)
  const paragraphs = lines.filter(l => !isHeading(l)).length
  const more = headings.length > 1 ? `, and ${headings.length - 1} more` : ''
  const size = `${paragraphs} paragraph${paragraphs === 1 ? '' : 's'}`
  // The section's own heading names where it is: "Terms, 14. Safety policy: new section (6 paragraphs)".
  const phrase = newSection ? `new section (${size}${more})` : `section removed (${size}${more})`
  const label = cut(headings[0], 80)
  // A legal page's new or removed section is an edit of its terms, weighed by the legal rules, at least medium.
  if (ctx.legalPage) {
    const legal = legalReading(p, ctx.own)
    const severity = legal.severity === 'low' ? 'medium' : legal.severity
    return { ...legal, severity, phrase, label, standsAlone: true }
  }
  const weighty = ctx.pageType === 'pricing' || ctx.pageType === 'features'
  return {
    changeType: newSection ? 'section_added' : 'section_removed',
    severity: newSection ? (weighty ? 'medium' : 'low') : (weighty ? 'high' : 'medium'),
    confidence: 0.85,
    phrase,
    passages: 1,
    label,
    standsAlone: true
  }
}

/** List items (or table rows) added or removed, and nothing else: features. */
function itemsReading (p: Part, ctx: Context): Reading | undefined {
  if (ctx.legalPage || ctx.pageType === 'changelog') return undefined
  const itemsOnly = (ls: string[]) => ls.length > 0 && ls.every(isItem)
  const sure = ctx.pageType === 'pricing' || ctx.pageType === 'features' ? 0.9 : 0.7
  if (itemsOnly(p.added) && p.removed.length === 0) {
    const items = p.added.map(plain)
    const phrase = `${feature(items.length)} ${names(items)} added`
    return { changeType: 'feature_added', severity: 'medium', confidence: sure, phrase, passages: 1 }
  }
  if (itemsOnly(p.removed) && p.added.length === 0) {
    const items = p.removed.map(plain)
    const phrase = `${feature(items.length)} ${names(items)} removed`
    return { changeType: 'feature_removed', severity: 'high', confidence: sure, phrase, passages: 1 }
  }
  return undefined
}

/**
 * What a plan includes or allows ("up to 3 projects", "unlimited users"), on a pricing
 * page, when the offer itself moved: a sentence about it added or removed, a number of
 * it changed, "unlimited" come or gone. The same offer re-worded is the text's edit.
 */
function planLimitsReading (p: Part, ctx: Context): Reading | undefined {
  if (ctx.pageType !== 'pricing') return undefined
  const limits = matcher(PLAN_LIMIT_WORDS, ctx.own)
  const speaksOfLimits = (ls: string[]) => ls.some(l => limits.test(foldAccents(l)))
  if (!speaksOfLimits(p.removed) && !speaksOfLimits(p.added)) return undefined
  const [was, is] = [p.removed.join(' '), p.added.join(' ')]
  const oneSide = p.added.length === 0 || p.removed.length === 0
  if (!oneSide && quantities(was) === quantities(is)) return undefined
  // A restriction removed gives back what it took; one added takes it.
  const restricts = (text: string) => matcher(RESTRICTION_WORDS, ctx.own).test(foldAccents(text))
  const lost = p.added.length === 0 ? !restricts(was) : p.removed.length === 0 ? restricts(is) : lessOffered(was, is)
  const quote = quoteEdit(p.removed, p.added)
  return {
    changeType: lost ? 'feature_removed' : 'feature_added',
    severity: lost ? 'high' : 'medium',
    confidence: 0.8,
    phrase: quote.phrase,
    passages: quote.passages
  }
}

/** The legal rules, on a legal page: every edit is its terms'. */
function legalPartReading (p: Part, ctx: Context): Reading | undefined {
  return ctx.legalPage ? legalReading(p, ctx.own) : undefined
}

/** Any other edit of the text: its size weighs it. */
function contentReading (p: Part): Reading {
  const quote = quoteEdit(p.removed, p.added)
  const words = wordDelta(p.removed.join(' '), p.added.join(' '))
  return {
    changeType: 'content_change',
    severity: words > 40 || p.added.length + p.removed.length > 6 ? 'medium' : 'low',
    confidence: 0.7,
    phrase: quote.phrase,
    passages: quote.passages
  }
}

/** The kinds of a block's edits, worked out once. */
export function kindsOf (p: Part, ctx: Context): EditKinds {
  p.kinds ??= editKinds(p.removed, p.added, ctx.language)
  return p.kinds
}

/**
 * Edits that change nothing a reader acts on: a renumbering, typography, a spelling
 * variant, a new date of last update. Low, whatever the page; named by kind and count.
 */
function trivialReading (p: Part, ctx: Context): Reading | undefined {
  const kinds = kindsOf(p, ctx)
  if (kinds.kind === 'substantive') return undefined
  return {
    changeType: 'content_change',
    severity: 'low',
    confidence: 0.9,
    phrase: trivialPhrase(kinds.counts, kinds.updatedOn).join(', '),
    passages: 1,
    trivial: kinds
  }
}

/**
 * Which type names a region of several blocks read differently, and a change among a
 * check's changes: at equal severity, the most telling type first. This is not READINGS'
 * order, which says how one block is read (a price before a card before a section); a
 * region's blocks are read each by READINGS first, then named by this.
 */
export const TYPE_PRECEDENCE: readonly ChangeType[] = [
  'price_change', 'feature_removed', 'feature_added', 'terms_update', 'section_removed', 'section_added',
  'content_change'
]

/** How much a reading or a change weighs: its severity first, then its type's place in TYPE_PRECEDENCE. */
export const significance = (r: { severity: Severity, changeType: ChangeType }): number =>
  RANK[r.severity] * 10 + (TYPE_PRECEDENCE.length - TYPE_PRECEDENCE.indexOf(r.changeType))

/**
 * How a block of changed lines is read, in precedence order: the first reading that
 * reads it names it (trivial edits before anything, a price before a card, a card before
 * a section, …; the text last).
 */
const READINGS: ReadonlyArray<readonly [name: string, read: (p: Part, ctx: Context) => Reading | undefined]> = [
  ['trivial edits', trivialReading],
  ['price', priceReading],
  ['cards', cardsReading],
  ['section', sectionReading],
  ['items', itemsReading],
  ['legal', legalPartReading],
  ['plan limits', planLimitsReading],
  ['content', contentReading]
]

/**
 * A block's reading. Lines whose edits are all trivial are set aside first: the rest is
 * read, and they are counted beside it. A section added or removed beside an edit is read
 * on its own and leads unless the edit weighs more; the edit counts as one more passage.
 */
export function classifyPart (p: Part, ctx: Context): Reading {
  const kinds = kindsOf(p, ctx)
  if (kinds.kind !== 'substantive') return firstReading(p, ctx)
  const rest: Part = kinds.trivialPairs.length === 0
    ? p
    : { ...p, ...withoutTrivial(p.removed, p.added, kinds), kinds: { ...kinds, trivialPairs: [] } }
  const counts: EditKinds['counts'] = kinds.trivialPairs.length === 0 ? {} : { ...kinds.counts }
  let updatedOn = kinds.trivialPairs.length === 0 ? undefined : kinds.updatedOn
  const apart = sectionApart(rest.removed, rest.added)
  let reading: Reading
  if (!apart) {
    reading = firstReading(rest, ctx)
  } else {
    const { side, lines } = apart.section
    const section = firstReading({
      ...rest,
      removed: side === 'removed' ? lines : [],
      added: side === 'added' ? lines : [],
      kinds: { ...kinds, kind: 'substantive', trivialPairs: [] }
    }, ctx)
    const edit = firstReading({ ...rest, removed: apart.removed, added: apart.added, kinds: undefined }, ctx)
    if (edit.trivial) {
      for (const [k, n] of Object.entries(edit.trivial.counts) as Array<[EditKind, number]>) {
        counts[k] = (counts[k] ?? 0) + n
      }
      updatedOn ??= edit.trivial.updatedOn
      reading = section
    } else {
      const editLeads = RANK[edit.severity] > RANK[section.severity]
      reading = { ...(editLeads ? edit : section), passages: edit.passages + section.passages }
    }
  }
  delete counts.substantive
  return Object.keys(counts).length > 0
    ? { ...reading, trivialAlso: { counts, ...(updatedOn ? { updatedOn } : {}) } }
    : reading
}

function firstReading (p: Part, ctx: Context): Reading {
  for (const [, read] of READINGS) {
    const reading = read(p, ctx)
    if (reading) return reading
  }
  return contentReading(p)
}

/** The quantities a text states, years aside ("up to 3 projects, 10 GB": "3 10"), and whether it says unlimited. */
function quantities (text: string): string {
  const numbers = [...text.matchAll(/\d+(?:[.,]\d+)?/g)]
    .filter(m => !(/^(?:19|2\d)\d\d$/.test(m[0]) && !/^\s*(?:users?|seats?|projects?|gb|mb|requests?|credits?)/i.test(text.slice(m.index! + m[0].length))))
    .map(m => m[0].replace(',', '.'))
  return `${numbers.join(' ')}${UNLIMITED.test(text) ? ' ∞' : ''}`
}
const UNLIMITED = /unlimited|illimit|unbegrenzt|unbeschränkt|ilimitad|onbeperkt/i

function legalReading (p: Part, own: readonly Language[]): Reading {
  const changedText = [...p.removed, ...p.added].join('\n')
  const lines = p.removed.length + p.added.length
  const quote = quoteEdit(p.removed, p.added)
  return {
    changeType: 'terms_update',
    // In the page's own language (and English): French "tiers" is third parties, English "tiers" are plans.
    severity: matcher(LEGAL_WORDS, own).test(foldAccents(changedText)) ? 'high' : lines > 4 ? 'medium' : 'low',
    confidence: 0.9,
    phrase: quote.phrase,
    passages: quote.passages
  }
}

/** Whether the new text offers less than the old: a number went down, or "unlimited" went away. */
function lessOffered (before: string, after: string): boolean {
  if (UNLIMITED.test(before) && !UNLIMITED.test(after)) return true
  const numbers = (s: string) => [...s.matchAll(/\d+(?:[.,]\d+)?/g)].map(m => Number(m[0].replace(',', '.')))
  const a = numbers(before)
  const b = numbers(after)
  return a.some((n, i) => b[i] !== undefined && b[i] < n) || b.length < a.length
}

function wordDelta (a: string, b: string): number {
  const wa = new Set(a.toLowerCase().split(/\W+/).filter(Boolean))
  const wb = new Set(b.toLowerCase().split(/\W+/).filter(Boolean))
  let n = 0
  for (const w of wa) if (!wb.has(w)) n++
  for (const w of wb) if (!wa.has(w)) n++
  return n
}
