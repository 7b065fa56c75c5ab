import { type ChangeType, type Fact, SEVERITY_RANK as RANK, type Severity } from '../../vocabulary/core.js'
import { type EditKind, editKinds, type EditKinds, trivialPhrase } from '../text/edit-kinds.js'
import {
  COMPLIANCE_ANY, fold as foldAccents, FREE_WORDS, GRANT_WORDS, INCLUDED_MARK, type Language, LEGAL_WORDS, matcher,
  MINIMUM_WORDS, NOT_INCLUDED_MARK, PLAN_LIMIT_WORDS, RELEASE_WORDS, RESTRICTION_WORDS
} from '../words/lexicon.js'
import { cellsOf, writeRow } from '../../vocabulary/lines.js'
import { cut, plain, quoteEdit } from '../text/quote.js'
import { findMoney } from '../words/money.js'
import { cardsOf, headingText, isItem, opensSection, sectionApart, withoutTrivial } from '../text/blocks.js'
import { type Context, judged, type Part, type Reading } from './part.js'
import { leadOrder, priceReading } from './prices.js'

// How one block of changed lines is read: as a price, plan or feature cards, a section, list
// items, an edit of terms, a plan's limits, trivial edits (a renumbering, typography, a
// spelling variant, a date of last update) or a plain edit of text. The readings are one
// ordered table (READINGS): the first that reads a block names it. Pure.

const names = (items: string[]) => items.map(c => `"${cut(c, 60)}"`).join(', ')
const feature = (count: number) => `feature${count > 1 ? 's' : ''}`

/** Features and plans laid out as cards: a short heading and a sentence or two each, added or removed. */
function cardsReading (p: Part, ctx: Context): Reading | undefined {
  if (ctx.pageType !== 'features' && ctx.pageType !== 'pricing') return undefined
  const added = p.removed.length === 0 ? cardsOf(p.added) : undefined
  const removed = p.added.length === 0 ? cardsOf(p.removed) : undefined
  const cards = added ?? removed
  if (!cards) return undefined
  return {
    ...judged({ kind: added ? 'feature_added' : 'feature_removed', subject: cards[0] }, ctx),
    confidence: 0.85,
    phrase: `${feature(cards.length)} ${names(cards)} ${added ? 'added' : 'removed'}`,
    passages: 1,
    standsAlone: true
  }
}

/** A section added or removed whole: a heading with its lines. */
function sectionReading (p: Part, ctx: Context): Reading | undefined {
  const titles = (lines: readonly string[]) => lines.filter((_, i) => opensSection(lines, i, ctx.legalPage))
  const newSection = p.removed.length === 0 && p.added.length > 1 && titles(p.added).length > 0
  const goneSection = p.added.length === 0 && p.removed.length > 1 && titles(p.removed).length > 0
  if (!newSection && !goneSection) return undefined
  const lines = newSection ? p.added : p.removed
  const headings = titles(lines).map(headingText)
  const paragraphs = lines.length - headings.length
  const more = headings.length > 1 ? `, and ${headings.length - 1} more` : ''
  const size = `${paragraphs} paragraph${paragraphs === 1 ? '' : 's'}`
  // The section's own heading names where it is: "Terms, 14. Safety policy: new section (6 paragraphs)".
  const phrase = newSection ? `new section (${size}${more})` : `section removed (${size}${more})`
  const label = cut(headings[0], 80)
  // A legal page's section is its terms': the table weighs it by what it says.
  const fact: Fact = { kind: newSection ? 'section_added' : 'section_removed', subject: label }
  if (ctx.legalPage) fact.legalWords = speaksOfLaw(p, ctx.own)
  return { ...judged(fact, ctx), confidence: ctx.legalPage ? 0.9 : 0.85, phrase, passages: 1, label, standsAlone: true }
}

/**
 * A comparison table's marks flipped, and nothing else: each row kept its name and its
 * cells, and each changed cell went from included (✓, yes) to not (—, ✗, no, empty) or
 * back: a feature the plan of that column lost or gained. Any other cell is the text's edit.
 */
function marksReading (p: Part, ctx: Context): Reading | undefined {
  if (ctx.legalPage || p.removed.length === 0 || p.removed.length !== p.added.length) return undefined
  const mark = (cell: string) => {
    const text = cell.trim()
    return INCLUDED_MARK.test(text) ? 'in' : text === '' || NOT_INCLUDED_MARK.test(text) ? 'out' : undefined
  }
  // The table's first row names the plans, unless it is one of the rows that changed (a table with no header).
  const first = p.tableHeads.addition
  const head = first && !p.added.includes(writeRow(first)) ? first : undefined
  const flips: Array<{ kind: 'feature_added' | 'feature_removed', feature: string, plan?: string }> = []
  for (let i = 0; i < p.removed.length; i++) {
    const [was, is] = [cellsOf(p.removed[i]), cellsOf(p.added[i])]
    if (!was || !is || was.length !== is.length || was.length < 2 || was[0] !== is[0] || !was[0]) return undefined
    for (let j = 1; j < was.length; j++) {
      if (was[j] === is[j]) continue
      const [from, to] = [mark(was[j]), mark(is[j])]
      if (!from || !to || from === to) return undefined
      const plan = head?.length === was.length ? head[j] : undefined
      const kind = to === 'out' ? 'feature_removed' : 'feature_added'
      flips.push({ kind, feature: was[0], ...(plan ? { plan } : {}) })
    }
  }
  if (flips.length === 0) return undefined
  // Losses first: the buyer is offered less.
  flips.sort((x, y) => Number(x.kind === 'feature_added') - Number(y.kind === 'feature_added'))
  // One plan's column names the change, as a card's heading would; several are each named.
  const plans = new Set(flips.map(f => f.plan))
  const onePlan = plans.size === 1 ? flips[0].plan : undefined
  const said = flips.map(f => `${f.plan && !onePlan ? `${f.plan}: ` : ''}feature "${f.feature}" ` +
    (f.kind === 'feature_removed' ? 'removed' : 'added'))
  const facts: Fact[] = flips.map(f => ({ kind: f.kind, subject: f.feature }))
  return {
    ...judged(facts[0], ctx),
    facts,
    confidence: head ? 0.85 : 0.7,
    phrase: said.join('; '),
    passages: 1,
    ...(onePlan ? { label: onePlan } : {})
  }
}

/** List items (or table rows) added or removed, and nothing else: features. */
function itemsReading (p: Part, ctx: Context): Reading | undefined {
  if (ctx.legalPage || ctx.pageType === 'changelog') return undefined
  const itemsOnly = (ls: string[]) => ls.length > 0 && ls.every(isItem)
  const sure = ctx.pageType === 'pricing' || ctx.pageType === 'features' ? 0.9 : 0.7
  if (itemsOnly(p.added) && p.removed.length === 0) {
    const items = p.added.map(plain)
    const phrase = `${feature(items.length)} ${names(items)} added`
    return { ...judged({ kind: 'feature_added', subject: items[0] }, ctx), confidence: sure, phrase, passages: 1 }
  }
  if (itemsOnly(p.removed) && p.added.length === 0) {
    const items = p.removed.map(plain)
    const phrase = `${feature(items.length)} ${names(items)} removed`
    return { ...judged({ kind: 'feature_removed', subject: items[0] }, ctx), confidence: sure, phrase, passages: 1 }
  }
  return undefined
}

/**
 * What a plan includes or allows ("up to 3 projects", "unlimited users"), on a pricing
 * page, when the offer itself moved: a sentence about it added or removed, a number of
 * it changed, "unlimited" come or gone. The same offer re-worded is the text's edit.
 */
function planLimitsReading (p: Part, ctx: Context): Reading | undefined {
  // An API's limits are its plans' too ("100 requests per minute" → 60).
  if (ctx.pageType !== 'pricing' && ctx.pageType !== 'api_docs') return undefined
  const limits = matcher(PLAN_LIMIT_WORDS, ctx.own)
  const speaksOfLimits = (ls: string[]) => ls.some(l => limits.test(foldAccents(l)))
  if (!speaksOfLimits(p.removed) && !speaksOfLimits(p.added)) return undefined
  const [was, is] = [p.removed.join(' '), p.added.join(' ')]
  const oneSide = p.added.length === 0 || p.removed.length === 0
  if (!oneSide && quantities(was) === quantities(is)) return undefined
  // A restriction removed gives back what it took; one added takes it.
  const restricts = (text: string) => matcher(RESTRICTION_WORDS, ctx.own).test(foldAccents(text))
  // A floor raised ("minimum 3 seats" → 5) asks more of a buyer: it offers less.
  const floor = matcher(MINIMUM_WORDS, ctx.own).test(foldAccents(`${was}\n${is}`))
  const lost = p.added.length === 0
    ? !restricts(was)
    : p.removed.length === 0 ? restricts(is) : lessOffered(was, is) !== floor
  const quote = quoteEdit(p.removed, p.added)
  const percent = oneSide ? undefined : movedBy(was, is)
  return {
    ...judged({ kind: lost ? 'limit_lowered' : 'limit_raised', ...(percent === undefined ? {} : { percent }) }, ctx),
    confidence: 0.8,
    phrase: quote.phrase,
    passages: quote.passages
  }
}

/**
 * On an API's docs, a notice added that something is deprecated or breaking ("API keys
 * in query strings are deprecated and will stop working on 1 March 2027"): a deprecation,
 * or a breaking change, as the API reader would say of its description. Words of removal
 * are not enough ("Removes a task" documents a DELETE); a notice only re-worded is the text's edit.
 */
function apiNoticeReading (p: Part, ctx: Context): Reading | undefined {
  if (ctx.pageType !== 'api_docs' || p.added.length === 0) return undefined
  const says = (kind: 'breaking' | 'deprecated') => {
    const words = matcher(RELEASE_WORDS[kind], ctx.own)
    return p.added.some(l => words.test(foldAccents(l))) && !p.removed.some(l => words.test(foldAccents(l)))
  }
  const kind = says('deprecated') ? 'api_deprecated' : says('breaking') ? 'api_breaking' : undefined
  if (!kind) return undefined
  const quote = quoteEdit(p.removed, p.added)
  const { phrase, passages } = quote
  return { ...judged({ kind, subject: p.section }, ctx), confidence: 0.8, phrase, passages }
}

/**
 * Any other edit of the text, weighed by the table: its size, and on a legal page
 * whether it speaks of rights, data, liability (then it is an update of the terms).
 */
function textReading (p: Part, ctx: Context): Reading {
  const quote = quoteEdit(p.removed, p.added)
  const fact: Fact = {
    kind: 'text_edit',
    ...(p.section ? { subject: p.section } : {}),
    lines: p.added.length + p.removed.length,
    words: wordDelta(p.removed.join(' '), p.added.join(' '))
  }
  if (ctx.legalPage) {
    fact.legalWords = speaksOfLaw(p, ctx.own)
    if (quantitiesMoved(p.removed, p.added)) fact.quantities = true
    if (grantNarrowed(p.removed, p.added, ctx.own)) fact.narrows = true
  }
  return { ...judged(fact, ctx), confidence: ctx.legalPage ? 0.9 : 0.7, phrase: quote.phrase, passages: quote.passages }
}

/** The kinds of a block's edits, worked out once. */
export function kindsOf (p: Part, ctx: Context): EditKinds {
  p.kinds ??= editKinds(p.removed, p.added, ctx.language, ctx.legalPage)
  return p.kinds
}

/**
 * Edits that change nothing a reader acts on: a renumbering, typography, a spelling
 * variant, a new date of last update. Low, whatever the page; named by kind and count.
 */
function trivialReading (p: Part, ctx: Context): Reading | undefined {
  const kinds = kindsOf(p, ctx)
  if (kinds.kind === 'substantive') return undefined
  const only = Object.keys(kinds.counts).filter(k => k !== 'substantive')
  return {
    ...judged({ kind: only.length === 1 && only[0] === 'last_updated' ? 'revision_date_changed' : 'trivial_edit' },
      ctx),
    confidence: 0.9,
    phrase: trivialPhrase(kinds.counts, kinds.updatedOn).join(', '),
    passages: 1,
    trivial: kinds
  }
}

/**
 * Which type names a region of several blocks read differently, and a change among a
 * check's changes: at equal severity, the most telling type first. This is not READINGS'
 * order, which says how one block is read (a price before a card before a section); a
 * region's blocks are read each by READINGS first, then named by this.
 */
export const TYPE_PRECEDENCE: readonly ChangeType[] = [
  'price_change', 'feature_removed', 'feature_added', 'terms_update', 'section_removed', 'section_added',
  'content_change'
]

/** How much a reading or a change weighs: its severity first, then its type's place in TYPE_PRECEDENCE. */
export const significance = (r: { severity: Severity, changeType: ChangeType }): number =>
  RANK[r.severity] * 10 + (TYPE_PRECEDENCE.length - TYPE_PRECEDENCE.indexOf(r.changeType))

type Weighed = { severity: Severity, changeType: ChangeType, fact?: Fact }
/**
 * Whether `x` leads `y` (a region's readings, a check's changes): the more significant;
 * of equal weight, the one leading-price rule on their lead facts (a plan's price that
 * moved, then plans that came or went, then a price alone); else neither (page order).
 */
export function leadsOver (x: Weighed, y: Weighed): boolean {
  const by = significance(x) - significance(y)
  if (by !== 0) return by > 0
  return x.fact !== undefined && y.fact !== undefined &&
    leadOrder({ fact: x.fact, severity: x.severity }, { fact: y.fact, severity: y.severity }) < 0
}

/**
 * How a block of changed lines is read, in precedence order: the first reading that
 * reads it names it (trivial edits before anything, a price before a card, a card before
 * a section, …; the text last).
 */
const READINGS: ReadonlyArray<readonly [name: string, read: (p: Part, ctx: Context) => Reading | undefined]> = [
  ['trivial edits', trivialReading],
  ['price', (p, ctx) => withRowsBeside(priceReading(p, ctx, (q, c) => sectionReading(q, c) !== undefined), p, ctx)],
  ['cards', cardsReading],
  ['API notice', apiNoticeReading],
  ['section', sectionReading],
  ['table marks', marksReading],
  ['items', itemsReading],
  ['plan limits', planLimitsReading],
  ['text', textReading]
]

/**
 * A block's reading. Lines whose edits are all trivial are set aside first: the rest is
 * read, and they are counted beside it. A section added or removed beside an edit is read
 * on its own and leads unless the edit weighs more; the edit counts as one more passage.
 */
export function classifyPart (p: Part, ctx: Context): Reading {
  const kinds = kindsOf(p, ctx)
  if (kinds.kind !== 'substantive') return firstReading(p, ctx)
  const rest: Part = kinds.trivialPairs.length === 0
    ? p
    : { ...p, ...withoutTrivial(p.removed, p.added, kinds), kinds: { ...kinds, trivialPairs: [] } }
  const counts: EditKinds['counts'] = kinds.trivialPairs.length === 0 ? {} : { ...kinds.counts }
  let updatedOn = kinds.trivialPairs.length === 0 ? undefined : kinds.updatedOn
  const apart = sectionApart(rest.removed, rest.added, ctx.legalPage)
  let reading: Reading
  if (!apart) {
    reading = firstReading(rest, ctx)
  } else {
    const { side, lines } = apart.section
    const section = firstReading({
      ...rest,
      removed: side === 'removed' ? lines : [],
      added: side === 'added' ? lines : [],
      kinds: { ...kinds, kind: 'substantive', trivialPairs: [] }
    }, ctx)
    const edit = firstReading({ ...rest, removed: apart.removed, added: apart.added, kinds: undefined }, ctx)
    if (edit.trivial) {
      for (const [k, n] of Object.entries(edit.trivial.counts) as Array<[EditKind, number]>) {
        counts[k] = (counts[k] ?? 0) + n
      }
      updatedOn ??= edit.trivial.updatedOn
      reading = section
    } else {
      const editLeads = RANK[edit.severity] > RANK[section.severity]
      reading = { ...(editLeads ? edit : section), passages: edit.passages + section.passages }
    }
  }
  delete counts.substantive
  return Object.keys(counts).length > 0
    ? { ...reading, trivialAlso: { counts, ...(updatedOn ? { updatedOn } : {}) } }
    : reading
}

function firstReading (p: Part, ctx: Context): Reading {
  for (const [, read] of READINGS) {
    const reading = read(p, ctx)
    if (reading) return reading
  }
  return textReading(p, ctx)
}

/**
 * A block's prices, and the rows of no money edited in place beside them (a comparison
 * table's mark flipped under its price row): the rows are read on their own and said with
 * the prices, the weightier first. A price reading never hides what it does not read.
 */
function withRowsBeside (prices: Reading | undefined, p: Part, ctx: Context): Reading | undefined {
  if (!prices) return undefined
  const name = (l: string) => cellsOf(l)?.[0]?.trim()
  const unpriced = (l: string) => cellsOf(l) !== null && findMoney(l).length === 0
  const removed = p.removed.filter(l => unpriced(l) && p.added.some(a => unpriced(a) && name(a) === name(l)))
  const added = p.added.filter(l => unpriced(l) && removed.some(r => name(r) === name(l)))
  if (added.length === 0) return prices
  const rows = firstReading({ ...p, removed, added, kinds: undefined }, ctx)
  if (rows.trivial) return prices
  const [lead, other] = leadsOver(rows, prices) ? [rows, prices] : [prices, rows]
  return {
    ...lead,
    facts: [...lead.facts, ...other.facts],
    severity: RANK[other.severity] > RANK[lead.severity] ? other.severity : lead.severity,
    // Prices beside another lead are said by the region, with its other prices (classify.ts).
    ...(other === rows ? { alsoSaid: rows.phrase } : {})
  }
}

/** The quantities a text states, years aside ("up to 3 projects, 10 GB": "3 10"), and whether it says unlimited. */
function quantities (text: string): string {
  const numbers = [...text.matchAll(/\d+(?:[.,]\d+)?/g)]
    .filter(m => !(/^(?:19|2\d)\d\d$/.test(m[0]) && !/^\s*(?:users?|seats?|projects?|gb|mb|requests?|credits?)/i.test(text.slice(m.index! + m[0].length))))
    .map(m => m[0].replace(',', '.'))
  return `${numbers.join(' ')}${UNLIMITED.test(text) ? ' ∞' : ''}`
}
const UNLIMITED = /unlimited|illimit|unbegrenzt|unbeschränkt|ilimitad|onbeperkt/i

/**
 * Whether an edit speaks of what terms bind (rights, data, liability, fees…), in the
 * page's own language and English: French "tiers" is third parties, English "tiers" are plans.
 */
function speaksOfLaw (p: Part, own: readonly Language[]): boolean {
  // A line added or removed whole is about its section (a row added under "Subprocessors"),
  // and so is an entry of a list or a table replaced (Rollbar → Sentry under "Sub-processors");
  // a sentence re-worded is weighed by its own words ("laws of the State of Delaware" is no new law).
  const whole = p.removed.length === 0 || p.added.length === 0 || [...p.removed, ...p.added].every(isItem)
  const text = foldAccents([whole ? p.section ?? '' : '', ...p.removed, ...p.added].join('\n'))
  return matcher(LEGAL_WORDS, own).test(text) || matcher(COMPLIANCE_ANY, own).test(text)
}

/**
 * Whether an edit of the terms changes a quantity they state (logs kept 30 days → 90, a
 * fee, a share in percent): substance, where re-wording around the same quantities is not.
 */
const quantitiesMoved = (removed: readonly string[], added: readonly string[]) => {
  const stated = (lines: readonly string[]) => quantities(lines.join('\n')).split(' ').sort().join(' ')
  return stated(removed) !== stated(added)
}

/**
 * Whether an edit of the terms takes away what a sentence granted: words of a sentence that
 * says what a plan includes or what someone may do are removed and few come in their place
 * ("…3 projects, custom domains and API access" → "…3 projects"), or a free tier's name went
 * from it ("Free accounts can export…" → "Paid accounts can export…").
 */
function grantNarrowed (removed: readonly string[], added: readonly string[], own: readonly Language[]): boolean {
  const grants = matcher(GRANT_WORDS, own)
  const free = matcher(FREE_WORDS, own)
  const [was, is] = [foldAccents(removed.join('\n')), foldAccents(added.join('\n'))]
  if (!grants.test(was) || is === '') return false
  const words = (s: string): string[] => s.toLowerCase().match(/\p{L}+/gu) ?? []
  const [before, after] = [words(was), words(is)]
  const gone = before.filter(w => !after.includes(w))
  const come = after.filter(w => !before.includes(w))
  return (gone.length >= 2 && come.length * 3 <= gone.length) || (free.test(was) && !free.test(is))
}

/** A size's unit as a factor of bytes ("GB", "TiB", French "Go"): 1 TB and 500 GB are compared as sizes. */
const SIZE = /^\s*([kmgtp])i?[bo]\b/i
const BYTES: Record<string, number> = { k: 1e3, m: 1e6, g: 1e9, t: 1e12, p: 1e15 }

/** The numbers a text states, a size in bytes by its unit. */
const amounts = (s: string) => [...s.matchAll(/\d+(?:[.,]\d+)?/g)].map(m => {
  const unit = SIZE.exec(s.slice(m.index + m[0].length))?.[1]
  return Number(m[0].replace(',', '.')) * (unit ? BYTES[unit.toLowerCase()] : 1)
})

/** Whether the new text offers less than the old: a number (a size in its unit) went down, or "unlimited" went away. */
function lessOffered (before: string, after: string): boolean {
  if (UNLIMITED.test(before) && !UNLIMITED.test(after)) return true
  const [a, b] = [amounts(before), amounts(after)]
  return a.some((n, i) => b[i] !== undefined && b[i] < n) || b.length < a.length
}

/** How much the one number that moved between two texts moved, in percent; undefined unless exactly one did. */
function movedBy (before: string, after: string): number | undefined {
  const [a, b] = [amounts(before), amounts(after)]
  if (a.length !== b.length) return undefined
  const moved = a.flatMap((n, i) => n !== b[i] ? [i] : [])
  if (moved.length !== 1 || a[moved[0]] === 0) return undefined
  return Math.round((b[moved[0]] - a[moved[0]]) / a[moved[0]] * 100)
}

function wordDelta (a: string, b: string): number {
  const wa = new Set(a.toLowerCase().split(/\W+/).filter(Boolean))
  const wb = new Set(b.toLowerCase().split(/\W+/).filter(Boolean))
  let n = 0
  for (const w of wa) if (!wb.has(w)) n++
  for (const w of wb) if (!wa.has(w)) n++
  return n
}
