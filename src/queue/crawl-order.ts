import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { Tx } from '../store/db.js'
import { planTurns } from '../store/host-pace.js'
import { lockPages } from '../store/pages.js'
import type { Job, JobPicker } from './puller.js'
import type { CrawlJobData } from './queues.js'

// The order crawls are taken in: fair between organisations and their hosts when
// queued (a turn and a rank each), and only of free hosts when taken (FETCH_CRAWLS).

/** The host (and port) of the URL in `column`, as SQL: as a host's pace is kept in host_pace. */
export const urlHost = (column: string) => `substring(${column} from '^[a-z]+://([^/?#]+)')`

/** A crawl job's host (`job`, a row of pgboss.job). */
export const jobHost = (job: string) => urlHost(`${job}.data->>'url'`)
const JOB_HOST = jobHost('j')

/** How many of a crawl queue's waiting jobs, in fetch order, are looked at for one whose host is free. */
const CRAWL_LOOKAHEAD = 256

/**
 * pg-boss 10's fetch, for crawls: the next due jobs in the queue's order (priority, then
 * age), only of hosts free to take a request now (their next start reached, fewer than
 * `$3` requests in flight, not claimed or being taken by another worker's fetch), and one
 * per host when the host has a delay between requests (`$4` ms, or its Crawl-delay). The hosts taken
 * are claimed for `$5` ms, until their crawl takes its turn. A crawl taken while its host
 * is busy would hold a worker's slot waiting for its turn; the crawls of one big domain,
 * ranked one after another, did so back to back.
 */
export const FETCH_CRAWLS = `
  WITH due AS (
    SELECT j.id, j.priority, j.created_on, ${JOB_HOST} AS host
    FROM pgboss.job j
    WHERE j.name = $1 AND j.state < 'active' AND j.start_after < now()
    ORDER BY j.priority DESC, j.created_on, j.id
    LIMIT ${CRAWL_LOOKAHEAD}
    FOR UPDATE SKIP LOCKED
  ), paced AS (
    -- Locked, so that two workers fetching at once cannot both take a crawl of one free host:
    -- the second skips the row, or sees the first one's claim once it has committed.
    SELECT p.host, p.delay_ms FROM host_pace p
    WHERE p.host IN (SELECT host FROM due)
      AND greatest(p.next_start, p.backoff_until, p.claimed_until) <= clock_timestamp() + interval '50 milliseconds'
    FOR UPDATE SKIP LOCKED
  ), hosts AS (
    SELECT h.host, least(
      CASE WHEN greatest($4::int, h.delay_ms) > 0 THEN 1 ELSE $3::int END,
      $3::int - (SELECT count(*) FROM host_leases l WHERE l.host = h.host AND l.expires_at > now())) AS places
    FROM (
      SELECT host, delay_ms FROM paced
      UNION ALL
      SELECT DISTINCT d.host, NULL::int FROM due d WHERE NOT EXISTS (SELECT 1 FROM host_pace p WHERE p.host = d.host)
    ) h
  ), ranked AS (
    SELECT d.id, d.priority, d.created_on, d.host, h.places,
      row_number() OVER (PARTITION BY d.host ORDER BY d.priority DESC, d.created_on, d.id) AS nth
    FROM due d JOIN hosts h ON h.host = d.host
  ), next AS (
    SELECT id, host FROM ranked WHERE nth <= places ORDER BY priority DESC, created_on, id LIMIT $2
  ), claimed AS (
    UPDATE host_pace SET claimed_until = clock_timestamp() + $5::int * interval '1 millisecond'
    WHERE $5::int > 0 AND host IN (SELECT host FROM next)
  ), taken AS (
    UPDATE pgboss.job j SET state = 'active', started_on = now(),
      retry_count = CASE WHEN started_on IS NOT NULL THEN retry_count + 1 ELSE retry_count END
    FROM next WHERE j.name = $1 AND j.id = next.id
    RETURNING j.*
  ), recorded AS (
    -- The job's record says so in the same statement (see job-records.ts).
    UPDATE jobs r SET state = 'active', processed_at = t.started_on, attempts_made = t.retry_count + 1,
      failed_reason = NULL
    FROM taken t WHERE r.id = t.id
  )
  SELECT j.id, j.name, j.data, EXTRACT(epoch FROM j.expire_in) AS "expireInSeconds", j.policy, j.state,
    j.priority, j.retry_limit AS "retryLimit", j.retry_count AS "retryCount", j.retry_delay AS "retryDelay",
    j.retry_backoff AS "retryBackoff", j.start_after AS "startAfter", j.started_on AS "startedOn",
    j.singleton_key AS "singletonKey", j.singleton_on AS "singletonOn", j.expire_in AS "expireIn",
    j.created_on AS "createdOn", j.completed_on AS "completedOn", j.keep_until AS "keepUntil",
    j.dead_letter AS "deadLetter", j.output
  FROM taken j`

/** Milliseconds until one of the next waiting crawls may be taken: its start reached and its host's. */
const CRAWLS_DUE_IN = `
  WITH next AS (
    SELECT j.start_after, ${JOB_HOST} AS host FROM pgboss.job j
    WHERE j.name = $1 AND j.state < 'active'
    ORDER BY j.priority DESC, j.created_on, j.id LIMIT ${CRAWL_LOOKAHEAD}
  )
  SELECT (extract(epoch FROM
    min(greatest(n.start_after, p.next_start, p.backoff_until, p.claimed_until)) - now()) * 1000)::float8 AS ms
  FROM next n LEFT JOIN host_pace p ON p.host = n.host`

/**
 * Each crawl's promised turn at its host (see planTurns): a host's crawls are released
 * one delay apart, so none of them waits in a worker for its host, and the crawls of
 * other hosts go between them.
 */
export async function crawlTurns (
  tx: Tx, crawls: readonly CrawlJobData[], delayMs: number
): Promise<Map<string, Date>> {
  const byHost = new Map<string, CrawlJobData[]>()
  for (const c of crawls) {
    const host = new URL(c.url).host
    const some = byHost.get(host)
    if (some) some.push(c)
    else byHost.set(host, [c])
  }
  const turns = new Map<string, Date>()
  for (const host of [...byHost.keys()].sort()) {
    const some = byHost.get(host) ?? []
    const times = await planTurns(tx, host, some.length, delayMs)
    some.forEach((c, i) => turns.set(c.pageId, times[i]))
  }
  return turns
}

/**
 * Fair shares between organisations, and between an organisation's hosts: a crawl's
 * rank is its place in its organisation's round-robin over the hosts it has crawls
 * waiting for (the k-th crawl of one of H hosts ranks about k × H). The queue takes the
 * lowest ranks first (pg-boss's priority, negated), so an organisation that queues 400
 * crawls has its first ones taken beside another's first ones, not before them, and
 * its own hosts take turns instead of one host's crawls coming up back to back, each
 * to wait for that host.
 */
export async function crawlRanks (tx: Tx, crawls: readonly CrawlJobData[]): Promise<Map<string, number>> {
  const orgs = [...new Set(crawls.map(c => c.orgId))]
  const { rows } = await sql<{ org_id: string, host: string, waiting: number }>`
    SELECT org_id, ${sql.raw(urlHost('url'))} AS host, count(*)::int AS waiting
    FROM jobs WHERE org_id = ANY(${orgs}::uuid[]) AND state = 'waiting' AND name = 'crawl.page'
    GROUP BY 1, 2`.execute(tx)
  const key = (org: string, host: string) => `${org} ${host}`
  const next = new Map(rows.map(r => [key(r.org_id, r.host), r.waiting]))
  const hostsOf = new Map<string, Set<string>>()
  const hostOf = (c: CrawlJobData) => new URL(c.url).host
  for (const r of rows) hostsOf.set(r.org_id, (hostsOf.get(r.org_id) ?? new Set()).add(r.host))
  for (const c of crawls) hostsOf.set(c.orgId, (hostsOf.get(c.orgId) ?? new Set()).add(hostOf(c)))
  const placeOf = new Map([...hostsOf].map(([org, hosts]) => [org, new Map([...hosts].sort().map((h, i) => [h, i]))]))
  const ranks = new Map<string, number>()
  for (const c of crawls) {
    const host = hostOf(c)
    const k = next.get(key(c.orgId, host)) ?? 0
    next.set(key(c.orgId, host), k + 1)
    const hosts = placeOf.get(c.orgId)!
    ranks.set(c.pageId, k * hosts.size + hosts.get(host)!)
  }
  return ranks
}

/** The pages without a crawl waiting or running, each given the id of its new job in `queued`. */
export async function freshCrawls (
  tx: Tx, pages: readonly CrawlJobData[], queued: Map<string, string>
): Promise<CrawlJobData[]> {
  const ids = pages.map(p => p.pageId)
  const exists = await lockPages(tx, ids)
  const pending = await sql<{ page_id: string }>`
    SELECT page_id FROM jobs WHERE page_id = ANY(${ids}::uuid[]) AND state IN ('waiting', 'active')`.execute(tx)
  const busy = new Set(pending.rows.map(r => r.page_id))
  const fresh = pages.filter(p => exists.has(p.pageId) && !busy.has(p.pageId) && !queued.has(p.pageId))
  for (const p of fresh) queued.set(p.pageId, randomUUID())
  return fresh
}

/** Where the crawl statements run: pg-boss's own connection. */
type Executor = { executeSql: (text: string, values: unknown[]) => Promise<{ rows: unknown[] }> }

/**
 * How a crawl queue's jobs are taken: up to `batchSize` due crawls whose hosts are free
 * (FETCH_CRAWLS), their hosts claimed until the crawls take their turns; and, when none
 * is, how long until one may be.
 */
export function crawlPicker<T> (
  db: Executor, name: string, pace: { crawlPerHostConcurrency: number, crawlPerHostDelayMs: number }
): JobPicker<T> {
  return {
    fetch: async batchSize => {
      const { crawlPerHostConcurrency: most, crawlPerHostDelayMs: delay } = pace
      // Long enough for the crawl to take its turn, never longer than the host's delay.
      const claimMs = Math.min(delay, 250)
      const { rows } = await db.executeSql(FETCH_CRAWLS, [name, batchSize, most, delay, claimMs])
      return rows as Array<Job<T>>
    },
    untilDue: async () => {
      const { rows } = await db.executeSql(CRAWLS_DUE_IN, [name]) as { rows: Array<{ ms: number | null }> }
      const ms = rows[0]?.ms ?? null
      // Due, yet not taken: its host has all its requests in flight. One ends within a few
      // answers' time; looking again sooner would only load the database.
      return ms !== null && ms <= 0 ? 100 : ms
    }
  }
}
