import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely'

// One list of migrations for PGlite and PostgreSQL. Each is a list of single
// statements because PGlite's parameterised protocol takes one statement at a time.
const migrations: Record<string, string[]> = {
  '0001_initial': [
    `CREATE TABLE orgs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL,
      plan text NOT NULL CHECK (plan IN ('trial', 'starter', 'pro', 'enterprise')),
      trial_ends_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
    `CREATE TABLE api_keys (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      key_hash text NOT NULL UNIQUE,
      key_prefix text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz
    )`,
    'CREATE INDEX api_keys_org ON api_keys (org_id)',
    `CREATE TABLE billing_periods (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      plan text NOT NULL,
      starts_at timestamptz NOT NULL,
      ends_at timestamptz NOT NULL,
      domains_used integer NOT NULL DEFAULT 0,
      pages_used integer NOT NULL DEFAULT 0,
      manual_rechecks_used integer NOT NULL DEFAULT 0,
      research_credits_used integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (org_id, starts_at)
    )`,
    `CREATE TABLE domains (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      hostname text NOT NULL,
      display_name text,
      status text NOT NULL DEFAULT 'discovering' CHECK (status IN ('discovering', 'active', 'paused', 'error')),
      check_frequency_hours integer NOT NULL DEFAULT 24,
      paused_reason text CHECK (paused_reason IN ('trial_expired', 'manual')),
      pages_added integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (org_id, hostname)
    )`,
    `CREATE TABLE pages (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      domain_id uuid NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      url text NOT NULL,
      url_hash text NOT NULL,
      page_type text NOT NULL DEFAULT 'other'
        CHECK (page_type IN ('pricing', 'features', 'terms', 'security', 'api_docs', 'changelog', 'other')),
      page_type_confidence numeric(3, 2) NOT NULL DEFAULT 1.00,
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'error')),
      monitoring_enabled boolean NOT NULL DEFAULT true,
      priority integer NOT NULL DEFAULT 5,
      last_check_at timestamptz,
      last_change_at timestamptz,
      next_crawl_at timestamptz NOT NULL DEFAULT now(),
      error_count integer NOT NULL DEFAULT 0,
      consecutive_failures integer NOT NULL DEFAULT 0,
      last_error text,
      etag text,
      last_modified text,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (domain_id, url_hash)
    )`,
    'CREATE INDEX pages_due ON pages (next_crawl_at) WHERE monitoring_enabled',
    `CREATE TABLE snapshots (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      page_id uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      content_hash text NOT NULL,
      content text NOT NULL,
      raw_html_gzip bytea,
      http_status integer NOT NULL,
      content_type text,
      created_at timestamptz NOT NULL DEFAULT now()
    )`,
    'CREATE INDEX snapshots_page_time ON snapshots (page_id, created_at DESC)',
    'CREATE INDEX snapshots_org_time ON snapshots (org_id, created_at)',
    `CREATE TABLE changes (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      page_id uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
      domain_id uuid NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      change_type text NOT NULL CHECK (change_type IN ('price_change', 'feature_added', 'feature_removed',
        'terms_update',
        'section_added', 'section_removed', 'content_change')),
      severity text NOT NULL CHECK (severity IN ('critical', 'high', 'medium', 'low')),
      confidence numeric(3, 2) NOT NULL,
      summary text NOT NULL,
      diff_data jsonb NOT NULL,
      snapshot_before_id uuid NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
      snapshot_after_id uuid NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
      acknowledged_at timestamptz,
      acknowledged_by uuid,
      created_at timestamptz NOT NULL DEFAULT now()
    )`,
    'CREATE INDEX changes_domain_time ON changes (domain_id, created_at DESC)',
    'CREATE INDEX changes_org_time ON changes (org_id, created_at DESC)',
    'CREATE INDEX changes_page ON changes (page_id)',
    // The queue (pg-boss) knows nothing of tenants; this row ties a queued job to its
    // organisation, domain and page, and carries the progress the contract shows.
    `CREATE TABLE jobs (
      id uuid PRIMARY KEY,
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      domain_id uuid NOT NULL,
      page_id uuid,
      name text NOT NULL CHECK (name IN ('crawl.page', 'discover.pages')),
      url text,
      progress integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now()
    )`,
    'CREATE INDEX jobs_org_time ON jobs (org_id, created_at DESC)',
    'CREATE INDEX jobs_page ON jobs (page_id) WHERE page_id IS NOT NULL'
  ],
  '0002_changes_alerts_rules': [
    // Full-text search over a change's summary and changed text, kept by PostgreSQL itself.
    // Slashes and currency signs split words, so "59" finds "$59/month".
    `ALTER TABLE changes ADD COLUMN search tsvector GENERATED ALWAYS AS (
      to_tsvector('english', regexp_replace(
        summary || ' ' || coalesce(diff_data->>'before', '') || ' ' || coalesce(diff_data->>'after', ''),
        '[/$€£¥]', ' ', 'g'))
    ) STORED`,
    'CREATE INDEX changes_search ON changes USING gin (search)',
    'CREATE INDEX changes_org_severity_time ON changes (org_id, severity, created_at DESC)',
    'CREATE INDEX changes_org_type_time ON changes (org_id, change_type, created_at DESC)',
    'CREATE INDEX changes_org_unacked_time ON changes (org_id, created_at DESC) WHERE acknowledged_at IS NULL',
    // Changes not yet handed to alerting: the outbox the dispatcher sweeps.
    'ALTER TABLE changes ADD COLUMN alerted_at timestamptz',
    // Changes from before alerting existed are not news: they are not sent.
    'UPDATE changes SET alerted_at = created_at',
    'CREATE INDEX changes_unalerted ON changes (created_at) WHERE alerted_at IS NULL',
    "ALTER TABLE pages ADD COLUMN noise_rules jsonb NOT NULL DEFAULT '{}'::jsonb",
    // Set when the noise rules change: the next crawl records a new baseline, not a change.
    'ALTER TABLE pages ADD COLUMN rebaseline boolean NOT NULL DEFAULT false',
    'ALTER TABLE orgs ADD COLUMN last_digest_at timestamptz',
    `CREATE TABLE webhook_endpoints (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('webhook', 'slack')),
      url text NOT NULL,
      secret text NOT NULL,
      description text,
      enabled boolean NOT NULL DEFAULT true,
      events text[] NOT NULL,
      min_severity text NOT NULL DEFAULT 'low' CHECK (min_severity IN ('critical', 'high', 'medium', 'low')),
      change_types text[],
      domain_ids uuid[],
      page_types text[],
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
    'CREATE INDEX webhook_endpoints_org ON webhook_endpoints (org_id)',
    `CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      event_type text NOT NULL,
      event_id text NOT NULL,
      payload jsonb NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      response_status integer,
      duration_ms integer,
      error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_attempt_at timestamptz,
      delivered_at timestamptz,
      UNIQUE (endpoint_id, event_type, event_id)
    )`,
    'CREATE INDEX webhook_deliveries_endpoint_time ON webhook_deliveries (endpoint_id, created_at DESC)'
  ],
  '0003_rendering': [
    "ALTER TABLE domains ADD COLUMN render text NOT NULL DEFAULT 'auto' CHECK (render IN ('auto', 'always', 'never'))",
    "ALTER TABLE pages ADD COLUMN render text CHECK (render IN ('auto', 'always', 'never'))",
    "ALTER TABLE pages ADD COLUMN rendered_with text CHECK (rendered_with IN ('http', 'browser'))",
    'ALTER TABLE pages ADD COLUMN render_reason text',
    'ALTER TABLE pages ADD COLUMN render_checked_at timestamptz',
    'ALTER TABLE pages ADD COLUMN screenshots boolean NOT NULL DEFAULT false',
    'ALTER TABLE pages ADD COLUMN visual_threshold numeric(5, 2) ' +
      'CHECK (visual_threshold > 0 AND visual_threshold <= 100)',
    // A page's look at one snapshot, deleted with it (the retention sweep deletes snapshots).
    `CREATE TABLE screenshots (
      snapshot_id uuid PRIMARY KEY REFERENCES snapshots (id) ON DELETE CASCADE,
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      image bytea NOT NULL,
      width integer NOT NULL,
      height integer NOT NULL
    )`,
    'CREATE TABLE service_secrets (name text PRIMARY KEY, value text NOT NULL)'
  ],
  '0004_page_type_source': [
    // Pages added by hand before this migration were given a type by a person or "other" by default.
    "ALTER TABLE pages ADD COLUMN page_type_source text NOT NULL DEFAULT 'content' " +
      "CHECK (page_type_source IN ('person', 'address', 'content'))",
    "UPDATE pages SET page_type_source = 'person' WHERE page_type_confidence = 1.00 AND page_type <> 'other'",
    "UPDATE pages SET page_type_source = 'address' WHERE page_type_confidence = 1.00 AND page_type = 'other'",
    // When the page's failure was alerted: its next failures are not, its recovery is.
    'ALTER TABLE pages ADD COLUMN failure_alerted_at timestamptz'
  ],
  '0005_people': [
    // E-mail addresses are compared as lower case; the hash is argon2id's encoded string.
    `CREATE TABLE users (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      email text NOT NULL UNIQUE CHECK (email = lower(email)),
      name text,
      password_hash text,
      created_at timestamptz NOT NULL DEFAULT now()
    )`,
    `CREATE TABLE memberships (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('viewer', 'editor', 'admin', 'owner')),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, org_id)
    )`,
    'CREATE INDEX memberships_org ON memberships (org_id)',
    // A session is known by the SHA-256 of its cookie; the organisation is the one the person works in.
    `CREATE TABLE sessions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      token_hash text NOT NULL UNIQUE,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      org_id uuid REFERENCES orgs (id) ON DELETE SET NULL,
      user_agent text,
      ip text,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_seen_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    )`,
    'CREATE INDEX sessions_user ON sessions (user_id)',
    // One-time links: the first owner's account, a password reset, an invitation. Known by their hash.
    `CREATE TABLE account_tokens (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      token_hash text NOT NULL UNIQUE,
      purpose text NOT NULL CHECK (purpose IN ('setup', 'reset', 'invite')),
      email text,
      user_id uuid REFERENCES users (id) ON DELETE CASCADE,
      org_id uuid REFERENCES orgs (id) ON DELETE CASCADE,
      role text CHECK (role IN ('viewer', 'editor', 'admin', 'owner')),
      invited_by uuid REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      used_at timestamptz
    )`,
    'CREATE INDEX account_tokens_org ON account_tokens (org_id) WHERE purpose = \'invite\'',
    // Keys made before scopes write, as they always could.
    "ALTER TABLE api_keys ADD COLUMN scope text NOT NULL DEFAULT 'write' CHECK (scope IN ('read', 'write'))",
    'ALTER TABLE api_keys ADD COLUMN created_by uuid REFERENCES users (id) ON DELETE SET NULL',
    'ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz',
    'ALTER TABLE changes ADD COLUMN acknowledged_by_user uuid REFERENCES users (id) ON DELETE SET NULL'
  ],
  // The app's domain list counts each domain's unacknowledged changes by severity: read from this index alone,
  // in its order, 100,000 open changes take 9 ms instead of 26 ms.
  '0006_open_changes': [
    'CREATE INDEX changes_open_by_domain ON changes (org_id, domain_id, severity) WHERE acknowledged_at IS NULL'
  ],
  '0007_mail_alerts': [
    `CREATE TABLE alert_preferences (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      mode text NOT NULL CHECK (mode IN ('realtime', 'daily', 'weekly', 'off')),
      min_severity text NOT NULL DEFAULT 'low',
      change_types text[],
      domain_ids uuid[],
      page_types text[],
      time_zone text NOT NULL DEFAULT 'UTC',
      hour integer NOT NULL DEFAULT 8 CHECK (hour BETWEEN 0 AND 23),
      weekday integer NOT NULL DEFAULT 1 CHECK (weekday BETWEEN 0 AND 6),
      last_digest_at timestamptz,
      bounces integer NOT NULL DEFAULT 0,
      paused_reason text,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, org_id)
    )`,
    `CREATE TABLE email_deliveries (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      to_address text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('change', 'digest')),
      event_id text NOT NULL,
      subject text NOT NULL,
      payload jsonb NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      smtp_response text,
      error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_attempt_at timestamptz,
      delivered_at timestamptz,
      UNIQUE (user_id, org_id, kind, event_id)
    )`,
    'CREATE INDEX email_deliveries_org_time ON email_deliveries (org_id, created_at DESC)',
    'ALTER TABLE orgs ADD COLUMN feed_token text UNIQUE'
  ],
  '0008_share_links': [
    'ALTER TABLE orgs ADD COLUMN share_links boolean NOT NULL DEFAULT false'
  ],
  // Politeness for the whole fleet: one row per watched host (its next free start, the
  // turns promised to queued jobs, its Retry-After and Crawl-delay), and a lease for
  // each request in flight, which expires if its worker dies.
  '0009_host_pace': [
    `CREATE UNLOGGED TABLE host_pace (
      host text PRIMARY KEY,
      next_start timestamptz NOT NULL DEFAULT now(),
      planned timestamptz NOT NULL DEFAULT now(),
      backoff_until timestamptz NOT NULL DEFAULT now(),
      delay_ms integer NOT NULL DEFAULT 0
    )`,
    `CREATE UNLOGGED TABLE host_leases (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      host text NOT NULL,
      expires_at timestamptz NOT NULL
    )`,
    'CREATE INDEX host_leases_host ON host_leases (host, expires_at)'
  ],
  // A host whose next crawl a worker has just taken from the queue, until that crawl takes
  // its turn: other workers' fetches leave the host's crawls alone meanwhile.
  '0010_host_claims': [
    "ALTER TABLE host_pace ADD COLUMN claimed_until timestamptz NOT NULL DEFAULT '-infinity'"
  ],
  // The document an intelligence page is read with, watched as part of it: an api_docs
  // page's OpenAPI description, a changelog's feed.
  '0011_snapshot_documents': [
    'ALTER TABLE snapshots ADD COLUMN document_url text, ADD COLUMN document_gzip bytea, ADD COLUMN document_type text'
  ],
  // Research briefs, bought with a research credit: the billing period that paid, so that a
  // brief whose job fails for good gives the credit back to it (refunded_at, once).
  '0012_research_briefs': [
    `CREATE TABLE research_briefs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      domain_id uuid NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
      job_id uuid NOT NULL,
      period_id uuid REFERENCES billing_periods (id) ON DELETE SET NULL,
      status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'building', 'ready', 'failed')),
      brief jsonb,
      failed_reason text,
      refunded_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz
    )`,
    'CREATE INDEX research_briefs_domain_time ON research_briefs (domain_id, created_at DESC)',
    'CREATE INDEX research_briefs_org ON research_briefs (org_id)',
    `CREATE INDEX research_briefs_unfinished ON research_briefs (created_at)
      WHERE status IN ('queued', 'building')`,
    'ALTER TABLE jobs DROP CONSTRAINT jobs_name_check',
    `ALTER TABLE jobs ADD CONSTRAINT jobs_name_check
      CHECK (name IN ('crawl.page', 'discover.pages', 'research.domain'))`
  ],
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
  ]
}

class StaticProvider implements MigrationProvider {
  async getMigrations (): Promise<Record<string, Migration>> {
    return Object.fromEntries(
      Object.entries(migrations).map(([name, statements]) => [
        name,
        {
          async up (db: Kysely<any>) {
            for (const statement of statements) await sql.raw(statement).execute(db)
          }
        }
      ])
    )
  }
}

/** Migrates to the latest schema, or up to the migration `upTo` (for tests of an upgrade). */
export async function migrate (db: Kysely<any>, upTo?: string): Promise<void> {
  const migrator = new Migrator({ db, provider: new StaticProvider() })
  const { error, results } = upTo ? await migrator.migrateTo(upTo) : await migrator.migrateToLatest()
  const failed = results?.find(r => r.status === 'Error')
  if (error) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? String(error)}`)
  }
}
