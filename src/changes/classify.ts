// Longer than 300 lines on purpose: the classifier's rules (prices, features, sections, terms)
// decide together which one names an edit; split up, their order of precedence would be hidden.
import {
  LEGAL_PAGE_TYPES, SEVERITY_RANK as RANK, type ChangeType, type DetectedChange, type DiffData, type DiffHunk,
  type PageType, type Severity
} from '../domain/vocabulary.js'
import {
  CORPORATE_MONEY_WORDS, fold as foldAccents, type Language, LEGAL_WORDS, matcher, ownLanguages, PLAN_LIMIT_WORDS,
  PRICE_WORDS, RESTRICTION_WORDS
} from './lexicon.js'
import { findMoney, type Money } from './money.js'
import { cut, plain, quoteEdit } from './quote.js'
import { withoutMoves } from './structure.js'

// A crawl's diff → the changes a person would name. Each block of changed lines is read
// on its own (a price, a feature, a section, an edit of text); blocks of one edit region
// (adjacent, or under one heading) become one change of the most significant kind among
// them; and the plain text and legal edits of one crawl fold into one change each, so a
// rewrite is one item, not fifty. Summaries quote the words that changed.

const HEADING = /^(#{1,6}) (.*)$/

const isHeading = (l: string) => HEADING.test(l)
const isItem = (l: string) => l.startsWith('- ') || l.startsWith('| ')
const headingText = (l: string) => HEADING.exec(l)?.[2] ?? l

/** Which type names an edit region when its parts differ, most telling first. */
const PRECEDENCE: ChangeType[] = [
  'price_change', 'feature_removed', 'feature_added', 'terms_update', 'section_removed', 'section_added',
  'content_change'
]
const MAX_PASSAGE_SIDE = 2_000

/** The heading that stands above line `index` (0-based) of the page, with its line. */
function sectionOf (lines: readonly string[], index: number): { at: number, text?: string } {
  for (let i = Math.min(index, lines.length - 1); i >= 0; i--) {
    if (isHeading(lines[i])) return { at: i, text: headingText(lines[i]) }
  }
  return { at: -1 }
}

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

interface Part {
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
}

/** What one block of changed lines is: its type, weight and the words that say it. */
interface Reading {
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
interface Context {
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
  const headings = (newSection ? addedHeadings : removedHeadings).map(headingText)
  const lines = newSection ? p.added.length : p.removed.length
  const more = headings.length > 1 ? ` and ${headings.length - 1} more` : ''
  const phrase = newSection
    ? `new section "${cut(headings[0], 80)}"${more} (${lines} lines)`
    : `section "${cut(headings[0], 80)}"${more} removed (${lines} lines)`
  // A legal page's new or removed section is an edit of its terms, weighed by the legal rules.
  if (ctx.legalPage) return { ...legalReading(p, ctx.own), phrase, standsAlone: true }
  const weighty = ctx.pageType === 'pricing' || ctx.pageType === 'features'
  return {
    changeType: newSection ? 'section_added' : 'section_removed',
    severity: newSection ? (weighty ? 'medium' : 'low') : (weighty ? 'high' : 'medium'),
    confidence: 0.85,
    phrase,
    passages: 1,
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

/**
 * How a block of changed lines is read, in precedence order: the first reading that
 * reads it names it (a price before a card, a card before a section, …; the text last).
 */
const READINGS: ReadonlyArray<readonly [name: string, read: (p: Part, ctx: Context) => Reading | undefined]> = [
  ['price', priceReading],
  ['cards', cardsReading],
  ['section', sectionReading],
  ['items', itemsReading],
  ['legal', legalPartReading],
  ['plan limits', planLimitsReading],
  ['content', contentReading]
]

function classifyPart (p: Part, ctx: Context): Reading {
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

const KIND: Partial<Record<PageType, string>> = {
  pricing: 'Pricing',
  features: 'Features',
  terms: 'Terms',
  security: 'Security',
  api_docs: 'API docs',
  changelog: 'Changelog'
}

/**
 * What leads a summary: the page's kind (a legal page's own title when it is short, such as
 * "Privacy Policy") and the section, never twice the same words.
 */
function prefixOf (pageType: PageType, afterLines: readonly string[], section?: string): string {
  const title = afterLines.find(l => l.startsWith('# '))
  const ownTitle = title ? headingText(title) : undefined
  const kind = LEGAL_PAGE_TYPES.includes(pageType) && ownTitle && ownTitle.length <= 40
    ? ownTitle
    : KIND[pageType]
  const where = section && section !== kind ? cut(section, 60) : undefined
  return [kind, where].filter(Boolean).join(', ')
}

/** What changed where, without the count of other passages. */
function headlineOf (prefix: string, phrase: string): string {
  if (!prefix) return `${phrase[0].toUpperCase()}${phrase.slice(1)}`
  return `${prefix}: ${phrase}`
}

const withMore = (headline: string, morePassages: number) =>
  morePassages > 0 ? `${headline}, and ${morePassages} more passage${morePassages > 1 ? 's' : ''}` : headline

/** One change with what its summary leads with and how many passages it covers, for folding. */
interface Counted { change: DetectedChange, headline: string, passages: number }

/** The parts of one edit region as one change: the most significant type and severity, every part's diff. */
function regionChange (
  region: Array<{ part: Part, reading: Reading }>,
  pageType: PageType,
  afterLines: readonly string[]
): Counted {
  const lead = region.reduce((best, r) => significance(r.reading) > significance(best.reading) ? r : best)
  const severity = highest(region.map(r => r.reading.severity))
  const prices = region.filter(r => r.reading.changeType === 'price_change')
  const phrase = lead.reading.changeType === 'price_change'
    ? prices
      .map(r => r.reading.label === lead.reading.label ? r.reading.phrase : `${r.reading.label}: ${r.reading.phrase}`)
      .join('; ')
    : lead.reading.phrase
  const counted = lead.reading.changeType === 'price_change' ? prices : [lead]
  const more = region.filter(r => !counted.includes(r)).reduce((n, r) => n + r.reading.passages, 0) +
    lead.reading.passages - 1
  const section = lead.reading.label ?? (lead.reading.standsAlone ? undefined : lead.part.section)
  const headline = headlineOf(prefixOf(pageType, afterLines, section), phrase)
  return {
    change: {
      changeType: lead.reading.changeType,
      severity,
      confidence: lead.reading.confidence,
      summary: withMore(headline, more),
      diffData: diffOf(region.map(r => r.part))
    },
    headline,
    passages: region.reduce((n, r) => n + r.reading.passages, 0)
  }
}

function significance (r: Reading): number {
  return RANK[r.severity] * 10 + (PRECEDENCE.length - PRECEDENCE.indexOf(r.changeType))
}

/**
 * The diff of several parts: `before` and `after` hold each changed passage with the
 * unchanged lines around it, as a person reads it (capped), not the whole page.
 */
function diffOf (parts: readonly Part[]): DiffData {
  const side = (keep: 'deletion' | 'addition') => bounded(
    parts.map(p => p.hunk.lines.filter(l => l.type === 'context' || l.type === keep).map(l => l.content).join('\n'))
      .join('\n…\n')
  )
  const additions = parts.reduce((n, p) => n + p.added.length, 0)
  const deletions = parts.reduce((n, p) => n + p.removed.length, 0)
  return {
    before: side('deletion'),
    after: side('addition'),
    stats: {
      additions,
      deletions,
      changes: parts.reduce((n, p) => n + Math.min(p.added.length, p.removed.length), 0)
    },
    hunks: parts.map(p => p.hunk)
  }
}

function bounded (s: string): string {
  return s.length > MAX_PASSAGE_SIDE ? `${s.slice(0, MAX_PASSAGE_SIDE - 1)}…` : s
}

/** Folds the plain edits of one kind (text edits, legal edits) into one change. */
function fold (changes: Counted[], type: 'content_change' | 'terms_update'): Counted[] {
  const same = changes.filter(x => x.change.changeType === type)
  if (same.length <= 1) return changes
  const severity = highest(same.map(x => x.change.severity))
  const lead = same.reduce((best, x) => RANK[x.change.severity] > RANK[best.change.severity] ? x : best)
  const passages = same.reduce((n, x) => n + x.passages, 0)
  const merged: DetectedChange = {
    changeType: type,
    severity: same.length > 5 && severity === 'low' ? 'medium' : severity,
    confidence: Math.min(...same.map(x => x.change.confidence)),
    summary: withMore(lead.headline, passages - 1),
    diffData: {
      before: bounded(same.map(x => x.change.diffData.before).filter(Boolean).join('\n…\n')),
      after: bounded(same.map(x => x.change.diffData.after).filter(Boolean).join('\n…\n')),
      stats: {
        additions: same.reduce((n, x) => n + x.change.diffData.stats.additions, 0),
        deletions: same.reduce((n, x) => n + x.change.diffData.stats.deletions, 0),
        changes: same.reduce((n, x) => n + x.change.diffData.stats.changes, 0)
      },
      hunks: same.flatMap(x => x.change.diffData.hunks)
    }
  }
  return [...changes.filter(x => x.change.changeType !== type), { change: merged, headline: lead.headline, passages }]
}

/**
 * Splits a hunk into its blocks (runs of deletions and additions between unchanged
 * lines), each with up to `context` unchanged lines around it and its own line numbers,
 * so two prices a few lines apart are read each on its own.
 */
export function splitHunk (hunk: DiffHunk, context = 2): DiffHunk[] {
  const numbered = []
  let o = hunk.oldStart
  let n = hunk.newStart
  for (const line of hunk.lines) {
    numbered.push({ line, old: o, new: n })
    if (line.type !== 'addition') o++
    if (line.type !== 'deletion') n++
  }
  const blocks: DiffHunk[] = []
  let i = 0
  while (i < numbered.length) {
    if (numbered[i].line.type === 'context') {
      i++
      continue
    }
    let end = i
    while (end < numbered.length && numbered[end].line.type !== 'context') end++
    let from = i
    while (from > 0 && i - from < context && numbered[from - 1].line.type === 'context') from--
    let to = end
    while (to < numbered.length && to < end + context && numbered[to].line.type === 'context') to++
    const slice = numbered.slice(from, to)
    blocks.push({
      oldStart: slice[0].old,
      oldLines: slice.filter(x => x.line.type !== 'addition').length,
      newStart: slice[0].new,
      newLines: slice.filter(x => x.line.type !== 'deletion').length,
      lines: slice.map(x => x.line)
    })
    i = end
  }
  return blocks
}

/** Blocks this close (unchanged lines between them) or under one heading are one edit. */
const ADJACENT = 1

export function classifyChanges (
  diff: DiffData,
  pageType: PageType,
  afterLines: readonly string[],
  language?: Language,
  priceLines: ReadonlySet<number> = new Set()
): DetectedChange[] {
  // A block that only moved is no edit (see withoutMoves).
  const parts: Part[] = withoutMoves(diff.hunks)
    .flatMap(h => splitHunk(h))
    .map(hunk => {
      const firstChange = hunk.lines.findIndex(l => l.type !== 'context')
      const lastChange = hunk.lines.length - 1 - [...hunk.lines].reverse().findIndex(l => l.type !== 'context')
      const newBefore = (i: number) => hunk.lines.slice(0, i).filter(l => l.type !== 'deletion').length
      const from = hunk.newStart - 1 + newBefore(firstChange)
      // The heading above the block's first changed line, in the page as it now reads.
      const section = sectionOf(afterLines, from - 1)
      let at = hunk.newStart - 1
      let priced = false
      for (const l of hunk.lines) {
        if (l.type === 'addition' && priceLines.has(at)) priced = true
        if (l.type !== 'deletion') at++
      }
      return {
        priced,
        hunk,
        removed: hunk.lines.filter(l => l.type === 'deletion').map(l => l.content),
        added: hunk.lines.filter(l => l.type === 'addition').map(l => l.content),
        section: section.text,
        sectionAt: section.at,
        from,
        to: hunk.newStart - 1 + newBefore(lastChange + 1)
      }
    })
  const legalPage = LEGAL_PAGE_TYPES.includes(pageType)
  const ctx: Context = { pageType, language, own: ownLanguages(language), legalPage }
  const read = parts.map(part => ({ part, reading: classifyPart(part, ctx) }))
  const regions: Array<typeof read> = []
  for (const r of read) {
    const last = regions[regions.length - 1]?.at(-1)
    const together = last && (
      r.part.from - last.part.to <= ADJACENT ||
      (r.part.sectionAt === last.part.sectionAt && !twoPrices(r, last))
    )
    if (together) regions[regions.length - 1].push(r)
    else regions.push([r])
  }
  const changes = regions.map(region => regionChange(region, pageType, afterLines))
  return fold(fold(changes, 'content_change'), 'terms_update').map(x => x.change)
}

/** Two prices of different plans under one heading (rows of one table) stay two changes. */
const twoPrices = (a: { reading: Reading }, b: { reading: Reading }) =>
  a.reading.changeType === 'price_change' && b.reading.changeType === 'price_change' &&
  a.reading.label !== b.reading.label

const highest = (severities: Severity[]) => severities.reduce<Severity>((s, x) => (RANK[x] > RANK[s] ? x : s), 'low')

const MAX_CARD_LINES = 3
const MAX_CARD_LINE = 160

/**
 * The headings of `lines` when they are all cards: each a heading below the top level
 * followed by at most three short sentences (or the one paragraph of a list item that
 * holds the heading: `li > h3 + p`). A heading over a list of several items is a section.
 */
function cardsOf (lines: readonly string[]): string[] | undefined {
  const cards: string[] = []
  let body = 0
  let items = 0
  for (const line of lines) {
    const heading = HEADING.exec(line)
    if (heading) {
      if (heading[1].length < 2) return undefined
      cards.push(heading[2])
      body = 0
      items = 0
    } else if (
      cards.length === 0 || (isItem(line) && ++items > 1) || ++body > MAX_CARD_LINES || line.length > MAX_CARD_LINE
    ) {
      return undefined
    }
  }
  return cards.length > 0 ? cards : undefined
}
