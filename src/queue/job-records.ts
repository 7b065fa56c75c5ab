import { sql, type Insertable, type RawBuilder, type Selectable } from 'kysely'
import type { JobName, JobState } from '../vocabulary/core.js'
import type { Db } from '../store/db.js'
import { after, pageOf, type Cursor } from '../store/lists.js'
import type { JobsTable } from '../store/schema.js'
import { urlHost } from './crawl-order.js'

// The jobs a client sees (GET /api/jobs), from our `jobs` row alone: its tenant, page and
// progress, and its state as the queue last changed it. The queue's own tables hold the
// truth while a job runs; each change is written here in the same transaction as the
// queue's (recordJobStates, and inline in the crawls' fetch and completion statements),
// and the scheduler's tick catches what no worker saw (an expiry: sweepJobStates). So no
// read joins pg-boss's tables, and a list costs the same at 10 jobs and at 100,000.

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

/** The queues whose jobs have a record here; a page's crawl is `crawl.page` whichever of its two queues runs it. */
export const RECORDED_QUEUES: readonly string[] = ['crawl.page', 'crawl.render', 'discover.pages', 'research.domain']

/**
 * A record's state from its job in the queue (`q`, a row of pgboss.job): created or
 * retry is waiting (delayed while start_after is to come), cancelled counts as failed;
 * a failure's reason is its worker's message or pg-boss's own (an expiry's is under `value`).
 */
const QUEUE_STATE = sql`CASE WHEN q.state IN ('created', 'retry') THEN 'waiting' WHEN q.state = 'active' THEN 'active'
  WHEN q.state = 'completed' THEN 'completed' ELSE 'failed' END`
const QUEUE_ATTEMPTS = sql`CASE WHEN q.state = 'created' THEN 0 ELSE q.retry_count + 1 END`
const STATE_FROM_QUEUE = sql`
  state = ${QUEUE_STATE},
  start_after = q.start_after,
  attempts_made = ${QUEUE_ATTEMPTS},
  max_attempts = q.retry_limit + 1,
  processed_at = q.started_on,
  finished_at = CASE WHEN q.state IN ('completed', 'failed', 'cancelled') THEN q.completed_on END,
  failed_reason = CASE WHEN q.state IN ('failed', 'retry', 'cancelled') AND jsonb_typeof(q.output) = 'object'
    THEN coalesce(q.output->>'message', q.output->'value'->>'message', q.output::text) END,
  return_value = CASE WHEN q.state = 'completed' AND jsonb_typeof(q.output) = 'object' THEN q.output END`

/** Writes the queue's state of jobs `ids` to their records: in the transaction that changed it. */
export async function recordJobStates (tx: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return
  await sql`UPDATE jobs j SET ${STATE_FROM_QUEUE}
    FROM pgboss.job q WHERE q.name = ANY(${RECORDED_QUEUES}::text[]) AND q.id = ANY(${ids}::uuid[]) AND j.id = q.id`
    .execute(tx)
}

/**
 * Brings unfinished records up to date with changes no worker wrote: an attempt that
 * expired (pg-boss's maintenance fails or retries it), a process that died between the
 * queue's change and ours. Returns how many records changed.
 */
export async function sweepJobStates (db: Db): Promise<number> {
  const { numAffectedRows } = await sql`UPDATE jobs j SET ${STATE_FROM_QUEUE}
    FROM pgboss.job q
    WHERE j.state IN ('waiting', 'active') AND q.name = ANY(${RECORDED_QUEUES}::text[]) AND q.id = j.id
      AND (j.state, j.start_after, j.attempts_made) IS DISTINCT FROM (${QUEUE_STATE}, q.start_after, ${QUEUE_ATTEMPTS})`
    .execute(db)
  return Number(numAffectedRows ?? 0)
}

const JOB_TYPES: Record<JobName, JobView['type']> = {
  'crawl.page': 'crawl',
  'discover.pages': 'discover',
  'research.domain': 'research'
}
const NAME_OF_TYPE = Object.fromEntries(Object.entries(JOB_TYPES).map(([name, type]) => [type, name as JobName]))

type JobRow = Omit<Selectable<JobsTable>, 'org_id'>

const LIST_COLUMNS = [
  'id', 'name', 'url', 'domain_id', 'page_id', 'progress', 'created_at', 'state', 'start_after', 'attempts_made',
  'max_attempts', 'processed_at', 'finished_at', 'failed_reason', 'return_value'
] as const

function toView (r: JobRow, now: number): JobView {
  const state: JobState = r.state === 'waiting' && r.start_after.getTime() > now ? 'delayed' : r.state
  return {
    id: r.id,
    name: r.name,
    type: JOB_TYPES[r.name],
    url: r.url,
    domainId: r.domain_id,
    pageId: r.page_id,
    state,
    progress: state === 'completed' ? 100 : r.progress,
    attemptsMade: r.attempts_made,
    maxAttempts: r.max_attempts,
    createdAt: r.created_at,
    processedAt: r.processed_at,
    finishedAt: r.finished_at,
    failedReason: r.failed_reason,
    returnValue: (r.return_value ?? null) as Record<string, unknown> | null
  }
}

/** A job id's shape: anything else is no job, and never reaches the database as a uuid. */
const UUID = /^[0-9a-f-]{36}$/i

/**
 * A page of the organisation's jobs, newest first, walked along an index in its order:
 * after `cursor` (keyset, the same cost at any depth) or skipping `offset`. The total
 * is exact: the counters (job_counts) for a name and a settled state, and for waiting
 * and delayed jobs (the unfinished ones, not the history) a count of those.
 */
export async function listJobs (
  db: Db,
  orgId: string,
  opts: { limit: number, offset: number, cursor?: Cursor, state?: JobState, type?: JobView['type'] }
): Promise<{ jobs: JobView[], total: number, next?: Cursor }> {
  const name = opts.type ? NAME_OF_TYPE[opts.type] : undefined
  const stored = opts.state === 'delayed' ? 'waiting' : opts.state
  const due = opts.state === 'delayed'
    ? sql`start_after > now()`
    : opts.state === 'waiting' ? sql`start_after <= now()` : undefined
  const filters = [
    sql`org_id = ${orgId}`,
    ...(name ? [sql`name = ${name}`] : []),
    ...(stored ? [sql`state = ${stored}`] : []),
    ...(due ? [due] : [])
  ]
  const placed = opts.cursor ? [after('created_at', 'id', opts.cursor)] : []
  // One statement, so one round trip: the total beside the page (a row of nulls when the page is empty).
  const { rows } = await sql<JobRow & { total: number, created_us: string }>`
    SELECT t.total, j.*, (extract(epoch FROM j.created_at) * 1000000)::bigint::text AS created_us
    FROM (SELECT ${totalOf(orgId, name, opts.state, due)} AS total) t
    LEFT JOIN LATERAL (
      SELECT ${sql.join(LIST_COLUMNS.map(c => sql.ref(c)))} FROM jobs
      WHERE ${sql.join([...filters, ...placed], sql` AND `)}
      ORDER BY created_at DESC, id DESC LIMIT ${opts.limit + 1} OFFSET ${opts.cursor ? 0 : opts.offset}
    ) j ON true`.execute(db)
  const { page, next } = pageOf(rows.filter(r => r.id !== null), opts.limit)
  const now = Date.now()
  return { jobs: page.map(r => toView(r, now)), total: rows[0]?.total ?? 0, next }
}

/** How many of the organisation's jobs (of `name`, in `state`) there are, as SQL: see listJobs. */
function totalOf (
  orgId: string, name: JobName | undefined, state: JobState | undefined, due: RawBuilder<unknown> | undefined
) {
  if (due) {
    return sql`(SELECT count(*)::int FROM jobs WHERE org_id = ${orgId} AND state = 'waiting' AND ${due}
      ${name ? sql`AND name = ${name}` : sql``})`
  }
  return sql`(SELECT coalesce(sum(n), 0)::int FROM job_counts WHERE org_id = ${orgId}
    ${name ? sql`AND name = ${name}` : sql``} ${state ? sql`AND state = ${state}` : sql``})`
}

export async function getJob (db: Db, orgId: string, id: string): Promise<JobView | undefined> {
  if (!UUID.test(id)) return undefined
  const row = await db.selectFrom('jobs').select(LIST_COLUMNS)
    .where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst()
  return row ? toView(row, Date.now()) : undefined
}

/** Of the jobs `ids`, those that failed for good, with why (see sweepJobStates for those no worker saw end). */
export async function failedJobs (db: Db, ids: readonly string[]) {
  if (ids.length === 0) return []
  const rows = await db.selectFrom('jobs').select(['id', 'failed_reason'])
    .where('id', 'in', ids).where('state', '=', 'failed').execute()
  return rows.map(r => ({ id: r.id, reason: r.failed_reason ?? 'failed' }))
}

/** The organisation's jobs by state: the counters, and of the waiting ones those still to start (delayed). */
export async function jobStats (db: Db, orgId: string): Promise<Record<JobState | 'total', number>> {
  const { rows } = await sql<{ state: string, n: number }>`
    SELECT state, sum(n)::int AS n FROM job_counts WHERE org_id = ${orgId} GROUP BY state
    UNION ALL
    SELECT 'delayed', count(*)::int FROM jobs WHERE org_id = ${orgId} AND state = 'waiting' AND start_after > now()`
    .execute(db)
  const stats = { waiting: 0, active: 0, completed: 0, failed: 0, delayed: 0, total: 0 }
  for (const r of rows) {
    if (r.state in stats) stats[r.state as JobState] += r.n
    if (r.state !== 'delayed') stats.total += r.n
  }
  stats.waiting -= stats.delayed
  return stats
}

/**
 * The organisation's unfinished crawls by host: waiting (due), delayed (queued for the
 * host's turn or a retry), active; and how long its oldest due job has waited.
 */
export async function jobBacklog (db: Db, orgId: string) {
  const { rows } = await sql<{ host: string, waiting: number, delayed: number, active: number, oldest: number | null }>`
    SELECT ${sql.raw(urlHost('url'))} AS host,
      count(*) FILTER (WHERE state = 'waiting' AND start_after <= now())::int AS waiting,
      count(*) FILTER (WHERE state = 'waiting' AND start_after > now())::int AS delayed,
      count(*) FILTER (WHERE state = 'active')::int AS active,
      max(extract(epoch FROM now() - greatest(start_after, created_at)))
        FILTER (WHERE state = 'waiting' AND start_after <= now())::float8 AS oldest
    FROM jobs
    WHERE org_id = ${orgId} AND state IN ('waiting', 'active') AND name = 'crawl.page'
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
