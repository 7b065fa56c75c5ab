import type { ChangedLines, OutlineEntry, RulesProblem, RulesTried } from '../detection/detect.js'
import type { JobQueue } from '../queue/queue.js'
import type { Db } from '../store/db.js'
import type { NoiseRules, PageType } from '../vocabulary/core.js'
import type { StoredBytes } from '../vocabulary/research.js'
import type { OutlineBlock, PictureBoxes } from '../vocabulary/outline.js'

/** What a use case works with: the database, and the queue its jobs go to in the same transaction. */
export interface ServiceContext {
  db: Db
  queue: JobQueue
}

/**
 * Checks an organisation's noise rules off the event loop: compiling and pricing a
 * tenant's patterns takes seconds at worst, which no request may spend on the thread
 * that answers everyone (the service gives its analysis threads: see service.ts).
 */
export type RuleChecker = (orgId: string, rules: NoiseRules) => Promise<RulesProblem[]>

/** A use case that may set noise rules checks them with `ruleChecks`. */
export interface RuleContext extends ServiceContext {
  ruleChecks: RuleChecker
}

/**
 * What a person's view of a page asks of the analysis threads, in the organisation's turn:
 * its outline read from its versions (parsing each takes a while), and proposed rules tried
 * on its versions. The service gives them (see service.ts); no request parses on the event loop.
 */
export interface PageReadings {
  outline: (orgId: string, task: {
    versions: StoredBytes[]
    picture?: { page: StoredBytes, boxes: PictureBoxes }
    changes?: Array<ChangedLines | undefined>
  }) => Promise<{
    blocks: OutlineEntry[]
    truncated: boolean
    moves: number[][]
    reported: number[][]
    boxes: Array<OutlineBlock['box']>
  }>
  tryRules: (orgId: string, task: {
    latest: StoredBytes
    changes: Array<{ before: StoredBytes, after: StoredBytes }>
    pageType: PageType
    proposed: NoiseRules
    current?: NoiseRules
  }) => Promise<RulesTried>
}

/** A use case that reads a page for a person: its outline, its rules tried. */
export interface ReadingContext extends RuleContext {
  readings: PageReadings
}
