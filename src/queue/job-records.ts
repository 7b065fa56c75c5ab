import { sql, type ExpressionBuilder, type Insertable, type RawBuilder, type Selectable } from 'kysely'
import { UUID, type JobName, type JobState } from '../vocabulary/core.js'
import type { Db } from '../store/db.js'
import { after, pageOf, type Cursor } from '../store/lists.js'
import { jsonRows, rowsFromJson } from '../store/json-rows.js'
import type { Database } from '../store/schema.js'
import type { JobsTable } from '../store/schema-jobs.js'

// The jobs a client sees (GET /api/jobs): a tenant's crawls, discoveries and briefs, each
// its row of the one queue (see queue.ts) with its tenant, page and progress. A list costs
// the same at 10 jobs and at 100,000.

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

/**
 * The id of the domain's discovery that is waiting or running, if one is: after locking the
 * domain's row, so that two requests at once queue one discovery.
 */
export async function pendingDiscovery (tx: Db, domainId: string): Promise<string | undefined> {
  await tx.selectFrom('domains').select('id').where('id', '=', domainId).forUpdate().execute()
  const row = await tx.selectFrom('jobs').select('id')
    .where('domain_id', '=', domainId).where('name', '=', 'discover.pages').where('state', 'in', ['waiting', 'active'])
    .orderBy('created_at').limit(1).executeTakeFirst()
  return row?.id
}

/**
 * How many of the organisation's discoveries wait to start: a new one ranks after them,
 * beside other organisations' first ones (see Queue.enqueueDiscovery).
 */
export async function discoveriesWaiting (tx: Db, orgId: string): Promise<number> {
  const row = await tx.selectFrom('jobs').select(eb => eb.fn.countAll<number>().as('n'))
    .where('org_id', '=', orgId).where('name', '=', 'discover.pages').where('state', '=', 'waiting')
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

const JOB_TYPES: Record<JobName, JobView['type']> = {
  'crawl.page': 'crawl',
  'discover.pages': 'discover',
  'research.domain': 'research'
}
const NAME_OF_TYPE = Object.fromEntries(Object.entries(JOB_TYPES).map(([name, type]) => [type, name as JobName]))

const LIST_COLUMNS = [
  'id', 'name', 'url', 'domain_id', 'page_id', 'progress', 'created_at', 'state', 'start_after', 'attempts_made',
  'max_attempts', 'processed_at', 'finished_at', 'failed_reason', 'return_value'
] as const

type JobRow = Pick<Selectable<JobsTable>, (typeof LIST_COLUMNS)[number]>

function toView (r: JobRow, now: number): JobView {
  const state: JobState = r.state === 'waiting' && r.start_after.getTime() > now ? 'delayed' : r.state
  return {
    id: r.id,
    name: r.name as JobName,
    type: JOB_TYPES[r.name as JobName],
    url: r.url,
    domainId: r.domain_id ?? '',
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

/** Of the jobs `ids`, those that failed for good, with why (see JobQueue.sweep for those no worker saw end). */
export async function failedJobs (db: Db, ids: readonly string[]) {
  if (ids.length === 0) return []
  const rows = await db.selectFrom('jobs').select(['id', 'failed_reason'])
    .where('id', 'in', ids).where('state', '=', 'failed').execute()
  return rows.map(r => ({ id: r.id, reason: r.failed_reason ?? 'failed' }))
}

/**
 * The organisation's jobs by state (the counters, and of the waiting ones those still to
 * start: delayed), and its unfinished crawls by host (waiting and due, delayed for the host's
 * turn or a retry, active) with how long its oldest due job has waited: one statement.
 */
export async function jobStats (db: Db, orgId: string) {
  const counts = sql`
    SELECT state, sum(n)::int AS n FROM job_counts WHERE org_id = ${orgId} GROUP BY state
    UNION ALL
    SELECT 'delayed', count(*)::int FROM jobs WHERE org_id = ${orgId} AND state = 'waiting' AND start_after > now()`
  const byHost = sql`
    SELECT host,
      count(*) FILTER (WHERE state = 'waiting' AND start_after <= now())::int AS waiting,
      count(*) FILTER (WHERE state = 'waiting' AND start_after > now())::int AS delayed,
      count(*) FILTER (WHERE state = 'active')::int AS active,
      max(extract(epoch FROM now() - greatest(start_after, created_at)))
        FILTER (WHERE state = 'waiting' AND start_after <= now())::float8 AS oldest
    FROM jobs
    WHERE org_id = ${orgId} AND state IN ('waiting', 'active') AND name = 'crawl.page'
    GROUP BY 1 ORDER BY count(*) DESC LIMIT 20`
  const row = await db.selectNoFrom([jsonRows(counts).as('counts'), jsonRows(byHost).as('hosts')])
    .executeTakeFirstOrThrow()
  const stats = { waiting: 0, active: 0, completed: 0, failed: 0, delayed: 0, total: 0 }
  for (const r of rowsFromJson<{ state: string, n: number }>(row.counts, [])) {
    if (r.state in stats) stats[r.state as JobState] += r.n
    if (r.state !== 'delayed') stats.total += r.n
  }
  stats.waiting -= stats.delayed
  const hosts = rowsFromJson<{ host: string, waiting: number, delayed: number, active: number, oldest: number | null }>(
    row.hosts, [])
  return {
    ...stats,
    oldestWaitingSeconds: Math.max(0, ...hosts.map(r => r.oldest ?? 0)),
    hosts: hosts.map(r => ({ host: r.host, waiting: r.waiting, delayed: r.delayed, active: r.active }))
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

/** How long a finished job is kept: GET /api/jobs lists it that long. */
export const FINISHED_JOB_DAYS = 7

/** How long a job may wait unstarted before it is given up. */
export const UNSTARTED_JOB_DAYS = 14

/**
 * Forgets jobs finished long ago (a tenant's after FINISHED_JOB_DAYS and a day's margin,
 * the service's own after a day: a cron slot a minute adds up). A job that waited longer
 * than UNSTARTED_JOB_DAYS is not forgotten but failed, to be given up as any failure is
 * (its page or domain told, its delivery marked): a crawl's record is its place in the
 * queue, so one still waiting within that time is kept, whatever its age. A failed job is
 * forgotten once given up (or after a month, when no process runs its queue any more).
 */
export async function forgetOldJobRecords (db: Db, now = new Date()): Promise<void> {
  const day = 86_400_000
  const finishedBefore = new Date(now.getTime() - (FINISHED_JOB_DAYS + 1) * day)
  const queuedBefore = new Date(now.getTime() - UNSTARTED_JOB_DAYS * day)
  const monthBefore = new Date(now.getTime() - 30 * day)
  await db.updateTable('jobs')
    .set({
      state: 'failed',
      finished_at: now,
      failed_reason: `it waited more than ${UNSTARTED_JOB_DAYS} days without starting`,
      gave_up_at: null
    })
    .where('state', '=', 'waiting').where('created_at', '<', queuedBefore)
    .execute()
  const forgettable = (before: Date) => (eb: ExpressionBuilder<Database, 'jobs'>) => eb.and([
    eb('created_at', '<', before),
    eb.or([
      eb('state', '=', 'completed'),
      eb.and([
        eb('state', '=', 'failed'), eb.or([eb('gave_up_at', 'is not', null), eb('finished_at', '<', monthBefore)])
      ])
    ])
  ])
  await db.deleteFrom('jobs').where(forgettable(finishedBefore)).execute()
  await db.deleteFrom('jobs').where('org_id', 'is', null).where(forgettable(new Date(now.getTime() - day))).execute()
}
