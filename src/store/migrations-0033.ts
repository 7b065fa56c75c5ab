// Migrations from 0033 on (migrations.ts joins the lists).

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
  ]
}
