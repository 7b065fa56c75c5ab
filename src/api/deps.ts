import type { Config } from '../config.js'
import type { Metrics } from '../metrics/metrics.js'
import type { JobQueue } from '../queue/queue.js'
import type { PageReadings, RuleChecker } from '../services/context.js'
import type { Db } from '../store/db.js'
import type { DataVersions } from '../store/data-versions.js'

/** What route plugins are given. */
export interface ApiDeps {
  db: Db
  queue: JobQueue
  config: Config
  /** Resolves when the database and the queue's connection answer (/readyz). */
  ping: () => Promise<void>
  metrics: Metrics
  /** Signs and checks the keyless image links of webhook and Slack payloads. */
  linkSecret: string
  /** Checks noise rules on the analysis threads. */
  ruleChecks: RuleChecker
  /** A page's outline and rules tried, on the analysis threads. */
  readings: PageReadings
  /** Each organisation's data version, which the API's ETags are (api/validators.ts). */
  versions: DataVersions
}
