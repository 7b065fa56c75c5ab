import { DATA_CHANNEL } from '../data-versions.js'

// Steps 0024 to 0032: what an older database still runs (../migrations.ts joins the lists).
export const MIGRATIONS_0024: Record<string, string[]> = {
  // One queue for every job, in \`jobs\` (see queue/queue.ts): each queue is a lane of it,
  // pg-boss's waiting jobs move over once and its schema goes. A taken attempt names the
  // worker that holds it (\`owner\`, alive while its row in \`workers\` beats); a cron
  // slot is one row (\`singleton\`); a job that failed for good is given up once (\`gave_up_at\`).
  '0024_one_queue': [
    'ALTER TABLE jobs ALTER COLUMN org_id DROP NOT NULL',
    'ALTER TABLE jobs ALTER COLUMN domain_id DROP NOT NULL',
    // The jobs no tenant owns (deliveries, the cron's) are not counted.
    `CREATE OR REPLACE FUNCTION jobs_counted () RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO job_counts AS c (org_id, name, state, n)
        SELECT org_id, name, state, count(*) FROM new_rows WHERE org_id IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (org_id, name, state) DO UPDATE SET n = c.n + excluded.n;
      ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO job_counts AS c (org_id, name, state, n)
        SELECT x.org_id, x.name, x.state, sum(x.d) FROM (
          SELECT org_id, name, state, -1 AS d FROM old_rows WHERE org_id IS NOT NULL
          UNION ALL
          SELECT org_id, name, state, 1 FROM new_rows WHERE org_id IS NOT NULL
        ) x
        GROUP BY 1, 2, 3 HAVING sum(x.d) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (org_id, name, state) DO UPDATE SET n = c.n + excluded.n;
      ELSE
        UPDATE job_counts c SET n = c.n - x.n
        FROM (SELECT org_id, name, state, count(*) AS n FROM old_rows WHERE org_id IS NOT NULL GROUP BY 1, 2, 3) x
        WHERE c.org_id = x.org_id AND c.name = x.name AND c.state = x.state;
      END IF;
      RETURN NULL;
    END $f$`,
    'ALTER TABLE jobs DROP CONSTRAINT jobs_name_check',
    'ALTER TABLE jobs DROP CONSTRAINT jobs_lane_check',
    'ALTER TABLE jobs ADD COLUMN data jsonb',
    'ALTER TABLE jobs ADD COLUMN owner uuid',
    'ALTER TABLE jobs ADD COLUMN singleton text',
    'ALTER TABLE jobs ADD COLUMN gave_up_at timestamptz',
    'DROP INDEX jobs_taken_by',
    'ALTER TABLE jobs DROP COLUMN taken_by',
    'UPDATE jobs SET lane = name WHERE lane IS NULL',
    'ALTER TABLE jobs ALTER COLUMN lane SET NOT NULL',
    "UPDATE jobs SET gave_up_at = coalesce(finished_at, now()) WHERE state = 'failed'",
    // Of pg-boss's jobs, those not finished: a running one is handed back (its attempt not spent).
    `DO $$ BEGIN
      IF to_regclass('pgboss.job') IS NOT NULL THEN
        UPDATE jobs j SET data = q.data, state = 'waiting', processed_at = NULL,
          start_after = CASE WHEN q.state = 'active' THEN now() ELSE q.start_after END,
          attempts_made = q.retry_count,
          max_attempts = q.retry_limit + 1
        FROM pgboss.job q
        WHERE q.id = j.id AND q.state::text IN ('created', 'retry', 'active');
        INSERT INTO jobs (id, name, lane, data, state, start_after, attempts_made, max_attempts, created_at)
        SELECT q.id, q.name, q.name, q.data, 'waiting',
          CASE WHEN q.state = 'active' THEN now() ELSE q.start_after END, q.retry_count, q.retry_limit + 1, q.created_on
        FROM pgboss.job q
        WHERE q.state::text IN ('created', 'retry', 'active')
          AND q.name IN ('discover.pages', 'research.domain', 'schedule.tick', 'retention.sweep', 'alerts.dispatch',
            'webhook.deliver', 'alerts.digest', 'mail.deliver', 'mail.digest', 'mail.account')
          AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = q.id);
      END IF;
    END $$`,
    // A discovery's data are its record's columns; a record pg-boss no longer had is given up.
    `UPDATE jobs SET data = jsonb_build_object('orgId', org_id, 'domainId', domain_id)
      WHERE name = 'discover.pages' AND data IS NULL`,
    `UPDATE jobs SET state = 'failed', finished_at = now(), gave_up_at = now(),
      failed_reason = 'the queue that held it was replaced, and it was not found there'
      WHERE state IN ('waiting', 'active') AND data IS NULL AND name NOT IN ('crawl.page', 'discover.pages')`,
    // One unfinished crawl per page, as the index below keeps it: a second (a race of old) ends.
    `UPDATE jobs SET state = 'completed', finished_at = now(), failed_reason = NULL
      WHERE name = 'crawl.page' AND state IN ('waiting', 'active') AND id NOT IN (
        SELECT DISTINCT ON (page_id) id FROM jobs WHERE name = 'crawl.page' AND state IN ('waiting', 'active')
        ORDER BY page_id, state = 'active' DESC, created_at)`,
    'DROP SCHEMA IF EXISTS pgboss CASCADE',
    'DROP TABLE held_jobs',
    `CREATE TABLE workers (
      id uuid PRIMARY KEY,
      host text NOT NULL,
      pid integer NOT NULL,
      started_at timestamptz NOT NULL DEFAULT now(),
      heartbeat_at timestamptz NOT NULL DEFAULT now()
    )`,
    'CREATE UNIQUE INDEX jobs_singleton ON jobs (singleton) WHERE singleton IS NOT NULL',
    `CREATE UNIQUE INDEX jobs_one_unfinished_crawl ON jobs (page_id)
      WHERE name = 'crawl.page' AND state IN ('waiting', 'active')`,
    'DROP INDEX jobs_crawl_order',
    "CREATE INDEX jobs_due ON jobs (lane, priority DESC, created_at, id) WHERE state = 'waiting'",
    'DROP INDEX jobs_crawls_active',
    "CREATE INDEX jobs_held ON jobs (owner, processed_at) WHERE state = 'active'",
    "CREATE INDEX jobs_to_give_up ON jobs (lane) WHERE state = 'failed' AND gave_up_at IS NULL",
    // A host's pace and its requests in flight survive a crash: a Retry-After is not forgotten.
    'ALTER TABLE host_pace SET LOGGED',
    'ALTER TABLE host_leases SET LOGGED',
    // robots.txt as the fleet read it, by origin: fetched once for every worker (see crawl/robots.ts).
    `CREATE TABLE robots_files (
      origin text PRIMARY KEY,
      body text NOT NULL,
      expires_at timestamptz NOT NULL
    )`
  ],
  // Every write to what the API shows an organisation names that organisation on one channel,
  // once per statement and with its transaction's id, when (and only if) it commits: each
  // process keeps an organisation's version from it, and a GET's ETag is that version
  // (api/validators.ts), so a conditional GET reads no row. api_keys, sessions and the
  // sign-in counters are left out: the API does not show them, and a key's use is written
  // on every request.
  '0025_data_written': [
    `CREATE FUNCTION data_written() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('${DATA_CHANNEL}', org_id::text || ':' || pg_current_xact_id()::text)
        FROM (SELECT DISTINCT org_id FROM written WHERE org_id IS NOT NULL) o;
      RETURN NULL;
    END $$`,
    `CREATE FUNCTION org_written() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('${DATA_CHANNEL}', id::text || ':' || pg_current_xact_id()::text) FROM written;
      RETURN NULL;
    END $$`,
    // A member's name or address is shown in every organisation they belong to.
    `CREATE FUNCTION member_written() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('${DATA_CHANNEL}', m.org_id::text || ':' || pg_current_xact_id()::text)
        FROM (SELECT DISTINCT org_id FROM memberships WHERE user_id IN (SELECT id FROM written)) m;
      RETURN NULL;
    END $$`,
    ...writeTriggers('orgs', 'org_written'),
    ...writeTriggers('users', 'member_written'),
    ...[
      'billing_periods', 'domains', 'pages', 'snapshots', 'changes', 'learned_rules', 'page_events', 'alert_rules',
      'jobs', 'research_briefs', 'webhook_endpoints', 'webhook_deliveries', 'screenshots', 'memberships',
      'alert_preferences', 'email_deliveries'
    ].flatMap(table => writeTriggers(table, 'data_written'))
  ],
  // Where a picture's blocks are, for a page's outline drawn over its picture (see vocabulary/outline.ts).
  '0026_picture_boxes': ['ALTER TABLE screenshots ADD COLUMN boxes jsonb'],
  // Who did what (services/audit.ts). Rows are written with the change they record and
  // never updated: the trigger refuses it, whoever asks. They go with their organisation,
  // and by the plan's retention (retention.ts).
  '0027_audit_events': [
    `CREATE TABLE audit_events (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid REFERENCES orgs (id) ON DELETE CASCADE,
      at timestamptz NOT NULL DEFAULT now(),
      actor_kind text NOT NULL,
      actor_user_id uuid,
      actor_key_id uuid,
      actor_label text NOT NULL,
      ip text,
      action text NOT NULL,
      object_type text NOT NULL,
      object_id text,
      object_label text,
      details jsonb NOT NULL DEFAULT '{}',
      trace_id text
    )`,
    'CREATE INDEX audit_events_org_at ON audit_events (org_id, at DESC, id DESC)',
    `CREATE FUNCTION audit_events_unchanged() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'audit events are never changed';
    END $$`,
    `CREATE TRIGGER audit_events_unchanged BEFORE UPDATE ON audit_events
      FOR EACH ROW EXECUTE FUNCTION audit_events_unchanged()`,
    ...writeTriggers('audit_events', 'data_written')
  ],
  // Single sign-on (services/sso.ts): an organisation's identity provider and the e-mail
  // domains it vouches for (each domain one organisation's), and the sign-ins under way
  // (their state, by its hash, used once).
  '0028_sso': [
    `CREATE TABLE sso_settings (
      org_id uuid PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
      issuer text NOT NULL,
      client_id text NOT NULL,
      client_secret text NOT NULL,
      default_role text NOT NULL,
      required boolean NOT NULL DEFAULT false,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
    `CREATE TABLE sso_domains (
      domain text PRIMARY KEY,
      org_id uuid NOT NULL REFERENCES sso_settings (org_id) ON DELETE CASCADE
    )`,
    'CREATE INDEX sso_domains_org ON sso_domains (org_id)',
    `CREATE TABLE sso_attempts (
      state_hash text PRIMARY KEY,
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      code_verifier text NOT NULL,
      nonce text NOT NULL,
      next text,
      expires_at timestamptz NOT NULL
    )`
  ],
  // A session says whether the provider started it: requiring single sign-on ends the others of its members.
  '0029_session_single_sign_on': ['ALTER TABLE sessions ADD COLUMN single_sign_on boolean NOT NULL DEFAULT false'],
  // A job's host (and port), kept with the row: the crawl lanes' fetch asked each waiting
  // crawl's URL for it by regular expression, once per row and again per lease compared with
  // it (185 ms of the embedded database for 500 waiting crawls and 40 requests in flight).
  '0030_jobs_host': [
    "ALTER TABLE jobs ADD COLUMN host text GENERATED ALWAYS AS (substring(url from '^[a-z]+://([^/?#]+)')) STORED"
  ],
  // A page's new snapshot is written after this check, in the same transaction, with no
  // answer to wait for in between (see store/changes.ts recordSnapshot). The page's row is
  // locked first; the check, a statement of its own, then sees a snapshot committed while it waited.
  '0031_page_still_at': [
    `CREATE FUNCTION page_still_at (p_page uuid, p_latest uuid) RETURNS boolean LANGUAGE plpgsql AS $f$
    BEGIN
      PERFORM 1 FROM pages WHERE id = p_page FOR UPDATE;
      IF (SELECT id FROM snapshots WHERE page_id = p_page ORDER BY created_at DESC, id DESC LIMIT 1)
        IS DISTINCT FROM p_latest THEN
        RAISE EXCEPTION 'the page was recorded meanwhile' USING ERRCODE = 'SWSUP';
      END IF;
      RETURN true;
    END $f$`
  ],
  // A turn whose request could not be written in its slack (a busy machine, a slow answer
  // from the database), counting `p_lead_ms` for this answer to reach the worker, is moved
  // while no later turn was given (the host's next_start is still the one it set): to now
  // and the lead, and the next turn with it, where giving the turn up cost the host a whole
  // delay. A host held meanwhile (Retry-After) says until when.
  '0032_recheck_host_turn': [
    `CREATE FUNCTION recheck_host_turn (
      p_host text, p_start_ms float8, p_crawl_delay_ms integer, p_delay_ms integer, p_slack_ms float8,
      p_lead_ms float8
    ) RETURNS TABLE (start_ms float8, busy_until_ms float8) LANGUAGE plpgsql AS $f$
    DECLARE
      pace record;
      delay float8 := greatest(p_delay_ms, p_crawl_delay_ms);
      now_ms float8;
    BEGIN
      SELECT p.next_start, p.backoff_until INTO pace FROM host_pace p WHERE p.host = p_host FOR UPDATE;
      now_ms := extract(epoch FROM clock_timestamp()) * 1000;
      IF pace.backoff_until > clock_timestamp() THEN
        RETURN QUERY SELECT NULL::float8, (extract(epoch FROM pace.backoff_until) * 1000)::float8;
        RETURN;
      END IF;
      IF delay <= 0 OR now_ms + p_lead_ms - p_start_ms <= p_slack_ms THEN
        RETURN QUERY SELECT p_start_ms, NULL::float8;
        RETURN;
      END IF;
      IF pace.next_start IS DISTINCT FROM to_timestamp((p_start_ms + delay + p_slack_ms) / 1000) THEN
        RETURN QUERY SELECT NULL::float8, NULL::float8;
        RETURN;
      END IF;
      now_ms := now_ms + p_lead_ms;
      UPDATE host_pace SET next_start = to_timestamp((now_ms + delay + p_slack_ms) / 1000),
        planned = greatest(planned, to_timestamp((now_ms + delay + p_slack_ms) / 1000))
      WHERE host = p_host;
      RETURN QUERY SELECT now_ms, NULL::float8;
    END $f$`
  ]
}

/** A statement-level trigger for each kind of write, its rows seen as `written`. */
function writeTriggers (table: string, fn: string): string[] {
  return (['INSERT', 'UPDATE', 'DELETE'] as const).map(event =>
    `CREATE TRIGGER ${table}_${event.toLowerCase()}_written AFTER ${event} ON ${table}
      REFERENCING ${event === 'DELETE' ? 'OLD' : 'NEW'} TABLE AS written
      FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`)
}
