import type { RulesProblem } from '../detection/detect.js'
import type { JobQueue } from '../queue/queue.js'
import type { Db } from '../store/db.js'
import type { NoiseRules } from '../vocabulary/core.js'

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
