import type { AnyNode, Element } from 'domhandler'
import { DomUtils } from 'htmlparser2'
import type { PlanPrice, PricingPlan } from '../../../vocabulary/core.js'
import { findMoney } from '../../words/money.js'
import { isBlockTag } from '../../text/tags.js'
import { lineKey } from '../../text/hunks.js'
import { blockText, currentText } from '../../text/node-text.js'
import { isPlanName, sectionOf, type Priced, type TablePlan } from './tables.js'

// Price lists written as lists: a definition list of names and their prices
// (<dt>Block storage</dt><dd>$0.10 per GB per month</dd>), or list items that each say a
// name and its price ("Load balancer: $12/month", "Floating IP – $4 a month"). A list is
// read only when at least two of its items are priced so and no other item is priced
// some other way: a price mentioned in a list of features names no plan. Pure.

/** "Name: price", "Name – price": the name before its price. */
const NAMED = /^(?<name>[^:–—]+?)\s*(?::|\s[–—-]\s)\s*(?<rest>.+)$/su

const hasBlocks = (el: Element) => DomUtils.findOne(e => isBlockTag(e.name), el.children) !== null

export function listPlans (root: AnyNode[], price: (p: Priced) => PlanPrice): TablePlan[] {
  const all = DomUtils.findAll(() => true, root)
  const order = new Map(all.map((el, i) => [el, i]))
  const headings = all.filter(el => /^h[1-6]$/.test(el.name))
  const out: TablePlan[] = []
  for (const list of all.filter(el => el.name === 'dl' || el.name === 'ul' || el.name === 'ol')) {
    const entries = list.name === 'dl' ? terms(list) : items(list)
    if (entries === undefined || entries.length < 2) continue
    const section = sectionOf(list, order, headings)
    for (const { name, text, els } of entries) {
      const plan: PricingPlan = { name, prices: [], limits: [], features: [] }
      for (const m of findMoney(text)) plan.prices.push(price(m))
      const lines = new Set(els.map(e => lineKey(blockText(e))).filter(Boolean))
      out.push({ plan, lines, elements: els, ...(section ? { section } : {}) })
    }
  }
  return out
}

interface Entry { name: string, text: string, els: Element[] }

/** A definition list's names and the prices their descriptions give, or undefined if it is no price list. */
function terms (dl: Element): Entry[] | undefined {
  const entries: Entry[] = []
  let current: Entry | undefined
  for (const el of dl.children) {
    if (el.type !== 'tag') continue
    if (el.name === 'dt') {
      current = { name: currentText(el).trim(), text: '', els: [el] }
      entries.push(current)
    } else if (el.name === 'dd' && current) {
      current.text += ` ${currentText(el)}`
      current.els.push(el)
    }
  }
  return priceList(entries)
}

/** A list's items read as "name: price", or undefined if it is no price list. */
function items (list: Element): Entry[] | undefined {
  const lis = list.children.filter((c): c is Element => c.type === 'tag' && c.name === 'li')
  const entries: Entry[] = []
  for (const li of lis) {
    const text = currentText(li).trim()
    const named = hasBlocks(li) ? null : NAMED.exec(text)
    if (named) entries.push({ name: named.groups!.name.trim(), text: named.groups!.rest, els: [li] })
    else if (findMoney(text).length > 0) return undefined
  }
  return priceList(entries)
}

/** The entries, when each names a plan and is priced: else the list is no price list. */
function priceList (entries: Entry[]): Entry[] | undefined {
  const hasPrice = (e: Entry) => findMoney(e.text).length > 0
  const priced = entries.filter(e => isPlanName(e.name) && findMoney(e.name).length === 0 && hasPrice(e))
  return priced.length >= 2 && priced.length === entries.filter(hasPrice).length
    ? priced
    : undefined
}
