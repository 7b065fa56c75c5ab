import { structuredPatch } from 'diff'
import type { DiffData, DiffHunk } from '../../vocabulary/core.js'

/** The most of a change's `before` and `after` kept (every changed line stays in its hunks). */
export const MAX_PASSAGE_SIDE = 2_000
/**
 * Beyond this many lines removed and added, a comparison is a rewrite: Myers' diff costs
 * (lines × edits), and a page whose 20,000 lines all change took 82 s. It gives up (in
 * about a second at worst) and the unchanged lines at both ends are kept, the rest is one
 * block removed and one added.
 */
const MAX_EDITS = 4_000

/**
 * jsdiff's structuredPatch over the noise-masked lines (so noise is never a
 * difference), with each line then shown as it really reads on the page.
 */
export function buildDiff (
  before: { lines: string[], comparable: string[] },
  after: { lines: string[], comparable: string[] },
  context = 2
): DiffData {
  const [a, b] = [before.comparable.join('\n') + '\n', after.comparable.join('\n') + '\n']
  const patch = structuredPatch('before', 'after', a, b, '', '', { context, maxEditLength: MAX_EDITS }) ??
    rewrite(before.comparable, after.comparable, context)
  const beforeText = before.lines
  const afterText = after.lines
  const hunks: DiffHunk[] = patch.hunks.map(h => {
    let o = h.oldStart - 1
    let n = h.newStart - 1
    const lines = h.lines
      .filter(l => l[0] === ' ' || l[0] === '-' || l[0] === '+')
      .map(l => {
        if (l[0] === '-') return { type: 'deletion' as const, content: beforeText[o++] ?? l.slice(1) }
        if (l[0] === '+') return { type: 'addition' as const, content: afterText[n++] ?? l.slice(1) }
        o++
        return { type: 'context' as const, content: afterText[n++] ?? l.slice(1) }
      })
    return { oldStart: h.oldStart, oldLines: h.oldLines, newStart: h.newStart, newLines: h.newLines, lines }
  })
  return diffDataOf(hunks)
}

/**
 * The one way a change's diff is made from its hunks, whatever found them (the text
 * comparison, a reader, several joined into one change). `before` and `after` are its
 * passages as a person reads them: each hunk's changed lines with the unchanged lines
 * around them, on its side of the change, the hunks in page order joined by a line "…",
 * at most MAX_PASSAGE_SIDE characters; `hunks` hold every changed line; `stats` count
 * them (`changes`: lines changed in place, the lesser of a hunk's removed and added).
 */
export function diffDataOf (hunks: readonly DiffHunk[]): DiffData {
  const ordered = [...hunks].sort((a, b) => a.newStart - b.newStart || a.oldStart - b.oldStart)
  const count = (h: DiffHunk, type: 'deletion' | 'addition') => h.lines.filter(l => l.type === type).length
  const side = (keep: 'deletion' | 'addition') => bounded(ordered
    .map(h => h.lines.filter(l => l.type === 'context' || l.type === keep).map(l => l.content).join('\n'))
    .join('\n…\n'))
  return {
    before: side('deletion'),
    after: side('addition'),
    stats: {
      additions: ordered.reduce((n, h) => n + count(h, 'addition'), 0),
      deletions: ordered.reduce((n, h) => n + count(h, 'deletion'), 0),
      changes: ordered.reduce((n, h) => n + Math.min(count(h, 'addition'), count(h, 'deletion')), 0)
    },
    hunks: ordered
  }
}

function bounded (s: string): string {
  return s.length > MAX_PASSAGE_SIDE ? `${s.slice(0, MAX_PASSAGE_SIDE - 1)}…` : s
}

/** A hunk as jsdiff's structuredPatch writes it. */
interface RawHunk { oldStart: number, oldLines: number, newStart: number, newLines: number, lines: string[] }

/** A rewrite as one hunk: the lines both ends share kept (as context, up to `context`), the rest removed and added. */
function rewrite (a: readonly string[], b: readonly string[], context: number): { hunks: RawHunk[] } {
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  const from = Math.max(0, head - context)
  const lead = a.slice(from, head).map(l => ` ${l}`)
  const trail = a.slice(a.length - tail, a.length - tail + Math.min(tail, context)).map(l => ` ${l}`)
  const removed = a.slice(head, a.length - tail).map(l => `-${l}`)
  const added = b.slice(head, b.length - tail).map(l => `+${l}`)
  const lines = [...lead, ...removed, ...added, ...trail]
  const kept = lead.length + trail.length
  return {
    hunks: [{
      oldStart: from + 1,
      oldLines: kept + a.length - tail - head,
      newStart: from + 1,
      newLines: kept + b.length - tail - head,
      lines
    }]
  }
}
