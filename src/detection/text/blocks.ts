import type { EditKinds } from './edit-kinds.js'
import { pairUp } from './hunks.js'

// The shapes of a block of changed lines, as the readings (classify/readings.ts) and the change
// page (services/change-view.ts) both see them: headings and list items, cards, the lines
// whose edits are all trivial, and a whole section added or removed beside an edit.

// The lines' marks are read by vocabulary/lines.ts; an item here is a list's or a table's line.
import { headingLevel, headingText, isHeading, isListed as isItem } from '../../vocabulary/lines.js'
export { headingText, isHeading, isItem }

/**
 * A block's changed lines without those whose edits are all trivial (a heading renumbered
 * after a new section): `was` and `is` are the indexes set aside.
 */
export function withoutTrivial (removed: readonly string[], added: readonly string[], kinds: EditKinds) {
  const was = new Set(kinds.trivialPairs.map(x => x[0]))
  const is = new Set(kinds.trivialPairs.map(x => x[1]))
  return { removed: removed.filter((_, i) => !was.has(i)), added: added.filter((_, j) => !is.has(j)) }
}

/** Beyond these, a line is no section's title written as a paragraph. */
const MAX_TITLE = 60
const MIN_PROSE = 80

/**
 * Whether the line at `i` opens a section: a heading, or, with `titled` (a legal text, as
 * word processors export them), a title written as a paragraph of its own (a bold line:
 * "Referral program"), short, without a sentence's end, over a paragraph of prose. Docs and
 * product pages write their sections as headings: a short line there is a sentence ("Tokens
 * expire after one hour") or a label ("Note").
 */
export function opensSection (lines: readonly string[], i: number, titled = false): boolean {
  const line = lines[i]
  if (line === undefined) return false
  if (isHeading(line)) return true
  if (!titled) return false
  const next = lines[i + 1]
  return next !== undefined && !isHeading(next) && !isItem(next) && next.length >= MIN_PROSE &&
    !isItem(line) && line.length <= MAX_TITLE && /^[\p{Lu}\d]/u.test(line) && !/[.!?:;,]$/.test(line) &&
    line.split(/\s+/).length <= 8
}

/**
 * A whole section added (or removed) after an edit in one block, as the diff writes a
 * clause rewritten just above a new section: the section apart, when none of its lines
 * is what an old line became. Undefined when the block is not so.
 */
export function sectionApart (
  removed: readonly string[], added: readonly string[], titled = false
): { removed: string[], added: string[], section: { side: 'added' | 'removed', lines: string[] } } | undefined {
  const tail = (lines: readonly string[], others: readonly string[], paired: Set<number>) => {
    const h = lines.findIndex((_, i) => opensSection(lines, i, titled))
    if (h < 0 || lines.length - h < 2 || others.length === 0) return undefined
    for (let i = h; i < lines.length; i++) if (paired.has(i)) return undefined
    return h
  }
  const pairs = pairUp(removed, added)
  const a = tail(added, removed, new Set(pairs.values()))
  if (a !== undefined) {
    return { removed: [...removed], added: added.slice(0, a), section: { side: 'added', lines: added.slice(a) } }
  }
  const r = tail(removed, added, new Set(pairs.keys()))
  if (r !== undefined) {
    return { removed: removed.slice(0, r), added: [...added], section: { side: 'removed', lines: removed.slice(r) } }
  }
  return undefined
}

const MAX_CARD_LINES = 3
const MAX_CARD_LINE = 160

/**
 * The headings of `lines` when they are all cards: each a heading below the top level
 * followed by at most three short sentences (or the one paragraph of a list item that
 * holds the heading: `li > h3 + p`). A heading over a list of several items is a section.
 */
export function cardsOf (lines: readonly string[]): string[] | undefined {
  const cards: string[] = []
  let body = 0
  let items = 0
  for (const line of lines) {
    const level = headingLevel(line)
    if (level !== undefined) {
      if (level < 2) return undefined
      cards.push(headingText(line))
      body = 0
      items = 0
    } else if (
      cards.length === 0 || (isItem(line) && ++items > 1) || ++body > MAX_CARD_LINES || line.length > MAX_CARD_LINE
    ) {
      return undefined
    }
  }
  return cards.length > 0 ? cards : undefined
}
