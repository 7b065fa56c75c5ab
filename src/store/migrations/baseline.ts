// Written by scripts/write-baseline.ts: do not edit. The schema that the steps of history-*.ts
// make, through 0035_one_pace_per_host, as pg_dump prints it: what a new database starts from (../migrations.ts).
// Functions come before the tables they read: it runs with check_function_bodies off.
/* eslint-disable @stylistic/max-len, @stylistic/quotes -- pg_dump's lines, each statement a template */

export const BASELINE_THROUGH = '0035_one_pace_per_host'

export const BASELINE: string[] = [
  `CREATE FUNCTION audit_events_unchanged() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    BEGIN
      RAISE EXCEPTION 'audit events are never changed';
    END $$`,
  `CREATE FUNCTION data_written() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    BEGIN
      PERFORM pg_notify('sitewatch_data', org_id::text || ':' || pg_current_xact_id()::text)
        FROM (SELECT DISTINCT org_id FROM written WHERE org_id IS NOT NULL) o;
      RETURN NULL;
    END $$`,
  `CREATE FUNCTION jobs_counted() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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
    END $$`,
  `CREATE FUNCTION member_written() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    BEGIN
      PERFORM pg_notify('sitewatch_data', m.org_id::text || ':' || pg_current_xact_id()::text)
        FROM (SELECT DISTINCT org_id FROM memberships WHERE user_id IN (SELECT id FROM written)) m;
      RETURN NULL;
    END $$`,
  `CREATE FUNCTION org_written() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    BEGIN
      PERFORM pg_notify('sitewatch_data', id::text || ':' || pg_current_xact_id()::text) FROM written;
      RETURN NULL;
    END $$`,
  `CREATE FUNCTION page_still_at(p_page uuid, p_latest uuid) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
    BEGIN
      PERFORM 1 FROM pages WHERE id = p_page FOR UPDATE;
      IF (SELECT id FROM snapshots WHERE page_id = p_page ORDER BY created_at DESC, id DESC LIMIT 1)
        IS DISTINCT FROM p_latest THEN
        RAISE EXCEPTION 'the page was recorded meanwhile' USING ERRCODE = 'SWSUP';
      END IF;
      RETURN true;
    END $$`,
  `CREATE FUNCTION take_host_turn(p_host text, p_crawl_delay_ms integer, p_delay_ms integer, p_concurrency integer, p_max_wait_ms double precision, p_lease_ms double precision, p_slack_ms double precision, p_lead_ms double precision, p_passed_ms double precision) RETURNS TABLE(start_ms double precision, lease uuid, busy_until_ms double precision)
    LANGUAGE plpgsql
    AS $$
    DECLARE
      pace record;
      delay float8 := greatest(p_delay_ms, p_crawl_delay_ms);
      now_ms float8;
      start float8;
      in_flight integer;
      lease_id uuid;
    BEGIN
      INSERT INTO host_pace AS p (host, delay_ms) VALUES (p_host, p_crawl_delay_ms)
      ON CONFLICT (host) DO UPDATE SET delay_ms = p_crawl_delay_ms
      RETURNING p.next_start, p.backoff_until INTO pace;
      DELETE FROM host_leases WHERE host = p_host AND expires_at <= now();
      SELECT count(*) INTO in_flight FROM host_leases WHERE host = p_host AND expires_at > now();
      now_ms := extract(epoch FROM clock_timestamp()) * 1000;
      start := greatest(extract(epoch FROM greatest(pace.next_start, pace.backoff_until)) * 1000, now_ms + p_lead_ms);
      -- The caller gave up a turn that went late, and no later one was given: the host has
      -- seen nothing since the one before it, so the next starts from now, not a delay after
      -- (the caller is ready: its request waits only for this answer, within two slacks).
      IF abs(extract(epoch FROM pace.next_start) * 1000 - (p_passed_ms + delay + p_slack_ms)) < 0.01 THEN
        start := greatest(extract(epoch FROM pace.backoff_until) * 1000, now_ms + 2 * p_slack_ms);
      END IF;
      IF in_flight >= p_concurrency THEN
        RETURN QUERY SELECT NULL::float8, NULL::uuid, greatest(start, now_ms + delay);
        RETURN;
      END IF;
      IF start - now_ms > p_max_wait_ms THEN
        RETURN QUERY SELECT NULL::float8, NULL::uuid, start;
        RETURN;
      END IF;
      UPDATE host_pace SET next_start = to_timestamp((start + delay + p_slack_ms) / 1000) WHERE host = p_host;
      INSERT INTO host_leases (host, expires_at) VALUES (p_host, to_timestamp((start + p_lease_ms) / 1000))
      RETURNING id INTO lease_id;
      RETURN QUERY SELECT start, lease_id, NULL::float8;
    END $$`,
  `CREATE TABLE account_tokens (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    token_hash text NOT NULL,
    purpose text NOT NULL,
    email text,
    user_id uuid,
    org_id uuid,
    role text,
    invited_by uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone,
    CONSTRAINT account_tokens_purpose_check CHECK ((purpose = ANY (ARRAY['setup'::text, 'reset'::text, 'invite'::text]))),
    CONSTRAINT account_tokens_role_check CHECK ((role = ANY (ARRAY['viewer'::text, 'editor'::text, 'admin'::text, 'owner'::text])))
)`,
  `CREATE TABLE alert_preferences (
    user_id uuid NOT NULL,
    org_id uuid NOT NULL,
    mode text NOT NULL,
    time_zone text DEFAULT 'UTC'::text NOT NULL,
    hour integer DEFAULT 8 NOT NULL,
    weekday integer DEFAULT 1 NOT NULL,
    last_digest_at timestamp with time zone,
    bounces integer DEFAULT 0 NOT NULL,
    paused_reason text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    match jsonb DEFAULT '{}'::jsonb NOT NULL,
    CONSTRAINT alert_preferences_hour_check CHECK (((hour >= 0) AND (hour <= 23))),
    CONSTRAINT alert_preferences_mode_check CHECK ((mode = ANY (ARRAY['realtime'::text, 'daily'::text, 'weekly'::text, 'off'::text]))),
    CONSTRAINT alert_preferences_weekday_check CHECK (((weekday >= 0) AND (weekday <= 6)))
)`,
  `CREATE TABLE alert_rules (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    org_id uuid NOT NULL,
    name text NOT NULL,
    "position" integer NOT NULL,
    match jsonb NOT NULL,
    action text NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT alert_rules_action_check CHECK ((action = ANY (ARRAY['alert'::text, 'digest'::text, 'mute'::text])))
)`,
  `CREATE TABLE api_keys (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    org_id uuid NOT NULL,
    key_hash text NOT NULL,
    key_prefix text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_at timestamp with time zone,
    scope text DEFAULT 'write'::text NOT NULL,
    created_by uuid,
    last_used_at timestamp with time zone,
    name text,
    feed_token text,
    CONSTRAINT api_keys_scope_check CHECK ((scope = ANY (ARRAY['read'::text, 'write'::text])))
)`,
  `CREATE TABLE audit_events (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    org_id uuid,
    at timestamp with time zone DEFAULT now() NOT NULL,
    actor_kind text NOT NULL,
    actor_user_id uuid,
    actor_key_id uuid,
    actor_label text NOT NULL,
    ip text,
    action text NOT NULL,
    object_type text NOT NULL,
    object_id text,
    object_label text,
    details jsonb DEFAULT '{}'::jsonb NOT NULL,
    trace_id text
)`,
  `CREATE TABLE auth_failures (
    key text NOT NULL,
    failures integer NOT NULL,
    window_start timestamp with time zone NOT NULL
)`,
  `CREATE TABLE billing_periods (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    org_id uuid NOT NULL,
    plan text NOT NULL,
    starts_at timestamp with time zone NOT NULL,
    ends_at timestamp with time zone NOT NULL,
    domains_used integer DEFAULT 0 NOT NULL,
    pages_used integer DEFAULT 0 NOT NULL,
    manual_rechecks_used integer DEFAULT 0 NOT NULL,
    research_credits_used integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
)`,
  `CREATE TABLE changes (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    page_id uuid NOT NULL,
    domain_id uuid NOT NULL,
    org_id uuid NOT NULL,
    change_type text NOT NULL,
    severity text NOT NULL,
    confidence numeric(3,2) NOT NULL,
    summary text NOT NULL,
    diff_data jsonb NOT NULL,
    snapshot_before_id uuid NOT NULL,
    snapshot_after_id uuid NOT NULL,
    acknowledged_at timestamp with time zone,
    acknowledged_by uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    alerted_at timestamp with time zone,
    acknowledged_by_user uuid,
    search tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, "left"(regexp_replace(((summary || ' '::text) || COALESCE((jsonb_path_query_array(diff_data, '$."hunks"[*]."lines"[*]?(@."type" != "context")."content"'::jsonpath))::text, ''::text)), '[/$€£¥"\\[\\],]'::text, ' '::text, 'g'::text), 200000))) STORED,
    verdict text,
    pinned_at timestamp with time zone,
    learned_severity_from text,
    learned_rule_id uuid,
    alert_action text,
    alert_rule_id uuid,
    CONSTRAINT changes_alert_action_check CHECK ((alert_action = ANY (ARRAY['alert'::text, 'digest'::text, 'mute'::text]))),
    CONSTRAINT changes_change_type_check CHECK ((change_type = ANY (ARRAY['price_change'::text, 'feature_added'::text, 'feature_removed'::text, 'terms_update'::text, 'section_added'::text, 'section_removed'::text, 'content_change'::text]))),
    CONSTRAINT changes_severity_check CHECK ((severity = ANY (ARRAY['critical'::text, 'high'::text, 'medium'::text, 'low'::text]))),
    CONSTRAINT changes_verdict_check CHECK ((verdict = ANY (ARRAY['important'::text, 'not_important'::text])))
)`,
  `CREATE TABLE domains (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    org_id uuid NOT NULL,
    hostname text NOT NULL,
    display_name text,
    status text DEFAULT 'discovering'::text NOT NULL,
    check_frequency_hours integer DEFAULT 24 NOT NULL,
    paused_reason text,
    pages_added integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    render text DEFAULT 'auto'::text NOT NULL,
    discovery_error text,
    discovery_error_code text,
    discovery_failed_at timestamp with time zone,
    tags text[] DEFAULT '{}'::text[] NOT NULL,
    next_discovery_at timestamp with time zone DEFAULT (now() + '7 days'::interval),
    discovery_note text,
    CONSTRAINT domains_paused_reason_check CHECK ((paused_reason = ANY (ARRAY['trial_expired'::text, 'manual'::text]))),
    CONSTRAINT domains_render_check CHECK ((render = ANY (ARRAY['auto'::text, 'always'::text, 'never'::text]))),
    CONSTRAINT domains_status_check CHECK ((status = ANY (ARRAY['discovering'::text, 'active'::text, 'paused'::text, 'error'::text])))
)`,
  `CREATE TABLE email_deliveries (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    org_id uuid NOT NULL,
    user_id uuid NOT NULL,
    to_address text NOT NULL,
    kind text NOT NULL,
    event_id text NOT NULL,
    subject text NOT NULL,
    payload jsonb NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    smtp_response text,
    error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_attempt_at timestamp with time zone,
    delivered_at timestamp with time zone,
    CONSTRAINT email_deliveries_kind_check CHECK ((kind = ANY (ARRAY['change'::text, 'digest'::text]))),
    CONSTRAINT email_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text, 'not_sent'::text])))
)`,
  `CREATE TABLE host_leases (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    host text NOT NULL,
    expires_at timestamp with time zone NOT NULL
)`,
  `CREATE TABLE host_pace (
    host text NOT NULL,
    next_start timestamp with time zone DEFAULT now() NOT NULL,
    backoff_until timestamp with time zone DEFAULT now() NOT NULL,
    delay_ms integer DEFAULT 0 NOT NULL
)`,
  `CREATE TABLE job_counts (
    org_id uuid NOT NULL,
    name text NOT NULL,
    state text NOT NULL,
    n bigint NOT NULL
)`,
  `CREATE TABLE jobs (
    id uuid NOT NULL,
    org_id uuid,
    domain_id uuid,
    page_id uuid,
    name text NOT NULL,
    url text,
    progress integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    state text DEFAULT 'waiting'::text NOT NULL,
    start_after timestamp with time zone DEFAULT now() NOT NULL,
    attempts_made integer DEFAULT 0 NOT NULL,
    max_attempts integer DEFAULT 3 NOT NULL,
    processed_at timestamp with time zone,
    finished_at timestamp with time zone,
    failed_reason text,
    return_value jsonb,
    lane text NOT NULL,
    priority integer DEFAULT 0 NOT NULL,
    data jsonb,
    owner uuid,
    singleton text,
    gave_up_at timestamp with time zone,
    host text GENERATED ALWAYS AS ("substring"(url, '^[a-z]+://([^/?#]+)'::text)) STORED,
    CONSTRAINT jobs_state_check CHECK ((state = ANY (ARRAY['waiting'::text, 'active'::text, 'completed'::text, 'failed'::text])))
)`,
  `CREATE TABLE learned_rules (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    org_id uuid NOT NULL,
    page_id uuid NOT NULL,
    kind text NOT NULL,
    pattern text,
    change_type text,
    from_change_id uuid,
    created_by text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    fact jsonb,
    CONSTRAINT learned_rules_check CHECK ((((kind = 'mute'::text) = ((pattern IS NOT NULL) <> (fact IS NOT NULL))) AND ((kind = 'mute'::text) = (change_type IS NULL)))),
    CONSTRAINT learned_rules_kind_check CHECK ((kind = ANY (ARRAY['mute'::text, 'lower'::text, 'raise'::text])))
)`,
  `CREATE TABLE memberships (
    user_id uuid NOT NULL,
    org_id uuid NOT NULL,
    role text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    feed_token text,
    CONSTRAINT memberships_role_check CHECK ((role = ANY (ARRAY['viewer'::text, 'editor'::text, 'admin'::text, 'owner'::text])))
)`,
  `CREATE TABLE orgs (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    name text NOT NULL,
    plan text NOT NULL,
    trial_ends_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    last_digest_at timestamp with time zone,
    feed_token text,
    share_links boolean DEFAULT false NOT NULL,
    CONSTRAINT orgs_plan_check CHECK ((plan = ANY (ARRAY['trial'::text, 'starter'::text, 'pro'::text, 'enterprise'::text])))
)`,
  `CREATE TABLE page_events (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    org_id uuid NOT NULL,
    domain_id uuid NOT NULL,
    page_id uuid,
    kind text NOT NULL,
    url text NOT NULL,
    page_type text NOT NULL,
    watched boolean NOT NULL,
    reason text,
    sitemap_lastmod timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    alerted_at timestamp with time zone,
    CONSTRAINT page_events_kind_check CHECK ((kind = ANY (ARRAY['discovered'::text, 'removed'::text])))
)`,
  `CREATE TABLE pages (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    domain_id uuid NOT NULL,
    org_id uuid NOT NULL,
    url text NOT NULL,
    url_hash text NOT NULL,
    page_type text DEFAULT 'other'::text NOT NULL,
    page_type_confidence numeric(3,2) DEFAULT 1.00 NOT NULL,
    status text DEFAULT 'active'::text NOT NULL,
    monitoring_enabled boolean DEFAULT true NOT NULL,
    priority integer DEFAULT 5 NOT NULL,
    last_check_at timestamp with time zone,
    last_change_at timestamp with time zone,
    next_crawl_at timestamp with time zone DEFAULT now() NOT NULL,
    error_count integer DEFAULT 0 NOT NULL,
    consecutive_failures integer DEFAULT 0 NOT NULL,
    last_error text,
    etag text,
    last_modified text,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    noise_rules jsonb DEFAULT '{}'::jsonb NOT NULL,
    rebaseline boolean DEFAULT false NOT NULL,
    render text,
    rendered_with text,
    render_reason text,
    render_checked_at timestamp with time zone,
    screenshots boolean DEFAULT false NOT NULL,
    visual_threshold numeric(5,2),
    page_type_source text DEFAULT 'content'::text NOT NULL,
    failure_alerted_at timestamp with time zone,
    failure_code text,
    failing_since timestamp with time zone,
    in_sitemap boolean DEFAULT false NOT NULL,
    reading_note text,
    name text,
    CONSTRAINT pages_name_check CHECK (((name IS NULL) OR ((char_length(name) >= 1) AND (char_length(name) <= 120)))),
    CONSTRAINT pages_page_type_check CHECK ((page_type = ANY (ARRAY['pricing'::text, 'features'::text, 'terms'::text, 'security'::text, 'api_docs'::text, 'changelog'::text, 'other'::text]))),
    CONSTRAINT pages_page_type_source_check CHECK ((page_type_source = ANY (ARRAY['person'::text, 'address'::text, 'content'::text]))),
    CONSTRAINT pages_render_check CHECK ((render = ANY (ARRAY['auto'::text, 'always'::text, 'never'::text]))),
    CONSTRAINT pages_rendered_with_check CHECK ((rendered_with = ANY (ARRAY['http'::text, 'browser'::text]))),
    CONSTRAINT pages_status_check CHECK ((status = ANY (ARRAY['active'::text, 'error'::text]))),
    CONSTRAINT pages_visual_threshold_check CHECK (((visual_threshold > (0)::numeric) AND (visual_threshold <= (100)::numeric)))
)`,
  `CREATE TABLE research_briefs (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    org_id uuid NOT NULL,
    domain_id uuid NOT NULL,
    job_id uuid NOT NULL,
    period_id uuid,
    status text DEFAULT 'queued'::text NOT NULL,
    brief jsonb,
    failed_reason text,
    refunded_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    completed_at timestamp with time zone,
    CONSTRAINT research_briefs_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'building'::text, 'ready'::text, 'failed'::text])))
)`,
  `CREATE TABLE robots_files (
    origin text NOT NULL,
    body text NOT NULL,
    expires_at timestamp with time zone NOT NULL
)`,
  `CREATE TABLE screenshots (
    snapshot_id uuid NOT NULL,
    org_id uuid NOT NULL,
    image bytea NOT NULL,
    width integer NOT NULL,
    height integer NOT NULL,
    boxes jsonb
)`,
  `CREATE TABLE service_secrets (
    name text NOT NULL,
    value text NOT NULL
)`,
  `CREATE TABLE sessions (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    token_hash text NOT NULL,
    user_id uuid NOT NULL,
    org_id uuid,
    user_agent text,
    ip text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    single_sign_on boolean DEFAULT false NOT NULL,
    sso_org_id uuid,
    sso_subject text,
    sso_sid text
)`,
  `CREATE TABLE share_links (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    token_hash text NOT NULL,
    org_id uuid NOT NULL,
    change_id uuid NOT NULL,
    created_by uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    revoked_at timestamp with time zone
)`,
  `CREATE TABLE snapshots (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    page_id uuid NOT NULL,
    org_id uuid NOT NULL,
    content_hash text NOT NULL,
    content text NOT NULL,
    raw_html_gzip bytea,
    http_status integer NOT NULL,
    content_type text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    document_url text,
    document_gzip bytea,
    document_type text
)`,
  `CREATE TABLE sso_attempts (
    state_hash text NOT NULL,
    org_id uuid NOT NULL,
    code_verifier text NOT NULL,
    nonce text NOT NULL,
    next text,
    expires_at timestamp with time zone NOT NULL,
    browser_hash text NOT NULL
)`,
  `CREATE TABLE sso_domains (
    domain text NOT NULL,
    org_id uuid NOT NULL,
    token text NOT NULL,
    verified_at timestamp with time zone,
    checked_at timestamp with time zone,
    check_error text
)`,
  `CREATE TABLE sso_identities (
    org_id uuid NOT NULL,
    issuer text NOT NULL,
    subject text NOT NULL,
    user_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
)`,
  `CREATE TABLE sso_links (
    token_hash text NOT NULL,
    browser_hash text NOT NULL,
    mail_hash text,
    org_id uuid NOT NULL,
    user_id uuid NOT NULL,
    issuer text NOT NULL,
    subject text NOT NULL,
    sid text,
    next text,
    expires_at timestamp with time zone NOT NULL
)`,
  `CREATE TABLE sso_settings (
    org_id uuid NOT NULL,
    issuer text NOT NULL,
    client_id text NOT NULL,
    client_secret text NOT NULL,
    default_role text NOT NULL,
    required boolean DEFAULT false NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    client_auth text DEFAULT 'client_secret_post'::text NOT NULL
)`,
  `CREATE TABLE users (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    email text NOT NULL,
    name text,
    password_hash text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT users_email_check CHECK ((email = lower(email)))
)`,
  `CREATE TABLE webhook_deliveries (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    endpoint_id uuid NOT NULL,
    org_id uuid NOT NULL,
    event_type text NOT NULL,
    event_id text NOT NULL,
    payload jsonb NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    response_status integer,
    duration_ms integer,
    error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_attempt_at timestamp with time zone,
    delivered_at timestamp with time zone,
    CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text])))
)`,
  `CREATE TABLE webhook_endpoints (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    org_id uuid NOT NULL,
    kind text NOT NULL,
    url text NOT NULL,
    secret text NOT NULL,
    description text,
    enabled boolean DEFAULT true NOT NULL,
    events text[] NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    match jsonb DEFAULT '{}'::jsonb NOT NULL,
    CONSTRAINT webhook_endpoints_kind_check CHECK ((kind = ANY (ARRAY['webhook'::text, 'slack'::text])))
)`,
  `CREATE TABLE workers (
    id uuid NOT NULL,
    host text NOT NULL,
    pid integer NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    heartbeat_at timestamp with time zone DEFAULT now() NOT NULL
)`,
  `ALTER TABLE ONLY account_tokens
    ADD CONSTRAINT account_tokens_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY account_tokens
    ADD CONSTRAINT account_tokens_token_hash_key UNIQUE (token_hash)`,
  `ALTER TABLE ONLY alert_preferences
    ADD CONSTRAINT alert_preferences_pkey PRIMARY KEY (user_id, org_id)`,
  `ALTER TABLE ONLY alert_rules
    ADD CONSTRAINT alert_rules_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY api_keys
    ADD CONSTRAINT api_keys_feed_token_key UNIQUE (feed_token)`,
  `ALTER TABLE ONLY api_keys
    ADD CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash)`,
  `ALTER TABLE ONLY api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY audit_events
    ADD CONSTRAINT audit_events_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY auth_failures
    ADD CONSTRAINT auth_failures_pkey PRIMARY KEY (key)`,
  `ALTER TABLE ONLY billing_periods
    ADD CONSTRAINT billing_periods_org_id_starts_at_key UNIQUE (org_id, starts_at)`,
  `ALTER TABLE ONLY billing_periods
    ADD CONSTRAINT billing_periods_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY changes
    ADD CONSTRAINT changes_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY domains
    ADD CONSTRAINT domains_org_id_hostname_key UNIQUE (org_id, hostname)`,
  `ALTER TABLE ONLY domains
    ADD CONSTRAINT domains_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY email_deliveries
    ADD CONSTRAINT email_deliveries_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY email_deliveries
    ADD CONSTRAINT email_deliveries_user_id_org_id_kind_event_id_key UNIQUE (user_id, org_id, kind, event_id)`,
  `ALTER TABLE ONLY host_leases
    ADD CONSTRAINT host_leases_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY host_pace
    ADD CONSTRAINT host_pace_pkey PRIMARY KEY (host)`,
  `ALTER TABLE ONLY job_counts
    ADD CONSTRAINT job_counts_pkey PRIMARY KEY (org_id, name, state)`,
  `ALTER TABLE ONLY jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY learned_rules
    ADD CONSTRAINT learned_rules_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY memberships
    ADD CONSTRAINT memberships_feed_token_key UNIQUE (feed_token)`,
  `ALTER TABLE ONLY memberships
    ADD CONSTRAINT memberships_pkey PRIMARY KEY (user_id, org_id)`,
  `ALTER TABLE ONLY orgs
    ADD CONSTRAINT orgs_feed_token_key UNIQUE (feed_token)`,
  `ALTER TABLE ONLY orgs
    ADD CONSTRAINT orgs_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY page_events
    ADD CONSTRAINT page_events_domain_id_kind_url_key UNIQUE (domain_id, kind, url)`,
  `ALTER TABLE ONLY page_events
    ADD CONSTRAINT page_events_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY pages
    ADD CONSTRAINT pages_domain_id_url_hash_key UNIQUE (domain_id, url_hash)`,
  `ALTER TABLE ONLY pages
    ADD CONSTRAINT pages_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY research_briefs
    ADD CONSTRAINT research_briefs_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY robots_files
    ADD CONSTRAINT robots_files_pkey PRIMARY KEY (origin)`,
  `ALTER TABLE ONLY screenshots
    ADD CONSTRAINT screenshots_pkey PRIMARY KEY (snapshot_id)`,
  `ALTER TABLE ONLY service_secrets
    ADD CONSTRAINT service_secrets_pkey PRIMARY KEY (name)`,
  `ALTER TABLE ONLY sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY sessions
    ADD CONSTRAINT sessions_token_hash_key UNIQUE (token_hash)`,
  `ALTER TABLE ONLY share_links
    ADD CONSTRAINT share_links_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY share_links
    ADD CONSTRAINT share_links_token_hash_key UNIQUE (token_hash)`,
  `ALTER TABLE ONLY snapshots
    ADD CONSTRAINT snapshots_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY sso_attempts
    ADD CONSTRAINT sso_attempts_pkey PRIMARY KEY (state_hash)`,
  `ALTER TABLE ONLY sso_domains
    ADD CONSTRAINT sso_domains_pkey PRIMARY KEY (org_id, domain)`,
  `ALTER TABLE ONLY sso_identities
    ADD CONSTRAINT sso_identities_pkey PRIMARY KEY (org_id, issuer, subject)`,
  `ALTER TABLE ONLY sso_links
    ADD CONSTRAINT sso_links_pkey PRIMARY KEY (token_hash)`,
  `ALTER TABLE ONLY sso_settings
    ADD CONSTRAINT sso_settings_pkey PRIMARY KEY (org_id)`,
  `ALTER TABLE ONLY users
    ADD CONSTRAINT users_email_key UNIQUE (email)`,
  `ALTER TABLE ONLY users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_endpoint_id_event_type_event_id_key UNIQUE (endpoint_id, event_type, event_id)`,
  `ALTER TABLE ONLY webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id)`,
  `ALTER TABLE ONLY workers
    ADD CONSTRAINT workers_pkey PRIMARY KEY (id)`,
  `CREATE INDEX account_tokens_expiry ON account_tokens USING btree (expires_at)`,
  `CREATE INDEX account_tokens_org ON account_tokens USING btree (org_id) WHERE (purpose = 'invite'::text)`,
  `CREATE INDEX account_tokens_user ON account_tokens USING btree (user_id) WHERE (purpose = 'reset'::text)`,
  `CREATE INDEX alert_rules_org ON alert_rules USING btree (org_id, "position")`,
  `CREATE INDEX api_keys_org ON api_keys USING btree (org_id)`,
  `CREATE INDEX audit_events_org_at ON audit_events USING btree (org_id, at DESC, id DESC)`,
  `CREATE INDEX changes_domain_time ON changes USING btree (domain_id, created_at DESC)`,
  `CREATE INDEX changes_open_by_domain ON changes USING btree (org_id, domain_id, severity) WHERE (acknowledged_at IS NULL)`,
  `CREATE INDEX changes_org_pinned ON changes USING btree (org_id, pinned_at DESC) WHERE (pinned_at IS NOT NULL)`,
  `CREATE INDEX changes_org_severity_time ON changes USING btree (org_id, severity, created_at DESC)`,
  `CREATE INDEX changes_org_time ON changes USING btree (org_id, created_at DESC)`,
  `CREATE INDEX changes_org_type_time ON changes USING btree (org_id, change_type, created_at DESC)`,
  `CREATE INDEX changes_org_unacked_time ON changes USING btree (org_id, created_at DESC) WHERE (acknowledged_at IS NULL)`,
  `CREATE INDEX changes_page ON changes USING btree (page_id)`,
  `CREATE INDEX changes_search ON changes USING gin (search)`,
  `CREATE INDEX changes_unalerted ON changes USING btree (created_at) WHERE (alerted_at IS NULL)`,
  `CREATE INDEX domains_discovery_due ON domains USING btree (next_discovery_at)`,
  `CREATE INDEX email_deliveries_org_time ON email_deliveries USING btree (org_id, created_at DESC)`,
  `CREATE INDEX host_leases_host ON host_leases USING btree (host, expires_at)`,
  `CREATE INDEX jobs_active ON jobs USING btree (org_id, created_at DESC, id DESC) WHERE (state = 'active'::text)`,
  `CREATE INDEX jobs_completed ON jobs USING btree (org_id, created_at DESC, id DESC) WHERE (state = 'completed'::text)`,
  `CREATE INDEX jobs_due ON jobs USING btree (lane, priority DESC, created_at, id) WHERE (state = 'waiting'::text)`,
  `CREATE INDEX jobs_failed ON jobs USING btree (org_id, created_at DESC, id DESC) WHERE (state = 'failed'::text)`,
  `CREATE INDEX jobs_held ON jobs USING btree (owner, processed_at) WHERE (state = 'active'::text)`,
  `CREATE UNIQUE INDEX jobs_one_unfinished_crawl ON jobs USING btree (page_id) WHERE ((name = 'crawl.page'::text) AND (state = ANY (ARRAY['waiting'::text, 'active'::text])))`,
  `CREATE INDEX jobs_org_name_time ON jobs USING btree (org_id, name, created_at DESC, id DESC)`,
  `CREATE INDEX jobs_org_time ON jobs USING btree (org_id, created_at DESC, id DESC)`,
  `CREATE INDEX jobs_page ON jobs USING btree (page_id) WHERE (page_id IS NOT NULL)`,
  `CREATE INDEX jobs_pending_discovery ON jobs USING btree (domain_id) WHERE ((name = 'discover.pages'::text) AND (state = ANY (ARRAY['waiting'::text, 'active'::text])))`,
  `CREATE UNIQUE INDEX jobs_singleton ON jobs USING btree (singleton) WHERE (singleton IS NOT NULL)`,
  `CREATE INDEX jobs_to_give_up ON jobs USING btree (lane) WHERE ((state = 'failed'::text) AND (gave_up_at IS NULL))`,
  `CREATE INDEX jobs_unfinished ON jobs USING btree (org_id) WHERE (state = ANY (ARRAY['waiting'::text, 'active'::text]))`,
  `CREATE INDEX jobs_waiting ON jobs USING btree (org_id, created_at DESC, id DESC) WHERE (state = 'waiting'::text)`,
  `CREATE INDEX learned_rules_org ON learned_rules USING btree (org_id, created_at DESC)`,
  `CREATE INDEX learned_rules_page ON learned_rules USING btree (page_id, created_at DESC)`,
  `CREATE INDEX memberships_org ON memberships USING btree (org_id)`,
  `CREATE INDEX page_events_org_time ON page_events USING btree (org_id, created_at DESC, id DESC)`,
  `CREATE INDEX page_events_unalerted ON page_events USING btree (created_at) WHERE (alerted_at IS NULL)`,
  `CREATE INDEX pages_due ON pages USING btree (next_crawl_at) WHERE monitoring_enabled`,
  `CREATE INDEX research_briefs_domain_time ON research_briefs USING btree (domain_id, created_at DESC)`,
  `CREATE INDEX research_briefs_org ON research_briefs USING btree (org_id)`,
  `CREATE INDEX research_briefs_unfinished ON research_briefs USING btree (created_at) WHERE (status = ANY (ARRAY['queued'::text, 'building'::text]))`,
  `CREATE INDEX sessions_expiry ON sessions USING btree (expires_at)`,
  `CREATE INDEX sessions_sso ON sessions USING btree (sso_org_id) WHERE (sso_org_id IS NOT NULL)`,
  `CREATE INDEX sessions_user ON sessions USING btree (user_id)`,
  `CREATE INDEX share_links_change ON share_links USING btree (change_id)`,
  `CREATE INDEX snapshots_org_time ON snapshots USING btree (org_id, created_at)`,
  `CREATE INDEX snapshots_page_time ON snapshots USING btree (page_id, created_at DESC)`,
  `CREATE INDEX sso_domains_org ON sso_domains USING btree (org_id)`,
  `CREATE UNIQUE INDEX sso_domains_proven ON sso_domains USING btree (domain) WHERE (verified_at IS NOT NULL)`,
  `CREATE INDEX sso_identities_user ON sso_identities USING btree (user_id)`,
  `CREATE INDEX webhook_deliveries_endpoint_time ON webhook_deliveries USING btree (endpoint_id, created_at DESC)`,
  `CREATE INDEX webhook_endpoints_org ON webhook_endpoints USING btree (org_id)`,
  `CREATE TRIGGER alert_preferences_delete_written AFTER DELETE ON alert_preferences REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER alert_preferences_insert_written AFTER INSERT ON alert_preferences REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER alert_preferences_update_written AFTER UPDATE ON alert_preferences REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER alert_rules_delete_written AFTER DELETE ON alert_rules REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER alert_rules_insert_written AFTER INSERT ON alert_rules REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER alert_rules_update_written AFTER UPDATE ON alert_rules REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER audit_events_delete_written AFTER DELETE ON audit_events REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER audit_events_insert_written AFTER INSERT ON audit_events REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER audit_events_unchanged BEFORE UPDATE ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_unchanged()`,
  `CREATE TRIGGER audit_events_update_written AFTER UPDATE ON audit_events REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER billing_periods_delete_written AFTER DELETE ON billing_periods REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER billing_periods_insert_written AFTER INSERT ON billing_periods REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER billing_periods_update_written AFTER UPDATE ON billing_periods REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER changes_delete_written AFTER DELETE ON changes REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER changes_insert_written AFTER INSERT ON changes REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER changes_update_written AFTER UPDATE ON changes REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER domains_delete_written AFTER DELETE ON domains REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER domains_insert_written AFTER INSERT ON domains REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER domains_update_written AFTER UPDATE ON domains REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER email_deliveries_delete_written AFTER DELETE ON email_deliveries REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER email_deliveries_insert_written AFTER INSERT ON email_deliveries REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER email_deliveries_update_written AFTER UPDATE ON email_deliveries REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER jobs_counted_delete AFTER DELETE ON jobs REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION jobs_counted()`,
  `CREATE TRIGGER jobs_counted_insert AFTER INSERT ON jobs REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION jobs_counted()`,
  `CREATE TRIGGER jobs_counted_update AFTER UPDATE ON jobs REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION jobs_counted()`,
  `CREATE TRIGGER jobs_delete_written AFTER DELETE ON jobs REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER jobs_insert_written AFTER INSERT ON jobs REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER jobs_update_written AFTER UPDATE ON jobs REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER learned_rules_delete_written AFTER DELETE ON learned_rules REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER learned_rules_insert_written AFTER INSERT ON learned_rules REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER learned_rules_update_written AFTER UPDATE ON learned_rules REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER memberships_delete_written AFTER DELETE ON memberships REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER memberships_insert_written AFTER INSERT ON memberships REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER memberships_update_written AFTER UPDATE ON memberships REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER orgs_delete_written AFTER DELETE ON orgs REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION org_written()`,
  `CREATE TRIGGER orgs_insert_written AFTER INSERT ON orgs REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION org_written()`,
  `CREATE TRIGGER orgs_update_written AFTER UPDATE ON orgs REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION org_written()`,
  `CREATE TRIGGER page_events_delete_written AFTER DELETE ON page_events REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER page_events_insert_written AFTER INSERT ON page_events REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER page_events_update_written AFTER UPDATE ON page_events REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER pages_delete_written AFTER DELETE ON pages REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER pages_insert_written AFTER INSERT ON pages REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER pages_update_written AFTER UPDATE ON pages REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER research_briefs_delete_written AFTER DELETE ON research_briefs REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER research_briefs_insert_written AFTER INSERT ON research_briefs REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER research_briefs_update_written AFTER UPDATE ON research_briefs REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER screenshots_delete_written AFTER DELETE ON screenshots REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER screenshots_insert_written AFTER INSERT ON screenshots REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER screenshots_update_written AFTER UPDATE ON screenshots REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER snapshots_delete_written AFTER DELETE ON snapshots REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER snapshots_insert_written AFTER INSERT ON snapshots REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER snapshots_update_written AFTER UPDATE ON snapshots REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER users_delete_written AFTER DELETE ON users REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION member_written()`,
  `CREATE TRIGGER users_insert_written AFTER INSERT ON users REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION member_written()`,
  `CREATE TRIGGER users_update_written AFTER UPDATE ON users REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION member_written()`,
  `CREATE TRIGGER webhook_deliveries_delete_written AFTER DELETE ON webhook_deliveries REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER webhook_deliveries_insert_written AFTER INSERT ON webhook_deliveries REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER webhook_deliveries_update_written AFTER UPDATE ON webhook_deliveries REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER webhook_endpoints_delete_written AFTER DELETE ON webhook_endpoints REFERENCING OLD TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER webhook_endpoints_insert_written AFTER INSERT ON webhook_endpoints REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `CREATE TRIGGER webhook_endpoints_update_written AFTER UPDATE ON webhook_endpoints REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION data_written()`,
  `ALTER TABLE ONLY account_tokens
    ADD CONSTRAINT account_tokens_invited_by_fkey FOREIGN KEY (invited_by) REFERENCES users(id) ON DELETE SET NULL`,
  `ALTER TABLE ONLY account_tokens
    ADD CONSTRAINT account_tokens_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY account_tokens
    ADD CONSTRAINT account_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY alert_preferences
    ADD CONSTRAINT alert_preferences_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY alert_preferences
    ADD CONSTRAINT alert_preferences_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY alert_rules
    ADD CONSTRAINT alert_rules_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY api_keys
    ADD CONSTRAINT api_keys_created_by_fkey FOREIGN KEY (created_by) REFERENCES users(id) ON DELETE SET NULL`,
  `ALTER TABLE ONLY api_keys
    ADD CONSTRAINT api_keys_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY audit_events
    ADD CONSTRAINT audit_events_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY billing_periods
    ADD CONSTRAINT billing_periods_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY changes
    ADD CONSTRAINT changes_acknowledged_by_user_fkey FOREIGN KEY (acknowledged_by_user) REFERENCES users(id) ON DELETE SET NULL`,
  `ALTER TABLE ONLY changes
    ADD CONSTRAINT changes_alert_rule_id_fkey FOREIGN KEY (alert_rule_id) REFERENCES alert_rules(id) ON DELETE SET NULL`,
  `ALTER TABLE ONLY changes
    ADD CONSTRAINT changes_domain_id_fkey FOREIGN KEY (domain_id) REFERENCES domains(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY changes
    ADD CONSTRAINT changes_learned_rule_id_fkey FOREIGN KEY (learned_rule_id) REFERENCES learned_rules(id) ON DELETE SET NULL`,
  `ALTER TABLE ONLY changes
    ADD CONSTRAINT changes_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY changes
    ADD CONSTRAINT changes_page_id_fkey FOREIGN KEY (page_id) REFERENCES pages(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY changes
    ADD CONSTRAINT changes_snapshot_after_id_fkey FOREIGN KEY (snapshot_after_id) REFERENCES snapshots(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY changes
    ADD CONSTRAINT changes_snapshot_before_id_fkey FOREIGN KEY (snapshot_before_id) REFERENCES snapshots(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY domains
    ADD CONSTRAINT domains_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY email_deliveries
    ADD CONSTRAINT email_deliveries_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY email_deliveries
    ADD CONSTRAINT email_deliveries_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY job_counts
    ADD CONSTRAINT job_counts_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY jobs
    ADD CONSTRAINT jobs_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY learned_rules
    ADD CONSTRAINT learned_rules_from_change_id_fkey FOREIGN KEY (from_change_id) REFERENCES changes(id) ON DELETE SET NULL`,
  `ALTER TABLE ONLY learned_rules
    ADD CONSTRAINT learned_rules_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY learned_rules
    ADD CONSTRAINT learned_rules_page_id_fkey FOREIGN KEY (page_id) REFERENCES pages(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY memberships
    ADD CONSTRAINT memberships_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY memberships
    ADD CONSTRAINT memberships_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY page_events
    ADD CONSTRAINT page_events_domain_id_fkey FOREIGN KEY (domain_id) REFERENCES domains(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY page_events
    ADD CONSTRAINT page_events_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY page_events
    ADD CONSTRAINT page_events_page_id_fkey FOREIGN KEY (page_id) REFERENCES pages(id) ON DELETE SET NULL`,
  `ALTER TABLE ONLY pages
    ADD CONSTRAINT pages_domain_id_fkey FOREIGN KEY (domain_id) REFERENCES domains(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY pages
    ADD CONSTRAINT pages_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY research_briefs
    ADD CONSTRAINT research_briefs_domain_id_fkey FOREIGN KEY (domain_id) REFERENCES domains(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY research_briefs
    ADD CONSTRAINT research_briefs_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY research_briefs
    ADD CONSTRAINT research_briefs_period_id_fkey FOREIGN KEY (period_id) REFERENCES billing_periods(id) ON DELETE SET NULL`,
  `ALTER TABLE ONLY screenshots
    ADD CONSTRAINT screenshots_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY screenshots
    ADD CONSTRAINT screenshots_snapshot_id_fkey FOREIGN KEY (snapshot_id) REFERENCES snapshots(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY sessions
    ADD CONSTRAINT sessions_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE SET NULL`,
  `ALTER TABLE ONLY sessions
    ADD CONSTRAINT sessions_sso_org_id_fkey FOREIGN KEY (sso_org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY sessions
    ADD CONSTRAINT sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY share_links
    ADD CONSTRAINT share_links_change_id_fkey FOREIGN KEY (change_id) REFERENCES changes(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY share_links
    ADD CONSTRAINT share_links_created_by_fkey FOREIGN KEY (created_by) REFERENCES users(id) ON DELETE SET NULL`,
  `ALTER TABLE ONLY share_links
    ADD CONSTRAINT share_links_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY snapshots
    ADD CONSTRAINT snapshots_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY snapshots
    ADD CONSTRAINT snapshots_page_id_fkey FOREIGN KEY (page_id) REFERENCES pages(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY sso_attempts
    ADD CONSTRAINT sso_attempts_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY sso_domains
    ADD CONSTRAINT sso_domains_org_id_fkey FOREIGN KEY (org_id) REFERENCES sso_settings(org_id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY sso_identities
    ADD CONSTRAINT sso_identities_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY sso_identities
    ADD CONSTRAINT sso_identities_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY sso_links
    ADD CONSTRAINT sso_links_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY sso_links
    ADD CONSTRAINT sso_links_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY sso_settings
    ADD CONSTRAINT sso_settings_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`,
  `ALTER TABLE ONLY webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_org_id_fkey FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE`
]
