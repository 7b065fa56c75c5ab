import type { AnyNode } from 'domhandler'
import type { DetectedChange, DiffData, DiffHunk } from '../../vocabulary/core.js'
import { diffDataOf } from '../text/diff.js'
import { isLeftOut } from '../text/extract.js'
import { pairUp, reshape } from '../text/hunks.js'
import { BLOCK, CELL, tagOf } from '../text/tags.js'

// What the structured readers (pricing/, changelog/) share: where their elements stand in
// the HTML, and how a reading takes over the text changes that are its own (the text of an
// element is text/node-text.ts's; a diff's hunks, text/hunks.ts's).

/** Whether `outer` is `inner` or holds it. */
export function contains (outer: AnyNode, inner: AnyNode): boolean {
  for (let n: AnyNode | null = inner; n; n = n.parent) if (n === outer) return true
  return false
}

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
        if ((tag & (BLOCK | CELL)) !== 0 || isLeftOut(tag, c.attribs)) {
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
