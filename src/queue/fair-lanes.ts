import { sql } from 'kysely'
import type { Db, Tx } from '../store/db.js'

// Lanes shared by every tenant whose jobs wait on someone else's server (webhook
// deliveries, e-mails): one organisation's flood, or its endpoint that never answers,
// must not hold another's. Each job names its organisation and its key (the endpoint it
// goes to) in its data; it ranks after its organisation's waiting jobs when queued, a
// fetch takes no more than a few in flight per key and per organisation, and a key whose
// attempt failed holds its other waiting jobs until that job's retry (a backed-off
// endpoint is tried again by one delivery, not by a flood).

/** What a fair lane's job carries besides its own data. */
export interface FairJob {
  orgId: string
  /** What its attempts share and may exhaust: the endpoint it is sent to. */
  key: string
}

/** How many of a fair lane's jobs may be in flight at once, per key and per organisation. */
export interface Fairness {
  perKey: number
  perOrg: number
}

/** How many of a fair lane's waiting jobs, in its order, are looked at for one whose key and organisation have room. */
const FAIR_LOOKAHEAD = 256

/**
 * A fair lane's fetch (`$1`): its next due jobs in rank order, passing over those whose
 * key already has `$4` in flight (with those taken before them in this fetch), or whose
 * organisation has `$5`; taken by worker `$3`, `$2` at most. A job queued before jobs
 * named their key or organisation (an older version's) counts as its own.
 */
export const FETCH_FAIR = `
  WITH due AS (
    SELECT id, priority, created_at,
      coalesce(data->>'key', id::text) AS key, coalesce(data->>'orgId', id::text) AS org
    FROM jobs WHERE lane = $1 AND state = 'waiting' AND start_after <= now()
    ORDER BY lane, priority DESC, created_at, id LIMIT ${FAIR_LOOKAHEAD}
  ), busy AS MATERIALIZED (
    SELECT coalesce(data->>'key', id::text) AS key, coalesce(data->>'orgId', id::text) AS org
    FROM jobs WHERE lane = $1 AND state = 'active'
  ), placed AS (
    SELECT d.id, d.priority, d.created_at,
      row_number() OVER (PARTITION BY d.key ORDER BY d.priority DESC, d.created_at, d.id)
        + (SELECT count(*) FROM busy b WHERE b.key = d.key) AS in_key,
      row_number() OVER (PARTITION BY d.org ORDER BY d.priority DESC, d.created_at, d.id)
        + (SELECT count(*) FROM busy b WHERE b.org = d.org) AS in_org
    FROM due d
  ), next AS (
    SELECT j.id FROM jobs j JOIN placed p ON p.id = j.id
    WHERE p.in_key <= $4::int AND p.in_org <= $5::int AND j.state = 'waiting'
    ORDER BY p.priority DESC, p.created_at, p.id LIMIT $2
    FOR UPDATE OF j SKIP LOCKED
  )
  UPDATE jobs j SET state = 'active', processed_at = now(), attempts_made = j.attempts_made + 1, failed_reason = NULL,
    owner = $3
  FROM next WHERE j.id = next.id
  RETURNING j.id, j.name, j.lane, j.data, j.org_id, j.domain_id, j.page_id, j.url, j.attempts_made, j.max_attempts`

/**
 * Each organisation's waiting jobs in lane `lane`: the k-th job it queues now ranks after
 * them (its priority is minus its rank), beside other organisations' first ones.
 */
export async function waitingByOrg (tx: Tx, lane: string, orgIds: readonly string[]): Promise<Map<string, number>> {
  const { rows } = await sql<{ org: string, n: number }>`
    SELECT data->>'orgId' AS org, count(*)::int AS n FROM jobs
    WHERE lane = ${lane} AND state = 'waiting' AND data->>'orgId' = ANY(${[...new Set(orgIds)]}::text[])
    GROUP BY 1`.execute(tx)
  return new Map(rows.map(r => [r.org, r.n]))
}

/**
 * The keys among `keys` whose attempt failed and whose retry is not due yet, with when it
 * is: a job queued for such a key waits as long (see holdKeyBehind), or a flood queued while
 * its endpoint's first attempts time out would be tried again at once.
 */
export async function heldKeys (tx: Tx, lane: string, keys: readonly string[]): Promise<Map<string, Date>> {
  const { rows } = await sql<{ key: string, until: Date }>`
    SELECT data->>'key' AS key, max(start_after) AS until FROM jobs
    WHERE lane = ${lane} AND state = 'waiting' AND attempts_made > 0 AND start_after > now()
      AND data->>'key' = ANY(${[...new Set(keys)]}::text[])
    GROUP BY 1`.execute(tx)
  return new Map(rows.map(r => [r.key, new Date(r.until)]))
}

/**
 * After job `id` failed and waits for its retry, its key's other waiting jobs wait as
 * long: an endpoint that fails (a timeout, an error) is backed off as a whole.
 */
export async function holdKeyBehind (db: Db, id: string): Promise<void> {
  await sql`UPDATE jobs w SET start_after = f.start_after FROM jobs f
    WHERE f.id = ${id} AND f.state = 'waiting' AND f.data->>'key' IS NOT NULL
      AND w.lane = f.lane AND w.state = 'waiting' AND w.id <> f.id
      AND w.data->>'key' = f.data->>'key' AND w.start_after < f.start_after`.execute(db)
}
