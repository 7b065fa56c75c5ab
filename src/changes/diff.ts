import { structuredPatch } from 'diff'
import type { DiffData, DiffHunk } from '../domain/vocabulary.js'

const MAX_SIDE = 8_000

/**
 * jsdiff's structuredPatch over the noise-masked lines (so noise is never a
 * difference), with each line then shown as it really reads on the page.
 */
export function buildDiff (
  before: { lines: string[], comparable: string[] },
  after: { lines: string[], comparable: string[] },
  context = 2
): DiffData {
  const patch = structuredPatch(
    'before',
    'after',
    before.comparable.join('\n') + '\n',
    after.comparable.join('\n') + '\n',
    '',
    '',
    { context }
  )
  const beforeText = before.lines
  const afterText = after.lines
  let additions = 0
  let deletions = 0
  let changes = 0
  const removed: string[] = []
  const added: string[] = []
  const hunks: DiffHunk[] = patch.hunks.map(h => {
    let o = h.oldStart - 1
    let n = h.newStart - 1
    const lines = h.lines
      .filter(l => l[0] === ' ' || l[0] === '-' || l[0] === '+')
      .map(l => {
        if (l[0] === '-') {
          deletions++
          const content = beforeText[o++] ?? l.slice(1)
          removed.push(content)
          return { type: 'deletion' as const, content }
        }
        if (l[0] === '+') {
          additions++
          const content = afterText[n++] ?? l.slice(1)
          added.push(content)
          return { type: 'addition' as const, content }
        }
        o++
        return { type: 'context' as const, content: afterText[n++] ?? l.slice(1) }
      })
    changes += Math.min(
      lines.filter(l => l.type === 'addition').length,
      lines.filter(l => l.type === 'deletion').length
    )
    return { oldStart: h.oldStart, oldLines: h.oldLines, newStart: h.newStart, newLines: h.newLines, lines }
  })
  return {
    before: bounded(removed.join('\n')),
    after: bounded(added.join('\n')),
    stats: { additions, deletions, changes },
    hunks
  }
}

function bounded (s: string): string {
  return s.length > MAX_SIDE ? `${s.slice(0, MAX_SIDE)}…` : s
}
