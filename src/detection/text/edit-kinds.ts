import { diffWordsWithSpace } from 'diff'
import { dateIn } from '../words/dates.js'
import {
  fold, type Language, LAST_UPDATED_WORDS, matcher, ownLanguages, REFERENCE_WORDS, SPELLING_VARIANTS
} from '../words/lexicon.js'
import { plain } from './quote.js'
import { findMoney, parseAmount } from '../words/money.js'
import { pairUp } from './hunks.js'
import { isHeading, isItem } from '../../vocabulary/lines.js'
import type { EditKind } from '../../vocabulary/core.js'

// What kind of edit a block of changed lines is, from the text alone, in the seven
// languages: substantive (sentences or clauses added or removed, words that change what
// the text says), or trivial: a new date of last update, a renumbering of sections or
// references, typography (quotes, dashes, spaces, case, accents), a spelling variant. A
// trivial edit never leads a summary while a substantive one is there, and never raises a
// change above low. Pure.

export { EDIT_KINDS, type EditKind } from '../../vocabulary/core.js'
export type TrivialKind = Exclude<EditKind, 'substantive'>

/** A changed piece of a line: the words removed and added, with the line's text before it and after it. */
interface Piece { removed: string, added: string, before: string, rest: string, line: string, numbered: boolean }

interface Context { own: readonly Language[] }

/** Quote marks of every style, single and double ('Service', "Service", „Service“, « Service »). */
const QUOTES = /['‘’‚‛′`´"“”„‟″«»‹›]/g
const DASHES = /[‐‑‒–—―−]/g
/** A text as typography leaves it: quotes, dashes, spaces, case and accents aside. */
const typeset = (s: string) => fold(s.normalize('NFKC')).toLowerCase()
  .replace(QUOTES, '"').replace(DASHES, '-').replace(/…/g, '...').replace(/\s+/g, '')

/** A part's number as references write it: 5, 5.2, 5(b), (c), iv. */
const NUMBER = /^\(?(?:\d+(?:\.\d+)*[a-z]?|[ivxlc]+|[a-z])\)?(?:\(\w\))?\.?$/i
/** A number that leads a heading or an item as its numbering: "5.", "5.2", "(a)", "iv)". */
const ENUMERATION = /^(?:\(?\d+(?:\.\d+)*[.)]|\d+\.\d+(?:\.\d+)*|\([a-z]\)|[a-z]\)|\(?[ivxlc]+[.)])$/i
/** A paragraph that leads with its clause's number, then a capital: "5.1 You may…", "(b) The customer…". */
const CLAUSE = /^\(?(?:\d+(?:\.\d+)*\.?|[a-z]|[ivxlc]+)\)?\s+\p{Lu}/u
/** A number that names a part of the document: after a reference word or §, or numbering a heading or an item. */
function isReference (p: Piece, ctx: Context): boolean {
  const [was, is] = [p.removed.trim(), p.added.trim()]
  if (!NUMBER.test(was) || !NUMBER.test(is)) return false
  const before = fold(p.before).toLowerCase()
  if (/(?:§|§§|art\.|nr\.|no\.|abs\.)\s*$/.test(before)) return true
  if (new RegExp(`(?:${matcher(REFERENCE_WORDS, ctx.own).source})\\.?\\s*$`, 'iu').test(before)) return true
  // "5. Payment" becoming "6. Payment": a heading's or an item's own numbering.
  const numbered = (token: string, after: string) => ENUMERATION.test(token) || (/^\d+$/.test(token) && /^[.)]/.test(after))
  return p.numbered && /^\s*$/.test(p.before) && numbered(was, p.rest) && numbered(is, p.rest)
}

/** A date changed on the line that says when the document was last updated (or takes effect). */
function isLastUpdate (p: Piece, ctx: Context): boolean {
  if (!matcher(LAST_UPDATED_WORDS, ctx.own).test(fold(p.line))) return false
  return dateIn(p.line) !== undefined && /^[\p{L}\p{N}\s.,/-]+$/u.test(`${p.removed}${p.added}`.trim() || 'x')
}

/** One word written two ways: an English variant (behaviour, behavior), two letters swapped, a letter doubled. */
function isSpelling (p: Piece): boolean {
  const [a, b] = [p.removed.trim().toLowerCase(), p.added.trim().toLowerCase()]
  if (!/^\p{L}{4,}$/u.test(a) || !/^\p{L}{4,}$/u.test(b) || a === b) return false
  for (const [x, y] of SPELLING_VARIANTS) {
    for (const [from, to] of [[a, b], [b, a]]) {
      for (let i = from.indexOf(x); i >= 3; i = from.indexOf(x, i + 1)) {
        if (`${from.slice(0, i)}${y}${from.slice(i + x.length)}` === to) return true
      }
    }
  }
  if (a.length >= 6 && a.length === b.length) {
    const diff = [...a].map((c, i) => c !== b[i] ? i : -1).filter(i => i >= 0)
    const swapped = diff.length === 2 && diff[1] === diff[0] + 1
    if (swapped && a[diff[0]] === b[diff[1]] && a[diff[1]] === b[diff[0]]) return true
  }
  const [short, long] = a.length < b.length ? [a, b] : [b, a]
  if (long.length === short.length + 1 && long.length >= 6) {
    for (let i = 1; i < long.length; i++) {
      if (long[i] === long[i - 1] && `${long.slice(0, i)}${long.slice(i + 1)}` === short) return true
    }
  }
  return false
}

/**
 * An amount whose cents the markup set apart, read as one number before ("€34<sup>40</sup>" was "€3440", now
 * "€34.40"): the same digits, the decimal point added or dropped before the last two. No price moves so.
 */
function isCentsSetApart (p: Piece): boolean {
  const [a, b] = amountsOf(p)
  const joined = (whole: string, parted: string) => /^\d{3,}$/.test(whole) && /^\d+[.,]\d\d$/.test(parted) &&
    parted.replace(/[.,]/, '') === whole
  return (joined(a, b) || joined(b, a)) && isMoney(p, b)
}

/** One amount written another way: "$1,000" → "$1,000.00", "49 €" → "49,00 €". */
function isSameAmount (p: Piece): boolean {
  const [a, b] = amountsOf(p)
  return /^\d[\d.,]*$/.test(a) && /^\d[\d.,]*$/.test(b) && a !== b && parseAmount(a) === parseAmount(b) &&
    isMoney(p, b)
}

/** Whether the amount the piece now writes is money on its line (not a version, not a section's number). */
const isMoney = (p: Piece, amount: string) => findMoney(p.line).some(m => m.raw.includes(amount))

/** The numbers a piece changes, whole: with the digits and separators around it ("1,000" and "1,000.00"). */
function amountsOf (p: Piece): [string, string] {
  const lead = /[\d.,]*$/.exec(p.before)![0]
  const trail = /^[\d.,]*/.exec(p.rest)![0].replace(/[.,]$/, '')
  return [`${lead}${p.removed.trim()}${trail}`, `${lead}${p.added.trim()}${trail}`]
}

/** The trivial kinds a changed piece may be, in order: the first it passes names it. */
const PIECE_KINDS: ReadonlyArray<readonly [TrivialKind, (p: Piece, ctx: Context) => boolean]> = [
  ['typography', p => typeset(p.removed) === typeset(p.added) || isCentsSetApart(p) || isSameAmount(p)],
  ['last_updated', isLastUpdate],
  ['renumbering', isReference],
  ['spelling', isSpelling]
]

/** The changed pieces of a line and its replacement, word by word. */
function piecesOf (removed: string, added: string, numbered: boolean): Piece[] {
  const pieces: Piece[] = []
  let before = ''
  let current: Piece | undefined
  const parts = diffWordsWithSpace(removed, added)
  for (const [at, part] of parts.entries()) {
    if (!part.added && !part.removed) {
      // Only spaces between two changes leave them one piece ("Section 5" → "Section 6", "a b" → "c d").
      if (current && /^\s*$/.test(part.value) && part.value.length < 2) {
        current.removed += part.value
        current.added += part.value
      } else {
        if (current) pieces.push(current)
        current = undefined
      }
      before += part.value
      continue
    }
    current ??= {
      removed: '',
      added: '',
      before,
      line: added,
      numbered,
      rest: parts.slice(at).find(x => !x.added && !x.removed)?.value ?? ''
    }
    if (part.removed) current.removed += part.value
    else current.added += part.value
    if (part.removed) before += part.value
  }
  if (current) pieces.push(current)
  return pieces
}

/** What a block of changed lines holds, by kind: how many pieces of each, and the new date of last update. */
export interface EditKinds {
  /** The block's kind: substantive when anything is; else its most frequent trivial kind. */
  kind: EditKind
  counts: Partial<Record<EditKind, number>>
  /** The date of last update the page now gives, when the block changed it (YYYY-MM-DD). */
  updatedOn?: string
  /** The pairs of lines (removed, added: their indexes) whose every edit is trivial. */
  trivialPairs: Array<[number, number]>
}

/**
 * The kinds of a block's edits: each removed line paired with the added line it became,
 * each pair's changed pieces tested against PIECE_KINDS in order; a line added or removed
 * alone, or a piece no kind explains, is substantive. `legal`: a legal text's, whose
 * paragraphs may lead with their clause's number ("5.1 You may cancel…").
 */
export function editKinds (
  removed: readonly string[], added: readonly string[], language?: Language, legal = false
): EditKinds {
  const ctx: Context = { own: ownLanguages(language) }
  const counts: Partial<Record<EditKind, number>> = {}
  const count = (k: EditKind, n = 1) => { counts[k] = (counts[k] ?? 0) + n }
  let updatedOn: string | undefined
  const trivialPairs: Array<[number, number]> = []
  const pairs = pairUp(removed, added)
  const paired = new Set(pairs.values())
  for (const [i, j] of pairs) {
    const [a, b] = [plain(removed[i]), plain(added[j])]
    // A heading or a list item may lead with its own numbering, and so may a legal text's
    // clause ("5.1 You may…", not "1.5 times the fees").
    const clause = legal && CLAUSE.test(a) && CLAUSE.test(b)
    const pieces = piecesOf(a, b, clause || isHeading(added[j]) || isItem(added[j]))
    if (pieces.length === 0) count('typography')
    const once = new Set<EditKind>()
    for (const piece of pieces) {
      const kind = PIECE_KINDS.find(([, test]) => test(piece, ctx))?.[0] ?? 'substantive'
      // A line's typography, or its date of last update, is one edit however many pieces it took.
      if ((kind === 'typography' || kind === 'last_updated') && once.has(kind)) continue
      once.add(kind)
      count(kind)
      if (kind === 'last_updated') updatedOn = dateIn(b)?.iso ?? updatedOn
    }
    if (!once.has('substantive')) trivialPairs.push([i, j])
  }
  const alone = removed.length - pairs.size + added.length - paired.size
  if (alone > 0) count('substantive', alone)
  const trivial = (Object.entries(counts) as Array<[EditKind, number]>).filter(([k, n]) => k !== 'substantive' && n > 0)
  const most = trivial.sort((x, y) => y[1] - x[1])[0]?.[0]
  const kind: EditKind = counts.substantive || !most ? 'substantive' : most
  return { kind, counts, trivialPairs, ...(updatedOn ? { updatedOn } : {}) }
}

/** How a summary names trivial edits: "38 renumbered references", "1 spelling change", "updated 2025-03-01". */
export function trivialPhrase (counts: Partial<Record<EditKind, number>>, updatedOn?: string): string[] {
  const n = (k: TrivialKind) => counts[k] ?? 0
  const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`
  return [
    n('renumbering') > 0 ? plural(n('renumbering'), 'renumbered reference', 'renumbered references') : '',
    n('spelling') > 0 ? plural(n('spelling'), 'spelling change', 'spelling changes') : '',
    n('typography') > 0 ? plural(n('typography'), 'typographic edit', 'typographic edits') : '',
    n('last_updated') > 0 ? (updatedOn ? `updated ${updatedOn}` : 'a new date of last update') : ''
  ].filter(Boolean)
}
