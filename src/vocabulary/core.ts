import { Type, type Static } from '@sinclair/typebox'
import { type DiffData, IgnoredFactSchema } from './diff-data.js'
import { literals } from './schema.js'

// The words of the contract, each said once: a const array (for code that lists or
// checks them), its TypeBox schema (which validates requests and documents
// /openapi.json) and its type. Nothing but the vocabulary is imported here; every layer imports it.

export { literals, Nullable } from './schema.js'

/** A point in time: a Date in our code, an ISO 8601 string on the wire. */
export const Timestamp = Type.Unsafe<Date>({ type: 'string', format: 'date-time' })

/** A UUID's text, as an id of ours is written: anything else names nothing, and never reaches the database. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * How much less of the CPU the crawl's own work asks for (a nice value, on Linux): the threads
 * that read pages and the browser that renders them yield to those that serve people (the
 * API, the app, the embedded database's statements). A crawl fills the cores.
 */
export const CRAWL_WORK_NICE = 10

export const PAGE_TYPES = ['pricing', 'features', 'terms', 'security', 'api_docs', 'changelog', 'other'] as const
export const PageTypeSchema = literals(PAGE_TYPES, {
  description: 'pricing, features, terms, security, api_docs, changelog or other'
})
export type PageType = Static<typeof PageTypeSchema>

export const CHANGE_TYPES = [
  'price_change',
  'feature_added',
  'feature_removed',
  'terms_update',
  'section_added',
  'section_removed',
  'content_change'
] as const
export const ChangeTypeSchema = literals(CHANGE_TYPES)
export type ChangeType = Static<typeof ChangeTypeSchema>

/** Most severe first. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const
export const SeveritySchema = literals(SEVERITIES)
export type Severity = Static<typeof SeveritySchema>

/** The page types whose every edit is an edit of terms (weighed by the legal rules). */
export const LEGAL_PAGE_TYPES: readonly PageType[] = ['terms', 'security']

/**
 * The page types an intelligence page of which is also read as a structure (plans, an API
 * description, releases): the rows of the structured readers' registry (detection/readers/table.ts).
 */
export const STRUCTURED_PAGE_TYPES = ['pricing', 'api_docs', 'changelog'] as const satisfies readonly PageType[]
export type StructuredPageType = typeof STRUCTURED_PAGE_TYPES[number]

/** Severities in order, low 0 to critical 3: `SEVERITY_RANK[a] >= SEVERITY_RANK[b]` reads "a is at least b". */
export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { low: 0, medium: 1, high: 2, critical: 3 }

/**
 * A person's role in an organisation, each allowing what the one before it does and more:
 * viewer reads and acknowledges; editor also changes domains, pages and their settings;
 * admin also manages members, keys and alert destinations; owner also the plan and the
 * organisation itself.
 */
export const ROLES = ['viewer', 'editor', 'admin', 'owner'] as const
export const RoleSchema = literals(ROLES, { description: 'viewer < editor < admin < owner' })
export type Role = Static<typeof RoleSchema>
export const roleAllows = (role: Role, needed: Role): boolean => ROLES.indexOf(role) >= ROLES.indexOf(needed)

/** An API key's scope: `read` calls GET only; `write` may do what an admin may. */
export const KEY_SCOPES = ['read', 'write'] as const
export const KeyScopeSchema = literals(KEY_SCOPES)
export type KeyScope = Static<typeof KeyScopeSchema>

export const PLAN_NAMES = ['trial', 'starter', 'pro', 'enterprise'] as const
export const PlanNameSchema = literals(PLAN_NAMES)
export type PlanName = Static<typeof PlanNameSchema>

export const DOMAIN_STATUSES = ['discovering', 'active', 'paused', 'error'] as const
export const DomainStatusSchema = literals(DOMAIN_STATUSES)

/** How many tags a domain may have, and how long one may be. */
export const MAX_TAGS = 10
export const MAX_TAG_LENGTH = 40

/** A domain's tag, as people write it ("Direct competitors"); kept trimmed and lower-case (normalTags). */
export const TagSchema = Type.String({
  minLength: 1,
  maxLength: MAX_TAG_LENGTH,
  pattern: '^[^,]*[^,\\s][^,]*$',
  description: 'a label of your own, such as "direct competitors" or "suppliers" (no commas; compared ' +
    'without regard to case or spacing)',
  examples: ['direct competitors']
})

/** Tags as stored and compared: trimmed, spaces collapsed, lower-case, each once, in the order given. */
export const normalTags = (tags: readonly string[]): string[] =>
  [...new Set(tags.map(t => t.trim().replace(/\s+/g, ' ').toLowerCase()).filter(Boolean))]
export type DomainStatus = Static<typeof DomainStatusSchema>

/** Why a domain is paused: its organisation's trial ran out, or someone paused it. */
export type PausedReason = 'trial_expired' | 'manual'

export const PAGE_STATUSES = ['active', 'error'] as const
export type PageStatus = (typeof PAGE_STATUSES)[number]

/** The jobs a client sees (GET /api/jobs). */
export const JOB_NAMES = ['crawl.page', 'discover.pages', 'research.domain'] as const
export const JobNameSchema = literals(JOB_NAMES)
export type JobName = Static<typeof JobNameSchema>

export const JOB_STATES = ['waiting', 'active', 'completed', 'failed', 'delayed'] as const
export const JobStateSchema = literals(JOB_STATES)
export type JobState = Static<typeof JobStateSchema>

export const ALERT_EVENTS = ['change.detected', 'job.failed', 'page.discovered', 'page.removed'] as const

/** What happens to a domain's pages besides changes: one found that was not watched, one gone. */
export const PAGE_EVENT_KINDS = ['discovered', 'removed'] as const
export type PageEventKind = typeof PAGE_EVENT_KINDS[number]

/** The page types that matter: a new page of one is watched at once while the quota allows. */
export const TYPES_THAT_MATTER: readonly PageType[] =
  ['pricing', 'features', 'terms', 'security', 'api_docs', 'changelog']
export const AlertEventSchema = literals(ALERT_EVENTS)
export type AlertEvent = Static<typeof AlertEventSchema>

export const ENDPOINT_KINDS = ['webhook', 'slack'] as const
export const EndpointKindSchema = literals(ENDPOINT_KINDS)
export type EndpointKind = Static<typeof EndpointKindSchema>

/** How a member hears of changes by e-mail: each as it is found, a daily or weekly digest, or not at all. */
export const MAIL_MODES = ['realtime', 'daily', 'weekly', 'off'] as const
export const MailModeSchema = literals(MAIL_MODES)
export type MailMode = Static<typeof MailModeSchema>

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const
/** An e-mail may also be not sent: without SMTP_URL it is only written to the log. */
export const EMAIL_DELIVERY_STATUSES = [...DELIVERY_STATUSES, 'not_sent'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

/** The JSON paths `includePaths` takes (detection/readers/documents.ts reads them). */
export const JSON_PATH_PATTERN = '^\\$(?:\\.[A-Za-z_$][\\w$-]*|\\.\\*|\\[\\d+\\]|\\[\\*\\]|\\["[^"\\\\]+"\\])*$'

export const NoiseRulesSchema = Type.Object(
  {
    ignoreSelectors: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        maxItems: 20,
        description: 'CSS selectors whose elements are left out; besides CSS, `:heading("words")` (a heading with ' +
          'these words, case, spacing and a leading section number aside) and `:section("words")` (that heading and ' +
          'what follows it up to the next heading of its level; `:section(#id)` names the heading by its id). The ' +
          'page\'s outline writes them for its blocks'
      })
    ),
    includeSelectors: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        maxItems: 20,
        description: 'watch only this part: CSS selectors whose elements alone are compared (with their ' +
          'headings and text, in page order); the rest of the page is left out. `:heading()` and `:section()` as in ' +
          'ignoreSelectors',
        examples: [['#pricing-table', 'main article']]
      })
    ),
    restrictSelectors: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        maxItems: 20,
        description: 'the former name of includeSelectors, still read: the two lists are taken together'
      })
    ),
    includePaths: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200, pattern: JSON_PATH_PATTERN }), {
        maxItems: 20,
        description: 'JSON documents only: watch only these parts. Paths from the root `$` by `.key`, `["key"]`, ' +
          '`[n]`, `.*` and `[*]` steps; each keeps the value it names with all below it, the rest is left out. ' +
          'A JSON document is compared value by value, one line per value (`$.plans[0].price: 49`).',
        examples: [['$.plans[*].price', '$.version']]
      })
    ),
    ignorePatterns: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        maxItems: 20,
        description:
          'regular expressions (RE2 syntax, case-insensitive); matching text is treated as noise. They run in ' +
          'linear time on at most 2,000 characters of a line: lookarounds and backreferences are refused.'
      })
    ),
    ignoreFacts: Type.Optional(
      Type.Array(IgnoredFactSchema, {
        maxItems: 20,
        description: 'facts left out of every later change of the page, by what they are about and its name, ' +
          'as "Not important" offers them: a change whose every fact is left out is not recorded, and no other ' +
          'change of the page is hidden'
      })
    )
  },
  {
    $id: 'NoiseRules',
    title: 'NoiseRules',
    additionalProperties: false,
    description: 'Applied before the diff, from the next crawl on'
  }
)
/** A page's own noise rules: selectors to leave out or keep, patterns to mask. */
export type NoiseRules = Static<typeof NoiseRulesSchema>

export * from './diff-data.js'

/** A change as the comparison of two versions of a page finds it, before it is recorded. */
export interface DetectedChange {
  changeType: ChangeType
  severity: Severity
  confidence: number
  summary: string
  diffData: DiffData
}

/** A page worth watching, as discovery or a client proposes it (URL normalised). */
/**
 * Who typed a page: a person (kept as given, never re-typed), its address alone (a page
 * added by hand without a type, typed again from its content after its first crawl), or
 * its content (discovery, or that first crawl).
 */
export const PAGE_TYPE_SOURCES = ['person', 'address', 'content'] as const
export const PageTypeSourceSchema = literals(PAGE_TYPE_SOURCES, {
  description: 'who typed the page: person (as given, never re-typed), address (from the URL alone, until the ' +
    'first crawl types it from its content) or content (from its URL, title, headings and text)'
})
export type PageTypeSource = Static<typeof PageTypeSourceSchema>

export interface PageCandidate {
  url: string
  pageType: PageType
  confidence: number
  /** When its sitemap says it last changed. */
  lastmod?: Date
  priority?: number
  /** Default: content (discovery reads the page). */
  typedBy?: PageTypeSource
}

/** How a page is fetched: `auto` fetches plainly and uses the browser when the answer needs one. */
export const RENDER_MODES = ['auto', 'always', 'never'] as const
export const RenderModeSchema = literals(RENDER_MODES)
export type RenderMode = Static<typeof RenderModeSchema>

/** What a page was last read with. */
export const RENDERED_WITH = ['http', 'browser'] as const
export const RenderedWithSchema = literals(RENDERED_WITH)
export type RenderedWith = Static<typeof RenderedWithSchema>
