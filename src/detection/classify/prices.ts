import { type Fact, type FactKind, type PageType, SEVERITY_RANK as RANK, type Severity } from '../../vocabulary/core.js'
import { judge } from '../../vocabulary/facts.js'
import { cellsOf, parseLine } from '../../vocabulary/lines.js'
import { headingText, isHeading } from '../text/blocks.js'
import { plain } from '../text/quote.js'
import {
  chargeIn, CORPORATE_MONEY_WORDS, fold as foldAccents, type Language, LANGUAGES, matcher, ownLanguages, PERIOD_WORDS,
  PLAIN_PRICE_ROW, type PRICE_KIND_WORDS, PRICE_QUALIFIERS, PRICE_WORDS, TABLE_ATTRIBUTE, TABLE_NAME_HEADER
} from '../words/lexicon.js'
import { findMoney, type Money, wordsBeside } from '../words/money.js'
import type { Context, Part, Reading } from './part.js'

// A block's prices, read from its text: each price labelled by its row or the plan's
// heading, old and new paired by plan and column, plans that came or went with their prices,
// and said in words (sayPrices, which the pricing reader uses too).

/** Which cell of its table row a price stands in (-1: not in a row). */
const columnOf = (line: string, money: Money) => cellsOf(line)?.findIndex(c => c.includes(money.raw)) ?? -1

function labelOf (line: string, money: Money): string {
  const cells = cellsOf(line)
  if (cells && cells.length > 1) return cells.find(c => !c.includes(money.raw) && findMoney(c).length === 0) ?? ''
  // A line's name before its colon names its prices ("6 Months: 29.70 € in total"); a line
  // of several prices is named by what leads them ("Pro $49/month or $490/year"), else each
  // by the words beside it ("4.50 € / month, Windows licence 6.85 € / month"), if any.
  const all = findMoney(line)
  const before = line.slice(0, line.indexOf(all[0]?.raw ?? money.raw))
  const named = /^(?:#{1,6} |- )?([^:]{1,40}):/.exec(before)?.[1]
  const lead = named ?? (all.length > 1 ? (/\p{L}/u.test(before) ? before : wordsBeside(line, money)) : '')
  // Other money on the line is no label either ("$12 $9/month": a price struck through beside the price).
  const label = (/\p{L}/u.test(lead) || all.length > 1
    ? lead
    : all.reduce((rest, m) => rest.replace(m.raw, ''), line.replace(money.raw, '')))
    .replace(/^(#{1,6}|-) /, '')
    .replace(/[\s:–-]+$/, '')
    .replace(/^[\s:–-]+/, '')
    .trim()
  // A sentence around a price is no label: the plan's heading names it better; nor is a
  // footnote's mark beside it ("$30/month<sup>1</sup>", "*$30"), renumbered as notes come and go;
  // nor words that only qualify the price ("ab … mtl.", "from", "max.").
  if (label.length > 40 || FOOTNOTE_MARK.test(label)) return ''
  return /\p{L}/u.test(foldAccents(label).replace(QUALIFIERS, ' ')) ? label : ''
}
const QUALIFIERS = matcher(PRICE_QUALIFIERS, LANGUAGES, 'giu')
const FOOTNOTE_MARK = /^[\d*†‡§¹²³⁴-⁹⁰]{1,3}$/u

/**
 * The plan a table's column names when the table lists plans as columns: its corner names no
 * column of names ("Plan"), and the column's head is no attribute, price, charge or period.
 */
function planOfColumn (head: readonly string[] | undefined, column: number): string | undefined {
  const name = head?.[column]?.trim()
  if (!head || column < 1 || !name || name.length > 40 || TABLE_NAME_HEADER.test(head[0] ?? '')) return undefined
  if (TABLE_ATTRIBUTE.test(name) || findMoney(name).length > 0 || chargeIn(name) || isTerm(name)) return undefined
  return name
}

/** A label that is a term, not a plan: "6 Months", "12 Monate", "1 year", "Monthly", "Annual". */
const isTerm = (label: string) => TERM.test(foldAccents(label))
const TERM_WORDS = PERIOD_WORDS.filter(([, name]) => /^(?:day|week|month|year)$/.test(name)).map(([words]) => words)
const TERM = new RegExp(`^(?:\\d+\\s*)?(?:${TERM_WORDS.join('|')}|annual)(?:s|ly|e|en|es)?$`, 'iu')

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

/**
 * Money that is a price, with the line it is on, its own label (its row's, else the
 * heading it stands under: its plan's card), its cell in a row, and whether that heading
 * came or went with it (a plan added or removed).
 */
interface Priced {
  m: Money
  line: string
  label: string
  column: number
  planMoved: boolean
  kind: PriceKind
  /** Its label is the heading it stands under, not its own (a row's, its line's). */
  headed: boolean
}

/** What a price is: a plan's price (''), a fee paid once to set up, or a term's total. */
type PriceKind = '' | typeof PRICE_KIND_WORDS[number][0]

/**
 * A price's kind: its column's header says it in a table ("Setup fee", "Total"), else the
 * words beside it on its line; none of them: a plan's price.
 */
function kindOf (
  line: string, m: Money, column: number, head: readonly string[] | undefined, own: readonly Language[]
): PriceKind {
  const beside = column >= 0 ? `${head?.[column] ?? ''} ${cellsOf(line)?.[column] ?? ''}` : wordsBeside(line, m)
  return chargeIn(beside, own) ?? ''
}

/** A line that can name the prices after it where no heading does: short text, no price, no list item or row. */
const isNameLine = (line: string, priced: boolean) =>
  !priced && line.length <= 40 && parseLine(line).kind === 'text' && /\p{L}/u.test(line)

/**
 * The heading each changed line of a block stands under, on its own side of the diff (a
 * removed line under the old page's headings, an added one under the new page's), and
 * whether that heading is itself a changed line; and the name line nearest above it under
 * that heading ("Team" over "$19 per month", in a card whose name is no heading): lines in
 * their order, by their text.
 */
function headingsOf (p: Part) {
  type Heading = { text: string, moved: boolean }
  type Place = { heading?: Heading, name?: string, nameMoved?: boolean }
  const { hunk, at } = p.within ?? { hunk: p.hunk, at: 0 }
  const window = (i: number) => i >= at && i < at + p.hunk.lines.length
  const under = { deletion: new Map<string, Place[]>(), addition: new Map<string, Place[]>() }
  const names: { deletion?: string, addition?: string } = {}
  const namesMoved: { deletion?: boolean, addition?: boolean } = {}
  // The name lines over prices, per heading and side: two or more, and the heading is a section of plans.
  const plansUnder = { deletion: new Map<string, Set<string>>(), addition: new Map<string, Set<string>>() }
  const priceNamed = (side: 'deletion' | 'addition', heading: Heading | undefined, priced: boolean) => {
    const name = names[side]
    if (!name || !priced) return
    const key = heading?.text ?? ''
    plansUnder[side].set(key, (plansUnder[side].get(key) ?? new Set()).add(name))
  }
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
      if (l.type !== 'addition') [old, names.deletion] = [h, undefined]
      if (l.type !== 'deletion') [now, names.addition] = [h, undefined]
      return
    }
    const priced = findMoney(l.content).length > 0
    const named = isNameLine(l.content, priced) ? l.content : undefined
    if (l.type === 'context') {
      if (old?.moved && old.mine) kept.deletion.push({ line: l.content, heading: old })
      if (now?.moved && now.mine) kept.addition.push({ line: l.content, heading: now })
      priceNamed('deletion', old, priced)
      priceNamed('addition', now, priced)
      if (named) {
        [names.deletion, names.addition] = [named, named]
        namesMoved.deletion = namesMoved.addition = false
      }
      return
    }
    const heading = l.type === 'deletion' ? old : now
    priceNamed(l.type, heading, priced)
    if (window(i) && (heading || names[l.type])) {
      const queue = under[l.type].get(l.content) ?? []
      queue.push({ heading, name: names[l.type], nameMoved: namesMoved[l.type] })
      under[l.type].set(l.content, queue)
    }
    if (named) [names[l.type], namesMoved[l.type]] = [named, true]
  })
  const of = (side: 'deletion' | 'addition', line: string): Place | undefined => {
    const place = under[side].get(line)?.shift()
    // A name line is a plan's name only where the heading holds several plans' prices.
    const plans = plansUnder[side].get(place?.heading?.text ?? '')?.size ?? 0
    return place && { heading: place.heading, ...(plans > 1 ? { name: place.name, nameMoved: place.nameMoved } : {}) }
  }
  return { of, kept }
}

/**
 * A block's prices as one reading, or undefined when it holds none that moved. `asSection`:
 * whether the block reads as a whole section (its money then is in its sentences).
 */
export function priceReading (
  p: Part, ctx: Context, asSection: (p: Part, ctx: Context) => boolean
): Reading | undefined {
  // Money in legal text is the text's edit: the legal rules weigh it.
  if (ctx.legalPage) return undefined
  const headings = headingsOf(p)
  const priced = (l: string, heading: { text: string, moved: boolean } | undefined, side: 'deletion' | 'addition'):
  Priced[] =>
    findMoney(l).filter(m => isPrice(m, l, p, ctx.pageType, ctx.language)).map(m => {
      const column = columnOf(l, m)
      // A row names its price; else the card's heading does, before what the line says around it ("for 14 days").
      const rowLabel = column >= 0 ? labelOf(l, m) : ''
      // Plans as columns ("| Monthly price | $29 | $79 |" under "| | Starter | Growth |"): the column names the plan.
      const plan = planOfColumn(p.tableHeads[side], column)
      const row = plan ? (PLAIN_PRICE_ROW.test(rowLabel) || !rowLabel ? plan : `${plan} – ${rowLabel}`) : rowLabel
      const own = labelOf(l, m)
      // Its kind: in a column of a plan, its row's name says it ("Extra contacts", "Setup fee").
      const kind = (plan ? chargeIn(rowLabel, ctx.own) : undefined) ?? kindOf(l, m, column, p.tableHeads[side], ctx.own)
      // A term or a charge names no plan ("6 Months: 29.25 € in total", "Setup fee €50"): the card's heading does,
      // with it (the section's, when the diff shows no heading above the line).
      const card = heading?.text ?? p.section
      const termOfPlan = card && own && (isTerm(own) || (kind !== '' && chargeIn(own, ctx.own) === kind))
        ? `${card} – ${own}`
        : ''
      const label = row || (heading?.moved ? heading.text : termOfPlan || own || heading?.text) || ''
      const headed = !row && !termOfPlan && (heading?.moved === true || !own)
      return { m, line: l, label, column, planMoved: row === '' && heading?.moved === true, kind, headed }
    })
  const money = (lines: string[], side: 'deletion' | 'addition'): Priced[] => byPlace([
    ...lines.flatMap(l => {
      const place = findMoney(l).length > 0 ? headings.of(side, l) : undefined
      return priced(l, place?.heading, side).map(x => ({ ...x, name: place?.name, nameMoved: place?.nameMoved }))
    }),
    // A renamed plan's price that stayed: it went with the old name and came with the new one.
    ...headings.kept[side].flatMap(k => priced(k.line, k.heading, side))
  ])
  const before = money(p.removed, 'deletion')
  const after = money(p.added, 'addition')
  if (before.length === 0 && after.length === 0) return undefined
  // A whole section whose money is in its sentences ("billed at $0.50 per 1,000 requests") is a section.
  const inProse = [...before, ...after].every(x => plain(x.line).length > MAX_PRICE_LINE)
  if (inProse && asSection(p, ctx)) return undefined
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
    const charge = (a ?? b)!.kind
    if (charge) fact.charge = charge
    facts.push(fact)
  }
  if (facts.length === 0) return undefined
  // Prices the page mutes are not told beside the others; a block of nothing else is muted whole (classify.ts).
  const told = facts.filter(f => !ctx.muted?.(f))
  if (told.length > 0 && told.length < facts.length) facts.splice(0, facts.length, ...told)
  const lead = facts.map(fact => ({ fact, ...judge(fact, ctx.pageType) })).sort(leadOrder)[0]
  const ordered = [lead.fact, ...facts.filter(f => f !== lead.fact)]
  const matched = before.length > 0 && after.length > 0
  return {
    fact: lead.fact,
    facts: ordered,
    changeType: lead.changeType,
    severity: lead.severity,
    confidence: matched ? (before.length === after.length ? 0.95 : 0.85) : 0.75,
    phrase: sayPrices(ordered),
    passages: 1,
    // A price's plan stands for the section; plans that came or went name themselves.
    ...(isPlanMove(lead.fact) ? { standsAlone: true } : { label: lead.fact.subject })
  }
}

const isPlanMove = (f: Fact) => f.kind === 'plan_added' || f.kind === 'plan_removed'

/**
 * Prices that a heading alone names where it holds several plans' prices (plan cards whose
 * names are no headings, under "Plan Types"): each is named by its place, the name line
 * above it ("Team"), and is never paired with another plan's price.
 */
function byPlace (side: ReadonlyArray<Priced & { name?: string, nameMoved?: boolean }>): Priced[] {
  // A name that came or went with its prices is a plan added or removed, as a heading's would be.
  return side.map(({ name, nameMoved, ...x }) => name && x.headed && x.label !== name
    ? { ...x, label: name, planMoved: x.planMoved || nameMoved === true }
    : x)
}

/**
 * Of facts of one severity, which kind leads: a plan's price that moved, then plans that went
 * or came, then a price alone that went or came (an add-on's, a term's) or a charge's that
 * moved (see kindRank), then limits, then features, then the rest.
 */
const LEAD_KINDS: readonly FactKind[] = [
  'price_up', 'price_down', 'price_changed', 'plan_removed', 'plan_added', 'price_removed', 'price_added',
  'limit_lowered', 'limit_raised', 'feature_removed', 'feature_moved', 'feature_added'
]
const kindRank = (f: Fact) => {
  // A fee's, a total's or an add-on's move comes after the plans, with the prices alone.
  const i = LEAD_KINDS.indexOf(f.charge !== undefined && f.kind.startsWith('price_') ? 'price_removed' : f.kind)
  return i < 0 ? LEAD_KINDS.length : i
}
/**
 * A move of a plan's price per month or year (per user too), in any language the money
 * reader knows: the price people compare, before a usage price (per GB, even per GB a
 * month) or an hourly one. Plans that came or went stay in the page's order.
 */
const planPeriodic = (f: Fact) => f.kind.startsWith('price_') && f.charge === undefined &&
  findMoney(`${f.before ?? ''} ${f.after ?? ''}`).some(m => /^(?:month|year)(?:\/|$)/.test(m.period))

/**
 * The one order of a change's facts, the lead first, for the text comparison and the
 * pricing reader alike: severity, then kind, then a plan's periodic price, then the
 * largest percentage; ties keep their order on the page.
 */
export function leadOrder (x: { fact: Fact, severity: Severity }, y: { fact: Fact, severity: Severity }): number {
  return RANK[y.severity] - RANK[x.severity] ||
    kindRank(x.fact) - kindRank(y.fact) ||
    Number(planPeriodic(y.fact)) - Number(planPeriodic(x.fact)) ||
    Math.abs(y.fact.percent ?? 0) - Math.abs(x.fact.percent ?? 0)
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
    // The same amount with its term written on one side only ("$20" → "$20/month") did not move.
    if (b.m.currency === a.m.currency && b.m.amount === a.m.amount && (!b.m.period || !a.m.period)) return undefined
    if (b.m.currency !== a.m.currency || b.m.period !== a.m.period) return { kind: 'price_changed', ...sides }
    const percent = percentOf(b.m.amount, a.m.amount)
    const kind = a.m.amount > b.m.amount ? 'price_up' : 'price_down'
    return percent === undefined ? { kind, ...sides } : { kind, ...sides, percent }
  }
  return { kind: b ? 'price_removed' : 'price_added', ...sides }
}

/**
 * Old and new prices paired, only ever within one kind (a plan's price, a setup fee, a
 * term's total: see kindOf). A price found on both sides, with the same or no label, only
 * moved (a row re-ordered, a price gone and back): it is no move. The rest are paired by
 * their label (a plan's row, "Pro: $49", "Cloud VPS 10 – 6 Months"), never across two labels:
 * in a row of several prices, by their cell, then by currency and period, then in their
 * order. Prices with no label of their own pair only with one of their kind. What is left
 * has no counterpart.
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
  const sameKind = (x: Priced, a: Priced) =>
    x.kind === a.kind && x.m.currency === a.m.currency && x.m.period === a.m.period
  // A yearly price and a monthly one are two prices, never one that moved (unless one says no term at all).
  const sameTerm = (x: Priced, a: Priced) => x.kind === a.kind &&
    (!x.m.period || !a.m.period || x.m.period.split('/').at(-1) === a.m.period.split('/').at(-1))
  const rest: Priced[] = []
  for (const a of after) {
    const same = take(x => priceKey(x.m) === priceKey(a.m) && x.kind === a.kind &&
      (x.label === a.label || !x.label || !a.label))
    if (!same) rest.push(a)
  }
  for (const a of rest) {
    const b = a.label
      ? take(x => x.label === a.label && a.column >= 0 && x.column === a.column && x.kind === a.kind) ??
        take(x => x.label === a.label && sameKind(x, a)) ??
        take(x => x.label === a.label && (a.column < 0 || x.column < 0) && sameTerm(x, a))
      : take(x => !x.label && sameKind(x, a))
    out.push([b, a])
  }
  for (const b of left) out.push([b, undefined])
  return out
}
