import type { PlanPrice, PricingPlan } from '../../../vocabulary/core.js'

// A plan and its prices as the pricing reader writes them, whichever source it read them from.

/** A toggle's or an offer's yearly or monthly state, in the languages the reader knows. */
export const YEARLY = /(?:^|[\s_-])(?:annual(?:ly)?|yearly|year|jahr(?:lich)?|jährlich|anual|annuel(?:le)?|annuale|jaarlijks)(?=$|[\s_-])/i
export const MONTHLY = /(?:^|[\s_-])(?:monthly|month|mensuel(?:le)?|monatlich|mensual|mensile|maandelijks|mensal)(?=$|[\s_-])/i

/**
 * Two prices of one plan are one when their currency, period, billing and label agree: a plan's price and its
 * add-on's per month (a licence) are two.
 */
export const priceKey = (p: PlanPrice) => `${p.currency}|${p.period}|${p.billing ?? ''}|${p.label ?? ''}`

export const emptyPlan = (name: string): PricingPlan => ({ name, prices: [], limits: [], features: [] })

const SYMBOL_FIRST = new Set(['$', '£', '¥', '₹', 'R$', 'US$', 'A$', 'C$'])
const ISO_SYMBOL: Record<string, string> = { USD: '$', EUR: '€', GBP: '£', BRL: 'R$', JPY: '¥', INR: '₹' }

/** "$49/month", "49 €/month", "CHF 49/month", "$39/month (billed yearly)". */
function priceText (p: Pick<PlanPrice, 'amount' | 'currency' | 'period' | 'billing'>): string {
  // Cents as prices are written; a usage price to the places it needs ($0.0065/GB-month).
  const amount = Number.isInteger(p.amount)
    ? String(p.amount)
    : p.amount < 1 && Number(p.amount.toFixed(2)) !== p.amount
      ? String(Number(p.amount.toFixed(6)))
      : p.amount.toFixed(2)
  const money = SYMBOL_FIRST.has(p.currency)
    ? `${p.currency}${amount}`
    : /^[A-Z]{3}$/.test(p.currency) ? `${p.currency} ${amount}` : `${amount} ${p.currency}`
  const billed = p.billing === 'yearly' && p.period !== 'year' ? ' (billed yearly)' : ''
  return `${money}${p.period ? `/${p.period}` : ''}${billed}`
}

export function price (amount: number, currency: string, period: string, billing?: string): PlanPrice {
  const p: PlanPrice = { amount, currency: ISO_SYMBOL[currency.toUpperCase()] ?? currency, period, text: '' }
  if (billing) p.billing = billing
  p.text = priceText(p)
  return p
}
