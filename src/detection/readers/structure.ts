import type { AnyNode } from 'domhandler'
import type { DetectedChange, DiffData, DiffHunk } from '../../vocabulary/core.js'
import { diffDataOf } from '../text/diff.js'
import { fold } from '../words/lexicon.js'
import { isSkipped } from '../text/extract.js'
import { BLOCK, CELL, SKIP, STRUCK, tagOf } from '../text/tags.js'

// What the structured readers (pricing/, changelog/) share: a DOM element's text as a
// person reads it, and how a reading takes over the text changes that are its own.

/**
 * The text a person reads in `node`, as extraction writes it (the one table of text/tags.ts):
 * skipped elements left out, blocks apart, spaces collapsed.
 */
export const blockText = (node: AnyNode): string => textOf(node, SKIP)

/** Whether `node` has text a person reads: blockText(node) !== '', each node's answer found once. */
export function hasText (node: AnyNode): boolean {
  const known = textFound.get(node)
  if (known !== undefined) return known
  const found = node.type === 'text'
    ? /\S/.test(node.data)
    : (node.type === 'tag' || node.type === 'script' || node.type === 'style') && (tagOf(node.name) & SKIP) === 0 &&
      node.children.some(hasText)
  textFound.set(node, found)
  return found
}
// A chain of wrappers asks of every level: the answer of each node is kept for its tree's life.
const textFound = new WeakMap<AnyNode, boolean>()

/**
 * The start of blockText(node): its first `chars` characters at least (when it has that
 * many), read without walking the rest of a large block.
 */
export const blockTextStart = (node: AnyNode, chars: number): string => textOf(node, SKIP, chars)

/** The text of `node` as a value reads it: without struck text (a price struck through is no longer the price). */
export const currentText = (node: AnyNode): string => textOf(node, SKIP | STRUCK)

function textOf (node: AnyNode, leave: number, chars = Infinity): string {
  const out: string[] = []
  // Past `chars` characters that are not spaces, the text collapsed holds `chars` at least: the walk ends.
  let read = 0
  const walk = (n: AnyNode) => {
    if (read > chars) return
    if (n.type === 'text') {
      out.push(n.data)
      if (chars !== Infinity) read += n.data.replace(/\s+/g, '').length
    } else if (n.type === 'tag' || n.type === 'script' || n.type === 'style') {
      const tag = tagOf(n.name)
      if (tag & leave) return
      const block = (tag & (BLOCK | CELL)) !== 0
      if (block) out.push(' ')
      for (const c of n.children) walk(c)
      if (block) out.push(' ')
    }
  }
  walk(node)
  return out.join('').replace(/\s+/g, ' ').trim()
}

/**
 * The lines extraction writes whose nearest block is `node`: its text up to each block
 * inside it (a <br>, a <p>), which writes lines of its own. A reader claims a changed line
 * by these, so that "$49<br>per user / month" is claimed as the two lines the text has.
 */
export function ownLines (node: AnyNode): string[] {
  const out: string[] = []
  let run = ''
  const end = () => {
    const t = run.replace(/\s+/g, ' ').trim()
    if (t) out.push(t)
    run = ''
  }
  const walk = (n: AnyNode) => {
    if (n.type === 'text') run += n.data
    else if (n.type === 'tag' || n.type === 'script' || n.type === 'style') {
      const tag = tagOf(n.name)
      // What extraction leaves out (hidden, a banner) is no line of the text either.
      if (isSkipped(tag, n.attribs)) return
      if (n !== node && (tag & (BLOCK | CELL)) !== 0) {
        end()
        return
      }
      for (const c of n.children) walk(c)
    }
  }
  walk(node)
  end()
  return out
}

/** Whether `outer` is `inner` or holds it. */
export function contains (outer: AnyNode, inner: AnyNode): boolean {
  for (let n: AnyNode | null = inner; n; n = n.parent) if (n === outer) return true
  return false
}

/** A line of text as compared with a reading's blocks: no accents, case or extra spaces. */
export const lineKey = (line: string) => fold(line).toLowerCase().replace(/\s+/g, ' ').trim()

/** How the readers parse a page: with each node's place in the HTML, to claim lines by (see Spans). */
export const WITH_PLACES = { withStartIndices: true, withEndIndices: true } as const

/**
 * Where a reading's elements stand in the HTML it read (parsed WITH_PLACES), each with
 * what it is of the reading (a plan's key, an entry's).
 * A changed line is the reading's by where extraction found it (ExtractedPage.sources),
 * not by its words, which another part of the page may share.
 */
export class Spans {
  private readonly spans: Array<{ start: number, end: number, key: string }> = []
  private sorted = true
  private longest = 0

  /**
   * Adds the element's place: its own lines' (those whose nearest block it is, see ownLines),
   * or (`whole`) all it holds, as a table's cell or a list's item is written in one line.
   */
  add (el: AnyNode, key: string, whole = false): void {
    if (el.startIndex === null || el.endIndex === null) return
    if (whole || !('children' in el)) {
      this.push(el.startIndex, el.endIndex, key)
      return
    }
    // The holes: the blocks inside it (their lines are their own) and what extraction leaves out.
    let from = el.startIndex
    const walk = (n: AnyNode) => {
      for (const c of 'children' in n ? n.children : []) {
        if (c.type !== 'tag' && c.type !== 'script' && c.type !== 'style') continue
        const tag = tagOf(c.name)
        if ((tag & (BLOCK | CELL)) !== 0 || isSkipped(tag, c.attribs)) {
          if (c.startIndex === null || c.endIndex === null) continue
          this.push(from, c.startIndex - 1, key)
          from = c.endIndex + 1
        } else walk(c)
      }
    }
    walk(el)
    this.push(from, el.endIndex, key)
  }

  /** What the elements holding the place `at` are of the reading (none: the line is not its). */
  keysAt (at: number): Set<string> {
    if (!this.sorted) {
      this.spans.sort((a, b) => a.start - b.start)
      this.sorted = true
    }
    const out = new Set<string>()
    // The last span starting at or before `at`, then back over those that could still reach it.
    let lo = 0
    let hi = this.spans.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.spans[mid].start <= at) lo = mid + 1
      else hi = mid
    }
    for (let i = lo - 1; i >= 0 && this.spans[i].start >= at - this.longest; i--) {
      if (this.spans[i].end >= at) out.add(this.spans[i].key)
    }
    return out
  }

  private push (start: number, end: number, key: string): void {
    if (end < start) return
    this.spans.push({ start, end, key })
    this.sorted = false
    this.longest = Math.max(this.longest, end - start)
  }
}

/** A changed line of the text, as a reader is asked whether it explains it. */
export interface ChangedLine {
  text: string
  /** A removed line is of the version before; an added one, of the version after. */
  side: 'before' | 'after'
  /** Where it stands in its version's HTML (ExtractedPage.sources); unknown when the stored text reads otherwise. */
  at?: number
  /** The line it replaced in its block, or that replaced it, if any. */
  counterpart?: { text: string, at?: number }
}

/** Where each line of both versions' texts stands in their HTML, when known (see ExtractedPage.sources). */
export interface LinePlaces { before?: readonly number[], after?: readonly number[] }

/** A structured reader's own change: its type, weight and words, and its part of `diffData`. */
export interface StructuredChange extends Omit<DetectedChange, 'diffData'> {
  diffData: Partial<DiffData>
}

/** What a structured reader makes of two versions of a page. */
export interface StructuredReading {
  /** What moved in the structure, as changes a person reads. */
  changes: StructuredChange[]
  /**
   * Whether a changed line of the text is explained by those moves or by a noise the
   * reader recognises by name. Whether a line is the reading's own goes by where it
   * stands (`at`, see Spans) when that is known, else by its words.
   */
  explains: (line: ChangedLine) => boolean
}

/**
 * The one rule of the structured readers: a structure never hides a change. It takes over
 * only the changed lines of the text that it explains, line by line; every other changed
 * line stays with the text comparison (`classify`), with its own type and severity. A
 * reader that could not read a version (`undefined`) explains nothing, and the text
 * changes are what they would be without it. The reader's changes carry the diff of the
 * lines they explain.
 */
export function withReading (
  diff: DiffData, reading: StructuredReading | undefined, classify: (diff: DiffData) => DetectedChange[],
  places: LinePlaces = {}
): DetectedChange[] {
  if (!reading) return classify(diff)
  const taken: DiffHunk[] = []
  const rest: DiffHunk[] = []
  for (const hunk of diff.hunks) {
    const explained = explainedLines(hunk, reading.explains, places)
    if (explained.size === 0) {
      rest.push(hunk)
      continue
    }
    const mine = reshape(hunk, i => explained.has(i))
    const others = reshape(hunk, i => !explained.has(i))
    if (mine) taken.push(mine)
    if (others) rest.push(others)
  }
  const kept = rest.length === 0 ? [] : classify(diffDataOf(rest))
  if (reading.changes.length === 0) return kept
  const part = diffDataOf(taken)
  return [...reading.changes.map(c => ({ ...c, diffData: { ...part, ...c.diffData } })), ...kept]
}

/** The indexes of a hunk's changed lines that the reader explains, each asked with its counterpart in its block. */
function explainedLines (hunk: DiffHunk, explains: StructuredReading['explains'], places: LinePlaces): Set<number> {
  const out = new Set<number>()
  const lines = hunk.lines
  // Where each line stands: its index in its version's text (as buildDiff counts), then its place in the HTML.
  const at: Array<number | undefined> = []
  let [o, n] = [hunk.oldStart - 1, hunk.newStart - 1]
  for (const l of lines) {
    if (l.type === 'deletion') at.push(places.before?.[o++])
    else if (l.type === 'addition') at.push(places.after?.[n++])
    else {
      o++
      n++
      at.push(undefined)
    }
  }
  const line = (j: number, side: ChangedLine['side'], other: number | undefined): ChangedLine => ({
    text: lines[j].content,
    side,
    at: at[j],
    ...(other === undefined ? {} : { counterpart: { text: lines[other].content, at: at[other] } })
  })
  for (let i = 0; i < lines.length;) {
    if (lines[i].type === 'context') {
      i++
      continue
    }
    let end = i
    while (end < lines.length && lines[end].type !== 'context') end++
    const removed: number[] = []
    const added: number[] = []
    for (let j = i; j < end; j++) (lines[j].type === 'deletion' ? removed : added).push(j)
    const pairs = pairUp(removed.map(j => lines[j].content), added.map(j => lines[j].content))
    removed.forEach((j, k) => {
      const other = pairs.get(k)
      if (explains(line(j, 'before', other === undefined ? undefined : added[other]))) out.add(j)
    })
    const back = new Map([...pairs].map(([k, v]) => [v, k]))
    added.forEach((j, k) => {
      const other = back.get(k)
      if (explains(line(j, 'after', other === undefined ? undefined : removed[other]))) out.add(j)
    })
    i = end
  }
  return out
}

const wordsOf = (s: string) => new Set(lineKey(s).split(/[^\p{L}\p{N}]+/u).filter(Boolean))

/**
 * Which added line each removed line of a block became: the one at its place when the two
 * sides are as long, else the most alike (at least a third of their words shared), the
 * most alike pairs taken first, so a line shares its words with the line it became rather
 * than with the first that shares any ("## 3. Accounts" became "## 2. Accounts", not the
 * "## 2. Safety" above it). A very large block is paired line by line, in its order.
 */
export function pairUp (removed: readonly string[], added: readonly string[]): Map<number, number> {
  const pairs = new Map<number, number>()
  if (removed.length === added.length) {
    removed.forEach((_, k) => pairs.set(k, k))
    return pairs
  }
  const taken = new Set<number>()
  const addedWords = added.map(wordsOf)
  const likeness = (words: Set<string>, other: Set<string>) =>
    [...words].filter(w => other.has(w)).length / Math.max(words.size, other.size, 1)
  if (removed.length * added.length <= MAX_RANKED_PAIRS) {
    const candidates: Array<[score: number, k: number, j: number]> = []
    removed.forEach((line, k) => {
      const words = wordsOf(line)
      addedWords.forEach((other, j) => {
        const s = likeness(words, other)
        if (s >= 1 / 3) candidates.push([s, k, j])
      })
    })
    // Most alike first; among equals, in the block's order, a removed line to the last of its equals.
    candidates.sort((x, y) => y[0] - x[0] || x[1] - y[1] || y[2] - x[2])
    for (const [, k, j] of candidates) {
      if (pairs.has(k) || taken.has(j)) continue
      pairs.set(k, j)
      taken.add(j)
    }
    return pairs
  }
  removed.forEach((line, k) => {
    const words = wordsOf(line)
    let best = -1
    let score = 1 / 3
    addedWords.forEach((other, j) => {
      if (taken.has(j)) return
      const s = likeness(words, other)
      if (s >= score) [best, score] = [j, s]
    })
    if (best >= 0) {
      pairs.set(k, best)
      taken.add(best)
    }
  })
  return pairs
}
/** Beyond this many pairs of lines to weigh, a block is paired in its order (its scores would not be kept). */
const MAX_RANKED_PAIRS = 250_000

/**
 * The hunk with only the changes `keep` says: a change left out is dropped (a deletion)
 * or read as unchanged (an addition: it is on the new page). Undefined when none is kept.
 */
export function reshape (hunk: DiffHunk, keep: (index: number) => boolean): DiffHunk | undefined {
  const lines: DiffHunk['lines'] = []
  hunk.lines.forEach((l, i) => {
    if (l.type === 'context' || keep(i)) lines.push(l)
    else if (l.type === 'addition') lines.push({ type: 'context', content: l.content })
  })
  if (!lines.some(l => l.type !== 'context')) return undefined
  return {
    oldStart: hunk.oldStart,
    oldLines: lines.filter(l => l.type !== 'addition').length,
    newStart: hunk.newStart,
    newLines: lines.filter(l => l.type !== 'deletion').length,
    lines
  }
}

/**
 * The hunks without the lines that only moved: a line removed in one place and added,
 * word for word, in another (a section or a card moved up the page) is no edit.
 */
export function withoutMoves (hunks: readonly DiffHunk[]): DiffHunk[] {
  const added = new Map<string, number>()
  for (const h of hunks) {
    for (const l of h.lines) if (l.type === 'addition') added.set(l.content, (added.get(l.content) ?? 0) + 1)
  }
  const pairs = new Map<string, number>()
  for (const h of hunks) {
    for (const l of h.lines) {
      if (l.type !== 'deletion' || (added.get(l.content) ?? 0) === 0) continue
      added.set(l.content, added.get(l.content)! - 1)
      pairs.set(l.content, (pairs.get(l.content) ?? 0) + 1)
    }
  }
  if (pairs.size === 0) return [...hunks]
  const left = { deletion: new Map(pairs), addition: new Map(pairs) }
  const out: DiffHunk[] = []
  for (const h of hunks) {
    const moved = new Set<number>()
    h.lines.forEach((l, i) => {
      if (l.type === 'context') return
      const n = left[l.type].get(l.content) ?? 0
      if (n === 0) return
      left[l.type].set(l.content, n - 1)
      moved.add(i)
    })
    const kept = moved.size === 0 ? h : reshape(h, i => !moved.has(i))
    if (kept) out.push(kept)
  }
  return out
}
