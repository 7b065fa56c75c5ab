import type { ColumnType, Generated } from 'kysely'
import type { CreatedAt, JobCountsTable, JobsTable, RobotsFilesTable, Timestamp, WorkersTable } from './schema-jobs.js'
import type {
  AccountTokensTable, AuthFailuresTable, MembershipsTable, SessionsTable, SsoAttemptsTable, SsoDomainsTable,
  SsoIdentitiesTable, SsoLinksTable, SsoSettingsTable, UsersTable
} from './schema-people.js'
import type {
  AlertEvent,
  ChangeType,
  DeliveryStatus,
  DiffData,
  DomainStatus,
  EndpointKind,
  IgnoredFact,
  NoiseRules,
  PageEventKind,
  PageStatus,
  PageType,
  PageTypeSource,
  RenderedWith,
  RenderMode,
  PausedReason,
  KeyScope,
  MailMode,
  PlanName,
  Severity
} from '../vocabulary/core.js'

import type { Brief, BriefStatus } from '../vocabulary/research.js'
import type { LearnedKind, Verdict } from '../vocabulary/learned.js'
import type { RuleAction, RuleMatch } from '../vocabulary/alert-rules.js'
import type { PictureBoxes } from '../vocabulary/outline.js'
import type { ActorKind } from '../vocabulary/audit.js'

// Row types of the tables the migrations make (migrations.ts; test/store/schema.test.ts holds the two together).

type Decimal = ColumnType<string, string | number | undefined, string | number>
type Json<T> = ColumnType<T, string | undefined, string>

export interface OrgsTable {
  id: Generated<string>
  name: string
  plan: PlanName
  trial_ends_at: Timestamp | null
  last_digest_at: Timestamp | null
  feed_token: string | null
  /** Whether a signed, expiring link may show one change to anyone who holds it. */
  share_links: Generated<boolean>
  created_at: CreatedAt
  updated_at: Timestamp
}

export interface ApiKeysTable {
  id: Generated<string>
  org_id: string
  key_hash: string
  key_prefix: string
  created_at: CreatedAt
  revoked_at: Timestamp | null
  scope: ColumnType<KeyScope, KeyScope | undefined, KeyScope>
  created_by: string | null
  last_used_at: Timestamp | null
  name: string | null
  /** The secret of the feed addresses this key asked for (GET /api/feeds): they end with the key. */
  feed_token: string | null
}

export interface ShareLinksTable {
  id: Generated<string>
  token_hash: string
  org_id: string
  change_id: string
  created_by: string | null
  created_at: CreatedAt
  expires_at: Timestamp
  revoked_at: Timestamp | null
}

export interface BillingPeriodsTable {
  id: Generated<string>
  org_id: string
  plan: PlanName
  starts_at: Timestamp
  ends_at: Timestamp
  domains_used: Generated<number>
  pages_used: Generated<number>
  manual_rechecks_used: Generated<number>
  research_credits_used: Generated<number>
  created_at: CreatedAt
}

export interface DomainsTable {
  id: Generated<string>
  org_id: string
  hostname: string
  display_name: string | null
  status: Generated<DomainStatus>
  check_frequency_hours: Generated<number>
  paused_reason: PausedReason | null
  pages_added: Generated<number>
  render: Generated<RenderMode>
  /** Why its last discovery failed for good (cleared when one succeeds), with the failure's code and time. */
  discovery_error: string | null
  discovery_error_code: string | null
  discovery_failed_at: Timestamp | null
  /** What cut its last discovery short (a limit of DISCOVERY_STOPS), said to people; null when it read everything. */
  discovery_note: string | null
  /** Its tags ("direct competitors"): trimmed, lower-case, each once (see vocabulary/core.ts normalTags). */
  tags: Generated<string[]>
  /** When its pages are to be discovered again (weekly), to tell of new and removed ones. */
  next_discovery_at: Generated<Timestamp | null>
  created_at: CreatedAt
  updated_at: Timestamp
}

export interface PagesTable {
  id: Generated<string>
  domain_id: string
  org_id: string
  url: string
  /** The name people gave it (migration 0034); null: it goes by its address. */
  name: ColumnType<string | null, string | null | undefined, string | null>
  url_hash: string
  page_type: Generated<PageType>
  page_type_confidence: Decimal
  page_type_source: Generated<PageTypeSource>
  status: Generated<PageStatus>
  monitoring_enabled: Generated<boolean>
  priority: Generated<number>
  last_check_at: Timestamp | null
  last_change_at: Timestamp | null
  next_crawl_at: Timestamp
  error_count: Generated<number>
  consecutive_failures: Generated<number>
  last_error: string | null
  etag: string | null
  last_modified: string | null
  metadata: Json<Record<string, unknown>>
  noise_rules: Json<NoiseRules>
  rebaseline: Generated<boolean>
  /** null: the domain's render mode. */
  render: RenderMode | null
  rendered_with: RenderedWith | null
  render_reason: string | null
  render_checked_at: Timestamp | null
  screenshots: Generated<boolean>
  visual_threshold: Decimal | null
  failure_alerted_at: Timestamp | null
  /** The code of the last failed check (see domain/failures.ts), and when the failures in a row began. */
  failure_code: string | null
  failing_since: Timestamp | null
  created_at: CreatedAt
  /** Whether the domain's sitemaps listed it at its last discovery (to tell when it leaves them). */
  in_sitemap: Generated<boolean>
  /** What its type's structured reader could not read or compare at its last check; null when it read it. */
  reading_note: string | null
}

export interface ScreenshotsTable {
  snapshot_id: string
  org_id: string
  image: Buffer
  width: number
  height: number
  /** Where its blocks are (see PictureBoxes); null: taken before they were kept. */
  boxes: Json<PictureBoxes> | null
}

export interface SnapshotsTable {
  id: Generated<string>
  page_id: string
  org_id: string
  content_hash: string
  content: string
  raw_html_gzip: Uint8Array | null
  http_status: number
  content_type: string | null
  /** An intelligence page's document (its API description, its changelog's feed): address, gzipped body, type. */
  document_url: string | null
  document_gzip: Uint8Array | null
  document_type: string | null
  created_at: CreatedAt
}

export interface ChangesTable {
  id: Generated<string>
  /** The summary's and the changed text's words, kept by PostgreSQL (a generated tsvector): searched in SQL only. */
  search: ColumnType<string | null, never, never>
  page_id: string
  domain_id: string
  org_id: string
  change_type: ChangeType
  severity: Severity
  confidence: Decimal
  summary: string
  diff_data: Json<DiffData>
  snapshot_before_id: string
  snapshot_after_id: string
  acknowledged_at: Timestamp | null
  acknowledged_by: string | null
  acknowledged_by_user: string | null
  alerted_at: Timestamp | null
  created_at: CreatedAt
  /** A person's verdict on it (see vocabulary/learned.ts). */
  verdict: Verdict | null
  /** When "important" pinned it. */
  pinned_at: Timestamp | null
  /** The severity it was detected at, when a learned rule set another (learned_rule_id). */
  learned_severity_from: Severity | null
  learned_rule_id: string | null
  /** What the alert rules made of it when it was dispatched (null: no rule matched, or no rules). */
  alert_action: RuleAction | null
  alert_rule_id: string | null
}

export interface AlertRulesTable {
  id: Generated<string>
  org_id: string
  name: string
  /** Its place among the organisation's rules: the first that matches decides. */
  position: number
  match: Json<RuleMatch>
  action: RuleAction
  enabled: Generated<boolean>
  created_at: CreatedAt
  updated_at: Timestamp
}

export interface LearnedRulesTable {
  id: Generated<string>
  org_id: string
  page_id: string
  kind: LearnedKind
  /** mute: the ignore pattern it added to the page's noise rules. */
  pattern: string | null
  /** lower, raise: the type of change whose severity it sets. */
  change_type: ChangeType | null
  /** mute: the facts it left out, as the page's ignoreFacts holds them. */
  fact: ColumnType<IgnoredFact | null, string | null | undefined, string | null>
  from_change_id: string | null
  /** Who taught it: a person's e-mail, or an API key's id. */
  created_by: string | null
  created_at: CreatedAt
}

export interface PageEventsTable {
  id: Generated<string>
  org_id: string
  domain_id: string
  /** The page watched (a discovered page added to monitoring, a removed one); null for one found but not watched. */
  page_id: string | null
  kind: PageEventKind
  url: string
  page_type: PageType
  watched: boolean
  /** removed: why (gone for a week, left the sitemap). */
  reason: string | null
  /** discovered: when its sitemap says it last changed. */
  sitemap_lastmod: Timestamp | null
  created_at: CreatedAt
  alerted_at: Timestamp | null
}

export interface ResearchBriefsTable {
  id: Generated<string>
  org_id: string
  domain_id: string
  job_id: string
  period_id: string | null
  status: Generated<BriefStatus>
  /** The brief once built: its window and sections. */
  brief: Json<Pick<Brief, 'window' | 'sections'>> | null
  failed_reason: string | null
  refunded_at: Timestamp | null
  created_at: CreatedAt
  completed_at: Timestamp | null
}

export interface WebhookEndpointsTable {
  id: Generated<string>
  org_id: string
  kind: EndpointKind
  url: string
  secret: string
  description: string | null
  enabled: Generated<boolean>
  events: AlertEvent[]
  /** Which changes it receives: an alert rule's match (none given: every change). */
  match: Json<RuleMatch>
  created_at: CreatedAt
  updated_at: Timestamp
}

export interface WebhookDeliveriesTable {
  id: Generated<string>
  endpoint_id: string
  org_id: string
  event_type: string
  event_id: string
  payload: Json<Record<string, unknown>>
  status: Generated<DeliveryStatus>
  attempts: Generated<number>
  response_status: number | null
  duration_ms: number | null
  error: string | null
  created_at: CreatedAt
  last_attempt_at: Timestamp | null
  delivered_at: Timestamp | null
}

export interface AlertPreferencesTable {
  user_id: string
  org_id: string
  mode: MailMode
  /** Which changes the member hears of: an alert rule's match (none given: every change). */
  match: Json<RuleMatch>
  time_zone: Generated<string>
  hour: Generated<number>
  weekday: Generated<number>
  last_digest_at: Timestamp | null
  bounces: Generated<number>
  paused_reason: string | null
  updated_at: Generated<Date>
}

export interface EmailDeliveriesTable {
  id: Generated<string>
  org_id: string
  user_id: string
  to_address: string
  kind: 'change' | 'digest'
  event_id: string
  subject: string
  payload: Json<Record<string, unknown>>
  status: Generated<DeliveryStatus | 'not_sent'>
  attempts: Generated<number>
  smtp_response: string | null
  error: string | null
  created_at: CreatedAt
  last_attempt_at: Timestamp | null
  delivered_at: Timestamp | null
}

export interface AuditEventsTable {
  id: Generated<string>
  org_id: string | null
  at: CreatedAt
  actor_kind: ActorKind
  actor_user_id: string | null
  actor_key_id: string | null
  actor_label: string
  ip: string | null
  action: string
  object_type: string
  object_id: string | null
  object_label: string | null
  details: ColumnType<Record<string, unknown>, string | undefined, never>
  trace_id: string | null
}

export interface Database {
  audit_events: AuditEventsTable
  sso_settings: SsoSettingsTable
  sso_domains: SsoDomainsTable
  sso_identities: SsoIdentitiesTable
  sso_links: SsoLinksTable
  sso_attempts: SsoAttemptsTable
  orgs: OrgsTable
  api_keys: ApiKeysTable
  billing_periods: BillingPeriodsTable
  domains: DomainsTable
  pages: PagesTable
  snapshots: SnapshotsTable
  changes: ChangesTable
  learned_rules: LearnedRulesTable
  page_events: PageEventsTable
  alert_rules: AlertRulesTable
  jobs: JobsTable
  workers: WorkersTable
  robots_files: RobotsFilesTable
  job_counts: JobCountsTable
  research_briefs: ResearchBriefsTable
  webhook_endpoints: WebhookEndpointsTable
  webhook_deliveries: WebhookDeliveriesTable
  screenshots: ScreenshotsTable
  service_secrets: { name: string, value: string }
  users: UsersTable
  memberships: MembershipsTable
  auth_failures: AuthFailuresTable
  share_links: ShareLinksTable
  sessions: SessionsTable
  account_tokens: AccountTokensTable
  alert_preferences: AlertPreferencesTable
  email_deliveries: EmailDeliveriesTable
  host_pace: {
    host: string
    next_start: Timestamp
    backoff_until: Timestamp
    delay_ms: number
  }
  host_leases: { id: Generated<string>, host: string, expires_at: Timestamp }
}
