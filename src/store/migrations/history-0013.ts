// Steps 0013 to 0023: what an older database still runs (../migrations.ts joins the lists).
export const MIGRATIONS_0013: Record<string, string[]> = {
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
