import type { ColumnType, Generated } from 'kysely'

// The queue's tables and the fleet's shared crawling state (store/schema.ts has the rest, and the Database).

/** A time a row holds: read as a Date, written as one or as its ISO text. */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>

/** A row's creation time: set by the database, never updated. */
export type CreatedAt = ColumnType<Date, Date | string | undefined, never>

/** Every queue's jobs (see queue/queue.ts); those of a tenant (crawls, discoveries, briefs) are its records too. */
export interface JobsTable {
  id: string
  /** The tenant's, for the jobs clients list; null for the service's own (deliveries, the cron's). */
  org_id: string | null
  domain_id: string | null
  page_id: string | null
  /** What the job is: a tenant's job name (JobName), else its queue's name. */
  name: string
  /** The queue it waits in or runs on (a crawl's: plain or rendered). */
  lane: string
  data: unknown
  url: string | null
  /** The host (and port) of `url`, as host_pace keys it: kept by the database (migration 0030). */
  host: ColumnType<string | null, never, never>
  progress: Generated<number>
  created_at: CreatedAt
  /** The queue's state in the contract's words; "delayed" is a waiting job whose start_after is still to come. */
  state: Generated<'waiting' | 'active' | 'completed' | 'failed'>
  start_after: Generated<Date>
  attempts_made: Generated<number>
  max_attempts: Generated<number>
  processed_at: Date | null
  finished_at: Date | null
  failed_reason: string | null
  return_value: unknown
  /** Its fair rank, negated: the higher, the sooner (a crawl's: see queue/crawl-order.ts). */
  priority: Generated<number>
  /** The worker holding its running attempt (see queue/liveness.ts). */
  owner: string | null
  /** A cron slot's key ("schedule.tick@2026-11-27T03:05:00.000Z"): one job per slot, whatever the processes. */
  singleton: string | null
  /** When a job that failed for good was given up (its handler told): once. */
  gave_up_at: Date | null
}

/** The processes that run jobs, each alive while its heartbeat is recent (see queue/liveness.ts). */
export interface WorkersTable {
  id: string
  host: string
  pid: number
  started_at: CreatedAt
  heartbeat_at: CreatedAt
}

/** robots.txt files as the fleet read them (see crawl/robots.ts). */
export interface RobotsFilesTable {
  origin: string
  body: string
  expires_at: Date
}

/** Jobs by organisation, name and state, kept by the jobs table's triggers. */
export interface JobCountsTable {
  org_id: string
  name: string
  state: string
  n: string
}
