// Steps from 0033 on: what an older database still runs (../migrations.ts joins the lists).

export const MIGRATIONS_0033: Record<string, string[]> = {
  // Single sign-on as the specs want it (services/sso.ts). A domain is claimed by any number
  // of organisations, proven by at most one (a DNS TXT record with its claim's token), and
  // only a proven domain signs anyone in. A provider identity is (issuer, subject) per
  // organisation, linked to an account once that person proved the account; a link waiting
  // for that proof is kept by its hash. A sign-in under way is bound to the browser that
  // started it. A session says which organisation's provider opened it, for whom (subject,
  // and the provider's session id for its back-channel logout): it reaches that organisation only.
  '0033_sso_proofs_and_identities': [
    'ALTER TABLE sso_domains DROP CONSTRAINT sso_domains_pkey',
    'ALTER TABLE sso_domains ADD COLUMN token text',
    "UPDATE sso_domains SET token = replace(gen_random_uuid()::text, '-', '')",
    'ALTER TABLE sso_domains ALTER COLUMN token SET NOT NULL',
    'ALTER TABLE sso_domains ADD COLUMN verified_at timestamptz',
    'ALTER TABLE sso_domains ADD COLUMN checked_at timestamptz',
    'ALTER TABLE sso_domains ADD COLUMN check_error text',
    'ALTER TABLE sso_domains ADD PRIMARY KEY (org_id, domain)',
    'CREATE UNIQUE INDEX sso_domains_proven ON sso_domains (domain) WHERE verified_at IS NOT NULL',
    // How the client authenticates at the token endpoint, as the provider advertised it when saved.
    "ALTER TABLE sso_settings ADD COLUMN client_auth text NOT NULL DEFAULT 'client_secret_post'",
    `CREATE TABLE sso_identities (
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      issuer text NOT NULL,
      subject text NOT NULL,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (org_id, issuer, subject)
    )`,
    'CREATE INDEX sso_identities_user ON sso_identities (user_id)',
    `CREATE TABLE sso_links (
      token_hash text PRIMARY KEY,
      browser_hash text NOT NULL,
      mail_hash text,
      org_id uuid NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      issuer text NOT NULL,
      subject text NOT NULL,
      sid text,
      next text,
      expires_at timestamptz NOT NULL
    )`,
    'DELETE FROM sso_attempts',
    'ALTER TABLE sso_attempts ADD COLUMN browser_hash text NOT NULL',
    'ALTER TABLE sessions ADD COLUMN sso_org_id uuid REFERENCES orgs (id) ON DELETE CASCADE',
    'ALTER TABLE sessions ADD COLUMN sso_subject text',
    'ALTER TABLE sessions ADD COLUMN sso_sid text',
    // A session the provider opened before this reached every organisation of its person: it ends.
    'DELETE FROM sessions WHERE single_sign_on',
    'CREATE INDEX sessions_sso ON sessions (sso_org_id) WHERE sso_org_id IS NOT NULL'
  ],
  // A name people give a watched page ("Cloud VPS prices"), shown wherever the page is; none: its address.
  '0034_page_names': [
    'ALTER TABLE pages ADD COLUMN name text CHECK (name IS NULL OR char_length(name) BETWEEN 1 AND 120)'
  ],
  // One pace per host (store/host-pace.ts, queue/crawl-order.ts): a crawl takes its host's
  // turn in the statement that takes it from the queue, any other request (and one whose
  // turn went late) through take_host_turn. No turns are promised to queued crawls, nor
  // claimed apart from the turn, nor rechecked.
  '0035_one_pace_per_host': [
    'DROP FUNCTION recheck_host_turn',
    'DROP FUNCTION take_host_turn',
    `CREATE FUNCTION take_host_turn (
      p_host text, p_crawl_delay_ms integer, p_delay_ms integer, p_concurrency integer,
      p_max_wait_ms float8, p_lease_ms float8, p_slack_ms float8, p_lead_ms float8, p_passed_ms float8
    ) RETURNS TABLE (start_ms float8, lease uuid, busy_until_ms float8) LANGUAGE plpgsql AS $f$
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
    END $f$`,
    'ALTER TABLE host_pace DROP COLUMN planned, DROP COLUMN claimed_until'
  ]
}
