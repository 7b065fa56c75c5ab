import type { DiffHunk } from '../../vocabulary/core.js'
import { fold } from '../words/lexicon.js'

// A diff's hunks as the readers and the classifier cut them: into blocks, without the lines
// that only moved, with only some changes kept, and a block's removed lines paired with
// the added lines they became.

/** A line of text as compared with a reading's blocks: no accents, case or extra spaces. */
export const lineKey = (line: string) => fold(line).toLowerCase().replace(/\s+/g, ' ').trim()

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

/**
 * Splits a hunk into its blocks (runs of deletions and additions between unchanged
 * lines), each with up to `context` unchanged lines around it and its own line numbers,
 * so two prices a few lines apart are read each on its own.
 */
export function splitHunk (hunk: DiffHunk, context = 2): DiffHunk[] {
  return hunkBlocks(hunk, context).map(b => b.hunk)
}

/** The blocks of a hunk (see splitHunk), each with the index of its first line in the hunk. */
export function hunkBlocks (hunk: DiffHunk, context = 2): Array<{ hunk: DiffHunk, at: number }> {
  const numbered = []
  let o = hunk.oldStart
  let n = hunk.newStart
  for (const line of hunk.lines) {
    numbered.push({ line, old: o, new: n })
    if (line.type !== 'addition') o++
    if (line.type !== 'deletion') n++
  }
  const blocks: Array<{ hunk: DiffHunk, at: number }> = []
  let i = 0
  while (i < numbered.length) {
    if (numbered[i].line.type === 'context') {
      i++
      continue
    }
    let end = i
    while (end < numbered.length && numbered[end].line.type !== 'context') end++
    let from = i
    while (from > 0 && i - from < context && numbered[from - 1].line.type === 'context') from--
    let to = end
    while (to < numbered.length && to < end + context && numbered[to].line.type === 'context') to++
    const slice = numbered.slice(from, to)
    blocks.push({
      hunk: {
        oldStart: slice[0].old,
        oldLines: slice.filter(x => x.line.type !== 'addition').length,
        newStart: slice[0].new,
        newLines: slice.filter(x => x.line.type !== 'deletion').length,
        lines: slice.map(x => x.line)
      },
      at: from
    })
    i = end
  }
  return blocks
}
