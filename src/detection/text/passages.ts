import type { DiffHunk, Passage } from '../../vocabulary/core.js'
import { isHeading } from '../../vocabulary/lines.js'
import { opensSection, sectionApart, withoutTrivial } from './blocks.js'
import { splitHunk } from './hunks.js'
import { editKinds, trivialPhrase } from './edit-kinds.js'
import type { Language } from '../words/lexicon.js'
import { cut, plain } from './quote.js'

// A change's passages as a person reads them on its page: each block of changed lines,
// what kind of edit it is, whether it is a section added or removed whole, the heading
// above it and its headline. Worked out once, when the change is found (detect.ts), and
// recorded with it (`diffData.passages`): the change's page reads what was recorded.

/** The blocks of some hunks, in page order: the passages' own lines. */
export const blocksOf = (hunks: readonly DiffHunk[]): DiffHunk[] =>
  hunks.flatMap(h => splitHunk(h)).sort((a, b) => a.newStart - b.newStart)

/**
 * The passages of some hunks, one per block (see blocksOf); `after`: the new page's lines, for
 * the heading above; `titled`: a legal text's, whose sections may be titled by a paragraph (see opensSection).
 */
export function passagesOf (
  hunks: readonly DiffHunk[], after: readonly string[] | undefined, language?: Language, titled = false
): Passage[] {
  return blocksOf(hunks).map(hunk => {
    const removed = hunk.lines.filter(l => l.type === 'deletion').map(l => l.content)
    const added = hunk.lines.filter(l => l.type === 'addition').map(l => l.content)
    const kinds = editKinds(removed, added, language, titled)
    // A whole section, once its renumbered neighbours and an edit just above it are set aside.
    const rest = kinds.kind === 'substantive' ? withoutTrivial(removed, added, kinds) : { removed, added }
    const whole = (lines: string[], others: string[]) =>
      others.length === 0 && lines.length > 1 && lines.some((_, i) => opensSection(lines, i, titled))
    const apart = sectionApart(rest.removed, rest.added, titled)?.section
    const section = whole(rest.added, rest.removed)
      ? 'added' as const
      : whole(rest.removed, rest.added) ? 'removed' as const : apart?.side
    const sectionLines = section === undefined ? [] : apart?.lines ?? (section === 'added' ? rest.added : rest.removed)
    const first = added.find(l => !isHeading(l)) ?? added[0] ?? removed[0] ?? ''
    const heading = sectionLines.find((_, i) => opensSection(sectionLines, i, titled))
    // The heading above its first changed line (a block starts with up to two unchanged lines).
    const leading = hunk.lines.findIndex(l => l.type !== 'context')
    const under = after ? headingAbove(after, hunk.newStart - 2 + leading) : undefined
    const headline = section
      ? `${plain(heading!)}: ${section === 'added' ? 'new section' : 'section removed'}`
      : kinds.kind === 'substantive'
        ? `${under ? `${under}: ` : ''}${cut(plain(first), 80)}`
        : `${under ? `${under}: ` : ''}${trivialPhrase(kinds.counts, kinds.updatedOn).join(', ')}`
    return {
      kind: kinds.kind,
      counts: kinds.counts as Record<string, number>,
      ...(kinds.updatedOn ? { updatedOn: kinds.updatedOn } : {}),
      ...(section ? { section } : {}),
      ...(under ? { under } : {}),
      headline
    }
  })
}

/** The text above a line of the new page: its nearest heading. */
function headingAbove (lines: readonly string[], index: number): string | undefined {
  for (let i = Math.min(index, lines.length - 1); i >= 0; i--) if (isHeading(lines[i])) return plain(lines[i])
  return undefined
}
