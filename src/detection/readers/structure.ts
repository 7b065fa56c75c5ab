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

/** The text of `node` as a value reads it: without struck text (a price struck through is no longer the price). */
export const currentText = (node: AnyNode): string => textOf(node, SKIP | STRUCK)

function textOf (node: AnyNode, leave: number): string {
  const out: string[] = []
  const walk = (n: AnyNode) => {
    if (n.type === 'text') out.push(n.data)
    else if (n.type === 'tag' || n.type === 'script' || n.type === 'style') {
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

/** A structured reader's own change: its type, weight and words, and its part of `diffData`. */
export interface StructuredChange extends Omit<DetectedChange, 'diffData'> {
  diffData: Partial<DiffData>
}

/** What a structured reader makes of two versions of a page. */
export interface StructuredReading {
  /** What moved in the structure, as changes a person reads. */
  changes: StructuredChange[]
  /**
   * Whether a changed line of the text (a removed one: `before`; an added one: `after`) is
   * explained by those moves or by a noise the reader recognises by name; `counterpart`,
   * the line it replaced in its block, if any.
   */
  explains: (line: string, side: 'before' | 'after', counterpart?: string) => boolean
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
  diff: DiffData, reading: StructuredReading | undefined, classify: (diff: DiffData) => DetectedChange[]
): DetectedChange[] {
  if (!reading) return classify(diff)
  const taken: DiffHunk[] = []
  const rest: DiffHunk[] = []
  for (const hunk of diff.hunks) {
    const explained = explainedLines(hunk, reading.explains)
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
function explainedLines (hunk: DiffHunk, explains: StructuredReading['explains']): Set<number> {
  const out = new Set<number>()
  const lines = hunk.lines
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
      const counterpart = other === undefined ? undefined : lines[added[other]].content
      if (explains(lines[j].content, 'before', counterpart)) out.add(j)
    })
    const back = new Map([...pairs].map(([k, v]) => [v, k]))
    added.forEach((j, k) => {
      const other = back.get(k)
      const counterpart = other === undefined ? undefined : lines[removed[other]].content
      if (explains(lines[j].content, 'after', counterpart)) out.add(j)
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
