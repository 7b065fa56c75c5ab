import {
  type ChangeType, type DiffHunk, type Fact, type PageType, SEVERITY_RANK as RANK, type Severity
} from '../../vocabulary/core.js'
import { judge } from '../../vocabulary/facts.js'
import { type EditKind, editKinds, type EditKinds, trivialPhrase } from '../text/edit-kinds.js'
import {
  CORPORATE_MONEY_WORDS, fold as foldAccents, type Language, LEGAL_WORDS, matcher, ownLanguages, PLAN_LIMIT_WORDS,
  PRICE_WORDS, RESTRICTION_WORDS
} from '../words/lexicon.js'
import { findMoney, type Money } from '../words/money.js'
import { cut, plain, quoteEdit } from '../text/quote.js'
import { cardsOf, headingText, isHeading, isItem, sectionApart, withoutTrivial } from '../text/blocks.js'
import { cellsOf } from '../../vocabulary/lines.js'

// How one block of changed lines is read: as a price, plan or feature cards, a section, list
// items, an edit of terms, a plan's limits, trivial edits (a renumbering, typography, a
// spelling variant, a date of last update) or a plain edit of text. The readings are one
// ordered table (READINGS): the first that reads a block names it. Pure.

/** Which cell of its table row a price stands in (-1: not in a row). */
const columnOf = (line: string, money: Money) => cellsOf(line)?.findIndex(c => c.includes(money.raw)) ?? -1

function labelOf (line: string, money: Money): string {
  const cells = cellsOf(line)
  if (cells && cells.length > 1) return cells.find(c => !c.includes(money.raw) && findMoney(c).length === 0) ?? ''
  // Other money on the line is no label either ("$12 $9/month": a price struck through beside the price).
  const label = findMoney(line).reduce((rest, m) => rest.replace(m.raw, ''), line.replace(money.raw, ''))
    .replace(/^(#{1,6}|-) /, '')
    .replace(/[\s:–-]+$/, '')
    .replace(/^[\s:–-]+/, '')
    .trim()
  // A sentence around a price is no label: the plan's heading names it better.
  return label.length > 40 ? '' : label
}

export interface Part {
  hunk: DiffHunk
  /** The whole hunk the block was split from, and where the block starts in it: the headings above it. */
  within?: { hunk: DiffHunk, at: number }
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

/** What one block of changed lines is: its facts, their type and weight (see facts.ts), and the words that say it. */
export interface Reading {
  /** The fact that names the block (the weightiest of `facts`). */
  fact: Fact
  /** Every fact the block holds, the lead's included (a row of prices holds one per price). */
  facts: Fact[]
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
  /** The facts the page's `ignoreFacts` leaves out (see factMuter). */
  muted?: (f: Fact) => boolean
}

/** A reading's type and weight: its fact's, by the one table (facts.ts). */
const judged = (fact: Fact, ctx: Context) => ({ fact, facts: [fact], ...judge(fact, ctx.pageType) })

/**
 * Money that is a price, with the line it is on, its own label (its row's, else the
 * heading it stands under: its plan's card), its cell in a row, and whether that heading
 * came or went with it (a plan added or removed).
 */
interface Priced { m: Money, line: string, label: string, column: number, planMoved: boolean }

/**
 * The heading each changed line of a block stands under, on its own side of the diff (a
 * removed line under the old page's headings, an added one under the new page's), and
 * whether that heading is itself a changed line: lines in their order, by their text.
 */
function headingsOf (p: Part) {
  type Heading = { text: string, moved: boolean }
  const { hunk, at } = p.within ?? { hunk: p.hunk, at: 0 }
  const window = (i: number) => i >= at && i < at + p.hunk.lines.length
  const under = { deletion: new Map<string, Heading[]>(), addition: new Map<string, Heading[]>() }
  // The unchanged lines under a heading that came or went: a plan's price that stayed as its plan was renamed.
  const kept = {
    deletion: [] as Array<{ line: string, heading: Heading }>,
    addition: [] as Array<{ line: string, heading: Heading }>
  }
  let old: (Heading & { mine: boolean }) | undefined
  let now: (Heading & { mine: boolean }) | undefined
  hunk.lines.forEach((l, i) => {
    if (isHeading(l.content)) {
      const h = { text: headingText(l.content), moved: l.type !== 'context', mine: window(i) }
      if (l.type !== 'addition') old = h
      if (l.type !== 'deletion') now = h
      return
    }
    if (l.type === 'context') {
      if (old?.moved && old.mine) kept.deletion.push({ line: l.content, heading: old })
      if (now?.moved && now.mine) kept.addition.push({ line: l.content, heading: now })
      return
    }
    const heading = l.type === 'deletion' ? old : now
    if (!heading || !window(i)) return
    const queue = under[l.type].get(l.content) ?? []
    queue.push(heading)
    under[l.type].set(l.content, queue)
  })
  return { of: (side: 'deletion' | 'addition', line: string) => under[side].get(line)?.shift(), kept }
}

function priceReading (p: Part, ctx: Context): Reading | undefined {
  // Money in legal text is the text's edit: the legal rules weigh it.
  if (ctx.legalPage) return undefined
  const headings = headingsOf(p)
  const priced = (l: string, heading: { text: string, moved: boolean } | undefined): Priced[] =>
    findMoney(l).filter(m => isPrice(m, l, p, ctx.pageType, ctx.language)).map(m => {
      const column = columnOf(l, m)
      // A row names its price; else the card's heading does, before what the line says around it ("for 14 days").
      const row = column >= 0 ? labelOf(l, m) : ''
      const label = row || (heading?.moved ? heading.text : labelOf(l, m) || heading?.text) || ''
      return { m, line: l, label, column, planMoved: row === '' && heading?.moved === true }
    })
  const money = (lines: string[], side: 'deletion' | 'addition'): Priced[] => [
    ...lines.flatMap(l => priced(l, findMoney(l).length > 0 ? headings.of(side, l) : undefined)),
    // A renamed plan's price that stayed: it went with the old name and came with the new one.
    ...headings.kept[side].flatMap(k => priced(k.line, k.heading))
  ]
  const before = money(p.removed, 'deletion')
  const after = money(p.added, 'addition')
  if (before.length === 0 && after.length === 0) return undefined
  // A whole section whose money is in its sentences ("billed at $0.50 per 1,000 requests") is a section.
  const inProse = [...before, ...after].every(x => plain(x.line).length > MAX_PRICE_LINE)
  if (inProse && sectionReading(p, ctx)) return undefined
  const keys = (side: Priced[]) => side.map(x => priceKey(x.m)).join()
  if (before.length > 0 && after.length > 0 && keys(before) === keys(after)) return undefined
  if ((before.length === 0 || after.length === 0) && ctx.pageType !== 'pricing') return undefined
  const facts: Fact[] = []
  const [gone, come] = [plansMoved(before, after), plansMoved(after, before)]
  for (const [plan, prices] of gone) {
    facts.push({ kind: 'plan_removed', subject: plan, priced: true, before: prices.map(x => x.m.raw).join(', ') })
  }
  for (const [plan, prices] of come) {
    facts.push({ kind: 'plan_added', subject: plan, priced: true, after: prices.map(x => x.m.raw).join(', ') })
  }
  const moved = (x: Priced) => gone.has(x.label) || come.has(x.label)
  for (const [b, a] of pairPrices(before.filter(x => !moved(x)), after.filter(x => !moved(x)))) {
    const fact = priceFact(b, a)
    if (!fact) continue
    fact.subject = a?.label || b?.label || p.section || 'Price'
    facts.push(fact)
  }
  if (facts.length === 0) return undefined
  // Prices the page mutes are not told beside the others; a block of nothing else is muted whole (classify.ts).
  const told = facts.filter(f => !ctx.muted?.(f))
  if (told.length > 0 && told.length < facts.length) facts.splice(0, facts.length, ...told)
  const judgedFacts = facts.map(f => ({ f, ...judge(f, ctx.pageType) }))
  const lead = judgedFacts.reduce((best, x) => weightier(x, best) ? x : best)
  const ordered = [lead.f, ...facts.filter(f => f !== lead.f)]
  const matched = before.length > 0 && after.length > 0
  return {
    fact: lead.f,
    facts: ordered,
    changeType: lead.changeType,
    severity: lead.severity,
    confidence: matched ? (before.length === after.length ? 0.95 : 0.85) : 0.75,
    phrase: sayPrices(ordered),
    passages: 1,
    // A price's plan stands for the section; plans that came or went name themselves.
    ...(isPlanMove(lead.f) ? { standsAlone: true } : { label: lead.f.subject })
  }
}

const isPlanMove = (f: Fact) => f.kind === 'plan_added' || f.kind === 'plan_removed'

/** Whether judged fact `x` weighs more than `y`: severity, a plan price before a usage price, then percentage. */
function weightier (x: { f: Fact, severity: Severity }, y: { f: Fact, severity: Severity }): boolean {
  if (RANK[x.severity] !== RANK[y.severity]) return RANK[x.severity] > RANK[y.severity]
  const periodic = (f: Fact) => /\/(?:month|year)|per (?:month|year)|\/mo|\/yr/i.test(`${f.before ?? ''} ${f.after ?? ''}`) ? 1 : 0
  if (periodic(x.f) !== periodic(y.f)) return periodic(x.f) > periodic(y.f)
  return Math.abs(x.f.percent ?? 0) > Math.abs(y.f.percent ?? 0)
}

/** How many price moves a summary names before it counts the rest. */
const MAX_NAMED_PRICES = 6

/**
 * Price facts in words, the first leading: plans that came or went listed together with
 * their prices ("Free ($0 per month) and Team ($19 per month) removed"), each price move
 * with its plan, once per plan ("Pro: $49/month → $59/month (+20%); $490/year → $590/year
 * (+20%)"), and past MAX_NAMED_PRICES, the rest counted. `withLeadPlan`: the lead's plan is
 * named too (no section says it).
 */
export function sayPrices (facts: readonly Fact[], withLeadPlan = false): string {
  const plans = (kind: Fact['kind'], side: 'before' | 'after') => {
    const named = new Map<string, string[]>()
    for (const f of facts.filter(x => x.kind === kind)) {
      named.set(f.subject ?? '', [...(named.get(f.subject ?? '') ?? []), f[side] ?? ''].filter(Boolean))
    }
    if (named.size === 0) return undefined
    const priced = (prices: string[]) => prices.length ? ` (${prices.join(', ')})` : ''
    const verb = kind === 'plan_removed' ? 'removed' : 'added'
    if (named.size === 1) {
      const [[plan, prices]] = [...named]
      return `${plan} plan ${verb}${priced(prices)}`
    }
    const each = [...named].map(([plan, prices]) => `${plan}${priced(prices)}`)
    return `plans ${each.slice(0, -1).join(', ')} and ${each.at(-1)} ${verb}`
  }
  const groups: string[] = []
  let named = 0
  // The lead's plan is said before its words, as the summary's section ("Pricing, Pro: …"), unless `withLeadPlan`.
  let last = isPlanMove(facts[0]) || withLeadPlan ? undefined : facts[0]?.subject
  for (const f of facts) {
    if (isPlanMove(f)) {
      // Plans that came (or went) are said together, where the first of them stands.
      const first = facts.find(x => x.kind === f.kind)
      if (first === f) groups.push(plans(f.kind, f.kind === 'plan_removed' ? 'before' : 'after')!)
      last = undefined
      continue
    }
    if (!f.kind.startsWith('price_') || named >= MAX_NAMED_PRICES) continue
    named++
    const pct = f.percent === undefined ? '' : ` (${f.percent > 0 ? '+' : ''}${f.percent}%)`
    const move = `${f.before ?? 'no price'} → ${f.after ?? 'no price'}${pct}`
    groups.push(f.subject && f.subject !== last ? `${f.subject}: ${move}` : move)
    last = f.subject
  }
  const rest = facts.filter(f => !isPlanMove(f) && f.kind.startsWith('price_')).length - named
  const text = groups.join('; ')
  return rest > 0 ? `${text}; and ${rest} more price${rest > 1 ? 's' : ''}` : text
}

/**
 * The plans of one side whose heading came or went with their prices, and no price of
 * the other side stands under that name: a plan removed (or added) whole, with its prices.
 */
function plansMoved (side: readonly Priced[], other: readonly Priced[]): Map<string, Priced[]> {
  const plans = new Map<string, Priced[]>()
  for (const x of side) {
    // A card under a heading that came or went, or a row of a table whose name the other side has not.
    if (!(x.planMoved || x.column >= 0) || !x.label || other.some(y => y.label === x.label)) continue
    plans.set(x.label, [...(plans.get(x.label) ?? []), x])
  }
  return plans
}

/** A price as compared: its currency, amount and what it is per. */
const priceKey = (m: Money) => `${m.currency}${m.amount}/${m.period}`

/** A move in whole percent (to a tenth below 1%); none from 0. */
function percentOf (before: number, after: number): number | undefined {
  if (before === 0 || !Number.isFinite(before) || !Number.isFinite(after)) return undefined
  const p = ((after - before) / before) * 100
  return Math.abs(p) >= 1 ? Math.round(p) : Math.round(p * 10) / 10
}

/**
 * What a pair of prices says: up or down by a percentage when currency and period are
 * the same, changed when they are not (per seat → flat: the numbers do not weigh it),
 * added or removed without a counterpart; nothing when it is the same price.
 */
function priceFact (b: Priced | undefined, a: Priced | undefined): Fact | undefined {
  const sides = { ...(b ? { before: b.m.raw } : {}), ...(a ? { after: a.m.raw } : {}) }
  if (b && a) {
    if (priceKey(b.m) === priceKey(a.m)) return undefined
    if (b.m.currency !== a.m.currency || b.m.period !== a.m.period) return { kind: 'price_changed', ...sides }
    const percent = percentOf(b.m.amount, a.m.amount)
    const kind = a.m.amount > b.m.amount ? 'price_up' : 'price_down'
    return percent === undefined ? { kind, ...sides } : { kind, ...sides, percent }
  }
  return { kind: b ? 'price_removed' : 'price_added', ...sides }
}

/**
 * Old and new prices paired. A price found on both sides, with the same or no label, only
 * moved (a row re-ordered, a price gone and back): it is no move. The rest are paired by
 * their label (a plan's row, "Pro: $49"), never across two labels: in a row of several
 * prices, by their cell (the monthly price with the monthly price, never a setup fee with
 * a total), then by their kind (currency and period), then in their order. Prices with no
 * label of their own pair only with one of their kind. What is left has no counterpart.
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
  const sameKind = (x: Priced, a: Priced) => x.m.currency === a.m.currency && x.m.period === a.m.period
  const rest: Priced[] = []
  for (const a of after) {
    const same = take(x => priceKey(x.m) === priceKey(a.m) && (x.label === a.label || !x.label || !a.label))
    if (!same) rest.push(a)
  }
  for (const a of rest) {
    const b = a.label
      ? take(x => x.label === a.label && a.column >= 0 && x.column === a.column) ??
        take(x => x.label === a.label && sameKind(x, a)) ??
        take(x => x.label === a.label && (a.column < 0 || x.column < 0))
      : take(x => !x.label && sameKind(x, a))
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
    ...judged({ kind: added ? 'feature_added' : 'feature_removed', subject: cards[0] }, ctx),
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
  // A legal page's section is its terms': the table weighs it by what it says.
  const fact: Fact = { kind: newSection ? 'section_added' : 'section_removed', subject: label }
  if (ctx.legalPage) fact.legalWords = speaksOfLaw(p, ctx.own)
  return { ...judged(fact, ctx), confidence: ctx.legalPage ? 0.9 : 0.85, phrase, passages: 1, label, standsAlone: true }
}

/** List items (or table rows) added or removed, and nothing else: features. */
function itemsReading (p: Part, ctx: Context): Reading | undefined {
  if (ctx.legalPage || ctx.pageType === 'changelog') return undefined
  const itemsOnly = (ls: string[]) => ls.length > 0 && ls.every(isItem)
  const sure = ctx.pageType === 'pricing' || ctx.pageType === 'features' ? 0.9 : 0.7
  if (itemsOnly(p.added) && p.removed.length === 0) {
    const items = p.added.map(plain)
    const phrase = `${feature(items.length)} ${names(items)} added`
    return { ...judged({ kind: 'feature_added', subject: items[0] }, ctx), confidence: sure, phrase, passages: 1 }
  }
  if (itemsOnly(p.removed) && p.added.length === 0) {
    const items = p.removed.map(plain)
    const phrase = `${feature(items.length)} ${names(items)} removed`
    return { ...judged({ kind: 'feature_removed', subject: items[0] }, ctx), confidence: sure, phrase, passages: 1 }
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
    ...judged({ kind: lost ? 'limit_lowered' : 'limit_raised' }, ctx),
    confidence: 0.8,
    phrase: quote.phrase,
    passages: quote.passages
  }
}

/**
 * Any other edit of the text, weighed by the table: its size, and on a legal page
 * whether it speaks of rights, data, liability (then it is an update of the terms).
 */
function textReading (p: Part, ctx: Context): Reading {
  const quote = quoteEdit(p.removed, p.added)
  const fact: Fact = {
    kind: 'text_edit',
    lines: p.added.length + p.removed.length,
    words: wordDelta(p.removed.join(' '), p.added.join(' '))
  }
  if (ctx.legalPage) fact.legalWords = speaksOfLaw(p, ctx.own)
  return { ...judged(fact, ctx), confidence: ctx.legalPage ? 0.9 : 0.7, phrase: quote.phrase, passages: quote.passages }
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
  const only = Object.keys(kinds.counts).filter(k => k !== 'substantive')
  return {
    ...judged({ kind: only.length === 1 && only[0] === 'last_updated' ? 'revision_date_changed' : 'trivial_edit' },
      ctx),
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
  ['plan limits', planLimitsReading],
  ['text', textReading]
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
  return textReading(p, ctx)
}

/** The quantities a text states, years aside ("up to 3 projects, 10 GB": "3 10"), and whether it says unlimited. */
function quantities (text: string): string {
  const numbers = [...text.matchAll(/\d+(?:[.,]\d+)?/g)]
    .filter(m => !(/^(?:19|2\d)\d\d$/.test(m[0]) && !/^\s*(?:users?|seats?|projects?|gb|mb|requests?|credits?)/i.test(text.slice(m.index! + m[0].length))))
    .map(m => m[0].replace(',', '.'))
  return `${numbers.join(' ')}${UNLIMITED.test(text) ? ' ∞' : ''}`
}
const UNLIMITED = /unlimited|illimit|unbegrenzt|unbeschränkt|ilimitad|onbeperkt/i

/**
 * Whether an edit speaks of what terms bind (rights, data, liability, fees…), in the
 * page's own language and English: French "tiers" is third parties, English "tiers" are plans.
 */
function speaksOfLaw (p: Part, own: readonly Language[]): boolean {
  return matcher(LEGAL_WORDS, own).test(foldAccents([...p.removed, ...p.added].join('\n')))
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
