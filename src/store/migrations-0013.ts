import { DATA_CHANNEL } from './data-versions.js'

// The schema's migrations from 0013 on (see migrations.ts); new ones are added here.
export const LATER_MIGRATIONS: Record<string, string[]> = {
  // Closed to abuse: failed sign-ins counted per account and per address (growing delays,
  // never a lock-out); a feed token per member, gone with the membership; share links
  // one by one, each revocable, with the images they show.
  '0013_closed_to_abuse': [
    `CREATE TABLE auth_failures (
      key text PRIMARY KEY,
      failures integer NOT NULL,
      window_start timestamptz NOT NULL
    )`,
    'ALTER TABLE memberships ADD COLUMN feed_token text UNIQUE',
    `CREATE TABLE share_links (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      token_hash text NOT NULL UNIQUE,
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      change_id uuid NOT NULL REFERENCES changes (id) ON DELETE CASCADE,
      created_by uuid REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz
    )`,
    'CREATE INDEX share_links_change ON share_links (change_id)',
    'CREATE INDEX account_tokens_user ON account_tokens (user_id) WHERE purpose = \'reset\'',
    'CREATE INDEX account_tokens_expiry ON account_tokens (expires_at)',
    'CREATE INDEX sessions_expiry ON sessions (expires_at)'
  ],
  // Search reads every changed word of a change (its hunks), not only the bounded passages:
  // a new section far down a long document is found by its words.
  '0014_search_whole_diff': [
    'ALTER TABLE changes DROP COLUMN search',
    `ALTER TABLE changes ADD COLUMN search tsvector GENERATED ALWAYS AS (
      to_tsvector('english', left(regexp_replace(
        summary || ' ' || coalesce(
          jsonb_path_query_array(diff_data, '$.hunks[*].lines[*] ? (@.type != "context").content')::text, ''),
        '[/$€£¥"\\[\\],]', ' ', 'g'), 200000))
    ) STORED`,
    'CREATE INDEX changes_search ON changes USING gin (search)'
  ],
  // A failure says what it is (blocked or broken, by its code) and since when; a domain's
  // failed discovery keeps its reason, so the app can say why and offer to try again.
  '0015_failures_explained': [
    'ALTER TABLE pages ADD COLUMN failure_code text',
    'ALTER TABLE pages ADD COLUMN failing_since timestamptz',
    'ALTER TABLE domains ADD COLUMN discovery_error text',
    'ALTER TABLE domains ADD COLUMN discovery_error_code text',
    'ALTER TABLE domains ADD COLUMN discovery_failed_at timestamptz',
    // Mail without SMTP_URL is written to the log: it is "not sent", never "delivered".
    'ALTER TABLE email_deliveries DROP CONSTRAINT email_deliveries_status_check',
    `ALTER TABLE email_deliveries ADD CONSTRAINT email_deliveries_status_check
      CHECK (status IN ('pending', 'delivered', 'failed', 'not_sent'))`,
    // A key is named by the person who makes it ("CI", "Zapier"), so that revoking one is revoking the right one.
    'ALTER TABLE api_keys ADD COLUMN name text'
  ],
  // A job's state is ours (see queue/job-records.ts): written when it changes, so that no
  // read joins the queue's own tables, and counted per organisation, name and state by
  // the table's own triggers, so that a list's total and the statistics cost nothing
  // however long the history. "delayed" is a waiting job whose start is still to come.
  '0016_job_state_ours': [
    `ALTER TABLE jobs
      ADD COLUMN state text NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'active', 'completed', 'failed')),
      ADD COLUMN start_after timestamptz NOT NULL DEFAULT now(),
      ADD COLUMN attempts_made integer NOT NULL DEFAULT 0,
      ADD COLUMN max_attempts integer NOT NULL DEFAULT 3,
      ADD COLUMN processed_at timestamptz,
      ADD COLUMN finished_at timestamptz,
      ADD COLUMN failed_reason text,
      ADD COLUMN return_value jsonb`,
    // An existing deployment's jobs take their state from the queue's tables once (the mapping
    // of queue/job-records.ts as it stands today: a migration keeps its own copy, never changes).
    `DO $$ BEGIN
      IF to_regclass('pgboss.job') IS NOT NULL THEN
        UPDATE jobs j SET
          state = CASE WHEN q.state IN ('created', 'retry') THEN 'waiting' WHEN q.state = 'active' THEN 'active'
            WHEN q.state = 'completed' THEN 'completed' ELSE 'failed' END,
          start_after = q.start_after,
          attempts_made = CASE WHEN q.state = 'created' THEN 0 ELSE q.retry_count + 1 END,
          max_attempts = q.retry_limit + 1,
          processed_at = q.started_on,
          finished_at = CASE WHEN q.state IN ('completed', 'failed', 'cancelled') THEN q.completed_on END,
          failed_reason = CASE WHEN q.state IN ('failed', 'retry', 'cancelled') AND jsonb_typeof(q.output) = 'object'
            THEN coalesce(q.output->>'message', q.output->'value'->>'message', q.output::text) END,
          return_value = CASE WHEN q.state = 'completed' AND jsonb_typeof(q.output) = 'object' THEN q.output END
        FROM (
          SELECT id, name, state, start_after, retry_count, retry_limit, started_on, completed_on, output
          FROM pgboss.job
          UNION ALL
          SELECT id, name, state, start_after, retry_count, retry_limit, started_on, completed_on, output
          FROM pgboss.archive
        ) q
        WHERE q.id = j.id AND q.name IN ('crawl.page', 'crawl.render', 'discover.pages', 'research.domain');
        -- A record whose job pg-boss no longer keeps was never listed; left, it would wait forever.
        DELETE FROM jobs j WHERE NOT EXISTS (SELECT 1 FROM pgboss.job q WHERE q.id = j.id)
          AND NOT EXISTS (SELECT 1 FROM pgboss.archive q WHERE q.id = j.id);
      END IF;
    END $$`,
    'DROP INDEX jobs_org_time',
    'CREATE INDEX jobs_org_time ON jobs (org_id, created_at DESC, id DESC)',
    'CREATE INDEX jobs_org_name_time ON jobs (org_id, name, created_at DESC, id DESC)',
    ...(['waiting', 'active', 'completed', 'failed'].map(state =>
      `CREATE INDEX jobs_${state} ON jobs (org_id, created_at DESC, id DESC) WHERE state = '${state}'`)),
    // The unfinished ones (the backlog by host, the sweep), however long the history.
    'CREATE INDEX jobs_unfinished ON jobs (org_id) WHERE state IN (\'waiting\', \'active\')',
    `CREATE TABLE job_counts (
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      name text NOT NULL,
      state text NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (org_id, name, state)
    )`,
    `INSERT INTO job_counts (org_id, name, state, n)
      SELECT org_id, name, state, count(*) FROM jobs GROUP BY 1, 2, 3`,
    // Counted once per statement, the changes added up, in key order: statements that
    // count the same organisation's jobs take its counters' locks in one order. An
    // organisation being deleted is not counted again.
    `CREATE FUNCTION jobs_counted () RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO job_counts AS c (org_id, name, state, n)
        SELECT org_id, name, state, count(*) FROM new_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (org_id, name, state) DO UPDATE SET n = c.n + excluded.n;
      ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO job_counts AS c (org_id, name, state, n)
        SELECT x.org_id, x.name, x.state, sum(x.d) FROM (
          SELECT org_id, name, state, -1 AS d FROM old_rows
          UNION ALL
          SELECT org_id, name, state, 1 FROM new_rows
        ) x
        GROUP BY 1, 2, 3 HAVING sum(x.d) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (org_id, name, state) DO UPDATE SET n = c.n + excluded.n;
      ELSE
        UPDATE job_counts c SET n = c.n - x.n
        FROM (SELECT org_id, name, state, count(*) AS n FROM old_rows GROUP BY 1, 2, 3) x
        WHERE c.org_id = x.org_id AND c.name = x.name AND c.state = x.state;
      END IF;
      RETURN NULL;
    END $f$`,
    `CREATE TRIGGER jobs_counted_insert AFTER INSERT ON jobs REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION jobs_counted()`,
    `CREATE TRIGGER jobs_counted_update AFTER UPDATE ON jobs
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION jobs_counted()`,
    `CREATE TRIGGER jobs_counted_delete AFTER DELETE ON jobs REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION jobs_counted()`
  ],
  // A host's turn in one round trip (see store/host-pace.ts takeTurn): the row locked first,
  // then the leases counted by a statement of their own, which sees every lease committed
  // while it waited for the lock.
  '0017_host_turn_function': [
    `CREATE FUNCTION take_host_turn (
      p_host text, p_crawl_delay_ms integer, p_delay_ms integer, p_concurrency integer,
      p_max_wait_ms float8, p_lease_ms float8, p_slack_ms float8
    ) RETURNS TABLE (start_ms float8, lease uuid, busy_until_ms float8) LANGUAGE plpgsql AS $f$
    DECLARE
      pace record;
      delay float8 := greatest(p_delay_ms, p_crawl_delay_ms);
      now_ms float8;
      start float8;
      in_flight integer;
      back float8;
      lease_id uuid;
    BEGIN
      INSERT INTO host_pace AS p (host, delay_ms) VALUES (p_host, p_crawl_delay_ms)
      ON CONFLICT (host) DO UPDATE SET delay_ms = p_crawl_delay_ms
      RETURNING p.next_start, p.planned, p.backoff_until INTO pace;
      DELETE FROM host_leases WHERE host = p_host AND expires_at <= now();
      SELECT count(*) INTO in_flight FROM host_leases WHERE host = p_host AND expires_at > now();
      now_ms := extract(epoch FROM clock_timestamp()) * 1000;
      start := greatest(extract(epoch FROM greatest(pace.next_start, pace.backoff_until)) * 1000, now_ms);
      IF in_flight >= p_concurrency OR start - now_ms > p_max_wait_ms THEN
        back := greatest(extract(epoch FROM pace.planned) * 1000, start, now_ms + delay);
        UPDATE host_pace SET planned = to_timestamp((back + delay) / 1000) WHERE host = p_host;
        RETURN QUERY SELECT NULL::float8, NULL::uuid, back;
        RETURN;
      END IF;
      UPDATE host_pace SET next_start = to_timestamp((start + delay + p_slack_ms) / 1000),
        planned = greatest(planned, to_timestamp((start + delay + p_slack_ms) / 1000))
      WHERE host = p_host;
      INSERT INTO host_leases (host, expires_at) VALUES (p_host, to_timestamp((start + p_lease_ms) / 1000))
      RETURNING id INTO lease_id;
      RETURN QUERY SELECT start, lease_id, NULL::float8;
    END $f$`
  ],
  '0018_domain_tags': [
    "ALTER TABLE domains ADD COLUMN tags text[] NOT NULL DEFAULT '{}'",
    'ALTER TABLE alert_preferences ADD COLUMN tags text[]',
    'ALTER TABLE webhook_endpoints ADD COLUMN tags text[]'
  ],
  '0019_learned_rules': [
    `CREATE TABLE learned_rules (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      page_id uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('mute', 'lower', 'raise')),
      pattern text,
      change_type text,
      from_change_id uuid REFERENCES changes (id) ON DELETE SET NULL,
      created_by text,
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((kind = 'mute') = (pattern IS NOT NULL) AND (kind = 'mute') = (change_type IS NULL))
    )`,
    'CREATE INDEX learned_rules_page ON learned_rules (page_id, created_at DESC)',
    'CREATE INDEX learned_rules_org ON learned_rules (org_id, created_at DESC)',
    "ALTER TABLE changes ADD COLUMN verdict text CHECK (verdict IN ('important', 'not_important'))",
    'ALTER TABLE changes ADD COLUMN pinned_at timestamptz',
    'ALTER TABLE changes ADD COLUMN learned_severity_from text',
    'ALTER TABLE changes ADD COLUMN learned_rule_id uuid REFERENCES learned_rules (id) ON DELETE SET NULL',
    'CREATE INDEX changes_org_pinned ON changes (org_id, pinned_at DESC) WHERE pinned_at IS NOT NULL'
  ],
  '0020_page_events': [
    `CREATE TABLE page_events (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      domain_id uuid NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
      page_id uuid REFERENCES pages (id) ON DELETE SET NULL,
      kind text NOT NULL CHECK (kind IN ('discovered', 'removed')),
      url text NOT NULL,
      page_type text NOT NULL,
      watched boolean NOT NULL,
      reason text,
      sitemap_lastmod timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      alerted_at timestamptz,
      UNIQUE (domain_id, kind, url)
    )`,
    'CREATE INDEX page_events_org_time ON page_events (org_id, created_at DESC, id DESC)',
    'CREATE INDEX page_events_unalerted ON page_events (created_at) WHERE alerted_at IS NULL',
    "ALTER TABLE domains ADD COLUMN next_discovery_at timestamptz DEFAULT now() + interval '7 days'",
    'ALTER TABLE pages ADD COLUMN in_sitemap boolean NOT NULL DEFAULT false',
    'CREATE INDEX domains_discovery_due ON domains (next_discovery_at)'
  ],
  '0021_alert_rules': [
    `CREATE TABLE alert_rules (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      name text NOT NULL,
      position integer NOT NULL,
      match jsonb NOT NULL,
      action text NOT NULL CHECK (action IN ('alert', 'digest', 'mute')),
      enabled boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
    'CREATE INDEX alert_rules_org ON alert_rules (org_id, position)',
    "ALTER TABLE changes ADD COLUMN alert_action text CHECK (alert_action IN ('alert', 'digest', 'mute'))",
    'ALTER TABLE changes ADD COLUMN alert_rule_id uuid REFERENCES alert_rules (id) ON DELETE SET NULL'
  ],
  // Crawls are queued in their records (see queue/crawl-lane.ts): taken by host, completed
  // and retried there, so that nothing of ours writes pg-boss's tables. \`lane\` is the
  // queue a crawl waits in (plain or rendered), \`priority\` its fair rank, negated.
  '0022_crawls_queued_here': [
    "ALTER TABLE jobs ADD COLUMN lane text CHECK (lane IN ('crawl.page', 'crawl.render'))",
    'ALTER TABLE jobs ADD COLUMN priority integer NOT NULL DEFAULT 0',
    // The fetch that took a running crawl: one whose answer was lost finds its crawls again.
    'ALTER TABLE jobs ADD COLUMN taken_by uuid',
    // An existing deployment's unfinished crawls move over once, each to the lane pg-boss had it in.
    `DO $$ BEGIN
      UPDATE jobs SET lane = 'crawl.page' WHERE name = 'crawl.page' AND state IN ('waiting', 'active');
      IF to_regclass('pgboss.job') IS NOT NULL THEN
        UPDATE jobs j SET lane = q.name FROM pgboss.job q
        WHERE q.id = j.id AND q.name = 'crawl.render' AND j.lane IS NOT NULL;
      END IF;
    END $$`,
    "CREATE INDEX jobs_crawl_order ON jobs (lane, priority DESC, created_at, id) WHERE state = 'waiting'",
    "CREATE INDEX jobs_crawls_active ON jobs (processed_at) WHERE state = 'active' AND lane IS NOT NULL",
    "CREATE INDEX jobs_taken_by ON jobs (taken_by) WHERE state = 'active'",
    // The jobs of pg-boss's queues this process is running, on the embedded database: the
    // ones a process that died left running are handed back when the next one starts.
    `CREATE TABLE held_jobs (
      id uuid PRIMARY KEY,
      queue text NOT NULL,
      taken_at timestamptz NOT NULL DEFAULT now()
    )`
  ],
  // Bounded discoveries (a hostile site cannot take the process): what cut the last one
  // short, and the index that finds a domain's discovery waiting or running (one at a time).
  '0023_bounded_discovery': [
    'ALTER TABLE domains ADD COLUMN discovery_note text',
    // Feed addresses a program asks for with its API key are that key's: revoked with it.
    'ALTER TABLE api_keys ADD COLUMN feed_token text UNIQUE',
    // What its type's reader could not read or compare at its last check (it was compared as text).
    'ALTER TABLE pages ADD COLUMN reading_note text',
    // A destination's filters and a member's e-mail filters are kept as an alert rule's match (see
    // vocabulary/alert-rules.ts), which one evaluator reads: the five columns each had move into it.
    ...['webhook_endpoints', 'alert_preferences'].flatMap(table => [
      `ALTER TABLE ${table} ADD COLUMN match jsonb NOT NULL DEFAULT '{}'`,
      `UPDATE ${table} SET match = jsonb_strip_nulls(jsonb_build_object(
        'minSeverity', CASE WHEN min_severity <> 'low' THEN min_severity END,
        'changeTypes', to_jsonb(change_types), 'domainIds', to_jsonb(domain_ids),
        'pageTypes', to_jsonb(page_types), 'tags', to_jsonb(tags)))`,
      ...['min_severity', 'change_types', 'domain_ids', 'page_types', 'tags']
        .map(column => `ALTER TABLE ${table} DROP COLUMN ${column}`)
    ]),
    `CREATE INDEX jobs_pending_discovery ON jobs (domain_id)
      WHERE name = 'discover.pages' AND state IN ('waiting', 'active')`,
    // A muting rule learned from one fact of a change ("price moves of Cloud VPS 10"): the page's ignoreFacts entry.
    'ALTER TABLE learned_rules ADD COLUMN fact jsonb',
    'ALTER TABLE learned_rules DROP CONSTRAINT learned_rules_check',
    `ALTER TABLE learned_rules ADD CONSTRAINT learned_rules_check CHECK (
      (kind = 'mute') = ((pattern IS NOT NULL) <> (fact IS NOT NULL)) AND (kind = 'mute') = (change_type IS NULL))`
  ],
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
