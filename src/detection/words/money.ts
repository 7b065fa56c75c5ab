import { PER, PERIOD_ADVERBS, PERIOD_WORDS, UNIT_WORDS } from './lexicon.js'

// Money as it is written across Europe and beyond: the symbol or code before or after
// (€49, 49 €, CHF 49.–, R$ 49,90, ¥4,980), thousands grouped by commas, dots, spaces or
// apostrophes and decimals after a comma or a dot (a usage price to six places: $0.0004),
// a tax note (HT, TTC, excl. VAT, zzgl. MwSt., + IVA, excl. btw), and what it is per: a
// period in the page's language (/mois, pro Monat, al mes, /h), a seat, or a unit of
// usage (per GB, /GB-month, per 1,000 requests). Pure.

export interface Money {
  /** As the text writes it. */
  raw: string
  currency: string
  amount: number
  /** What it is per: "month", "month/user", "hour", "GB", "GB/month", "1,000 requests"; empty for a one-off. */
  period: string
}

const CURRENCY_BEFORE = 'US\\$|A\\$|C\\$|R\\$|CHF|USD|EUR|GBP|BRL|[$€£¥₹]'
const CURRENCY_AFTER = '€|CHF|USD|EUR|GBP|BRL|kr|zł'
const DECIMALS = '(?:[.,](?:\\d{1,2}|[–-]{1,2}))?'
const AMOUNT = `0[.,]\\d{1,6}(?!\\d)|\\d{1,3}(?:[.,\\s\u00a0\u202f'’]\\d{3})+${DECIMALS}|\\d+${DECIMALS}`
const TAX = '(?:HT|TTC|(?:excl|incl)\\.? ?(?:VAT|tax|btw|BTW|IVA)|(?:zzgl|inkl)\\.? ?MwSt\\.?|' +
  '\\+ ?(?:IVA|VAT|MwSt\\.?|btw)|IVA (?:incluido|incluida|inclusa|incl\\.?)|s/ ?IVA|c/ ?IVA)'
const names = (table: ReadonlyArray<[string, string]>) => table.map(([words]) => words).join('|')
const PERIODS = names(PERIOD_WORDS)
const COUNT = '(?:\\d[\\d.,]*\\s?(?:k|m|mn|million|thousand)?|million|thousand|mil)\\s?'
const PER_WHAT = `\\s*${PER}\\s*(?:(?<period>${PERIODS})|(?<count>${COUNT})?(?<unit>${names(UNIT_WORDS)})` +
  `(?:-(?<unitPeriod>${PERIODS}))?)(?![\\p{L}])`
const THEN_PER = `\\s*${PER}\\s*(?<then>${PERIODS})(?![\\p{L}])`
// "6,80 € mtl.", "$49 monthly": a period said with no "per".
const ADVERB = `\\s+(?<adverb>${names(PERIOD_ADVERBS)})(?![\\p{L}])`
const MONEY = new RegExp(
  `(?<![\\p{L}\\d])(?:(?<before>${CURRENCY_BEFORE})\\s?(?<amount>${AMOUNT})|(?<amountFirst>${AMOUNT})\\s?` +
    `(?<after>${CURRENCY_AFTER}))(?:\\s?${TAX})?(?:${PER_WHAT}(?:${THEN_PER})?|${ADVERB})?(?:\\s?${TAX})?`,
  'giu'
)
const lookup = (table: ReadonlyArray<[string, string]>) =>
  new Map(table.flatMap(([words, name]) => words.split('|').map(w => [w.replace(/\?/g, ''), name])))
const PERIOD_OF = lookup(PERIOD_WORDS)
const UNIT_PATTERNS = UNIT_WORDS.map(([words, name]) => [new RegExp(`^(?:${words})$`, 'iu'), name] as const)
const ADVERB_PATTERNS = PERIOD_ADVERBS.map(([words, name]) => [new RegExp(`^(?:${words})$`, 'iu'), name] as const)
const CURRENCY_NAME: Record<string, string> = { USD: '$', US$: '$', EUR: '€', GBP: '£', BRL: 'R$' }

const periodName = (word: string) => PERIOD_OF.get(word.toLowerCase()) ?? word.toLowerCase()
const unitName = (word: string) => UNIT_PATTERNS.find(([re]) => re.test(word))?.[1] ?? word

/** A written amount as a number: the last separator is the decimal one when one or two digits (or a dash) follow it. */
export function parseAmount (written: string): number {
  const small = /^0[.,](\d+)$/.exec(written)
  if (small) return Number(`0.${small[1]}`)
  const m = /^(.*?)(?:[.,](\d{1,2}|[–-]{1,2}))?$/.exec(written)!
  const whole = m[1].replace(/[^\d]/g, '')
  const cents = m[2] && /\d/.test(m[2]) ? m[2] : ''
  return Number(`${whole}${cents ? `.${cents}` : ''}`)
}

export function findMoney (line: string): Money[] {
  const out: Money[] = []
  for (const m of line.matchAll(MONEY)) {
    const g = m.groups!
    const symbol = (g.before ?? g.after ?? '').toUpperCase()
    const currency = CURRENCY_NAME[symbol] ?? symbol
    const per = g.unit
      ? `${g.count ? `${g.count.trim()} ` : ''}${unitName(g.unit)}${g.unitPeriod ? `-${periodName(g.unitPeriod)}` : ''}`
      : g.period
        ? periodName(g.period)
        : g.adverb ? ADVERB_PATTERNS.find(([re]) => re.test(g.adverb))?.[1] ?? '' : ''
    const period = [per, g.then ? periodName(g.then) : ''].filter(Boolean).join('/')
    out.push({ raw: m[0].trim(), currency, amount: parseAmount(g.amount ?? g.amountFirst ?? ''), period })
  }
  return out
}

/** Whether a price is per a unit of usage (GB, requests…) rather than per a period or a seat. */
export const isUsagePrice = (period: string) => period !== '' && !/^(?:month|year|week|day|hour|user|host)(?:\/|$)/.test(period)

/** The words beside a price on its line, up to the next price or a comma either way ("setup fee 2.25 €, …"). */
export function wordsBeside (line: string, m: Money): string {
  const at = line.indexOf(m.raw)
  if (at < 0) return ''
  const others = findMoney(line).map(x => ({ start: line.indexOf(x.raw), end: line.indexOf(x.raw) + x.raw.length }))
  const left = Math.max(0, ...others.filter(o => o.end <= at).map(o => o.end))
  const right = Math.min(line.length, ...others.filter(o => o.start >= at + m.raw.length).map(o => o.start))
  const before = line.slice(left, at).split(/[,;|(]/).at(-1) ?? ''
  const after = line.slice(at + m.raw.length, right).split(/[,;|)]/)[0] ?? ''
  return `${before} ${after}`
}
