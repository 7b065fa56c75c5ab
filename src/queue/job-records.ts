import { sql, type Insertable } from 'kysely'
import type { JobName, JobState } from '../vocabulary/core.js'
import type { Db } from '../store/db.js'
import type { JobsTable } from '../store/schema.js'

// The jobs a client sees (GET /api/jobs): our `jobs` row (tenant, page, progress) over
// pg-boss's own record of the job, whichever of its tables holds it now. A page's crawl
// is `crawl.page` to the client whether it runs on that queue or on `crawl.render`.

export interface JobView {
  id: string
  name: JobName
  type: 'crawl' | 'discover' | 'research'
  url: string | null
  domainId: string
  pageId: string | null
  state: JobState
  progress: number
  attemptsMade: number
  maxAttempts: number
  createdAt: Date
  processedAt: Date | null
  finishedAt: Date | null
  failedReason: string | null
  returnValue: Record<string, unknown> | null
}

// The contract's job states over pg-boss's: created/retry are waiting once due and
// delayed before; cancelled counts as failed. A job lives in pgboss.job, then in
// pgboss.archive; our `jobs` row holds the tenant and the progress.
const jobsView = sql`
  SELECT j.id::text AS id, j.org_id, j.name, j.url, j.domain_id, j.page_id, j.progress, j.created_at,
    CASE
      WHEN q.state IN ('created', 'retry') AND q.start_after > now() THEN 'delayed'
      WHEN q.state IN ('created', 'retry') THEN 'waiting'
      WHEN q.state = 'cancelled' THEN 'failed'
      ELSE q.state::text
    END AS state,
    CASE WHEN q.state = 'created' THEN 0 ELSE q.retry_count + 1 END AS attempts_made,
    q.retry_limit + 1 AS max_attempts,
    q.started_on, q.completed_on, q.output, q.state::text AS raw_state
  FROM jobs j
  JOIN LATERAL (
    SELECT state, retry_count, retry_limit, start_after, started_on, completed_on, output
    FROM pgboss.job WHERE id = j.id AND (name = j.name OR (j.name = 'crawl.page' AND name = 'crawl.render'))
    UNION ALL
    SELECT state, retry_count, retry_limit, start_after, started_on, completed_on, output
    FROM pgboss.archive WHERE id = j.id AND (name = j.name OR (j.name = 'crawl.page' AND name = 'crawl.render'))
    LIMIT 1
  ) q ON true`

const JOB_TYPES: Record<JobName, JobView['type']> = {
  'crawl.page': 'crawl',
  'discover.pages': 'discover',
  'research.domain': 'research'
}

interface JobRow {
  id: string
  name: JobName
  url: string | null
  domain_id: string
  page_id: string | null
  progress: number
  created_at: Date
  state: JobState
  attempts_made: number
  max_attempts: number
  started_on: Date | null
  completed_on: Date | null
  output: any
  raw_state: string
}

/** Why pg-boss says a job failed: its worker's message, or pg-boss's own (an expiry's is under `value`). */
const failureReason = (output: any) => String(output.message ?? output.value?.message ?? JSON.stringify(output))

function toView (r: JobRow): JobView {
  const failed = r.state === 'failed' || r.raw_state === 'retry'
  const output = r.output && typeof r.output === 'object' ? r.output : null
  const reason = failed && output ? failureReason(output) : null
  return {
    id: r.id,
    name: r.name,
    type: JOB_TYPES[r.name],
    url: r.url,
    domainId: r.domain_id,
    pageId: r.page_id,
    state: r.state,
    progress: r.state === 'completed' ? 100 : r.progress,
    attemptsMade: Number(r.attempts_made),
    maxAttempts: Number(r.max_attempts),
    createdAt: r.created_at,
    processedAt: r.started_on,
    finishedAt: r.state === 'completed' || r.state === 'failed' ? r.completed_on : null,
    failedReason: reason,
    returnValue: r.state === 'completed' && output ? output : null
  }
}

export async function listJobs (
  db: Db,
  orgId: string,
  opts: { limit: number, offset: number, state?: JobState, type?: JobView['type'] }
): Promise<{ jobs: JobView[], total: number }> {
  const stateFilter = opts.state ? sql`AND state = ${opts.state}` : sql``
  const name = opts.type && (Object.keys(JOB_TYPES) as JobName[]).find(n => JOB_TYPES[n] === opts.type)
  const nameFilter = name ? sql`AND j.name = ${name}` : sql``
  const rows = await sql<JobRow & { total: number }>`
    SELECT v.*, count(*) OVER ()::int AS total FROM (${jobsView} WHERE j.org_id = ${orgId} ${nameFilter}) v
    WHERE true ${stateFilter}
    ORDER BY created_at DESC, id DESC LIMIT ${opts.limit} OFFSET ${opts.offset}`.execute(db)
  return { jobs: rows.rows.map(toView), total: rows.rows[0]?.total ?? 0 }
}

export async function getJob (db: Db, orgId: string, id: string): Promise<JobView | undefined> {
  const rows = await sql<JobRow>`${jobsView} WHERE j.org_id = ${orgId} AND j.id::text = ${id}`.execute(db)
  return rows.rows[0] ? toView(rows.rows[0]) : undefined
}

/**
 * Of the jobs `ids` of queue `name`, those that failed for good, with why: also those
 * whose last attempt expired or was handed back, which no worker saw end.
 */
export async function failedJobs (db: Db, name: string, ids: readonly string[]) {
  if (ids.length === 0) return []
  const { rows } = await sql<{ id: string, output: any }>`
    SELECT id::text AS id, output FROM pgboss.job WHERE name = ${name} AND state = 'failed' AND id = ANY(${ids}::uuid[])
    UNION ALL
    SELECT id::text, output FROM pgboss.archive WHERE name = ${name} AND state = 'failed' AND id = ANY(${ids}::uuid[])`
    .execute(db)
  return rows.map(r => ({ id: r.id, reason: r.output ? failureReason(r.output) : 'failed' }))
}

export async function jobStats (db: Db, orgId: string): Promise<Record<JobState | 'total', number>> {
  const rows = await sql<{ state: JobState, n: number }>`
    SELECT state, count(*)::int AS n FROM (${jobsView} WHERE j.org_id = ${orgId}) v GROUP BY state`.execute(db)
  const stats = { waiting: 0, active: 0, completed: 0, failed: 0, delayed: 0, total: 0 }
  for (const r of rows.rows) {
    stats[r.state] = r.n
    stats.total += r.n
  }
  return stats
}

/**
 * The organisation's unfinished crawls by host: waiting (due), delayed (queued for the
 * host's turn or a retry), active; and how long its oldest due job has waited.
 */
export async function jobBacklog (db: Db, orgId: string) {
  const { rows } = await sql<{ host: string, waiting: number, delayed: number, active: number, oldest: number | null }>`
    SELECT substring(j.url from '^[a-z]+://([^/?#]+)') AS host,
      count(*) FILTER (WHERE q.state IN ('created', 'retry') AND q.start_after <= now())::int AS waiting,
      count(*) FILTER (WHERE q.state IN ('created', 'retry') AND q.start_after > now())::int AS delayed,
      count(*) FILTER (WHERE q.state = 'active')::int AS active,
      max(extract(epoch FROM now() - greatest(q.start_after, j.created_at)))
        FILTER (WHERE q.state IN ('created', 'retry') AND q.start_after <= now())::float8 AS oldest
    FROM jobs j JOIN pgboss.job q ON q.id = j.id AND q.name IN ('crawl.page', 'crawl.render')
    WHERE j.org_id = ${orgId} AND j.url IS NOT NULL AND q.state < 'completed'
    GROUP BY 1 ORDER BY count(*) DESC LIMIT 20`.execute(db)
  return {
    oldestWaitingSeconds: Math.max(0, ...rows.map(r => r.oldest ?? 0)),
    hosts: rows.map(r => ({ host: r.host, waiting: r.waiting, delayed: r.delayed, active: r.active }))
  }
}

export async function setJobProgress (db: Db, id: string, progress: number): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ progress: Math.max(0, Math.min(100, Math.round(progress))) })
    .where('id', '=', id)
    .execute()
}

/** The tenant records of jobs just sent, in the same transaction. */
export async function insertJobRecords (tx: Db, rows: Array<Insertable<JobsTable>>): Promise<void> {
  await tx.insertInto('jobs').values(rows).execute()
}

/** How long pg-boss keeps a finished job (and so how long GET /api/jobs lists it). */
export const FINISHED_JOB_DAYS = 7

/** Forgets our records of jobs that pg-boss no longer keeps (a day's margin). */
export async function forgetOldJobRecords (db: Db, now = new Date()): Promise<void> {
  const cutoff = new Date(now.getTime() - (FINISHED_JOB_DAYS + 1) * 86_400_000)
  await db.deleteFrom('jobs').where('created_at', '<', cutoff).execute()
}
