import { selectAll } from 'css-select'
import type { AnyNode, Element } from 'domhandler'
import { DomUtils } from 'htmlparser2'
import type { PlanPrice, PricingPlan } from '../../../vocabulary/core.js'
import {
  chargeIn, fold, INCLUDED_MARK, NOT_INCLUDED_MARK, TABLE_ATTRIBUTE, TABLE_NAME_HEADER
} from '../../words/lexicon.js'
import { findMoney, type Money } from '../../words/money.js'
import { lineKey } from '../../text/hunks.js'
import { blockText, currentText } from '../../text/node-text.js'
import { MONTHLY, priceKey, YEARLY } from './plans.js'

// Pricing tables as people write them: plans as columns (a comparison table: one header
// cell per plan, one row per price, feature or limit) or plans as rows (a price list:
// `Plan | Price | Included`, a provider's `Server | vCPU | RAM | Hourly | Monthly`, a usage
// table `Storage | $0.02 per GB-month`). Which way a table runs is read from its header:
// headers that name attributes (price, period, unit, a resource) mean each row is a plan.
// A header cell, a period, a unit or a section heading is never a plan. Pure.

/** A plan as one table reads it, with the text of its cells and a section when it has one. */
export interface TablePlan {
  plan: PricingPlan
  /** The plan's own cells (see lineKey). */
  lines: Set<string>
  /** Those cells' elements: a changed line is the plan's when it stands in one (see Spans). */
  elements: Element[]
  /** The heading or caption the table stands under. */
  section?: string
}

const MAX_NAME = 60
const select = (query: string, root: AnyNode | AnyNode[]) => selectAll(query, root) as Element[]

/** A header that holds prices or says their period. */
const PRICE_HEADER = /^(?:price|pricing|cost|rate|fee|monthly|yearly|annual|hourly|per |prix|tarif|coût|mensuel|annuel|preis|kosten|monatlich|jährlich|precio|coste|mensual|anual|prezzo|costo|mensile|annuale|prijs|maandelijks|jaarlijks|preço|custo|mensal)/iu
/** A header whose cells list what a plan includes: each part a limit ("10 projects") or a feature. */
const INCLUDES_HEADER = /^(?:included|includes|what'?s included|features?|inclus|enthalten|incluye|incluido|include|inbegrepen|inclui|incluído)$/iu
/** Row labels that are billing periods, not plans. */
const PERIOD_LABEL = /^(?:monthly|yearly|annual(?:ly)?|hourly|weekly|daily|per (?:month|year|hour)|billed (?:monthly|annually|yearly)|mensuel(?:le)?|annuel(?:le)?|monatlich|jährlich|mensual|anual|mensile|annuale|maandelijks|jaarlijks|mensal)$/iu
const HOURLY = /(?:^|[\s_-])(?:hourly|hour|stündlich|horaire|por hora)(?=$|[\s_-])/i
const ICON_INCLUDED = /check|tick|yes|included|true|available/i
const FREE = /^(?:free|gratuit(?:e)?|kostenlos|gratis|gratuito|grátis)$/iu
/** A unit a column's header gives its prices ("Price per GB", "$/GB-month", "Storage (per GB)"). */
const HEADER_UNIT = /(?:per|\/)\s*((?:\d[\d,.]*\s?[kKmM]?\s)?(?:GB|TB|MB|GiB|TiB)(?:-month)?|(?:\d[\d,.]*\s?[kKmM]?\s)?requests?|users?|seats?|hour|hr|h|month|mo|year|yr)\b/i
const HEADER_UNITS = new RegExp(HEADER_UNIT.source, 'gi')
/** A column that holds the unit its row's price is per ("Price | Unit": "$0.10 | per GB per month"). */
const UNIT_HEADER = /^(?:units?|billing units?|unit of measure|per|unité|einheit|unidad|unità|eenheid|unidade)$/iu
const UNIT_TEXT = /^(?:per|\/)\s*\S/i

const cellsOf = (tr: Element) => tr.children.filter((c): c is Element => c.type === 'tag' && /^t[hd]$/.test(c.name))
const clean = (text: string, money: readonly Money[]) => {
  let name = text
  for (const m of money) name = name.replace(m.raw, '')
  return name.replace(/[*†‡¹²³]+/g, '').replace(/\s+/g, ' ').replace(/^[\s:–-]+|[\s:–-]+$/g, '').trim()
}

/** Whether a text can name a plan: short, and neither a billing period nor an attribute's name. */
export function isPlanName (text: string): boolean {
  return text !== '' && text.length <= MAX_NAME && !PERIOD_LABEL.test(text) && !/^\d[\d\s.,]*$/.test(text) &&
    !/^(?:total|subtotal)$/i.test(text)
}

/** The period and billing state a column's header or a row's label gives the prices under it ("per user / month"). */
function periodOf (label: string): { period?: string, billing?: string } {
  const units = [...label.matchAll(HEADER_UNITS)].map(m => {
    const u = m[1].toLowerCase()
    if (/^(?:month|mo)$/.test(u)) return 'month'
    if (/^(?:year|yr)$/.test(u)) return 'year'
    if (/^(?:hour|hr|h)$/.test(u)) return 'hour'
    if (/^(?:users?|seats?)$/.test(u)) return 'user'
    return m[1].replace(/gib/i, 'GB').replace(/tib/i, 'TB').replace(/requests?$/i, 'requests')
  })
  const billing = YEARLY.test(label) ? 'yearly' : MONTHLY.test(label) ? 'monthly' : undefined
  if (units.length > 0) {
    // "Annual price (per month)" is per month, billed yearly; "Price per user (annual)" is per user and year.
    const periodic = units.some(u => /^(?:month|year|hour)$/.test(u))
    if (billing && !periodic) units.push(billing === 'yearly' ? 'year' : 'month')
    return { period: units.join('/'), ...(billing && periodic ? { billing } : {}) }
  }
  if (billing) return { period: billing === 'yearly' ? 'year' : 'month', billing }
  if (HOURLY.test(label)) return { period: 'hour' }
  return {}
}

function included (cell: Element, text: string): boolean {
  if (text) return INCLUDED_MARK.test(text)
  const icons = DomUtils.findAll(e => e.name === 'img' || e.name === 'i' || e.name === 'span' || e.name === 'svg',
    cell.children)
  return icons.some(i => ICON_INCLUDED.test(
    [i.attribs.class, i.attribs.alt, i.attribs.title, i.attribs['aria-label'], i.attribs['data-icon']].join(' ')
  ))
}

/** The heading or caption a table (or list) stands under: its caption, else the nearest heading before it. */
export function sectionOf (
  table: Element, order: ReadonlyMap<Element, number>, headings: readonly Element[]
): string | undefined {
  const caption = select('caption', table)[0]
  if (caption) return headingText(caption)
  const at = order.get(table) ?? 0
  let found: Element | undefined
  for (const h of headings) {
    if ((order.get(h) ?? Infinity) < at) found = h
    else break
  }
  return found ? headingText(found) : undefined
}

/** A heading's words, without the permalink sign docs generators put after it (¶, #, 🔗). */
const headingText = (el: Element) => currentText(el).replace(/\s*[¶#§🔗]+$/u, '').trim() || undefined

export interface Priced { amount: number, currency: string, period: string, billing?: string }

/**
 * Every table of the page read as plans, by rows or by columns (see above); `known`, the
 * plans other sources found: a table with no price is read only when it names two of them
 * (a limits or features table beside the cards).
 */
export function tablePlans (
  root: AnyNode[], known: ReadonlySet<string>, planKey: (name: string) => string,
  price: (p: Priced) => PlanPrice
): TablePlan[] {
  const all = DomUtils.findAll(() => true, root)
  const order = new Map(all.map((el, i) => [el, i]))
  const headings = all.filter(el => /^h[1-6]$/.test(el.name))
  const out: Array<TablePlan & { rows: boolean }> = []
  for (const table of all.filter(el => el.name === 'table')) {
    const rows = select('tr', table).filter(r => select('table', r).length === 0)
    if (rows.length < 2) continue
    const headerAt = headerRow(rows)
    const header = headerAt < 0 ? [] : cellsOf(rows[headerAt]).map(c => currentText(c))
    const body = rows.slice(headerAt + 1)
    const section = sectionOf(table, order, headings)
    const rowsArePlans = headerAt < 0 || byRows(header, body)
    const read = rowsArePlans
      ? rowPlans(header, body, price)
      : columnPlans(header, cellsOf(rows[headerAt]), body, known, planKey, price)
    for (const r of read) out.push({ ...r, ...(section ? { section } : {}), rows: rowsArePlans })
  }
  // A table of rows with no price (limits, rate limits) lists plans only when it names two that are priced elsewhere:
  // else its rows are anything (a docs page's parameters).
  const priced = new Set([...known, ...out.filter(t => t.plan.prices.length > 0).map(t => planKey(t.plan.name))])
  const tables = new Map<string | undefined, Array<TablePlan & { rows: boolean }>>()
  return out.filter(t => {
    if (!t.rows) return true
    const mates = tables.get(t.section) ?? out.filter(o => o.rows && o.section === t.section)
    tables.set(t.section, mates)
    return mates.some(o => o.plan.prices.length > 0) || mates.filter(o => priced.has(planKey(o.plan.name))).length >= 2
  }).map(({ rows, ...t }) => t)
}

/**
 * The table's header row: the first of header cells only, else a first row that leaves its
 * corner empty above short names with no price (a comparison table written without <th>).
 */
function headerRow (rows: readonly Element[]): number {
  const th = rows.findIndex(r => cellsOf(r).length >= 2 && cellsOf(r).every(c => c.name === 'th'))
  if (th >= 0) return th
  const first = cellsOf(rows[0]).map(c => currentText(c))
  const names = first.slice(1)
  const short = (t: string) => t !== '' && t.length <= MAX_NAME && findMoney(t).length === 0
  return first.length >= 3 && first[0] === '' && names.every(short) ? 0 : -1
}

/** Whether the header names attributes, so that each body row is a plan. */
function byRows (header: readonly string[], body: readonly Element[]): boolean {
  const rest = header.slice(1).filter(Boolean)
  // A header-less table of two columns: a name and its price, row after row.
  if (rest.length === 0) return body.every(r => cellsOf(r).length <= 3)
  const attributes = rest.filter(h => TABLE_ATTRIBUTE.test(h) || HEADER_UNIT.test(h) || /^\(?[$€£]\)?$/.test(h))
  if (attributes.length === rest.length) return true
  if (TABLE_NAME_HEADER.test(header[0] ?? '') && attributes.length > 0) return true
  return attributes.some(h => PRICE_HEADER.test(h)) && attributes.length * 2 >= rest.length
}

function rowPlans (header: readonly string[], body: readonly Element[], price: (p: Priced) => PlanPrice): TablePlan[] {
  const nameAt = Math.max(0, header.findIndex(h => TABLE_NAME_HEADER.test(h)))
  const plans: TablePlan[] = []
  const currency = body.flatMap(r => cellsOf(r).flatMap(c => findMoney(currentText(c)))).find(m => m.currency)?.currency
  for (const row of body) {
    const cells = cellsOf(row)
    if (cells.length < 2 || cells.length > Math.max(header.length, 2)) continue
    const texts = cells.map(c => currentText(c))
    const name = clean(texts[nameAt] ?? '', findMoney(texts[nameAt] ?? ''))
    if (!isPlanName(name)) continue
    const plan: PricingPlan = { name, prices: [], limits: [], features: [] }
    const lines = new Set(cells.map(c => lineKey(blockText(c))).filter(Boolean))
    const found: Array<{ price: PlanPrice, column: string }> = []
    // A unit in a column of its own is read with the row's price, as if written after it.
    const unitAt = texts.findIndex((text, i) => i !== nameAt && findMoney(text).length === 0 &&
      (UNIT_HEADER.test(header[i] ?? '') || UNIT_TEXT.test(text)))
    for (const [i, cell] of cells.entries()) {
      if (i === nameAt || i === unitAt) continue
      const label = header[i] ?? ''
      const text = texts[i]
      const column = periodOf(label)
      const money = findMoney(unitAt >= 0 ? `${text} ${texts[unitAt]}` : text)
      if (money.length > 0) {
        for (const m of money) {
          const period = m.period || column.period || ''
          const billing = column.billing ? { billing: column.billing } : {}
          found.push({ price: price({ ...m, period, ...billing }), column: label })
        }
      } else if (FREE.test(text) && currency && PRICE_HEADER.test(label)) {
        addPrice(plan, price({ amount: 0, currency, period: column.period ?? '' }))
      } else if (included(cell, text)) {
        if (label) plan.features.push(label)
      } else if (text && !NOT_INCLUDED_MARK.test(text)) {
        if (INCLUDES_HEADER.test(label) || !label) readItems(text.split(/\s*[,;•·]\s*/), plan)
        else addLimit(plan, fold(label).toLowerCase(), text)
      }
    }
    // Two columns of one kind of price, or a column that names its price's kind (a setup fee,
    // a total): each keeps its column's name, and is compared only with its own.
    for (const { price: p, column } of found) {
      const twins = found.filter(f => priceKey(f.price) === priceKey(p)).length > 1
      const charge = chargeIn(column)
      addPrice(plan, (twins || charge) && column ? { ...p, label: column, ...(charge ? { charge } : {}) } : p)
    }
    if (plan.prices.length > 0 || plan.limits.length > 0 || plan.features.length > 0) {
      plans.push({ plan, lines, elements: cells })
    }
  }
  return plans
}

function columnPlans (
  header: readonly string[], headerCells: readonly Element[], body: readonly Element[], known: ReadonlySet<string>,
  planKey: (name: string) => string, price: (p: Priced) => PlanPrice
): TablePlan[] {
  const columns = header.map((text, i) => {
    if (i === 0) return undefined
    const money = findMoney(text)
    const nameEl = select('h1, h2, h3, h4, h5, h6, strong, b', headerCells[i])[0]
    const name = nameEl ? currentText(nameEl) : clean(text, money)
    if (!isPlanName(name) || TABLE_ATTRIBUTE.test(name)) return undefined
    const plan: PricingPlan = { name, prices: [], limits: [], features: [] }
    for (const m of money) addPrice(plan, price(m))
    const elements = [headerCells[i], headerCells[0]]
    return { plan, lines: new Set(elements.map(c => lineKey(blockText(c))).filter(Boolean)), elements }
  })
  const plans = columns.filter((c): c is TablePlan => c !== undefined)
  if (plans.length === 0) return []
  const priced = plans.some(c => c.plan.prices.length > 0) ||
    body.some(r => cellsOf(r).slice(1).some(c => findMoney(currentText(c)).length > 0))
  if (!priced && plans.filter(c => known.has(planKey(c.plan.name))).length < 2) return []
  for (const row of body) {
    const cells = cellsOf(row)
    if (cells.length !== header.length) continue
    const label = currentText(cells[0])
    if (!label) continue
    const { period, billing } = periodOf(label)
    for (const [i, cell] of cells.entries()) {
      const column = columns[i]
      if (!column) continue
      const text = currentText(cell)
      for (const c of [cells[0], cell]) {
        const key = lineKey(blockText(c))
        if (key) column.lines.add(key)
        column.elements.push(c)
      }
      const money = findMoney(text)
      if (money.length > 0) {
        // A row that names a charge ("Setup fee", "Extra contacts") keeps its name: compared only with its own.
        const charge = chargeIn(label)
        for (const m of money) {
          const p = price({
            ...m,
            period: m.period || period || '',
            ...(billing === 'yearly' && (m.period || period) === 'month' ? { billing } : {})
          })
          addPrice(column.plan, charge ? { ...p, charge, label } : p)
        }
      } else if (FREE.test(text) && PERIOD_LABEL.test(label)) {
        const currency = body.flatMap(r => cellsOf(r).map(c => findMoney(currentText(c))[0]?.currency)).find(Boolean)
        if (currency) addPrice(column.plan, price({ amount: 0, currency, period: period ?? '' }))
      } else if (included(cell, text)) {
        column.plan.features.push(label)
      } else if (text && !NOT_INCLUDED_MARK.test(text)) {
        addLimit(column.plan, fold(label).toLowerCase(), text)
      }
    }
  }
  return plans
}

function addPrice (plan: PricingPlan, p: PlanPrice): void {
  if (!plan.prices.some(q => priceKey(q) === priceKey(p))) plan.prices.push(p)
}
function addLimit (plan: PricingPlan, name: string, value: string): void {
  if (!plan.limits.some(l => l.name === name)) plan.limits.push({ name, value })
}

const LIMIT = new RegExp(
  '^(?:up to |jusqu\'à |bis zu |hasta |fino a |tot |até )?' +
    '(\\d[\\d.,\u00a0\u202f ]*\\s?(?:k|m|mb|gb|tb|gib|tib|go|to)?|unlimited|illimité\\w*|unbegrenzt\\w*|ilimitad\\w*|' +
    'illimitat\\w*|onbeperkt\\w*)\\s+([\\p{L}][\\p{L}\\s/-]{0,30})$',
  'iu'
)

/** A plan's list items: a number with a unit is a headline limit ("10 users"), any other a feature. */
export function readItems (items: readonly string[], plan: PricingPlan): void {
  for (const text of items) {
    if (!text) continue
    const limit = LIMIT.exec(text)
    if (limit && limit[2].trim().split(/\s+/).length <= 4) {
      addLimit(plan, unitName(limit[2]), limit[1].trim())
    } else if (!plan.features.includes(text)) {
      plan.features.push(text)
    }
  }
}

/** A limit's name, one form for one and many ("1 seat", "5 seats"). */
const unitName = (words: string) =>
  fold(words).toLowerCase().trim().split(/\s+/)
    .map(w => w.length > 3 && /[^s]s$/.test(w) && !INVARIABLE.test(w) ? w.slice(0, -1) : w).join(' ')
/** Words that end in s in the singular too. */
const INVARIABLE = /^(?:mois|fois|pas|plus|sans|sous|dans|process|access|analytics|news|series|status|bonus)$/
