import type { AnyNode, Element } from 'domhandler'
import { DomUtils } from 'htmlparser2'
import { parseDom, removeNodes } from '../../text/dom.js'
import type { PlanPrice, PricingPlan, PricingTable } from '../../../vocabulary/core.js'
import { chargeIn, fold } from '../../words/lexicon.js'
import { findMoney, wordsBeside } from '../../words/money.js'
import { listPlans } from './lists.js'
import { emptyPlan, MONTHLY, price, priceKey, YEARLY } from './plans.js'
import { jsonLdPlans, microdataPlans } from './schema-org.js'
import { isPlanName, readItems, tablePlans } from './tables.js'
import { lineKey } from '../../text/hunks.js'
import { blockText, currentText, ownLines } from '../../text/node-text.js'
import { contains, Spans, WITH_PLACES } from '../structure.js'
import { isSkipped } from '../../text/extract.js'
import { isBlockTag, STRUCK, tagOf } from '../../text/tags.js'

// A pricing page's plans as a structure: each plan's name, prices (per period, seat or unit
// of usage and per currency, under each state of a monthly/yearly toggle when both are in
// the page), a tax or billing note, headline limits and listed features. Read, in this
// order, from schema.org Product/Offer (JSON-LD, then microdata: schema-org.ts), plan cards (a heading
// with a price of its own under it) and tables (plans as columns or as rows, see
// tables.ts); a plan found by several is merged by its name. Each plan's own text
// is kept, so that a change of the page's text can be told apart: explained by a plan's
// move, or not (see pricingReader). Pure: HTML in, a table out.

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
const BILLED_YEARLY = /billed (?:annually|yearly)|per year|factur\w* annuellement|jährlich abgerechnet|facturad\w* anualmente/i
const PLAN_WORD = /\b(?:plan|tier|package|formule|paket|plano|piano|abonnement)\b/gi

/** A plan's name as matched across sources: "Pro plan" and "PRO" are one plan. */
export const planKey = (name: string) =>
  fold(name).toLowerCase().replace(PLAN_WORD, '').replace(/[^\p{L}\p{N}+]+/gu, ' ').trim()

const elements = (root: AnyNode[]): Element[] => DomUtils.findAll(() => true, root)

/**
 * A page's plans, and the text of their cards, rows and columns (each block's, as
 * `lineKey` writes it): all of it (`lines`) and each plan's (`planLines`, by planKey).
 */
export interface PricingReading {
  table: PricingTable
  lines: Set<string>
  planLines: Map<string, Set<string>>
  /** Where the plans' cards, rows, columns and items stand in the HTML, by planKey. */
  spans: Spans
  /** The page's text struck through (a sale's former price): shown, and no price. */
  struck: string[]
}

export function readPricing (html: string): PricingReading {
  const doc = parseDom(html, WITH_PLACES)
  const table: PricingTable = { plans: [], sources: [] }
  const lines = new Set<string>()
  const planLines = new Map<string, Set<string>>()
  const spans = new Spans()
  // A card's blocks claim their own lines; a table's cells and a list's items all they hold.
  type Read = { plan: PricingPlan, lines?: Set<string>, elements?: Element[] }
  const add = (plans: Read[], source: PricingTable['sources'][number]) => {
    if (plans.length === 0) return
    table.sources.push(source)
    for (const { plan, lines: own, elements } of plans) {
      const key = mergePlan(table.plans, plan)
      if (!key || !own) continue
      for (const el of elements ?? []) spans.add(el, key, source !== 'cards')
      const mine = planLines.get(key) ?? new Set<string>()
      for (const l of own) {
        mine.add(l)
        lines.add(l)
      }
      planLines.set(key, mine)
    }
  }
  add(jsonLdPlans(doc.children).map(plan => ({ plan })), 'json-ld')
  add(microdataPlans(doc.children).map(plan => ({ plan })), 'microdata')
  // Out of the way of headings and prices; icons stay for the tables' check marks.
  removeNodes(DomUtils.findAll(e => isSkipped(tagOf(e.name), e.attribs) && e.name !== 'svg', doc.children))
  const struck = DomUtils.findAll(e => (tagOf(e.name) & STRUCK) !== 0, doc.children).map(blockText).filter(Boolean)
  add(cardPlans(doc.children), 'cards')
  const known = new Set(table.plans.map(p => planKey(p.name)))
  const tables = tablePlans(doc.children, known, planKey, p => price(p.amount, p.currency, p.period, p.billing))
  // One name priced in two tables (a "Basic" server and a "Basic" support plan) is two plans, each named with its
  // section; a table of limits beside a price list speaks of the same plans.
  const pricedIn = new Map<string, Set<string | undefined>>()
  for (const t of tables) {
    const key = planKey(t.plan.name)
    if (t.plan.prices.length > 0) pricedIn.set(key, (pricedIn.get(key) ?? new Set()).add(t.section))
  }
  for (const t of tables) {
    if ((pricedIn.get(planKey(t.plan.name))?.size ?? 0) > 1 && t.section && t.plan.prices.length > 0) {
      t.plan.name = `${t.section} – ${t.plan.name}`
    }
  }
  add(tables, 'table')
  // A list inside a card or a table is that plan's (its add-ons, its features): only a list of its own is a price list.
  const listed = listPlans(doc.children, p => price(p.amount, p.currency, p.period, p.billing))
  add(listed.filter(t => ![...t.lines].some(l => lines.has(l))), 'list')
  return { table, lines, planLines, spans, struck }
}

const plansByKey = new WeakMap<PricingPlan[], Map<string, PricingPlan>>()

/** Adds a plan, or merges it into the plan of its name; returns the plan's key (empty: not a plan). */
function mergePlan (plans: PricingPlan[], plan: PricingPlan): string {
  const key = planKey(plan.name)
  if (!key) return ''
  // The plans by key, kept beside the list: a page of thousands of rows would fold every name again for each.
  let byKey = plansByKey.get(plans)
  if (!byKey) plansByKey.set(plans, byKey = new Map(plans.map(p => [planKey(p.name), p])))
  const same = byKey.get(key)
  if (!same) {
    plans.push(plan)
    byKey.set(key, plan)
    return key
  }
  for (const p of plan.prices) {
    const known = same.prices.some(q => priceKey(q) === priceKey(p) ||
      (q.amount === p.amount && q.currency === p.currency && (q.period === '' || p.period === '')))
    if (!known) same.prices.push(p)
  }
  for (const f of plan.features) if (!same.features.includes(f)) same.features.push(f)
  for (const l of plan.limits) if (!same.limits.some(x => x.name === l.name)) same.limits.push(l)
  if (!same.note && plan.note) same.note = plan.note
  return key
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
    const text = currentText(el)
    if (text && text.length <= MAX_NAME && findMoney(text).length === 0) return 7
  }
  return undefined
}

const inside = (el: Element, names: ReadonlySet<string>) => {
  for (let p = el.parent; p && p.type === 'tag'; p = p.parent) if (names.has(p.name)) return true
  return false
}
const LIST_OR_TABLE = new Set(['li', 'table'])
/** Beyond this, the text around money is a sentence, not a price. */
const MAX_PRICE_TEXT = 60

/** The most headings or prices a page's cards are read as plans with (see cardPlans). */
const MAX_CARD_HEADINGS = 1000
/** The markup of a price or a plan, on the element or just around it. */
const PRICE_MARKUP = /price|amount|cost|plan|tier|tarif|preis|prix|precio|prezzo|prijs|preco|preço/i
function marked (el: Element): boolean {
  let p: AnyNode | null = el
  for (let up = 0; up < 3 && p && p.type === 'tag'; up++, p = p.parent) {
    if (PRICE_MARKUP.test(`${p.attribs.class ?? ''} ${p.attribs.itemprop ?? ''}`)) return true
  }
  return false
}
/** Headings that name a page's section, never a plan. */
const SECTION_NAME = /^(?:pricing|prices|plans?(?: (?:and|&) pricing)?|compare plans|faq|frequently asked questions|billing|tarifs?|preise|precios|prezzi|prijzen|precos|formules|offres|abonnements?)$/i

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
    else if (hint && findMoney(currentText(el)).length > 0) {
      holds.add(el)
      prices.add(el)
    }
  }
  return prices
}

/**
 * Prices under one heading that each say what they are priced for ("Egress $0.01/GB",
 * "Volume Storage $0.10/GB per month"): a section's price list, whose heading ("Resource
 * Price") names no plan.
 */
function namesItsOwn (prices: readonly Element[]): boolean {
  if (prices.length < 2) return false
  const names = prices.map(el => {
    const text = currentText(el)
    const money = findMoney(text)[0]
    return money ? text.slice(0, text.indexOf(money.raw)).replace(/[\s:–-]+$/, '').trim() : ''
  })
  // A plan's terms ("Monthly $20", "Yearly $200") and a price's lead-in ("From $20") name no item.
  return new Set(names).size === names.length && names.every(name => /\p{L}/u.test(name) && name.length <= 40 &&
    !MONTHLY.test(` ${name} `) && !YEARLY.test(` ${name} `) && !PRICE_LEAD.test(fold(name)))
}
const PRICE_LEAD = /^(?:from|starting(?: at| from)?|only|just|now|ab|nur|a partir de|des|desde|solo|da|a partire da|vanaf|slechts|por apenas)$/i

function cardPlans (root: AnyNode[]): Array<{ plan: PricingPlan, lines: Set<string>, elements: Element[] }> {
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
    // A price of a card stands on its own or in a price's markup: money in a sentence is the sentence's.
    if (currentText(el).length > MAX_PRICE_TEXT && !marked(el)) continue
    prices.push({ el, order: order.get(el)! })
  }
  // A page of thousands of priced headings is a catalogue, not plans: left to the plain comparison, which reads it
  // in linear time (pairing each price with its heading costs their product).
  if (headings.length > MAX_CARD_HEADINGS || prices.length > MAX_CARD_HEADINGS) return []
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
  // A heading is a plan's when it can name one; a lone one (no priced twin: a docs page's section) only
  // when its price is in a price's markup.
  for (const [h, els] of byHeading) {
    const text = currentText(h.el)
    const twin = [...byHeading.keys()].some(o => o !== h && o.el.name === h.el.name)
    if (!isPlanName(text) || SECTION_NAME.test(fold(text)) || (!twin && !els.some(marked)) || namesItsOwn(els)) {
      byHeading.delete(h)
    }
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
  const plans: Array<{ plan: PricingPlan, lines: Set<string>, elements: Element[] }> = []
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
    const plan = emptyPlan(currentText(h.el))
    for (const el of byHeading.get(h)!) {
      for (const p of pricesIn(el, card)) if (!plan.prices.some(q => priceKey(q) === priceKey(p))) plan.prices.push(p)
    }
    const inCard = elements([card])
    const mine = inCard.filter(within)
    const items = mine.filter(el => el.name === 'li' && !DomUtils.findOne(x => x.name === 'li', el.children))
    readItems(items.map(currentText), plan)
    plan.note = noteIn(mine)
    if (!plan.note) delete plan.note
    // The whole card is the plan's when it holds one plan of several; else only its heading's part.
    const own = planHeadings.length > 1 ? (el: Element) => el === h.el || contains(card, el) : within
    const lines = new Set<string>()
    const blocks: Element[] = []
    for (const el of inCard) {
      if ((el === card || isBlockTag(el.name)) && (el === h.el || own(el))) {
        for (const line of ownLines(el)) lines.add(lineKey(line))
        blocks.push(el)
      }
    }
    plans.push({ plan, lines, elements: blocks })
  }
  return plans
}

/** The prices an element states, with their period (written beside it) and the toggle state it sits under. */
function pricesIn (el: Element, card: Element): PlanPrice[] {
  const own = findMoney(currentText(el))
  const around = el.parent && el !== card ? findMoney(currentText(el.parent)) : []
  const context = el.parent && el !== card ? currentText(el.parent) : currentText(el)
  let billing: string | undefined
  for (let p: Element | null = el; p && p !== card.parent; p = p.parent?.type === 'tag' ? p.parent : null) {
    const attrs = Object.entries(p.attribs).filter(([k]) => k === 'class' || k === 'id' || k.startsWith('data-'))
      .map(([, v]) => v).join(' ')
    if (YEARLY.test(attrs)) billing = 'yearly'
    else if (MONTHLY.test(attrs)) billing = 'monthly'
    if (billing) break
  }
  if (!billing && BILLED_YEARLY.test(context)) billing = 'yearly'
  // The lines of the block the price stands in, as the text writes them.
  let block = el
  while (!isBlockTag(block.name) && block !== card && block.parent?.type === 'tag') block = block.parent
  const lines = ownLines(block)
  // What it is per, on the line of its own after the price's ("$10" over "per user / month").
  const next = block !== card ? DomUtils.nextElementSibling(block) : null
  const per = next && !findMoney(currentText(next)).length ? currentText(next).slice(0, MAX_PRICE_TEXT) : ''
  return own.map(m => {
    const period = m.period || around.find(a => a.amount === m.amount && a.currency === m.currency)?.period ||
      (per ? findMoney(`${m.raw} ${per}`)[0]?.period : '') || ''
    const p = price(m.amount, m.currency, period, billing)
    // A fee, a total or an add-on, as the words beside it on its line say ("Setup fee €50"): named by those words.
    const line = lines.find(l => findMoney(l).some(x => x.amount === m.amount && x.currency === m.currency)) ?? ''
    const money = findMoney(line).find(x => x.amount === m.amount && x.currency === m.currency)
    const beside = money && line.length <= MAX_PRICE_TEXT ? wordsBeside(line, money) : ''
    const charge = chargeIn(beside)
    const label = beside.replace(/[\s+:=–—-]+/g, ' ').trim()
    return charge && label ? { ...p, charge, label } : p
  })
}

/** The first short text of the card that is a tax or billing note, without its money. */
function noteIn (els: readonly Element[]): string | undefined {
  for (const el of els) {
    if (el.name === 'li' || inside(el, LIST_OR_TABLE) || headingOf(el) !== undefined) continue
    if (el.children.some(c => c.type === 'tag' && isBlockTag(c.name))) continue
    const text = currentText(el)
    if (text.length === 0 || text.length > MAX_NOTE || !NOTE_WORDS.test(text)) continue
    let note = text
    for (const m of findMoney(text)) note = note.replace(m.raw, '')
    note = note.replace(/^[\s,.;:–-]+|[\s,.;:–-]+$/g, '').replace(/\s+/g, ' ')
    if (note) return note
  }
  return undefined
}
