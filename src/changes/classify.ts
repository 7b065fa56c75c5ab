// Longer than 300 lines on purpose: the classifier's rules (prices, features, sections, terms)
// decide together which one names a hunk; split up, their order of precedence would be hidden.
import type { ChangeType, DiffData, DiffHunk, PageType, Severity } from '../domain/vocabulary.js'
import { fold as foldAccents, type Language, LEGAL_WORDS, matcher, ownLanguages, PER, PERIOD_WORDS } from './lexicon.js'

// A crawl's diff → the changes a person would name: each hunk is read on its own
// (a price, a feature, a section), then the plain content and legal edits of one
// crawl are folded into one change each, so a rewrite is one item, not fifty.

export interface DetectedChange {
  changeType: ChangeType
  severity: Severity
  confidence: number
  summary: string
  diffData: DiffData
}

interface Money {
  raw: string
  currency: string
  amount: number
  period: string
}

// Money as it is written across Europe and beyond: the symbol or code before or after
// (€49, 49 €, CHF 49.–, R$ 49,90, ¥4,980), thousands grouped by commas, dots, spaces or
// apostrophes and decimals after a comma or a dot, a tax note (HT, TTC, excl. VAT, zzgl.
// MwSt., + IVA, excl. btw) and a period in the page's language (/mois, pro Monat, al mes).
const CURRENCY_BEFORE = 'US\\$|A\\$|C\\$|R\\$|CHF|USD|EUR|GBP|BRL|[$€£¥₹]'
const CURRENCY_AFTER = '€|CHF|USD|EUR|GBP|BRL|kr|zł'
const DECIMALS = '(?:[.,](?:\\d{1,2}|[–-]{1,2}))?'
const AMOUNT = `\\d{1,3}(?:[.,\\s\u00a0\u202f'’]\\d{3})+${DECIMALS}|\\d+${DECIMALS}`
const TAX = '(?:HT|TTC|(?:excl|incl)\\.? ?(?:VAT|tax|btw|BTW|IVA)|(?:zzgl|inkl)\\.? ?MwSt\\.?|' +
  '\\+ ?(?:IVA|VAT|MwSt\\.?|btw)|IVA (?:incluido|incluida|inclusa|incl\\.?)|s/ ?IVA|c/ ?IVA)'
const PERIOD_NAMES = PERIOD_WORDS.map(([words]) => words).join('|')
const PERIOD_PART = `\\s*${PER}\\s*(${PERIOD_NAMES})(?![\\p{L}])`
const MONEY = new RegExp(
  `(?<![\\p{L}\\d])(?:(${CURRENCY_BEFORE})\\s?(${AMOUNT})|(${AMOUNT})\\s?(${CURRENCY_AFTER}))` +
    `(?:\\s?${TAX})?(?:${PERIOD_PART}(?:${PERIOD_PART})?)?(?:\\s?${TAX})?`,
  'giu'
)
const PERIOD_OF = new Map(PERIOD_WORDS.flatMap(([words, period]) => words.split('|').map(w => [w, period])))
const CURRENCY_NAME: Record<string, string> = { USD: '$', US$: '$', EUR: '€', GBP: '£', BRL: 'R$' }

/** A written amount as a number: the last separator is the decimal one when one or two digits (or a dash) follow it. */
function parseAmount (written: string): number {
  const m = /^(.*?)(?:[.,](\d{1,2}|[–-]{1,2}))?$/.exec(written)!
  const whole = m[1].replace(/[^\d]/g, '')
  const cents = m[2] && /\d/.test(m[2]) ? m[2] : ''
  return Number(`${whole}${cents ? `.${cents}` : ''}`)
}

export function findMoney (line: string): Money[] {
  const out: Money[] = []
  for (const m of line.matchAll(MONEY)) {
    const symbol = (m[1] ?? m[4] ?? '').toUpperCase()
    const currency = CURRENCY_NAME[symbol] ?? symbol
    const period = [m[5], m[6]]
      .filter(Boolean)
      .map(p => PERIOD_OF.get(p!.toLowerCase()) ?? p!.toLowerCase())
      .join('/')
    out.push({ raw: m[0].trim(), currency, amount: parseAmount(m[2] ?? m[3] ?? ''), period })
  }
  return out
}

const HEADING = /^(#{1,6}) (.*)$/

const isHeading = (l: string) => HEADING.test(l)
const isItem = (l: string) => l.startsWith('- ') || l.startsWith('| ')
const headingText = (l: string) => HEADING.exec(l)?.[2] ?? l
const itemText = (l: string) =>
  l.startsWith('- ') ? l.slice(2) : l.startsWith('| ') ? l.slice(2, -2).split(' | ').filter(Boolean).join(', ') : l

function snippet (s: string, max = 80): string {
  const t = s.replace(/^(#{1,6}|-|\|) /, '').replace(/ \|$/, '')
  return t.length > max ? `${t.slice(0, max - 1)}…` : t
}

/** The heading that stands above line `index` (0-based) of the page. */
function sectionOf (lines: readonly string[], index: number): string | undefined {
  for (let i = Math.min(index, lines.length - 1); i >= 0; i--) if (isHeading(lines[i])) return headingText(lines[i])
  return undefined
}

function labelOf (line: string, money: Money): string {
  const cells = line.startsWith('| ') ? line.slice(2, -2).split(' | ') : null
  if (cells && cells.length > 1) return cells.find(c => !c.includes(money.raw) && findMoney(c).length === 0) ?? ''
  return line
    .replace(money.raw, '')
    .replace(/^(#{1,6}|-) /, '')
    .replace(/[\s:–-]+$/, '')
    .replace(/^[\s:–-]+/, '')
    .trim()
}

interface HunkParts {
  hunk: DiffHunk
  removed: string[]
  added: string[]
  section?: string
}

function priceChange (p: HunkParts, pageType: PageType): DetectedChange | undefined {
  const before = p.removed.flatMap(l => findMoney(l).map(m => ({ m, line: l })))
  const after = p.added.flatMap(l => findMoney(l).map(m => ({ m, line: l })))
  const key = (m: Money) => `${m.currency}${m.amount}/${m.period}`
  if (before.length === 0 && after.length === 0) return undefined
  if (before.length > 0 && after.length > 0 && before.map(x => key(x.m)).join() === after.map(x => key(x.m)).join()) {
    return undefined
  }
  if ((before.length === 0 || after.length === 0) && pageType !== 'pricing') return undefined
  const pairs: string[] = []
  let severity: Severity = 'medium'
  const rank: Record<Severity, number> = { low: 0, medium: 1, high: 2, critical: 3 }
  const raise = (s: Severity) => {
    if (rank[s] > rank[severity]) severity = s
  }
  const n = Math.max(before.length, after.length)
  for (let i = 0; i < n; i++) {
    const b = before[i]
    const a = after[i]
    if (b && a && key(b.m) === key(a.m)) continue
    const label = (a ? labelOf(a.line, a.m) : '') || (b ? labelOf(b.line, b.m) : '') || p.section || 'Price'
    pairs.push(`${label}: ${b?.m.raw ?? 'no price'} → ${a?.m.raw ?? 'no price'}`)
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
    summary: pairs.join('; '),
    diffData: single(p)
  }
}

function single (p: HunkParts): DiffData {
  const additions = p.added.length
  const deletions = p.removed.length
  return {
    before: p.removed.join('\n'),
    after: p.added.join('\n'),
    stats: { additions, deletions, changes: Math.min(additions, deletions) },
    hunks: [p.hunk]
  }
}

function classifyHunk (p: HunkParts, pageType: PageType, language?: Language): DetectedChange {
  const price = priceChange(p, pageType)
  if (price) return price
  const where = p.section ? ` in "${p.section}"` : ''
  const legalPage = pageType === 'terms' || pageType === 'security'

  // Features and plans laid out as cards: a short heading and a sentence or two each.
  if (pageType === 'features' || pageType === 'pricing') {
    const added = p.removed.length === 0 ? cardsOf(p.added) : undefined
    const removed = p.added.length === 0 ? cardsOf(p.removed) : undefined
    const cards = added ?? removed
    if (cards) {
      const names = cards.map(c => `"${snippet(c, 60)}"`).join(', ')
      return {
        changeType: added ? 'feature_added' : 'feature_removed',
        severity: added ? 'medium' : 'high',
        confidence: 0.85,
        // No section label: the heading above a card is the card before it.
        summary: `${featureLabel(undefined, cards.length)} ${added ? 'added' : 'removed'}: ${names}`,
        diffData: single(p)
      }
    }
  }

  const addedHeadings = p.added.filter(isHeading)
  const removedHeadings = p.removed.filter(isHeading)
  if (addedHeadings.length > 0 && p.removed.length === 0 && p.added.length > 1) {
    return {
      changeType: 'section_added',
      severity: pageType === 'pricing' || pageType === 'features' || legalPage ? 'medium' : 'low',
      confidence: 0.85,
      summary: `New section "${headingText(addedHeadings[0])}"` +
        `${addedHeadings.length > 1 ? ` and ${addedHeadings.length - 1} more` : ''} (${p.added.length} lines)`,
      diffData: single(p)
    }
  }
  if (removedHeadings.length > 0 && p.added.length === 0 && p.removed.length > 1) {
    return {
      changeType: 'section_removed',
      severity: pageType === 'pricing' || pageType === 'features' || legalPage ? 'high' : 'medium',
      confidence: 0.85,
      summary: `Section "${headingText(removedHeadings[0])}" removed` +
        `${removedHeadings.length > 1 ? ` with ${removedHeadings.length - 1} more` : ''} (${p.removed.length} lines)`,
      diffData: single(p)
    }
  }

  if (!legalPage && pageType !== 'changelog') {
    const itemsOnly = (ls: string[]) => ls.length > 0 && ls.every(isItem)
    if (itemsOnly(p.added) && p.removed.length === 0) {
      const names = p.added.map(l => `"${snippet(itemText(l), 60)}"`)
      return {
        changeType: 'feature_added',
        severity: 'medium',
        confidence: pageType === 'pricing' || pageType === 'features' ? 0.9 : 0.7,
        summary: `${featureLabel(p.section, names.length)} added: ${names.join(', ')}`,
        diffData: single(p)
      }
    }
    if (itemsOnly(p.removed) && p.added.length === 0) {
      const names = p.removed.map(l => `"${snippet(itemText(l), 60)}"`)
      return {
        changeType: 'feature_removed',
        severity: 'high',
        confidence: pageType === 'pricing' || pageType === 'features' ? 0.9 : 0.7,
        summary: `${featureLabel(p.section, names.length)} removed: ${names.join(', ')}`,
        diffData: single(p)
      }
    }
  }

  const changedText = [...p.removed, ...p.added].join('\n')
  if (legalPage) {
    const lines = p.removed.length + p.added.length
    return {
      changeType: 'terms_update',
      // In the page's own language (and English): French "tiers" is third parties, English "tiers" are plans.
      severity: matcher(LEGAL_WORDS, ownLanguages(language)).test(foldAccents(changedText))
        ? 'high'
        : lines > 4 ? 'medium' : 'low',
      confidence: 0.9,
      summary: describeEdit(p, where),
      diffData: single(p)
    }
  }
  const words = wordDelta(p.removed.join(' '), p.added.join(' '))
  return {
    changeType: 'content_change',
    severity: words > 40 || p.added.length + p.removed.length > 6 ? 'medium' : 'low',
    confidence: 0.7,
    summary: describeEdit(p, where),
    diffData: single(p)
  }
}

function describeEdit (p: HunkParts, where: string): string {
  if (p.removed.length === 1 && p.added.length === 1) {
    return `Changed${where}: "${snippet(p.removed[0], 60)}" → "${snippet(p.added[0], 60)}"`
  }
  if (p.removed.length === 0) {
    return `Added${where}: "${snippet(p.added[0])}"${p.added.length > 1 ? ` and ${p.added.length - 1} more lines` : ''}`
  }
  if (p.added.length === 0) {
    const more = p.removed.length > 1 ? ` and ${p.removed.length - 1} more lines` : ''
    return `Removed${where}: "${snippet(p.removed[0])}"${more}`
  }
  return `${p.removed.length + p.added.length} lines changed${where}, starting "${snippet(p.added[0])}"`
}

function wordDelta (a: string, b: string): number {
  const wa = new Set(a.toLowerCase().split(/\W+/).filter(Boolean))
  const wb = new Set(b.toLowerCase().split(/\W+/).filter(Boolean))
  let n = 0
  for (const w of wa) if (!wb.has(w)) n++
  for (const w of wb) if (!wa.has(w)) n++
  return n
}

const LEGAL_TITLE: Partial<Record<PageType, string>> = { terms: 'Terms', security: 'Security policy' }

/** Folds the plain edits of one kind into one change. */
function fold (
  changes: DetectedChange[],
  type: 'content_change' | 'terms_update',
  pageType: PageType
): DetectedChange[] {
  const same = changes.filter(c => c.changeType === type)
  if (same.length <= 1) return changes
  const rank: Record<Severity, number> = { low: 0, medium: 1, high: 2, critical: 3 }
  const severity = same.reduce<Severity>((s, c) => (rank[c.severity] > rank[s] ? c.severity : s), 'low')
  const merged: DetectedChange = {
    changeType: type,
    severity: same.length > 5 && severity === 'low' ? 'medium' : severity,
    confidence: Math.min(...same.map(c => c.confidence)),
    summary:
      type === 'terms_update'
        ? `${LEGAL_TITLE[pageType] ?? 'Legal text'} updated in ${same.length} places: ${same[0].summary}`
        : `${same.length} edits: ${same[0].summary}`,
    diffData: {
      before: same
        .map(c => c.diffData.before)
        .filter(Boolean)
        .join('\n')
        .slice(0, 8000),
      after: same
        .map(c => c.diffData.after)
        .filter(Boolean)
        .join('\n')
        .slice(0, 8000),
      stats: {
        additions: same.reduce((n, c) => n + c.diffData.stats.additions, 0),
        deletions: same.reduce((n, c) => n + c.diffData.stats.deletions, 0),
        changes: same.reduce((n, c) => n + c.diffData.stats.changes, 0)
      },
      hunks: same.flatMap(c => c.diffData.hunks)
    }
  }
  return [...changes.filter(c => c.changeType !== type), merged]
}

/**
 * Splits a hunk into its blocks (runs of deletions and additions between unchanged
 * lines), each with up to `context` unchanged lines around it and its own line numbers,
 * so two prices a few lines apart are two changes.
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

export function classifyChanges (
  diff: DiffData,
  pageType: PageType,
  afterLines: readonly string[],
  language?: Language
): DetectedChange[] {
  const parts: HunkParts[] = diff.hunks
    .flatMap(h => splitHunk(h))
    .map(hunk => {
      const firstChange = hunk.lines.findIndex(l => l.type !== 'context')
      return {
        hunk,
        removed: hunk.lines.filter(l => l.type === 'deletion').map(l => l.content),
        added: hunk.lines.filter(l => l.type === 'addition').map(l => l.content),
        // The heading above the block's first changed line, in the page as it now reads.
        section: sectionOf(afterLines, hunk.newStart - 2 + firstChange)
      }
    })
  const changes = parts.map(p => classifyHunk(p, pageType, language))
  const legalTitle = LEGAL_TITLE[pageType]
  for (const c of changes) {
    if (c.changeType === 'terms_update' && legalTitle && !c.summary.startsWith(legalTitle)) {
      c.summary = `${legalTitle}: ${c.summary}`
    }
  }
  return fold(fold(changes, 'content_change', pageType), 'terms_update', pageType)
}

const MAX_CARD_LINES = 3
const MAX_CARD_LINE = 240

/**
 * The headings of `lines` when they are all cards: each a heading below the top level
 * followed by at most three short sentences. A heading over a list is a section.
 */
function cardsOf (lines: readonly string[]): string[] | undefined {
  const cards: string[] = []
  let body = 0
  for (const line of lines) {
    const heading = HEADING.exec(line)
    if (heading) {
      if (heading[1].length < 2) return undefined
      cards.push(heading[2])
      body = 0
    } else if (cards.length === 0 || isItem(line) || ++body > MAX_CARD_LINES || line.length > MAX_CARD_LINE) {
      return undefined
    }
  }
  return cards.length > 0 ? cards : undefined
}

/** "Features", or "Pricing: features" inside a section. */
function featureLabel (section: string | undefined | null, count: number): string {
  return `${section ? `${section}: f` : 'F'}eature${count > 1 ? 's' : ''}`
}
