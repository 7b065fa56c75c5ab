import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { Tx } from '../store/db.js'
import { lockPages, ROWS_PER_STATEMENT } from '../store/pages.js'
import { pagesReadInBrowser } from '../store/page-checks.js'
import { insertJobRecords } from './job-records.js'
import { MAX_ATTEMPTS, QUEUE, type CrawlJobData } from './queues.js'

// The order crawls are taken in: fair between organisations and their hosts when queued
// (a rank each), and only of free hosts when taken, each with its host's turn (FETCH_CRAWLS).

/** How many of a crawl lane's waiting jobs, in fetch order, are looked at for one whose host is free. */
const CRAWL_LOOKAHEAD = 256

/** The milliseconds `$n` as an interval. */
const ms = (n: number) => `$${n}::int * interval '1 millisecond'`

/**
 * A crawl lane's fetch (`$1`, see lane.ts): the next due crawls in the lane's order (rank,
 * then age) among those of hosts free to take a request within `$5` ms (the lead: the time a
 * worker needs to be ready to write the request, see store/host-pace.ts paceRules): their
 * next start reached, fewer than `$3` requests in flight, not being taken by another
 * worker's fetch. A busy host's crawls, however many and however ranked, are passed over
 * in the walk rather than taken into the lookahead, where they would hide free hosts'
 * crawls. One per host when the host has a delay between requests (`$4` ms, or its
 * Crawl-delay); each free host gives up to its free places in one statement.
 *
 * Each crawl takes its host's turn in the same statement: the host's next start moves on
 * by the delay and its slack (`$7` ms), and a lease for `$8` ms holds its place (the job's
 * id: see store/host-pace.ts). A crawl whose host's turn is not written is not taken: its
 * request is never sent out of turn. The crawls taken are held by worker `$6` (see lane.ts)
 * and carry their turn's start (turn_ms).
 */
export const FETCH_CRAWLS = `
  WITH leased AS MATERIALIZED (
    SELECT l.host, count(*)::int AS n FROM host_leases l WHERE l.expires_at > now() GROUP BY l.host
  ), busy AS MATERIALIZED (
    -- The hosts not free now, found once: a host held or with all its places taken fills no place of the lookahead.
    SELECT p.host FROM host_pace p
    WHERE greatest(p.next_start, p.backoff_until) > clock_timestamp() + ${ms(5)}
    UNION
    SELECT host FROM leased WHERE n >= $3::int
  ), due AS (
    SELECT j.id, j.priority, j.created_at, j.host
    FROM jobs j
    WHERE j.lane = $1 AND j.state = 'waiting' AND j.start_after < now()
      -- A filter on the walk of the fetch-order index (a hashed NOT IN): an anti-join would sort every waiting crawl.
      AND j.host NOT IN (SELECT host FROM busy)
    ORDER BY j.lane, j.priority DESC, j.created_at, j.id
    LIMIT ${CRAWL_LOOKAHEAD}
    FOR UPDATE OF j SKIP LOCKED
  ), paced AS (
    -- Locked, so that two workers fetching at once cannot both take a crawl of one free host:
    -- the second skips the row, or sees the first one's turn once it has committed.
    SELECT p.host, p.delay_ms FROM host_pace p
    WHERE p.host IN (SELECT host FROM due)
      AND greatest(p.next_start, p.backoff_until) <= clock_timestamp() + ${ms(5)}
    FOR UPDATE SKIP LOCKED
  ), hosts AS MATERIALIZED (
    SELECT h.host, least(
      CASE WHEN greatest($4::int, h.delay_ms) > 0 THEN 1 ELSE $3::int END, $3::int - coalesce(l.n, 0)) AS places
    FROM (
      SELECT host, delay_ms FROM paced
      UNION ALL
      SELECT DISTINCT d.host, NULL::int FROM due d WHERE NOT EXISTS (SELECT 1 FROM host_pace p WHERE p.host = d.host)
    ) h LEFT JOIN leased l ON l.host = h.host
  ), ranked AS (
    SELECT d.id, d.priority, d.created_at, d.host, h.places,
      row_number() OVER (PARTITION BY d.host ORDER BY d.priority DESC, d.created_at, d.id) AS nth
    FROM due d JOIN hosts h ON h.host = d.host
  ), next AS (
    SELECT id, host FROM ranked WHERE nth <= places ORDER BY priority DESC, created_at, id LIMIT $2
  ), turned AS (
    -- A host first seen here is written with its turn; one another fetch wrote meanwhile is taken only if still free.
    INSERT INTO host_pace AS p (host, next_start)
    SELECT host, clock_timestamp() + ${ms(5)} + ($4::int + $7::int) * interval '1 millisecond'
    FROM (SELECT DISTINCT host FROM next) n
    ON CONFLICT (host) DO UPDATE
      SET next_start = greatest(p.next_start, clock_timestamp() + ${ms(5)})
        + (greatest($4::int, p.delay_ms) + $7::int) * interval '1 millisecond'
      WHERE greatest(p.next_start, p.backoff_until) <= clock_timestamp() + ${ms(5)}
    RETURNING p.host, p.next_start - (greatest($4::int, p.delay_ms) + $7::int) * interval '1 millisecond' AS start
  ), leases AS (
    INSERT INTO host_leases (id, host, expires_at)
    SELECT n.id, n.host, t.start + ${ms(8)} FROM next n JOIN turned t ON t.host = n.host
    ON CONFLICT (id) DO UPDATE SET host = EXCLUDED.host, expires_at = EXCLUDED.expires_at
  )
  UPDATE jobs j SET state = 'active', processed_at = now(), attempts_made = j.attempts_made + 1, failed_reason = NULL,
    owner = $6
  FROM next JOIN turned t ON t.host = next.host WHERE j.id = next.id
  RETURNING j.id, j.name, j.lane, j.data, j.org_id, j.domain_id, j.page_id, j.url, j.attempts_made, j.max_attempts,
    (extract(epoch FROM t.start) * 1000)::float8 AS turn_ms`

/**
 * Milliseconds until one of the lane's next waiting crawls may be taken: its start reached
 * and its host's, less the lead (`$3` ms), and, for a host with all its `$2` places taken,
 * the end of its first lease (a request that ends sooner wakes the workers: see
 * JobQueue.crawlPlaceFreed).
 */
export const CRAWLS_DUE_IN = `
  WITH next AS (
    SELECT j.start_after, j.host FROM jobs j
    WHERE j.lane = $1 AND j.state = 'waiting'
    ORDER BY j.lane, j.priority DESC, j.created_at, j.id LIMIT ${CRAWL_LOOKAHEAD}
  ), held AS (
    SELECT l.host, min(l.expires_at) AS until FROM host_leases l
    WHERE l.host IN (SELECT host FROM next) AND l.expires_at > now()
    GROUP BY l.host HAVING count(*) >= $2::int
  )
  SELECT (extract(epoch FROM min(greatest(n.start_after,
    greatest(p.next_start, p.backoff_until) - ${ms(3)}, h.until)) - now()) * 1000)::float8 AS ms
  FROM next n LEFT JOIN host_pace p ON p.host = n.host LEFT JOIN held h ON h.host = n.host`

/**
 * Fair shares between organisations, and between an organisation's hosts: a crawl's
 * rank is its place in its organisation's round-robin over the hosts it has crawls
 * waiting for (the k-th crawl of one of H hosts ranks about k × H). The queue takes the
 * lowest ranks first (the record's priority, negated), so an organisation that queues 400
 * crawls has its first ones taken beside another's first ones, not before them, and
 * its own hosts take turns instead of one host's crawls coming up back to back, each
 * to wait for that host.
 */
export async function crawlRanks (tx: Tx, crawls: readonly CrawlJobData[]): Promise<Map<string, number>> {
  const orgs = [...new Set(crawls.map(c => c.orgId))]
  const { rows } = await sql<{ org_id: string, host: string, waiting: number }>`
    SELECT org_id, host, count(*)::int AS waiting
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

/**
 * Writes a crawl for each page that has none waiting or running, in the caller's
 * transaction, in four statements per thousand pages: each ranked (crawlRanks), on the
 * browser's lane when its page is read in one. The page rows' locks, taken in id order,
 * serialise concurrent callers; a partial unique index keeps one unfinished crawl per
 * page whatever they do. Returns the new jobs' ids by page, and how many went to each lane.
 */
export async function insertCrawls (
  tx: Tx, pages: readonly CrawlJobData[]
): Promise<{ queued: Map<string, string>, plain: number, rendered: number }> {
  const queued = new Map<string, string>()
  const inLockOrder = [...pages].sort((a, b) => (a.pageId < b.pageId ? -1 : a.pageId > b.pageId ? 1 : 0))
  const fresh: CrawlJobData[] = []
  for (let i = 0; i < inLockOrder.length; i += ROWS_PER_STATEMENT) {
    fresh.push(...await freshCrawls(tx, inLockOrder.slice(i, i + ROWS_PER_STATEMENT), queued))
  }
  if (fresh.length === 0) return { queued, plain: 0, rendered: 0 }
  const ranks = await crawlRanks(tx, fresh)
  let rendered = 0
  for (let i = 0; i < fresh.length; i += ROWS_PER_STATEMENT) {
    const some = fresh.slice(i, i + ROWS_PER_STATEMENT)
    const inBrowser = await pagesReadInBrowser(tx, some.map(p => p.pageId))
    rendered += inBrowser.size
    await insertJobRecords(
      tx,
      some.map(p => ({
        id: queued.get(p.pageId)!,
        org_id: p.orgId,
        domain_id: p.domainId,
        page_id: p.pageId,
        url: p.url,
        name: QUEUE.crawl,
        lane: inBrowser.has(p.pageId) ? QUEUE.render : QUEUE.crawl,
        priority: -(ranks.get(p.pageId) ?? 0),
        max_attempts: MAX_ATTEMPTS
      }))
    )
  }
  return { queued, plain: fresh.length - rendered, rendered }
}
