import type { ChangeType, DiffHunk, Fact, PageType, Severity } from '../../vocabulary/core.js'
import { judge } from '../../vocabulary/facts.js'
import type { EditKinds } from '../text/edit-kinds.js'
import type { Language } from '../words/lexicon.js'

// What the readings (readings.ts, prices.ts) read and say: a block of changed lines, the
// page it is read with, and what it is.

export interface Part {
  hunk: DiffHunk
  /** The whole hunk the block was split from, and where the block starts in it: the headings above it. */
  within?: { hunk: DiffHunk, at: number }
  removed: string[]
  added: string[]
  /** The heading above the block's first changed line, and that heading's line (-1: none). */
  section?: string
  sectionAt: number
  /** The block's changed lines in the new page (0-based, first and last). */
  from: number
  to: number
  /** An added line of the block is written in a price's or plan's markup: its money is a price. */
  priced: boolean
  /**
   * The cells of the first row of the table the block's first changed row stands in, on
   * each side of the diff (the old page's, the new page's): its columns' names, a plan's
   * or a price's kind ("Setup fee", "Total").
   */
  tableHeads: { deletion?: string[], addition?: string[] }
  /** What kinds of edit it holds (see edit-kinds.ts): worked out when first asked. */
  kinds?: EditKinds
}

/** What one block of changed lines is: its facts, their type and weight (see facts.ts), and the words that say it. */
export interface Reading {
  /** The fact that names the block (the weightiest of `facts`). */
  fact: Fact
  /** Every fact the block holds, the lead's included (a row of prices holds one per price). */
  facts: Fact[]
  changeType: ChangeType
  severity: Severity
  confidence: number
  /** What changed, without the page and section it is in (those lead the summary). */
  phrase: string
  passages: number
  /** What the block says after its lead, read apart (a comparison table's mark flipped beside its prices). */
  alsoSaid?: string
  /** A price's own label (its plan, its row), which stands for the section. */
  label?: string
  /** A section or card added or removed: the heading above it is another section's, so none is named. */
  standsAlone?: boolean
  /** Only trivial edits (renumbering, typography, spelling, a date of last update): how many of each. */
  trivial?: EditKinds
  /** Trivial edits beside the substantive ones it was read from (lines renumbered around a new section). */
  trivialAlso?: Pick<EditKinds, 'counts' | 'updatedOn'>
}

/** What a block of changed lines is read with: its page's type and language. */
export interface Context {
  pageType: PageType
  language?: Language
  /** The languages whose words count: the page's own and English. */
  own: readonly Language[]
  legalPage: boolean
  /** The facts the page's `ignoreFacts` leaves out (see factMuter). */
  muted?: (f: Fact) => boolean
}

/** A reading's type and weight: its fact's, by the one table (facts.ts). */
export const judged = (fact: Fact, ctx: Context) => ({ fact, facts: [fact], ...judge(fact, ctx.pageType) })
