import { diffWords } from 'diff'
import { plain } from '../../vocabulary/lines.js'

// What a person reads of an edit: the words that changed, with just enough of the
// words around them to find the place, in the page's own words. Pure.

/** A line of extracted text as it reads, without its structure marks (see vocabulary/lines.ts). */
export { plain }

const SPAN = 120
const LEFT = 40
const RIGHT = 30
/** Unchanged text shorter than this between two edits leaves them one passage. */
const JOIN = 30
/** Beyond this many characters a side, the quote is taken from the first lines that differ. */
const MAX_DIFFED = 4_000

export interface Quote {
  /** `"…old…" → "…new…"`, `added "…"` or `removed "…"` (lower case: it follows a prefix). */
  phrase: string
  /** How many separate passages changed, the quoted one included. */
  passages: number
}

interface Passage { before: string, removed: string, added: string, after: string }

/** The edit from `removed` lines to `added` lines, quoted. */
export function quoteEdit (removed: readonly string[], added: readonly string[]): Quote {
  const a = removed.map(plain).join('\n')
  const b = added.map(plain).join('\n')
  if (a === '') return { phrase: `added "${sentence(b)}"`, passages: 1 }
  if (b === '') return { phrase: `removed "${sentence(a)}"`, passages: 1 }
  const passages = passagesOf(a, b)
  if (passages.length === 0) return { phrase: `"${cut(a, SPAN)}" → "${cut(b, SPAN)}"`, passages: 1 }
  return { phrase: quotePassage(passages[0]), passages: passages.length }
}

function passagesOf (a: string, b: string): Passage[] {
  const parts = diffWords(a.slice(0, MAX_DIFFED), b.slice(0, MAX_DIFFED), { maxEditLength: 400 }) ??
    [{ value: a.slice(0, MAX_DIFFED), removed: true, added: false, count: 1 },
      { value: b.slice(0, MAX_DIFFED), removed: false, added: true, count: 1 }]
  const out: Passage[] = []
  let same = ''
  let current: Passage | undefined
  for (const part of parts) {
    if (!part.added && !part.removed) {
      same = part.value
      continue
    }
    if (current && same.length < JOIN && !same.includes('\n')) {
      // A word or two unchanged between two edits: one passage.
      current.removed += same
      current.added += same
    } else {
      if (current) out.push({ ...current, after: same })
      current = { before: same, removed: '', added: '', after: '' }
    }
    same = ''
    if (part.removed) current.removed += part.value
    else current.added += part.value
  }
  if (current) out.push({ ...current, after: same })
  return out
}

function quotePassage (p: Passage): string {
  let removed = p.removed.trim()
  let added = p.added.trim()
  // A few words inserted or deleted read better in their sentence; a longer insertion stands alone.
  const alone = (s: string) => s.split(/\s+/).length >= 4
  if (removed === '' && alone(added)) return `added "${cut(added, SPAN)}"`
  if (added === '' && alone(removed)) return `removed "${cut(removed, SPAN)}"`
  const left = leftContext(p.before)
  // Brackets opened before the end of the edit and not closed in it: the right side closes them.
  const opened = [...`${left}${p.added}`]
    .reduce((n, c) => c === '(' || c === '[' ? n + 1 : c === ')' || c === ']' ? Math.max(0, n - 1) : n, 0)
  const right = rightContext(p.after, opened)
  removed = spaced(p.removed)
  added = spaced(p.added)
  let before = joined(left, removed, right)
  let after = joined(left, added, right)
  if (before === after) {
    // Only white space or a cut hid the difference: show the changed words as they are.
    before = p.removed.trim()
    after = p.added.trim()
  }
  return `"${before.replace(/\n/g, ' ')}" → "${after.replace(/\n/g, ' ')}"`
}

/** Changed words cut to SPAN, keeping the white space that parts them from their context. */
function spaced (s: string): string {
  return `${/^\s/.test(s) ? ' ' : ''}${cut(s, SPAN)}${/\s$/.test(s) ? ' ' : ''}`
}

/** Context and changed words as one quote; an empty side leaves no gap before punctuation. */
function joined (left: string, changed: string, right: string): string {
  if (changed.trim() !== '') return `${left}${changed}${right}`.replace(/\s{2,}/g, ' ').trim()
  const tail = right.trimStart()
  const gap = tail === '' || /^[.,;:!?)]/.test(tail) || left.trimEnd() === '' ? '' : ' '
  return `${left.trimEnd()}${gap}${tail}`.trim()
}

/** The end of the unchanged text before an edit: from its last sentence or line start, at most LEFT characters. */
function leftContext (s: string): string {
  const line = s.slice(s.lastIndexOf('\n') + 1)
  const sentenceStart = /[.!?;:]\s+(?=[^.!?;:]*$)/.exec(line)
  // A sentence whose edit comes in its first words keeps the sentence before it in sight.
  const start = sentenceStart && line.length - sentenceStart.index > 12
    ? sentenceStart.index + sentenceStart[0].length
    : 0
  const t = line.slice(start)
  if (t.length <= LEFT) return t
  const tail = t.slice(-LEFT)
  const space = tail.indexOf(' ')
  return `…${space >= 0 ? tail.slice(space + 1) : tail}`
}

/**
 * The start of the unchanged text after an edit: to the end of its sentence or line, at
 * most RIGHT characters. A full stop that ends an abbreviation ("Art. 5", "e.g. the") or
 * stands inside brackets the edit opened is no sentence's end: the quote runs on to the
 * closing bracket rather than cut inside it.
 */
function rightContext (s: string, open = 0): string {
  const line = s.split('\n')[0]
  let depth = open
  let end = -1
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (c === '(' || c === '[') depth++
    else if ((c === ')' || c === ']') && depth > 0) {
      depth--
      if (depth === 0 && open > 0 && i + 1 >= RIGHT) {
        end = i
        break
      }
    } else if (/[.!?;:]/.test(c) && depth === 0 && /^(?:\s|$)/.test(line.slice(i + 1, i + 2)) &&
      !/^\s*[\d(a-z]/.test(line.slice(i + 1, i + 4))) {
      end = i
      break
    }
  }
  let t = end >= 0 ? line.slice(0, end + 1) : line
  if (t.length <= RIGHT || (open > 0 && end >= 0 && t.length <= RIGHT * 2)) return t
  t = t.slice(0, RIGHT)
  const space = t.lastIndexOf(' ')
  return `${space > 0 ? t.slice(0, space) : t}…`
}

/** The first sentence (or line) of a passage, cut at a word to SPAN characters. */
function sentence (s: string): string {
  const first = s.split('\n')[0]
  const end = first.search(/[.!?](\s|$)/)
  return cut(end >= 0 && end < first.length - 1 ? first.slice(0, end + 1) : first, SPAN)
}

/** `s` in at most `max` characters, cut at a word with an ellipsis. */
export function cut (s: string, max: number): string {
  const t = s.trim().replace(/\s*\n\s*/g, ' ')
  if (t.length <= max) return t
  const head = t.slice(0, max - 1)
  const space = head.lastIndexOf(' ')
  return `${space > max / 2 ? head.slice(0, space) : head}…`
}
