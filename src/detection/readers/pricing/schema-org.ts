import { selectAll } from 'css-select'
import type { AnyNode, Element } from 'domhandler'
import type { PlanPrice, PricingPlan } from '../../../vocabulary/core.js'
import { findMoney } from '../../words/money.js'
import { currentText } from '../../text/node-text.js'
import { contains } from '../structure.js'
import { emptyPlan, MONTHLY, price, priceKey, YEARLY } from './plans.js'

// Plans as a page's schema.org data says them (read.ts reads them first).

const select = (query: string, root: AnyNode | AnyNode[]) => selectAll(query, root) as Element[]

// schema.org in JSON-LD: Products (or services, applications) with their offers; one
// product whose offers are named is one plan per offer.

const PRODUCT_TYPES = new Set(['Product', 'Service', 'SoftwareApplication', 'WebApplication', 'ProductGroup'])
type Json = Record<string, unknown>
const asArray = (v: unknown): unknown[] => v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]
const typesOf = (n: Json): string[] => asArray(n['@type']).map(t => String(t).replace(/^.*[/#]/, ''))
const str = (v: unknown) => typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : ''

export function jsonLdPlans (root: AnyNode[]): PricingPlan[] {
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

export function microdataPlans (root: AnyNode[]): PricingPlan[] {
  const scopes = select('[itemscope][itemtype*="schema.org/Product" i], [itemscope][itemtype*="schema.org/Service" i]',
    root)
  const plans: PricingPlan[] = []
  for (const scope of scopes) {
    if (scopes.some(s => s !== scope && contains(s, scope))) continue
    const prop = (name: string) => select(`[itemprop="${name}"]`, scope)
    const value = (el: Element) => el.attribs.content ?? currentText(el)
    const name = prop('name')[0]
    if (!name) continue
    const currencies = prop('priceCurrency').map(value)
    const prices = prop('price').map((el, i) => {
      const amount = Number(value(el).replace(/[^\d.,]/g, '').replace(',', '.'))
      const around = el.parent ? findMoney(currentText(el.parent))[0] : undefined
      return Number.isFinite(amount) && (currencies[i] ?? currencies[0])
        ? price(amount, currencies[i] ?? currencies[0], around?.period ?? '')
        : undefined
    }).filter((p): p is PlanPrice => p !== undefined)
    if (prices.length > 0) plans.push({ ...emptyPlan(value(name)), prices })
  }
  return plans
}
