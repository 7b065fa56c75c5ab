import {
  type Fact, type FactKind, type PlanPrice, type PricingChange, type PricingPlan, type PricingTable
} from '../../../vocabulary/core.js'
import { FACT_WORDS, judge } from '../../../vocabulary/facts.js'
import { fold, INCLUDED_MARK, NOT_INCLUDED_MARK } from '../../words/lexicon.js'
import { parseAmount } from '../../words/money.js'
import { planKey, type PricingReading } from './read.js'
import { priceKey } from './plans.js'
import { plain } from '../../text/quote.js'
import { leadOrder, sayPrices } from '../../classify/prices.js'
import { lineKey } from '../../text/hunks.js'
import { type ChangedLine, type StructuredChange, type StructuredReading } from '../structure.js'
import { cellsOf } from '../../../vocabulary/lines.js'

// Two readings of a pricing page (see readPricing) → what moved, plan by plan: prices up
// or down with the percentage (only between one plan's prices of one currency and
// period), plans added or removed, limits raised or lowered, features added, removed or
// moved between plans. Plans are matched by name, never by their place on the page, so a
// re-ordered page is the same table; a page that now shows every price in another
// currency (a currency switcher, a visitor's country) moved nothing.

const featureKey = (f: string) => plain(f).toLowerCase().replace(/\s+/g, ' ').trim()

/** A move in whole percent (to a tenth below 1%); none from 0. */
function percentOf (before: number, after: number): number | undefined {
  if (before === 0 || !Number.isFinite(before) || !Number.isFinite(after)) return undefined
  const p = ((after - before) / before) * 100
  return Math.abs(p) >= 1 ? Math.round(p) : Math.round(p * 10) / 10
}
const signed = (n: number) => `${n > 0 ? '+' : ''}${n}%`
const list = (names: readonly string[]) => names.join(', ')
const currencies = (t: PricingTable) => new Set(t.plans.flatMap(p => p.prices.map(x => x.currency)))

/** Whether every price is now shown in other currencies than before (a currency switcher). */
function switchedCurrency (before: PricingTable, after: PricingTable): boolean {
  const [was, is] = [currencies(before), currencies(after)]
  return was.size > 0 && is.size > 0 && ![...was].some(c => is.has(c))
}

export function comparePricing (before: PricingTable, after: PricingTable): PricingChange[] {
  const out: PricingChange[] = []
  const beforePlans = new Map(before.plans.map(p => [planKey(p.name), p]))
  const afterPlans = new Map(after.plans.map(p => [planKey(p.name), p]))
  const switched = switchedCurrency(before, after)
  const shown = (plan: PricingPlan) => plan.prices[0] ? ` (${plan.prices[0].text})` : ''
  for (const [key, plan] of beforePlans) {
    if (afterPlans.has(key)) continue
    out.push({ kind: 'plan_removed', plan: plan.name, summary: `${plan.name} plan removed${shown(plan)}` })
  }
  for (const [key, plan] of afterPlans) {
    if (beforePlans.has(key)) continue
    out.push({ kind: 'plan_added', plan: plan.name, summary: `${plan.name} plan added${shown(plan)}` })
  }
  const common = [...afterPlans].filter(([key]) => beforePlans.has(key))
    .map(([key, a]) => [beforePlans.get(key)!, a] as [PricingPlan, PricingPlan])
  for (const [b, a] of common) {
    if (!switched) out.push(...priceMoves(b, a))
    out.push(...limitMoves(b, a))
  }
  out.push(...featureMoves(common))
  return out
}

function priceMoves (b: PricingPlan, a: PricingPlan): PricingChange[] {
  const out: PricingChange[] = []
  const move = (x: PlanPrice, y: PlanPrice, percent: number | undefined): PricingChange | undefined => {
    // The same amount with a term written on one side only ("$20" → "$20/month") did not move.
    if (x.amount === y.amount && (x.period === y.period || x.period === '' || y.period === '')) return undefined
    const up = percent === undefined ? y.amount > x.amount : percent > 0
    // A fee, a total or an add-on is named with its plan: "Cloud VDS S – Setup fee".
    const plan = y.charge && y.label ? `${a.name} – ${y.label}` : a.name
    const change: PricingChange = {
      kind: up ? 'price_up' : 'price_down',
      plan,
      ...(y.charge ? { charge: y.charge } : {}),
      before: x.text,
      after: y.text,
      summary: `${plan}: ${x.text} → ${y.text}${percent === undefined ? '' : ` (${signed(percent)})`}`
    }
    if (percent !== undefined) change.percent = percent
    return change
  }
  // Prices of one kind (currency, period, billing) pair up, the nearest amounts first: a
  // plan's row of a setup fee and a total keeps the fee with the fee (a 2.25 € fee never
  // "becomes" a 33 € total), whatever else came or went.
  const paired = new Set<PlanPrice>()
  const candidates = b.prices.flatMap(x => a.prices.filter(y => priceKey(y) === priceKey(x))
    .map(y => ({ x, y, distance: Math.abs(Math.log((y.amount + 1e-9) / (x.amount + 1e-9))) })))
    .sort((p, q) => p.distance - q.distance)
  for (const { x, y } of candidates) {
    if (paired.has(x) || paired.has(y)) continue
    paired.add(x).add(y)
    const m = move(x, y, percentOf(x.amount, y.amount))
    if (m) out.push(m)
  }
  // One price each side, in one currency, now per another period: a move, with no percentage (they don't compare).
  const left = b.prices.filter(p => !paired.has(p))
  const right = a.prices.filter(p => !paired.has(p) && !b.prices.some(q => priceKey(q) === priceKey(p)))
  // Never across a column's kind: a setup fee that went is no total that came.
  if (left.length === 1 && right.length === 1 && left[0].currency === right[0].currency &&
    left[0].label === right[0].label) {
    const m = move(left[0], right[0], undefined)
    if (m) out.push(m)
  }
  return out
}

const SIZE: Record<string, number> = {
  k: 1e3, m: 1e6, kb: 1e-3, mb: 1, gb: 1e3, tb: 1e6, gib: 1e3, tib: 1e6, go: 1e3, to: 1e6
}
const UNLIMITED = /unlimited|illimit|unbegrenzt|unbeschränkt|ilimitad|onbeperkt|ilimitad/i

/** A limit's value as a number to compare ("2 GB" → 2000, "10k" → 10000, "Unlimited" → ∞), if it is one. */
export function limitValue (value: string): number | undefined {
  if (UNLIMITED.test(value)) return Infinity
  const m = /(\d[\d,.\u00a0\u202f ]*)\s*(k|m|kb|mb|gb|tb|gib|tib|go|to)?\b/i.exec(fold(value))
  if (!m) return undefined
  const digits = m[1].replace(/[\s\u00a0\u202f]/g, '')
  const n = /[.,]\d{3}(?:$|[.,])/.test(digits) ? Number(digits.replace(/[.,]/g, '')) : Number(digits.replace(',', '.'))
  return Number.isFinite(n) ? n * (SIZE[(m[2] ?? '').toLowerCase()] ?? 1) : undefined
}

function limitMoves (b: PricingPlan, a: PricingPlan): PricingChange[] {
  const out: PricingChange[] = []
  const names = new Set([...b.limits, ...a.limits].map(l => l.name))
  for (const name of names) {
    const x = b.limits.find(l => l.name === name)?.value
    const y = a.limits.find(l => l.name === name)?.value
    if (x === y || !x || !y) continue
    const [from, to] = [limitValue(x), limitValue(y)]
    const percent = from !== undefined && to !== undefined && Number.isFinite(from) && Number.isFinite(to)
      ? percentOf(from, to)
      : undefined
    const change: PricingChange = {
      kind: 'limit_changed',
      plan: a.name,
      limit: name,
      before: x,
      after: y,
      summary: `${a.name}: ${name} ${x} → ${y}${percent === undefined ? '' : ` (${signed(percent)})`}`
    }
    if (percent !== undefined) change.percent = percent
    out.push(change)
  }
  return out
}

/** Whether a limit's move offers less: a lower number, or "unlimited" gone. Unknown: not lowered. */
export function limitLowered (c: PricingChange): boolean {
  const [from, to] = [limitValue(c.before ?? ''), limitValue(c.after ?? '')]
  return from !== undefined && to !== undefined && to < from
}

function featureMoves (common: ReadonlyArray<[PricingPlan, PricingPlan]>): PricingChange[] {
  const where = (side: 0 | 1) => {
    const plans = new Map<string, { text: string, plans: string[] }>()
    for (const pair of common) {
      for (const f of pair[side].features) {
        const key = featureKey(f)
        const entry = plans.get(key) ?? { text: plain(f), plans: [] }
        if (!entry.plans.includes(pair[1].name)) entry.plans.push(pair[1].name)
        plans.set(key, entry)
      }
    }
    return plans
  }
  const [was, is] = [where(0), where(1)]
  const out: PricingChange[] = []
  for (const key of new Set([...was.keys(), ...is.keys()])) {
    const from = was.get(key)?.plans ?? []
    const to = is.get(key)?.plans ?? []
    const lost = from.filter(p => !to.includes(p))
    const gained = to.filter(p => !from.includes(p))
    const feature = (is.get(key) ?? was.get(key))!.text
    if (lost.length > 0 && gained.length > 0) {
      out.push({
        kind: 'feature_moved',
        feature,
        fromPlans: from,
        toPlans: to,
        summary: `feature "${feature}" moved from ${list(lost)} to ${list(gained)}`
      })
    } else if (lost.length > 0) {
      const plan = list(lost)
      out.push({ kind: 'feature_removed', feature, plan, summary: `${plan}: feature "${feature}" removed` })
    } else if (gained.length > 0) {
      const plan = list(gained)
      out.push({ kind: 'feature_added', feature, plan, summary: `${plan}: feature "${feature}" added` })
    }
  }
  return out
}

/** A move of the table as the fact it is (see facts.ts): money, a plan, a limit, a feature. */
function factOf (c: PricingChange, before: PricingTable, after: PricingTable): Fact {
  const about = {
    ...(c.plan ? { subject: c.plan } : {}),
    ...(c.charge ? { charge: c.charge } : {}),
    ...(c.before ? { before: c.before } : {}),
    ...(c.after ? { after: c.after } : {}),
    ...(c.percent === undefined ? {} : { percent: c.percent })
  }
  switch (c.kind) {
    case 'price_up':
    case 'price_down':
      return { ...about, kind: c.percent === undefined ? 'price_changed' : c.kind }
    case 'plan_removed': {
      const prices = before.plans.find(p => p.name === c.plan)?.prices ?? []
      return { ...about, kind: c.kind, priced: prices.length > 0, ...pricesSaid('before', prices) }
    }
    case 'plan_added': {
      const prices = after.plans.find(p => p.name === c.plan)?.prices ?? []
      return {
        ...about,
        kind: c.kind,
        priced: prices.length > 0 && before.plans.some(p => p.prices.length > 0),
        ...pricesSaid('after', prices)
      }
    }
    case 'limit_changed':
      return { ...about, kind: limitLowered(c) ? 'limit_lowered' : 'limit_raised', subject: `${c.plan}: ${c.limit}` }
    default:
      return { ...about, kind: c.kind, ...(c.feature ? { subject: c.feature } : {}) }
  }
}

/** A plan's prices as one side of its fact ("$10/month, $120/year"), if it has any. */
const pricesSaid = (side: 'before' | 'after', prices: readonly PlanPrice[]) =>
  prices.length > 0 ? { [side]: prices.map(p => p.text).join(', ') } : {}

/** How many moves other than prices a summary names before it counts the rest. */
const MAX_NAMED = 4
/**
 * The change a person reads from the table's moves, one per check, led by its weightiest
 * move (by the facts' table, then money before plans before limits before features, then
 * the largest percentage): prices and plans said as the text comparison says them
 * (sayPrices), then the other moves, the rest counted by kind.
 */
export function pricingChange (
  before: PricingTable, after: PricingTable, moves: readonly PricingChange[]
): StructuredChange {
  const weighed = moves.map(m => {
    const fact = factOf(m, before, after)
    return { m, fact, ...judge(fact, 'pricing') }
  })
  const ranked = [...weighed].sort(leadOrder)
  const money = ranked.filter(x => x.fact.kind.startsWith('price_') || x.fact.kind.startsWith('plan_'))
  const others = ranked.filter(x => !money.includes(x))
  const named = others.slice(0, MAX_NAMED)
  const counted = new Map<FactKind, number>()
  for (const x of others.slice(MAX_NAMED)) counted.set(x.fact.kind, (counted.get(x.fact.kind) ?? 0) + 1)
  const said = [
    ...(money.length > 0 ? [sayPrices(money.map(x => x.fact), true)] : []),
    ...named.map(x => x.m.summary)
  ].join('; ')
  const more = [...counted].map(([kind, n]) => `${n} more ${FACT_WORDS[kind][n === 1 ? 0 : 1]}`)
  const lead = ranked[0]
  return {
    changeType: lead.changeType,
    severity: lead.severity,
    confidence: 0.9,
    summary: more.length > 0 ? `${said}; and ${more.join(', ')}` : said,
    diffData: { pricing: { before, after, changes: ranked.map(x => x.m) }, facts: ranked.map(x => x.fact) }
  }
}

/** "Save 20%", "-20 %", "2 months free": what a monthly/yearly toggle's badge says. */
const SAVE_BADGE = /^(?:save|economisez|sparen|spare|ahorra|risparmia|bespaar|economize)\b.*\d|^-\s?\d+\s?%$|^\d+ months? free$/

/** The words that say what a price is per, in the seven languages (see words/lexicon.ts PER). */
const PER_WORDS = new Set(['per', 'a', 'an', 'par', 'pro', 'je', 'por', 'al', 'all', 'ao'])

/** A line's words as the pricing reader weighs them: numbers by value ("29,00" is 29), signs, no case or accents. */
export const tokens = (text: string): string[] =>
  (fold(text).toLowerCase().match(/\d+(?:[.,\u00a0\u202f']\d+)*|\p{L}+|[$€£¥₹✓✔✗✕×✘❌—]/gu) ?? [])
    .map(t => /^\d/.test(t) ? String(parseAmount(t)) : t)

/** A table row's cells, or the line as one cell, each as `lineKey` writes it. */
const cellKeys = (line: string) =>
  (cellsOf(line) ?? [plain(line)]).map(c => lineKey(c)).filter(Boolean)

const rowCells = (line: string) => (cellsOf(line) ?? [line]).map(c => c.trim())
/** A cell that says included or not: a check, a cross, a dash, yes or no, or nothing (an icon). */
const isMark = (cell: string) => cell === '' || INCLUDED_MARK.test(cell) || NOT_INCLUDED_MARK.test(cell)

/** Words of `a` not in `b`, and of `b` not in `a`, counted. */
function changedTokens (a: string, b: string): string[] {
  const count = (ts: string[]) => ts.reduce((m, t) => m.set(t, (m.get(t) ?? 0) + 1), new Map<string, number>())
  const [x, y] = [count(tokens(a)), count(tokens(b))]
  const out: string[] = []
  for (const [t, n] of x) if (n > (y.get(t) ?? 0)) out.push(t)
  for (const [t, n] of y) if (n > (x.get(t) ?? 0)) out.push(t)
  return out
}

/**
 * Two readings of a pricing page as a structured reading: the one change its moves make,
 * and which changed lines of the text they explain. A line is explained when it is the
 * plans' own (a card's, a row's, a column's) and either belongs to a plan added or
 * removed, or is a toggle's badge, or changed only in words of the moves (the moved
 * prices and limits as written, the features that moved, the currency signs when every
 * price changed currency). Any other line is left to the text comparison.
 */
export function comparePricingReadings (
  before: PricingReading, after: PricingReading, muted?: (f: Fact) => boolean
): StructuredReading {
  const moves = comparePricing(before.table, after.table)
  // The moves the page mutes explain their lines, and are not told.
  const told = muted ? moves.filter(m => !muted(factOf(m, before.table, after.table))) : moves
  const switched = switchedCurrency(before.table, after.table)
  const words = new Set<string>()
  const add = (text: string | undefined) => { for (const t of tokens(text ?? '')) words.add(t) }
  for (const m of moves) for (const text of [m.before, m.after, m.feature, m.limit]) add(text)
  // A plan that came or went: every word of its own text (a column's cell in a row of other plans).
  for (const m of moves) {
    if (m.kind !== 'plan_added' && m.kind !== 'plan_removed') continue
    const lines = (m.kind === 'plan_added' ? after : before).planLines.get(planKey(m.plan!)) ?? []
    for (const line of [m.plan!, ...lines]) for (const t of tokens(line)) words.add(t)
  }
  if (switched) for (const c of [...currencies(before.table), ...currencies(after.table)]) add(c)
  const features = new Set(moves.filter(m => m.feature).map(m => lineKey(m.feature!)))
  const struck = new Set([...before.struck, ...after.struck].flatMap(tokens))
  const gone = moves.filter(m => m.kind === 'plan_removed').map(m => planKey(m.plan!))
  const come = moves.filter(m => m.kind === 'plan_added').map(m => planKey(m.plan!))
  const explains = ({ text: line, side, at, counterpart: other }: ChangedLine): boolean => {
    const reading = side === 'before' ? before : after
    const counterpart = other?.text
    const cells = cellKeys(line)
    if (cells.length === 0) return false
    // A toggle's badge comes and goes with the toggle, wherever it stands.
    if (cells.every(c => SAVE_BADGE.test(c))) return true
    // The plans' own line: one that stands in a plan's card, row, column or item; else (where it stands unknown) one
    // that reads as theirs.
    const holders = at === undefined ? undefined : reading.spans.keysAt(at)
    if (holders ? holders.size === 0 : !cells.every(c => reading.lines.has(c))) return false
    const plans = side === 'before' ? gone : come
    const ofPlans = holders
      ? [...holders].every(k => plans.includes(k))
      : cells.every(c => plans.some(p => reading.planLines.get(p)?.has(c)))
    if (ofPlans) return true
    // A comparison table's row of a feature that moved: its marks changed, and nothing else.
    const rows = counterpart !== undefined && cellsOf(line) !== null && cellsOf(counterpart) !== null
    if (rows && features.has(lineKey(rowCells(line)[0]))) {
      const [mine, theirs] = [rowCells(line), rowCells(counterpart)]
      const marksOnly = mine.every((c, i) => c === theirs[i] || (isMark(c) && isMark(theirs[i])))
      if (mine.length === theirs.length && marksOnly) return true
    }
    // "per" and its kin are how a price is written ("$20 per user/month" is the table's "$20/user/month").
    const changed = (counterpart === undefined ? tokens(plain(line)) : changedTokens(plain(line), plain(counterpart)))
      .filter(t => !PER_WORDS.has(t))
    // A sale's former price, struck through, moves with the price it stands beside; alone, it is the text's.
    return changed.some(t => words.has(t)) && changed.every(t => words.has(t) || struck.has(t))
  }
  return { changes: told.length > 0 ? [pricingChange(before.table, after.table, told)] : [], explains }
}
