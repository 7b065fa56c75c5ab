import type { AnyNode } from 'domhandler'
import type { DiffData } from '../domain/vocabulary.js'
import type { DetectedChange } from './classify.js'
import { fold } from './lexicon.js'

// What the structured readers (pricing.ts, changelog.ts) share: a DOM element's text as a
// person reads it, and how a reading takes over the text changes that are its own.

/** Elements whose text nobody reads as the page's (and a struck-through old price). */
export const SKIPPED = new Set([
  'script', 'style', 'noscript', 'template', 'nav', 'footer', 'select', 'option', 'button', 'svg', 's', 'del',
  'strike', 'dialog', 'iframe'
])
export const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'div', 'dl', 'dt', 'figcaption', 'figure', 'form',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'ol', 'p', 'section', 'table', 'tbody', 'td',
  'tfoot', 'th', 'thead', 'tr', 'ul'
])

/** The text a person reads in `node`: skipped elements left out, blocks apart, spaces collapsed. */
export function blockText (node: AnyNode): string {
  const out: string[] = []
  const walk = (n: AnyNode) => {
    if (n.type === 'text') out.push(n.data)
    else if (n.type === 'tag' || n.type === 'script' || n.type === 'style') {
      if (SKIPPED.has(n.name)) return
      const block = BLOCKS.has(n.name)
      if (block) out.push(' ')
      for (const c of n.children) walk(c)
      if (block) out.push(' ')
    }
  }
  walk(node)
  return out.join('').replace(/\s+/g, ' ').trim()
}

/** Whether `outer` is `inner` or holds it. */
export function contains (outer: AnyNode, inner: AnyNode): boolean {
  for (let n: AnyNode | null = inner; n; n = n.parent) if (n === outer) return true
  return false
}

/** A line of text as compared with a reading's blocks: no accents, case or extra spaces. */
export const lineKey = (line: string) => fold(line).toLowerCase().replace(/\s+/g, ' ').trim()

/**
 * The text changes a structured reading takes over: those whose every changed line is
 * its own (`ours`). Returns the others, and the taken ones' diff as one, for the
 * reading's own changes to carry.
 */
export function takeOver (
  text: readonly DetectedChange[], ours: (line: string) => boolean
): { kept: DetectedChange[], diff: Pick<DiffData, 'before' | 'after' | 'stats' | 'hunks'> } {
  const covered = (c: DetectedChange) =>
    c.diffData.hunks.every(h => h.lines.every(l => l.type === 'context' || ours(l.content)))
  const taken = text.filter(covered)
  const sum = (key: keyof DiffData['stats']) => taken.reduce((n, c) => n + c.diffData.stats[key], 0)
  return {
    kept: text.filter(c => !covered(c)),
    diff: {
      before: taken.map(c => c.diffData.before).filter(Boolean).join('\n…\n'),
      after: taken.map(c => c.diffData.after).filter(Boolean).join('\n…\n'),
      stats: { additions: sum('additions'), deletions: sum('deletions'), changes: sum('changes') },
      hunks: taken.flatMap(c => c.diffData.hunks)
    }
  }
}
