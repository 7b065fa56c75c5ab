import assert from 'node:assert/strict'
import { describe, it, type TestContext } from 'node:test'
import { Kysely, sql } from 'kysely'
import { migrate } from '../../src/store/migrations.js'
import { filtersOfMatch, type RuleMatch } from '../../src/vocabulary/alert-rules.js'
import { PGliteDialect } from '../../src/store/pglite-dialect.js'
import { PGliteThread } from '../../src/store/pglite-thread.js'

// A deployment made before a migration, brought up to date by it: its data as the new code reads it.

/** A deployment's database of its own for test `t`, closed after it. */
async function deployment (t: TestContext): Promise<Kysely<any>> {
  const thread = await PGliteThread.open({ postgresqlconf: [], channels: [] })
  const db = new Kysely<any>({ dialect: new PGliteDialect(thread) })
  t.after(async () => {
    await db.destroy()
  })
  return db
}

describe('an existing deployment, upgraded', () => {
  it("gives its jobs their state from the queue's tables, archived ones too, and counts them (0016)", async t => {
    const db = await deployment(t)
    await migrate(db, { upTo: '0015_failures_explained' })
    // pg-boss 10's two tables as far as the migration reads them: the archive has one column more.
    await sql`CREATE SCHEMA pgboss`.execute(db)
    await sql`CREATE TABLE pgboss.job (id uuid PRIMARY KEY, name text, state text, start_after timestamptz,
      retry_count int, retry_limit int, started_on timestamptz, completed_on timestamptz, output jsonb)`.execute(db)
    await sql`CREATE TABLE pgboss.archive (LIKE pgboss.job, archived_on timestamptz)`.execute(db)
    const org = (await sql<{ id: string }>`INSERT INTO orgs (name, plan) VALUES ('Acme', 'pro') RETURNING id`
      .execute(db)).rows[0].id
    const jobs = {
      archived: '00000000-0000-4000-8000-000000000001',
      failed: '00000000-0000-4000-8000-000000000002',
      waiting: '00000000-0000-4000-8000-000000000003',
      // pg-boss deleted it (a week after it ended): the old list never showed it.
      gone: '00000000-0000-4000-8000-000000000004'
    }
    for (const id of Object.values(jobs)) {
      await sql`INSERT INTO jobs (id, org_id, domain_id, name) VALUES (${id}, ${org}, gen_random_uuid(), 'discover.pages')`
        .execute(db)
    }
    await sql`INSERT INTO pgboss.archive VALUES (${jobs.archived}, 'discover.pages', 'completed', now(), 0, 2,
      now(), now(), '{"pagesDiscovered": 3}', now())`.execute(db)
    await sql`INSERT INTO pgboss.job VALUES
      (${jobs.failed}, 'discover.pages', 'failed', now(), 2, 2, now(), now(), '{"message": "HTTP 503"}'),
      (${jobs.waiting}, 'discover.pages', 'created', now(), 0, 2, NULL, NULL, NULL)`.execute(db)

    // Up to the last migration that read pg-boss's tables as this one had them (0024 moves its jobs: below).
    await migrate(db, { upTo: '0023_bounded_discovery' })
    type Row = { id: string, state: string, attempts_made: number, failed_reason: string | null, return_value: unknown }
    const rows = (await sql<Row>`SELECT id, state, attempts_made, failed_reason, return_value FROM jobs ORDER BY id`
      .execute(db)).rows
    assert.deepEqual(rows.map(r => [r.state, r.attempts_made, r.failed_reason, r.return_value]), [
      ['completed', 1, null, { pagesDiscovered: 3 }],
      ['failed', 3, 'HTTP 503', null],
      ['waiting', 0, null, null]
    ])
    const counts = (await sql<{ state: string, n: string }>`SELECT state, n FROM job_counts ORDER BY state`
      .execute(db)).rows
    assert.deepEqual(counts.map(c => [c.state, Number(c.n)]), [['completed', 1], ['failed', 1], ['waiting', 1]])
  })

  it('queues its waiting crawls in their records, each in the lane pg-boss had it in (0022)', async t => {
    const db = await deployment(t)
    await migrate(db, { upTo: '0021_alert_rules' })
    await sql`CREATE SCHEMA pgboss`.execute(db)
    await sql`CREATE TABLE pgboss.job (id uuid PRIMARY KEY, name text)`.execute(db)
    const org = (await sql<{ id: string }>`INSERT INTO orgs (name, plan) VALUES ('Acme', 'pro') RETURNING id`
      .execute(db)).rows[0].id
    const crawls = {
      plain: '00000000-0000-4000-8000-000000000011',
      rendered: '00000000-0000-4000-8000-000000000012',
      done: '00000000-0000-4000-8000-000000000013'
    }
    for (const [kind, id] of Object.entries(crawls)) {
      await sql`INSERT INTO jobs (id, org_id, domain_id, name, url, state)
        VALUES (${id}, ${org}, gen_random_uuid(), 'crawl.page', 'https://a.test/', ${kind === 'done' ? 'completed' : 'waiting'})`
        .execute(db)
    }
    await sql`INSERT INTO pgboss.job VALUES (${crawls.plain}, 'crawl.page'), (${crawls.rendered}, 'crawl.render'),
      (${crawls.done}, 'crawl.page')`.execute(db)

    await migrate(db, { upTo: '0023_bounded_discovery' })
    const rows = (await sql<{ lane: string | null }>`SELECT lane FROM jobs ORDER BY id`.execute(db)).rows
    assert.deepEqual(rows.map(r => r.lane), ['crawl.page', 'crawl.render', null])
  })

  it("keeps a destination's and a member's filters as an alert rule's match, which the one evaluator reads (0023)", async t => {
    const db = await deployment(t)
    await migrate(db, { upTo: '0022_crawls_queued_here' })
    const org = (await sql<{ id: string }>`INSERT INTO orgs (name, plan) VALUES ('Acme', 'enterprise') RETURNING id`
      .execute(db)).rows[0].id
    const user = (await sql<{ id: string }>`INSERT INTO users (email) VALUES ('a@acme.test') RETURNING id`
      .execute(db)).rows[0].id
    await sql`INSERT INTO webhook_endpoints (org_id, kind, url, secret, events, min_severity, change_types, tags)
      VALUES (${org}, 'webhook', 'https://hooks.test/a', 's', ARRAY['change.detected'], 'high',
        ARRAY['price_change'], ARRAY['eu']),
      (${org}, 'webhook', 'https://hooks.test/b', 's', ARRAY['change.detected'], 'low', NULL, NULL)`.execute(db)
    await sql`INSERT INTO alert_preferences (user_id, org_id, mode, min_severity, page_types)
      VALUES (${user}, ${org}, 'daily', 'medium', ARRAY['pricing', 'terms'])`.execute(db)

    await migrate(db)
    const hooks = (await sql<{ url: string, match: unknown }>`SELECT url, match FROM webhook_endpoints ORDER BY url`
      .execute(db)).rows
    assert.deepEqual(hooks.map(h => h.match), [
      { minSeverity: 'high', changeTypes: ['price_change'], tags: ['eu'] },
      {}
    ])
    const [mail] = (await sql<{ match: unknown }>`SELECT match FROM alert_preferences`.execute(db)).rows
    assert.deepEqual(mail.match, { minSeverity: 'medium', pageTypes: ['pricing', 'terms'] })
    assert.deepEqual(filtersOfMatch(hooks[0].match as RuleMatch),
      { minSeverity: 'high', changeTypes: ['price_change'], domainIds: null, pageTypes: null, tags: ['eu'] })
  })

  it("moves pg-boss's unfinished jobs into lanes of the one queue and drops its schema (0024)", async t => {
    const db = await deployment(t)
    await migrate(db, { upTo: '0023_bounded_discovery' })
    // pg-boss 10's job table as far as the migration reads it.
    await sql`CREATE SCHEMA pgboss`.execute(db)
    await sql`CREATE TABLE pgboss.job (id uuid PRIMARY KEY, name text, data jsonb, state text,
      start_after timestamptz, retry_count int, retry_limit int, created_on timestamptz)`.execute(db)
    const org = (await sql<{ id: string }>`INSERT INTO orgs (name, plan) VALUES ('Acme', 'pro') RETURNING id`
      .execute(db)).rows[0].id
    const domain = (await sql<{ id: string }>`INSERT INTO domains (org_id, hostname, status)
      VALUES (${org}, 'a.test', 'discovering') RETURNING id`.execute(db)).rows[0].id
    const page = (await sql<{ id: string }>`INSERT INTO pages (org_id, domain_id, url, url_hash)
      VALUES (${org}, ${domain}, 'https://a.test/', 'a') RETURNING id`.execute(db)).rows[0].id
    const id = (n: number) => `00000000-0000-4000-8000-0000000001${String(n).padStart(2, '0')}`
    const [discovery, brief, delivery, sentMail, crawl, twin] = [1, 2, 3, 4, 5, 6].map(id)
    // A tenant's discovery waiting, a brief running (its worker gone with the upgrade).
    await sql`INSERT INTO jobs (id, org_id, domain_id, name, state, attempts_made)
      VALUES (${discovery}, ${org}, ${domain}, 'discover.pages', 'waiting', 0),
        (${brief}, ${org}, ${domain}, 'research.domain', 'active', 1)`.execute(db)
    await sql`INSERT INTO pgboss.job VALUES
      (${discovery}, 'discover.pages', ${JSON.stringify({ orgId: org, domainId: domain })}, 'retry', now(), 1, 2, now()),
      (${brief}, 'research.domain', ${JSON.stringify({ orgId: org, domainId: domain, briefId: 'b' })}, 'active',
        now() - interval '1 hour', 0, 2, now()),
      (${delivery}, 'webhook.deliver', '{"deliveryId": "d"}', 'created', now() + interval '1 minute', 0, 5, now()),
      (${sentMail}, 'mail.deliver', '{"emailId": "e"}', 'completed', now(), 0, 5, now())`.execute(db)
    // Two unfinished crawls of one page, and one running under a fetch's mark.
    await sql`INSERT INTO jobs (id, org_id, domain_id, page_id, name, lane, url, state, taken_by, created_at)
      VALUES (${crawl}, ${org}, ${domain}, ${page}, 'crawl.page', 'crawl.page', 'https://a.test/', 'active',
        gen_random_uuid(), now() - interval '1 minute'),
        (${twin}, ${org}, ${domain}, ${page}, 'crawl.page', 'crawl.page', 'https://a.test/', 'waiting', NULL, now())`
      .execute(db)

    await migrate(db)
    type Row = {
      id: string
      name: string
      lane: string
      state: string
      attempts_made: number
      max_attempts: number
      data: unknown
      owner: string | null
      org_id: string | null
    }
    const rows = new Map((await sql<Row>`SELECT id, name, lane, state, attempts_made, max_attempts, data, owner, org_id
      FROM jobs`.execute(db)).rows.map(r => [r.id, r]))
    const shape = (r: Row | undefined) => r && [r.name, r.lane, r.state, r.attempts_made, r.max_attempts]
    assert.deepEqual(shape(rows.get(discovery)), ['discover.pages', 'discover.pages', 'waiting', 1, 3])
    assert.deepEqual(rows.get(discovery)!.data, { orgId: org, domainId: domain })
    assert.deepEqual(shape(rows.get(brief)), ['research.domain', 'research.domain', 'waiting', 0, 3],
      'a running job handed back, its attempt unspent')
    assert.deepEqual(shape(rows.get(delivery)), ['webhook.deliver', 'webhook.deliver', 'waiting', 0, 6])
    assert.equal(rows.get(delivery)!.org_id, null, 'the service\'s own job: no tenant')
    assert.equal(rows.get(sentMail), undefined, 'a finished job of pg-boss is not moved')
    assert.deepEqual([rows.get(crawl)!.state, rows.get(crawl)!.owner], ['active', null],
      'a running crawl with no worker: the first sweep hands it back')
    assert.equal(rows.get(twin)!.state, 'completed', 'one unfinished crawl per page')
    const schema = await sql`SELECT 1 FROM pg_namespace WHERE nspname = 'pgboss'`.execute(db)
    assert.equal(schema.rows.length, 0)
    await assert.rejects(sql`INSERT INTO jobs (id, org_id, domain_id, page_id, name, lane, state)
      VALUES (gen_random_uuid(), ${org}, ${domain}, ${page}, 'crawl.page', 'crawl.page', 'waiting')`.execute(db),
    /jobs_one_unfinished_crawl/)
  })
})
