import {
  SEVERITY_RANK, type DiffData, type PlanPrice, type PricingChange, type PricingPlan, type PricingTable,
  type Severity
} from '../domain/vocabulary.js'
import { findMoney, type DetectedChange } from './classify.js'
import { planKey, type PricingReading } from './pricing.js'
import { lineKey, takeOver } from './structure.js'
import { plain } from './quote.js'

// Two readings of a pricing page (see readPricing) → what moved, plan by plan: prices up
// or down with the percentage, plans added or removed, limits changed, features added,
// removed or moved between plans. Plans are matched by name and prices by currency,
// period and toggle state, so a re-ordered page is the same table; a page that now shows
// every price in another currency (a currency switcher, a visitor's country) moved nothing.

const featureKey = (f: string) => plain(f).toLowerCase().replace(/\s+/g, ' ').trim()
const priceKey = (p: PlanPrice) => `${p.currency}|${p.period}|${p.billing ?? ''}`
const PER_MONTH: Record<string, number> = { month: 1, year: 1 / 12, week: 52 / 12, day: 365 / 12 }

/** A move in whole percent (to a tenth below 1%); none from a price of 0. */
function percentOf (before: number, after: number): number | undefined {
  if (before === 0) return undefined
  const p = ((after - before) / before) * 100
  return Math.abs(p) >= 1 ? Math.round(p) : Math.round(p * 10) / 10
}
const signed = (n: number) => `${n > 0 ? '+' : ''}${n}%`
const list = (names: readonly string[]) => names.join(', ')

export function comparePricing (before: PricingTable, after: PricingTable): PricingChange[] {
  const out: PricingChange[] = []
  const beforePlans = new Map(before.plans.map(p => [planKey(p.name), p]))
  const afterPlans = new Map(after.plans.map(p => [planKey(p.name), p]))
  const currencies = (t: PricingTable) => new Set(t.plans.flatMap(p => p.prices.map(x => x.currency)))
  const [was, is] = [currencies(before), currencies(after)]
  const switched = was.size > 0 && is.size > 0 && ![...was].some(c => is.has(c))
  for (const [key, plan] of beforePlans) {
    if (afterPlans.has(key)) continue
    const shown = plan.prices[0] ? ` (${plan.prices[0].text})` : ''
    out.push({ kind: 'plan_removed', plan: plan.name, summary: `${plan.name} plan removed${shown}` })
  }
  for (const [key, plan] of afterPlans) {
    if (beforePlans.has(key)) continue
    const shown = plan.prices[0] ? ` (${plan.prices[0].text})` : ''
    out.push({ kind: 'plan_added', plan: plan.name, summary: `${plan.name} plan added${shown}` })
  }
  const common = [...afterPlans].filter(([key]) => beforePlans.has(key)).map(([key, a]) => [beforePlans.get(key)!, a])
  for (const [b, a] of common) {
    if (!switched) out.push(...priceMoves(b, a))
    out.push(...limitMoves(b, a))
  }
  out.push(...featureMoves(common as Array<[PricingPlan, PricingPlan]>))
  return out
}

function priceMoves (b: PricingPlan, a: PricingPlan): PricingChange[] {
  const out: PricingChange[] = []
  const move = (x: PlanPrice, y: PlanPrice, percent: number | undefined): PricingChange | undefined => {
    if (x.amount === y.amount && x.period === y.period) return undefined
    const up = percent === undefined ? y.amount > x.amount : percent > 0
    const change: PricingChange = {
      kind: up ? 'price_up' : 'price_down',
      plan: a.name,
      before: x.text,
      after: y.text,
      summary: `${a.name}: ${x.text} → ${y.text}${percent === undefined ? '' : ` (${signed(percent)})`}`
    }
    if (percent !== undefined) change.percent = percent
    return change
  }
  const afterByKey = new Map(a.prices.map(p => [priceKey(p), p]))
  const matched = b.prices.filter(p => afterByKey.has(priceKey(p)))
  for (const x of matched) {
    const y = afterByKey.get(priceKey(x))!
    const m = move(x, y, percentOf(x.amount, y.amount))
    if (m) out.push(m)
  }
  // One price each side, in one currency, now per another period: compared per month.
  if (matched.length === 0 && b.prices.length === 1 && a.prices.length === 1) {
    const [x, y] = [b.prices[0], a.prices[0]]
    const [fx, fy] = [PER_MONTH[x.period.split('/')[0]], PER_MONTH[y.period.split('/')[0]]]
    if (x.currency === y.currency && fx !== undefined && fy !== undefined) {
      const m = move(x, y, percentOf(x.amount * fx, y.amount * fy))
      if (m) out.push(m)
    }
  }
  return out
}

function limitMoves (b: PricingPlan, a: PricingPlan): PricingChange[] {
  const out: PricingChange[] = []
  const names = new Set([...b.limits, ...a.limits].map(l => l.name))
  for (const name of names) {
    const x = b.limits.find(l => l.name === name)?.value
    const y = a.limits.find(l => l.name === name)?.value
    if (x === y || !x || !y) continue
    out.push({
      kind: 'limit_changed', plan: a.name, limit: name, before: x, after: y, summary: `${a.name}: ${name} ${x} → ${y}`
    })
  }
  return out
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
        summary: `“${feature}” moved from ${list(lost)} to ${list(gained)}`
      })
    } else if (lost.length > 0) {
      out.push({ kind: 'feature_removed', feature, plan: list(lost), summary: `${list(lost)}: “${feature}” removed` })
    } else if (gained.length > 0) {
      out.push({ kind: 'feature_added', feature, plan: list(gained), summary: `${list(gained)}: “${feature}” added` })
    }
  }
  return out
}

function severityOf (c: PricingChange): Severity {
  if (c.kind === 'price_up' && (c.percent ?? 100) >= 50) return 'critical'
  if ((c.kind === 'price_up' || c.kind === 'price_down') && Math.abs(c.percent ?? 100) >= 20) return 'high'
  if (c.kind === 'plan_removed') return 'high'
  if (c.kind === 'feature_added') return 'low'
  return 'medium'
}

const MAX_NAMED = 3

/**
 * The change a person reads from the table's moves, one per crawl as for any edit: a
 * price_change when a price, plan or limit moved (features moved with them are in it
 * too), else feature_removed when a plan lost a feature, else feature_added; with
 * `diffData.pricing` and the text diff given. The largest moves lead its summary.
 */
export function pricingChange (
  before: PricingTable, after: PricingTable, moves: readonly PricingChange[], diff: Omit<DiffData, 'pricing'>
): DetectedChange {
  const ranked = [...moves].sort((x, y) => SEVERITY_RANK[severityOf(y)] - SEVERITY_RANK[severityOf(x)] ||
    Number(x.kind.startsWith('feature_')) - Number(y.kind.startsWith('feature_')) ||
    Math.abs(y.percent ?? 0) - Math.abs(x.percent ?? 0))
  const named = ranked.slice(0, MAX_NAMED).map(m => m.summary).join('; ')
  const more = ranked.length - MAX_NAMED
  const changeType = moves.some(m => !m.kind.startsWith('feature_'))
    ? 'price_change'
    : moves.some(m => m.kind !== 'feature_added') ? 'feature_removed' : 'feature_added'
  return {
    changeType,
    severity: ranked.map(severityOf).reduce((s, x) => SEVERITY_RANK[x] > SEVERITY_RANK[s] ? x : s, 'low'),
    confidence: 0.9,
    summary: more > 0 ? `${named}; and ${more} more` : named,
    diffData: { ...diff, pricing: { before, after, changes: ranked } }
  }
}

const readable = (t: PricingTable) => t.plans.some(p => p.prices.length > 0)

/**
 * The changes of a pricing page's text with its plans read on both sides: the table
 * speaks for the plans. A text change made only of lines of plan cards and tables, or of
 * money, is left to it (a re-ordered page, a badge that moved, are then nothing), and
 * what the table saw move is reported with that text's diff.
 */
export function withPricing (text: DetectedChange[], before: PricingReading, after: PricingReading): DetectedChange[] {
  if (!readable(before.table) || !readable(after.table)) return text
  const ours = (line: string) => {
    const cells = line.startsWith('| ') ? line.slice(2, -2).split(' | ') : [plain(line)]
    return cells.some(cell => {
      const key = lineKey(cell)
      return key === '' || before.lines.has(key) || after.lines.has(key) || findMoney(cell).length > 0 ||
        SAVE_BADGE.test(key)
    })
  }
  const { kept, diff } = takeOver(text, ours)
  const moves = comparePricing(before.table, after.table)
  if (moves.length === 0) return kept
  return [pricingChange(before.table, after.table, moves, diff), ...kept]
}

/** "Save 20%", "-20 %", "2 months free": what a monthly/yearly toggle's badge says. */
const SAVE_BADGE = /^(?:save|economisez|sparen|spare|ahorra|risparmia|bespaar|economize)\b.*\d|^-\s?\d+\s?%$|^\d+ months? free$/
