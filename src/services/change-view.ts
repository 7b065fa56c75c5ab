import { diffArrays } from 'diff'
import { type EditKind, trivialPhrase } from '../detection/detect.js'
import type { Language } from '../detection/words/lexicon.js'
import { blocksOf, passagesOf } from '../detection/detect.js'
import { plain } from '../detection/detect.js'
import { pairUp } from '../detection/detect.js'
import type { DiffHunk, Passage } from '../vocabulary/core.js'
import type { Db } from '../store/db.js'
import { snapshotTextOrNone } from '../store/page-versions.js'
import { headingLevel, isItem } from '../vocabulary/lines.js'

// A change as a person reads all of it: every passage in page order, the unchanged text
// between passages folded (its lines at hand to unfold), a list of the edits at the top
// with the most telling first and trivial ones grouped by kind, each changed line marked
// word by word. A very large change is read in pages of passages.

/** A line as the page shows it: a heading, a list item, a table row or text; with its words marked when it changed. */
export interface ViewLine {
  type: 'context' | 'removed' | 'added' | 'changed'
  /** Heading level (1–6), when the line is one. */
  heading?: number
  item?: boolean
  /** The line's words: unchanged, or removed / added (a changed line's both sides, inline). */
  words: Array<{ value: string, change?: 'removed' | 'added' }>
}

export interface ViewPassage {
  /** Its number in the page's order, for links (#edit-n). */
  n: number
  kind: EditKind
  /** A section added or removed whole. */
  section?: 'added' | 'removed'
  /** The heading above it, on the page as it now reads. */
  under?: string
  /** What the list of edits calls it. */
  headline: string
  /** The unchanged lines between the previous passage (or the top) and this one, folded. */
  gap: ViewLine[]
  lines: ViewLine[]
}

export interface ChangeView {
  passages: ViewPassage[]
  /** Every passage of the change, for the list of edits (the page shows some of them). */
  all: Array<Pick<ViewPassage, 'n' | 'kind' | 'section' | 'headline'>>
  /** The unchanged lines after the last passage shown. */
  tail: ViewLine[]
  page: number
  pageSize: number
  total: number
  /** Trivial edits by kind, as the summary names them ("16 renumbered references"). */
  trivial: Array<{ kind: EditKind, phrase: string, passages: number[] }>
}

export const PASSAGES_PER_PAGE = 60

function viewLine (type: ViewLine['type'], line: string, words?: ViewLine['words']): ViewLine {
  const heading = headingLevel(line)
  return {
    type,
    ...(heading ? { heading } : {}),
    ...(isItem(line) ? { item: true } : {}),
    words: words ?? [{ value: plain(line), ...(type === 'removed' || type === 'added' ? { change: type } : {}) }]
  }
}

/**
 * A changed line and the line it became, as one line whose words are marked: whole words
 * as written between spaces ("$49/month" → "$59/month", never "$4959/month"), a space
 * between what went and what came.
 */
function changedLine (removed: string, added: string): ViewLine {
  const tokens = (s: string) => plain(s).split(/(\s+)/).filter(Boolean)
  const words: ViewLine['words'] = []
  for (const p of diffArrays(tokens(removed), tokens(added))) {
    const change = p.removed ? 'removed' as const : p.added ? 'added' as const : undefined
    const last = words.at(-1)
    if (change === 'added' && last?.change === 'removed') words.push({ value: ' ' })
    words.push({ value: p.value.join(''), ...(change ? { change } : {}) })
  }
  return viewLine('changed', added, words)
}

/** A block's lines: its removed lines paired with what they became, in page order. */
function blockLines (hunk: DiffHunk): ViewLine[] {
  const out: ViewLine[] = []
  const lines = hunk.lines
  for (let i = 0; i < lines.length;) {
    if (lines[i].type === 'context') {
      out.push(viewLine('context', lines[i].content))
      i++
      continue
    }
    let end = i
    while (end < lines.length && lines[end].type !== 'context') end++
    const removed = lines.slice(i, end).filter(l => l.type === 'deletion').map(l => l.content)
    const added = lines.slice(i, end).filter(l => l.type === 'addition').map(l => l.content)
    const pairs = pairUp(removed, added)
    const became = new Map([...pairs].map(([r, a]) => [a, r]))
    for (const [r, line] of removed.entries()) if (!pairs.has(r)) out.push(viewLine('removed', line))
    for (const [a, line] of added.entries()) {
      const r = became.get(a)
      out.push(r === undefined ? viewLine('added', line) : changedLine(removed[r], line))
    }
    i = end
  }
  return out
}

/**
 * The change's passages (its hunks' blocks) with the unchanged text between them, from its
 * snapshots' texts when they are still kept (retention may have deleted the earlier one:
 * then only the passages and their context are shown).
 */
export async function changeView (
  db: Db,
  change: { snapshotAfterId: string | null, diffData: { hunks: DiffHunk[], passages?: Passage[] } },
  page: number,
  language?: Language
): Promise<ChangeView> {
  const after = change.snapshotAfterId ? (await snapshotTextOrNone(db, change.snapshotAfterId))?.split('\n') : undefined
  return passagesView(change.diffData.hunks, after, page, language, change.diffData.passages)
}

/** The passages of some hunks, with the unchanged lines of the new text (`after`, when known) between them. */
export function passagesView (
  hunks: readonly DiffHunk[], after: readonly string[] | undefined, page: number, language?: Language,
  recorded?: readonly Passage[]
): ChangeView {
  const blocks = blocksOf(hunks)
  // What was recorded with the change; a change found before passages were recorded is read now.
  const read = recorded?.length === blocks.length ? recorded : passagesOf(hunks, after, language)
  const described = blocks.map((hunk, i) => ({ n: i + 1, hunk, ...read[i] }))
  const pageSize = PASSAGES_PER_PAGE
  const shown = described.slice((page - 1) * pageSize, page * pageSize)
  // The unchanged lines of the new page between two passages (numbered from 1, as hunks are).
  const between = (from: number, to: number) =>
    after && to > from ? after.slice(from - 1, to - 1).map(l => viewLine('context', l)) : []
  const passages: ViewPassage[] = shown.map((p, i) => {
    const previous = i > 0 ? shown[i - 1].hunk : (p.n > 1 ? described[p.n - 2].hunk : undefined)
    const gapFrom = previous ? previous.newStart + previous.newLines : 1
    return {
      n: p.n,
      kind: p.kind,
      ...(p.section ? { section: p.section } : {}),
      ...(p.under ? { under: p.under } : {}),
      headline: p.headline,
      gap: between(gapFrom, p.hunk.newStart),
      lines: blockLines(p.hunk)
    }
  })
  const last = shown.at(-1)?.hunk
  const tail = last && after && page * pageSize >= described.length
    ? between(last.newStart + last.newLines, after.length + 1)
    : []
  // Trivial edits by kind, for the list: "16 renumbered references" → passages 9, 10, …
  const byKind = new Map<EditKind, { count: number, passages: number[], updatedOn?: string }>()
  for (const p of described) {
    // A passage of substance may hold trivial edits too (a heading renumbered below an edited clause).
    for (const [kind, count] of Object.entries(p.counts) as Array<[EditKind, number]>) {
      if (kind === 'substantive') continue
      const entry = byKind.get(kind) ?? { count: 0, passages: [] }
      entry.count += count
      entry.passages.push(p.n)
      if (kind === 'last_updated') entry.updatedOn ??= p.updatedOn
      byKind.set(kind, entry)
    }
  }
  return {
    passages,
    all: [
      // The most telling first: sections added or removed, then the other edits of substance in page order.
      ...described.filter(p => p.kind === 'substantive' && p.section),
      ...described.filter(p => p.kind === 'substantive' && !p.section)
    ].map(p => ({ n: p.n, kind: p.kind, ...(p.section ? { section: p.section } : {}), headline: p.headline })),
    tail,
    page,
    pageSize,
    total: described.length,
    trivial: [...byKind].map(([kind, e]) => ({
      kind, phrase: trivialPhrase({ [kind]: e.count }, e.updatedOn).join(', '), passages: e.passages
    }))
  }
}
