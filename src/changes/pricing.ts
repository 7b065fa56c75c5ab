import { selectAll } from 'css-select'
import type { AnyNode, Element } from 'domhandler'
import { DomUtils, parseDocument } from 'htmlparser2'
import type { PlanPrice, PricingPlan, PricingTable } from '../domain/vocabulary.js'
import { findMoney } from './classify.js'
import { fold } from './lexicon.js'
import { BLOCKS, blockText, contains, lineKey, SKIPPED } from './structure.js'

// A pricing page's plans as a structure: each plan's name, prices (per period and
// currency, under each state of a monthly/yearly toggle when both are in the page), a
// tax or billing note, headline limits and listed features. Read, in this order, from
// schema.org Product/Offer (JSON-LD, then microdata), plan cards (a heading with prices
// under it) and comparison tables (plans as columns); a plan found by several is merged
// by its name. Pure: HTML in, a table out.

const HEADING_TAG = /^h([1-6])$/
/** A class that names a plan (plan-name, tier__title, name…), on an element that is not a heading. */
const NAME_CLASS = /(?:^|\s)(?:(?:[\w-]*[-_])?(?:plan|tier|package|pricing|card)[-_]{1,2}(?:name|title|header)|name|title)(?:\s|$)/i
const MAX_NAME = 40
const MAX_NOTE = 100
const NOTE_WORDS = new RegExp(
  'billed|billing|tax|vat|excl|incl|per user|per seat|paid (?:annually|yearly|monthly)|factur|\\bht\\b|\\bttc\\b|' +
    'mwst|zzgl|inkl|iva|btw|jährlich|anual|annuel|mensual|monatlich|facturad|fatturat|gefactureerd|faturad',
  'i'
)
const YEARLY = /(?:^|[\s_-])(?:annual(?:ly)?|yearly|year|jahr(?:lich)?|jährlich|anual|annuel(?:le)?|annuale|jaarlijks)(?=$|[\s_-])/i
const MONTHLY = /(?:^|[\s_-])(?:monthly|month|mensuel(?:le)?|monatlich|mensual|mensile|maandelijks|mensal)(?=$|[\s_-])/i
const BILLED_YEARLY = /billed (?:annually|yearly)|per year|factur\w* annuellement|jährlich abgerechnet|facturad\w* anualmente/i
const INCLUDED = /^(?:✓|✔|✔️|✅|☑|yes|included|oui|inclus|ja|inklusive|enthalten|sí|si|incluido|sì|incluso|sim|incluído|inbegrepen)$/i
const ICON_INCLUDED = /check|tick|yes|included|true|available/i
const LIMIT = new RegExp(
  '^(?:up to |jusqu\'à |bis zu |hasta |fino a |tot |até )?' +
    '(\\d[\\d.,\u00a0\u202f ]*\\s?(?:k|m|mb|gb|tb|gib|tib|go|to)?|unlimited|illimité\\w*|unbegrenzt\\w*|ilimitad\\w*|' +
    'illimitat\\w*|onbeperkt\\w*)\\s+([\\p{L}][\\p{L}\\s/-]{0,30})$',
  'iu'
)
const PLAN_WORD = /\b(?:plan|tier|package|formule|paket|plano|piano|abonnement)\b/gi

/** A plan's name as matched across sources: "Pro plan" and "PRO" are one plan. */
export const planKey = (name: string) =>
  fold(name).toLowerCase().replace(PLAN_WORD, '').replace(/[^\p{L}\p{N}+]+/gu, ' ').trim()

const priceKey = (p: PlanPrice) => `${p.currency}|${p.period}|${p.billing ?? ''}`

const SYMBOL_FIRST = new Set(['$', '£', '¥', '₹', 'R$', 'US$', 'A$', 'C$'])
const ISO_SYMBOL: Record<string, string> = { USD: '$', EUR: '€', GBP: '£', BRL: 'R$', JPY: '¥', INR: '₹' }

/** "$49/month", "49 €/month", "CHF 49/month", "$39/month (billed yearly)". */
function priceText (p: Pick<PlanPrice, 'amount' | 'currency' | 'period' | 'billing'>): string {
  const amount = Number.isInteger(p.amount) ? String(p.amount) : p.amount.toFixed(2)
  const money = SYMBOL_FIRST.has(p.currency)
    ? `${p.currency}${amount}`
    : /^[A-Z]{3}$/.test(p.currency) ? `${p.currency} ${amount}` : `${amount} ${p.currency}`
  const billed = p.billing === 'yearly' && p.period !== 'year' ? ' (billed yearly)' : ''
  return `${money}${p.period ? `/${p.period}` : ''}${billed}`
}

function price (amount: number, currency: string, period: string, billing?: string): PlanPrice {
  const p: PlanPrice = { amount, currency: ISO_SYMBOL[currency.toUpperCase()] ?? currency, period, text: '' }
  if (billing) p.billing = billing
  p.text = priceText(p)
  return p
}

const select = (query: string, root: AnyNode | AnyNode[]) => selectAll(query, root) as Element[]
const elements = (root: AnyNode[]): Element[] => DomUtils.findAll(() => true, root)

/**
 * A page's plans, and the text of their cards and tables (each block's, as `lineKey`
 * writes it): a change of the page's text made only of those lines is the table's to
 * report (see withPricing).
 */
export interface PricingReading {
  table: PricingTable
  lines: Set<string>
}

export function readPricing (html: string): PricingReading {
  const doc = parseDocument(html)
  const table: PricingTable = { plans: [], sources: [] }
  const lines = new Set<string>()
  const add = (plans: PricingPlan[], source: PricingTable['sources'][number]) => {
    if (plans.length === 0) return
    table.sources.push(source)
    for (const plan of plans) mergePlan(table.plans, plan)
  }
  add(jsonLdPlans(doc.children), 'json-ld')
  add(microdataPlans(doc.children), 'microdata')
  // Out of the way of headings and prices; icons stay for the tables' check marks.
  for (const el of DomUtils.findAll(e => SKIPPED.has(e.name) && e.name !== 'svg', doc.children)) {
    DomUtils.removeElement(el)
  }
  add(cardPlans(doc.children, lines), 'cards')
  add(tablePlans(doc.children, table.plans, lines), 'table')
  return { table, lines }
}

function mergePlan (plans: PricingPlan[], plan: PricingPlan): void {
  const key = planKey(plan.name)
  if (!key) return
  const same = plans.find(p => planKey(p.name) === key)
  if (!same) {
    plans.push(plan)
    return
  }
  for (const p of plan.prices) {
    const known = same.prices.some(q => priceKey(q) === priceKey(p) ||
      (q.amount === p.amount && q.currency === p.currency && (q.period === '' || p.period === '')))
    if (!known) same.prices.push(p)
  }
  for (const f of plan.features) if (!same.features.includes(f)) same.features.push(f)
  for (const l of plan.limits) if (!same.limits.some(x => x.name === l.name)) same.limits.push(l)
  if (!same.note && plan.note) same.note = plan.note
}

const emptyPlan = (name: string): PricingPlan => ({ name, prices: [], limits: [], features: [] })

// schema.org in JSON-LD: Products (or services, applications) with their offers; one
// product whose offers are named is one plan per offer.

const PRODUCT_TYPES = new Set(['Product', 'Service', 'SoftwareApplication', 'WebApplication', 'ProductGroup'])
type Json = Record<string, unknown>
const asArray = (v: unknown): unknown[] => v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]
const typesOf = (n: Json): string[] => asArray(n['@type']).map(t => String(t).replace(/^.*[/#]/, ''))
const str = (v: unknown) => typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : ''

function jsonLdPlans (root: AnyNode[]): PricingPlan[] {
  const products: Json[] = []
  const offers: Json[] = []
  const visit = (v: unknown, depth: number) => {
    if (depth > 8) return
    for (const n of asArray(v)) {
      if (!n || typeof n !== 'object') continue
      const node = n as Json
      const types = typesOf(node)
      if (types.some(t => PRODUCT_TYPES.has(t))) products.push(node)
      else if (types.includes('Offer') || types.includes('AggregateOffer')) offers.push(node)
      else visit(node['@graph'] ?? node.mainEntity ?? node.itemListElement ?? node.item, depth + 1)
    }
  }
  for (const script of select('script[type="application/ld+json" i]', root)) {
    try {
      visit(JSON.parse(textOfScript(script)), 0)
    } catch {
      // A page's broken JSON-LD is its own; the other sources still count.
    }
  }
  const plans: PricingPlan[] = []
  const named = (list: unknown[]) => list.length > 1 && list.every(o => str((o as Json)?.name) !== '')
  for (const product of products) {
    const list = asArray(product.offers).filter(o => o && typeof o === 'object') as Json[]
    if (named(list) && products.length === 1) {
      for (const o of list) plans.push({ ...emptyPlan(str(o.name)), prices: offerPrices(o) })
    } else if (str(product.name)) {
      plans.push({ ...emptyPlan(str(product.name)), prices: list.flatMap(offerPrices) })
    }
  }
  for (const o of offers) if (str(o.name)) plans.push({ ...emptyPlan(str(o.name)), prices: offerPrices(o) })
  return plans.filter(p => p.prices.length > 0)
}

const textOfScript = (el: Element) => el.children.map(c => c.type === 'text' ? c.data : '').join('')

const UNIT_PERIOD: Record<string, string> = { MON: 'month', ANN: 'year', P1M: 'month', P1Y: 'year', P12M: 'year' }

function offerPrices (offer: Json): PlanPrice[] {
  const specs = [offer, ...asArray(offer.priceSpecification)].filter(s => s && typeof s === 'object') as Json[]
  const out: PlanPrice[] = []
  for (const s of specs) {
    const amount = Number(str(s.price ?? s.lowPrice).replace(',', '.'))
    const currency = str(s.priceCurrency ?? offer.priceCurrency)
    if (!Number.isFinite(amount) || str(s.price ?? s.lowPrice) === '' || !currency) continue
    const reference = s.referenceQuantity as Json | undefined
    const unit = str(s.billingDuration ?? s.unitCode ?? reference?.unitCode).toUpperCase()
    const words = `${str(s.unitText)} ${str(s.name)} ${str(offer.name)}`
    const period = UNIT_PERIOD[unit] ?? (YEARLY.test(words) ? 'year' : MONTHLY.test(words) ? 'month' : '')
    const p = price(amount, currency, period)
    if (!out.some(q => priceKey(q) === priceKey(p))) out.push(p)
  }
  // An offer's bare price repeats its specification's, which says the period.
  return out.filter(p => p.period !== '' || !out.some(q => q.period !== '' && q.amount === p.amount))
}

// schema.org in microdata: itemscope Products with itemprop name, price and priceCurrency.

function microdataPlans (root: AnyNode[]): PricingPlan[] {
  const scopes = select('[itemscope][itemtype*="schema.org/Product" i], [itemscope][itemtype*="schema.org/Service" i]',
    root)
  const plans: PricingPlan[] = []
  for (const scope of scopes) {
    if (scopes.some(s => s !== scope && contains(s, scope))) continue
    const prop = (name: string) => select(`[itemprop="${name}"]`, scope)
    const value = (el: Element) => el.attribs.content ?? blockText(el)
    const name = prop('name')[0]
    if (!name) continue
    const currencies = prop('priceCurrency').map(value)
    const prices = prop('price').map((el, i) => {
      const amount = Number(value(el).replace(/[^\d.,]/g, '').replace(',', '.'))
      const around = el.parent ? findMoney(blockText(el.parent))[0] : undefined
      return Number.isFinite(amount) && (currencies[i] ?? currencies[0])
        ? price(amount, currencies[i] ?? currencies[0], around?.period ?? '')
        : undefined
    }).filter((p): p is PlanPrice => p !== undefined)
    if (prices.length > 0) plans.push({ ...emptyPlan(value(name)), prices })
  }
  return plans
}

// Plan cards: a heading (or an element whose class names a plan) with one or more
// prices after it, before the next heading; its card is the largest element around it
// that holds no other plan's heading.

interface Heading { el: Element, level: number, order: number }

function headingOf (el: Element): number | undefined {
  const h = HEADING_TAG.exec(el.name)
  if (h) return Number(h[1])
  const cls = el.attribs.class
  if (cls && NAME_CLASS.test(cls)) {
    const text = blockText(el)
    if (text && text.length <= MAX_NAME && findMoney(text).length === 0) return 7
  }
  return undefined
}

const inside = (el: Element, names: ReadonlySet<string>) => {
  for (let p = el.parent; p && p.type === 'tag'; p = p.parent) if (names.has(p.name)) return true
  return false
}
const LIST_OR_TABLE = new Set(['li', 'table'])

/** A currency's sign or code: money can be only where one is. */
const CURRENCY_HINT = /[$€£¥₹]|USD|EUR|GBP|CHF|BRL|kr|zł/

/**
 * The innermost elements that hold a whole price ("$<span>49</span>" is one price), found
 * children first (`all` is in document order): an element is read only when a currency
 * sign is somewhere in it and no child holds a price, so a page is read about once, not
 * once per level of its nesting.
 */
function innermostPrices (all: readonly Element[]): Set<Element> {
  const hinted = new Set<Element>()
  const holds = new Set<Element>()
  const prices = new Set<Element>()
  for (let i = all.length - 1; i >= 0; i--) {
    const el = all[i]
    let hint = false
    let inner = false
    for (const c of el.children) {
      if (c.type === 'text') hint ||= CURRENCY_HINT.test(c.data)
      else if (c.type === 'tag') {
        hint ||= hinted.has(c)
        inner ||= holds.has(c)
      }
    }
    if (hint) hinted.add(el)
    if (inner) holds.add(el)
    else if (hint && findMoney(blockText(el)).length > 0) {
      holds.add(el)
      prices.add(el)
    }
  }
  return prices
}

function cardPlans (root: AnyNode[], lines: Set<string>): PricingPlan[] {
  const all = elements(root)
  const order = new Map(all.map((el, i) => [el, i]))
  const innermost = innermostPrices(all)
  const headings: Heading[] = []
  const prices: Array<{ el: Element, order: number }> = []
  for (const el of all) {
    const level = headingOf(el)
    if (level !== undefined) {
      if (!inside(el, LIST_OR_TABLE)) headings.push({ el, level, order: order.get(el)! })
      continue
    }
    if (!innermost.has(el) || LIST_OR_TABLE.has(el.name) || inside(el, LIST_OR_TABLE)) continue
    prices.push({ el, order: order.get(el)! })
  }
  // Each price belongs to the nearest heading before it that is not inside it.
  const byHeading = new Map<Heading, Element[]>()
  for (const p of prices) {
    let h: Heading | undefined
    for (const x of headings) {
      if (x.order >= p.order) break
      if (!contains(x.el, p.el) && !contains(p.el, x.el)) h = x
    }
    if (h) byHeading.set(h, [...(byHeading.get(h) ?? []), p.el])
  }
  const planHeadings = [...byHeading.keys()]
  // A card without a price ("Enterprise: contact us") is a plan when its heading is a priced
  // plan's twin: the same element at the same depth under one grid.
  const twins = (a: Element, b: Element) => {
    if (a.name !== b.name || (a.attribs.class ?? '') !== (b.attribs.class ?? '')) return false
    let [x, y]: [AnyNode | null, AnyNode | null] = [a.parent, b.parent]
    for (let up = 0; up < 4 && x && y; up++, x = x.parent, y = y.parent) if (x === y) return true
    return false
  }
  for (const h of headings) {
    if (!byHeading.has(h) && planHeadings.some(p => twins(p.el, h.el))) byHeading.set(h, [])
  }
  planHeadings.push(...[...byHeading.keys()].filter(h => !planHeadings.includes(h)))
  planHeadings.sort((a, b) => a.order - b.order)
  const plans: PricingPlan[] = []
  for (const [i, h] of planHeadings.entries()) {
    const others = planHeadings.filter(x => x !== h)
    let card: Element = h.el
    while (card.parent?.type === 'tag' && !others.some(o => contains(card.parent as Element, o.el))) {
      card = card.parent
    }
    // The card's own part: from its heading to the next plan's heading or a heading as high as its own.
    const next = planHeadings[i + 1]?.order ?? Infinity
    const stop = headings.find(x => x.order > h.order && x.level <= h.level && x.el !== h.el)?.order ?? Infinity
    const end = Math.min(next, stop)
    const within = (el: Element) => {
      const o = order.get(el)!
      return o > h.order && o < end && contains(card, el)
    }
    const plan = emptyPlan(blockText(h.el))
    for (const el of byHeading.get(h)!) {
      for (const p of pricesIn(el, card)) if (!plan.prices.some(q => priceKey(q) === priceKey(p))) plan.prices.push(p)
    }
    const inCard = elements([card])
    const mine = inCard.filter(within)
    const items = mine.filter(el => el.name === 'li' && !DomUtils.findOne(x => x.name === 'li', el.children))
    readItems(items.map(blockText), plan)
    plan.note = noteIn(mine)
    if (!plan.note) delete plan.note
    // The whole card is the plan's when it holds one plan of several; else only its heading's part.
    const own = planHeadings.length > 1 ? (el: Element) => el === h.el || contains(card, el) : within
    for (const el of inCard) {
      if ((el === h.el || own(el)) && !el.children.some(c => c.type === 'tag' && BLOCKS.has(c.name))) {
        const text = blockText(el)
        if (text) lines.add(lineKey(text))
      }
    }
    if (plan.name && plan.name.length <= MAX_NAME * 2) plans.push(plan)
  }
  return plans
}

/** The prices an element states, with their period (written beside it) and the toggle state it sits under. */
function pricesIn (el: Element, card: Element): PlanPrice[] {
  const own = findMoney(blockText(el))
  const around = el.parent && el !== card ? findMoney(blockText(el.parent)) : []
  const context = el.parent && el !== card ? blockText(el.parent) : blockText(el)
  let billing: string | undefined
  for (let p: Element | null = el; p && p !== card.parent; p = p.parent?.type === 'tag' ? p.parent : null) {
    const attrs = Object.entries(p.attribs).filter(([k]) => k === 'class' || k === 'id' || k.startsWith('data-'))
      .map(([, v]) => v).join(' ')
    if (YEARLY.test(attrs)) billing = 'yearly'
    else if (MONTHLY.test(attrs)) billing = 'monthly'
    if (billing) break
  }
  if (!billing && BILLED_YEARLY.test(context)) billing = 'yearly'
  return own.map(m => {
    const period = m.period || around.find(a => a.amount === m.amount && a.currency === m.currency)?.period || ''
    return price(m.amount, m.currency, period, billing)
  })
}

/** A plan's list items: a number with a unit is a headline limit ("10 users"), any other a feature. */
function readItems (items: readonly string[], plan: PricingPlan): void {
  for (const text of items) {
    if (!text) continue
    const limit = LIMIT.exec(text)
    if (limit && limit[2].trim().split(/\s+/).length <= 4) {
      const name = unitName(limit[2])
      if (!plan.limits.some(l => l.name === name)) plan.limits.push({ name, value: limit[1].trim() })
    } else if (!plan.features.includes(text)) {
      plan.features.push(text)
    }
  }
}

/** A limit's name, one form for one and many ("1 seat", "5 seats"). */
const unitName = (words: string) =>
  fold(words).toLowerCase().trim().split(/\s+/).map(w => w.length > 3 && /[^s]s$/.test(w) ? w.slice(0, -1) : w)
    .join(' ')

/** The first short text of the card that is a tax or billing note, without its money. */
function noteIn (els: readonly Element[]): string | undefined {
  for (const el of els) {
    if (el.name === 'li' || inside(el, LIST_OR_TABLE) || headingOf(el) !== undefined) continue
    if (el.children.some(c => c.type === 'tag' && BLOCKS.has(c.name))) continue
    const text = blockText(el)
    if (text.length === 0 || text.length > MAX_NOTE || !NOTE_WORDS.test(text)) continue
    let note = text
    for (const m of findMoney(text)) note = note.replace(m.raw, '')
    note = note.replace(/^[\s,.;:–-]+|[\s,.;:–-]+$/g, '').replace(/\s+/g, ' ')
    if (note) return note
  }
  return undefined
}

// Comparison tables: plans as columns (the header row's cells after the first), one row
// per price, feature (a check mark) or limit (any other value).

function tablePlans (root: AnyNode[], known: readonly PricingPlan[], lines: Set<string>): PricingPlan[] {
  const plans: PricingPlan[] = []
  for (const table of select('table', root)) {
    const rows = select('tr', table).filter(r => select('table', r).length === 0)
    const cellsOf = (tr: Element) => tr.children.filter((c): c is Element => c.type === 'tag' && /^t[hd]$/.test(c.name))
    const headerAt = rows.findIndex(r => {
      const cells = cellsOf(r)
      const short = (c: Element) => { const n = blockText(c).length; return n > 0 && n <= MAX_NAME * 2 }
      return cells.length >= 3 && cells.slice(1).every(short)
    })
    if (headerAt < 0) continue
    const header = cellsOf(rows[headerAt]).slice(1)
    const columns = header.map(c => {
      const text = blockText(c)
      const money = findMoney(text)
      let name = text
      for (const m of money) name = name.replace(m.raw, '')
      const nameEl = select('h1, h2, h3, h4, h5, h6, strong, b', c)[0]
      const plan = emptyPlan(nameEl ? blockText(nameEl) : name.replace(/\s+/g, ' ').trim())
      plan.prices = money.map(m => price(m.amount, m.currency, m.period))
      return plan
    })
    const body = rows.slice(headerAt + 1)
    const priced = columns.some(c => c.prices.length > 0) ||
      body.some(r => cellsOf(r).slice(1).some(c => findMoney(blockText(c)).length > 0))
    const knownNames = new Set(known.map(p => planKey(p.name)))
    if (!priced && columns.filter(c => knownNames.has(planKey(c.name))).length < 2) continue
    for (const row of body) {
      const cells = cellsOf(row)
      if (cells.length !== header.length + 1) continue
      const label = blockText(cells[0])
      if (!label) continue
      lines.add(lineKey(label))
      const billing = YEARLY.test(label) ? 'yearly' : MONTHLY.test(label) ? 'monthly' : undefined
      for (const [i, cell] of cells.slice(1).entries()) {
        const plan = columns[i]
        const text = blockText(cell)
        const money = findMoney(text)
        if (money.length > 0) {
          for (const m of money) {
            const p = price(m.amount, m.currency, m.period || (billing === 'yearly' ? 'year' : billing ? 'month' : ''),
              billing === 'yearly' && m.period === 'month' ? 'yearly' : undefined)
            if (!plan.prices.some(q => priceKey(q) === priceKey(p))) plan.prices.push(p)
          }
        } else if (included(cell, text)) {
          plan.features.push(label)
        } else if (text && !/^(?:[✗✕×✘❌—–-]|no|non|nein|nee|não|none)$/i.test(text)) {
          plan.limits.push({ name: fold(label).toLowerCase(), value: text })
        }
      }
    }
    for (const c of header) lines.add(lineKey(blockText(c)))
    plans.push(...columns.filter(c => c.name))
  }
  return plans
}

function included (cell: Element, text: string): boolean {
  if (text) return INCLUDED.test(text)
  const icons = DomUtils.findAll(e => e.name === 'img' || e.name === 'i' || e.name === 'span' || e.name === 'svg',
    cell.children)
  return icons.some(i => ICON_INCLUDED.test(
    [i.attribs.class, i.attribs.alt, i.attribs.title, i.attribs['aria-label'], i.attribs['data-icon']].join(' ')
  ))
}
