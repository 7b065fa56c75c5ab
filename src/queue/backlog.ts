import { sql } from 'kysely'
import type { Db } from '../store/db.js'
import { QUEUE } from './queues.js'

/** What the one queue holds, read across tenants for /metrics. */
export class Backlog {
  constructor (private readonly db: Db) {}

  /** Jobs not yet finished, by queue and state: waiting (due), delayed (a later start or a retry's backoff), active. */
  async depth (): Promise<Array<{ queue: string, state: 'waiting' | 'delayed' | 'active', jobs: number }>> {
    const { rows } = await sql<{ queue: string, state: 'waiting' | 'delayed' | 'active', jobs: number }>`
      SELECT lane AS queue,
        CASE WHEN state = 'active' THEN 'active' WHEN start_after > now() THEN 'delayed' ELSE 'waiting' END AS state,
        count(*)::int AS jobs
      FROM jobs WHERE state IN ('waiting', 'active') GROUP BY 1, 2`.execute(this.db)
    return rows
  }

  /** Across tenants, for /metrics: unfinished crawls by host, the 20 hosts with most. */
  async hosts () {
    const { rows } = await sql<{ host: string, jobs: number }>`
      SELECT host, count(*)::int AS jobs
      FROM jobs WHERE state IN ('waiting', 'active') AND name = ${QUEUE.crawl}
      GROUP BY 1 ORDER BY 2 DESC LIMIT 20`.execute(this.db)
    return rows
  }

  /** Across tenants, for /metrics: the longest wait of a due crawl by organisation, the 20 longest. */
  async tenantWaits () {
    const { rows } = await sql<{ org: string, seconds: number }>`
      SELECT org_id::text AS org, max(extract(epoch FROM now() - start_after))::float8 AS seconds
      FROM jobs
      WHERE state = 'waiting' AND name = ${QUEUE.crawl} AND start_after <= now()
      GROUP BY 1 ORDER BY 2 DESC LIMIT 20`.execute(this.db)
    return rows
  }
}
