import { Type, type Static, type TSchema } from '@sinclair/typebox'

// The words of the contract, each said once: a const array (for code that lists or
// checks them), its TypeBox schema (which validates requests and documents
// /openapi.json) and its type. Nothing of ours is imported here; every layer imports it.

/**
 * A string that is one of `values`: a JSON Schema `enum` (what OpenAPI client generators
 * read as one enum type, and what ajv checks with the allowed values in its error).
 */
export const literals = <T extends string>(values: readonly T[], opts: { description?: string } = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...opts })

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

/** A point in time: a Date in our code, an ISO 8601 string on the wire. */
export const Timestamp = Type.Unsafe<Date>({ type: 'string', format: 'date-time' })

/** A UUID's text, as an id of ours is written: anything else names nothing, and never reaches the database. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

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
 * description, releases): the rows of the structured readers' registry (detection/readers.ts).
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

/** The JSON paths `includePaths` takes (detection/formats.ts reads them). */
export const JSON_PATH_PATTERN = '^\\$(?:\\.[A-Za-z_$][\\w$-]*|\\.\\*|\\[\\d+\\]|\\[\\*\\]|\\["[^"\\\\]+"\\])*$'

export const NoiseRulesSchema = Type.Object(
  {
    ignoreSelectors: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        maxItems: 20,
        description: 'CSS selectors whose elements are left out'
      })
    ),
    includeSelectors: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        maxItems: 20,
        description: 'watch only this part: CSS selectors whose elements alone are compared (with their ' +
          'headings and text, in page order); the rest of the page is left out',
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

export const DIFF_LINE_TYPES = ['context', 'deletion', 'addition'] as const

/** A price as a pricing page states it. */
export const PlanPriceSchema = Type.Object({
  amount: Type.Number(),
  currency: Type.String({ description: 'a symbol or ISO code as written: $, €, £, CHF…' }),
  period: Type.String({
    description: 'what it is per: month, year, hour, user/month, GB, GB-month, 1,000 requests…; ' +
      'empty for a one-off price'
  }),
  billing: Type.Optional(Type.String({
    description: 'the toggle state it is shown under, when the page has one: monthly or yearly'
  })),
  label: Type.Optional(Type.String({
    description: 'the column it stands in, when a plan has several prices of one kind (e.g. "Setup fee" and ' +
      '"Billed"): each is compared with its own'
  })),
  text: Type.String({ description: 'as summaries write it, e.g. $49/month' })
})
export type PlanPrice = Static<typeof PlanPriceSchema>

export const PricingPlanSchema = Type.Object({
  name: Type.String({
    description: 'as the page writes it; a plan (or priced item of a usage table) whose name two price tables share ' +
      'is named with its section, e.g. "Support plans – Basic"'
  }),
  prices: Type.Array(PlanPriceSchema),
  note: Type.Optional(Type.String({ description: 'a tax or billing note, e.g. "billed annually, excl. VAT"' })),
  limits: Type.Array(Type.Object({ name: Type.String(), value: Type.String() }), {
    description: 'headline limits, e.g. {name: "users", value: "10"}'
  }),
  features: Type.Array(Type.String(), { description: "the plan's listed features, as written" })
})
export type PricingPlan = Static<typeof PricingPlanSchema>

export const PRICING_SOURCES = ['json-ld', 'microdata', 'cards', 'table'] as const
export const PricingTableSchema = Type.Object({
  plans: Type.Array(PricingPlanSchema),
  sources: Type.Array(literals(PRICING_SOURCES), { description: 'where the plans were read, in that order' })
}, { description: "a pricing page's plans as a structure" })
export type PricingTable = Static<typeof PricingTableSchema>

export const PRICING_CHANGE_KINDS = [
  'price_up', 'price_down', 'plan_added', 'plan_removed', 'limit_changed', 'feature_added', 'feature_removed',
  'feature_moved'
] as const
export const PricingChangeSchema = Type.Object({
  kind: literals(PRICING_CHANGE_KINDS),
  summary: Type.String({ description: 'e.g. "Pro: $49/month → $59/month (+20%)"' }),
  plan: Type.Optional(Type.String()),
  before: Type.Optional(Type.String({ description: 'the price or limit before, as written in the summary' })),
  after: Type.Optional(Type.String()),
  percent: Type.Optional(Type.Number({
    description: 'a price or limit move, in percent of the old value; a price only against the same plan\'s price ' +
      'in the same currency and period'
  })),
  limit: Type.Optional(Type.String({ description: "the limit's name" })),
  feature: Type.Optional(Type.String()),
  fromPlans: Type.Optional(Type.Array(Type.String(), { description: 'a moved feature: the plans that listed it' })),
  toPlans: Type.Optional(Type.Array(Type.String(), { description: 'a moved feature: the plans that list it now' }))
})
export type PricingChange = Static<typeof PricingChangeSchema>

/** A changelog's entry as the page writes it. */
export const ChangelogEntrySchema = Type.Object({
  version: Type.Optional(Type.String({ description: 'e.g. 2.4.0' })),
  date: Type.Optional(Type.String({ description: 'YYYY-MM-DD when the page writes a date we can read' })),
  title: Type.String(),
  items: Type.Array(Type.String(), { description: "the entry's items, each with its section (\"Removed: …\") if any" }),
  unreleased: Type.Optional(Type.Boolean({
    description: 'an entry not yet released (Keep a Changelog\'s [Unreleased])'
  }))
}, { description: "an intelligence changelog page's entry: a new one, or an old one edited" })
export type ChangelogEntry = Static<typeof ChangelogEntrySchema>

export const ApiChangeSchema = Type.Object({
  method: Type.String({ description: 'GET, POST…' }),
  path: Type.String({ description: 'as the description writes it, e.g. /v1/invoices/{id}' }),
  change: Type.String({ description: 'what changed, e.g. "removed", "required request field `tag` added"' })
})
export type ApiChange = Static<typeof ApiChangeSchema>

export const ApiDiffSchema = Type.Object({
  breaking: Type.Array(ApiChangeSchema, {
    description: 'operations or success statuses removed, required parameters or request fields added or made ' +
      'required (nested ones too), response fields removed, types changed (the response body\'s own: array ↔ ' +
      'object), request enum values removed'
  }),
  nonBreaking: Type.Array(ApiChangeSchema, { description: 'operations, optional fields and parameters added' }),
  deprecated: Type.Array(ApiChangeSchema)
}, {
  description: "an intelligence api_docs page's OpenAPI 3.x or Swagger 2.0 description, compared operation by operation"
})
export type ApiDiff = Static<typeof ApiDiffSchema>

/**
 * What a check found, one fact at a time (see facts.ts, whose one table turns a fact into
 * a change type and a severity): the text comparison and every structured reader say
 * what they found this way.
 */
export const FACT_KINDS = [
  // Money: a price of one plan moved (`percent` when its currency and period compare), came or went.
  'price_up', 'price_down', 'price_changed', 'price_added', 'price_removed',
  // Plans, whole: `priced` when a price came or went with it.
  'plan_added', 'plan_removed',
  // What a plan allows ("10 GB", "unlimited users"): `percent` when both sides are numbers.
  'limit_raised', 'limit_lowered',
  // Features: items, cards, comparison rows; `moved` between plans.
  'feature_added', 'feature_removed', 'feature_moved',
  // A section (a heading and its lines) added or removed whole.
  'section_added', 'section_removed',
  // An API description's contract.
  'operation_added', 'operation_removed', 'api_breaking', 'api_deprecated', 'api_described',
  // A changelog's entry: new (weighed by its words), or an old one edited.
  'release_added', 'release_edited',
  // Words: an edit of text (`lines`, `words`; `legalWords` when it speaks of rights, data, liability…).
  'text_edit',
  // Edits that change nothing a reader acts on: a date of revision alone, or a renumbering, typography, spelling.
  'revision_date_changed', 'trivial_edit',
  // The page's picture, when its text did not move (`percent` of pixels).
  'visual_change'
] as const
export type FactKind = (typeof FACT_KINDS)[number]

export const RELEASE_WEIGHTS = ['breaking', 'removal', 'deprecation', 'plain'] as const

export const FactSchema = Type.Object({
  kind: literals(FACT_KINDS),
  subject: Type.Optional(Type.String({
    description: 'what it is about, as the page names it: a plan, a section, an operation, a limit, an entry'
  })),
  before: Type.Optional(Type.String({ description: 'the value before, as written (a price, a limit)' })),
  after: Type.Optional(Type.String({ description: 'the value after, as written' })),
  percent: Type.Optional(Type.Number({ description: 'the move in percent, where the two sides compare' })),
  priced: Type.Optional(Type.Boolean({ description: 'a plan that came or went had a price' })),
  lines: Type.Optional(Type.Integer({ description: 'text edits: changed lines' })),
  words: Type.Optional(Type.Integer({ description: 'text edits: words added or removed' })),
  legalWords: Type.Optional(Type.Boolean({ description: 'the edit speaks of rights, data, liability, fees…' })),
  release: Type.Optional(literals(RELEASE_WEIGHTS, {
    description: 'a changelog entry: what its words say it is (breaking, removal, deprecation, plain)'
  })),
  adds: Type.Optional(Type.Boolean({ description: 'a changelog entry adds something' }))
}, { description: 'one thing a check found; the first of a change\'s facts leads it' })
export type Fact = Static<typeof FactSchema>
export type ReleaseWeight = (typeof RELEASE_WEIGHTS)[number]

export const DiffDataSchema = Type.Object(
  {
    before: Type.String({
      description: 'the change\'s passages as they read before it: each changed line removed, with the unchanged ' +
        'lines around it, passages in page order joined by a line "…"; at most 2,000 characters (every changed ' +
        'line is in `hunks`)'
    }),
    after: Type.String({ description: 'the same passages as they read after it (see `before`)' }),
    stats: Type.Object({ additions: Type.Integer(), deletions: Type.Integer(), changes: Type.Integer() }),
    hunks: Type.Array(
      Type.Object({
        oldStart: Type.Integer(),
        oldLines: Type.Integer(),
        newStart: Type.Integer(),
        newLines: Type.Integer(),
        lines: Type.Array(Type.Object({ type: literals(DIFF_LINE_TYPES), content: Type.String() }))
      }),
      {
        description: 'always present, with every changed line of the change (before and after are bounded ' +
        'passages); empty only when the change has no line diff'
      }
    ),
    pricing: Type.Optional(
      Type.Object(
        {
          before: PricingTableSchema,
          after: PricingTableSchema,
          changes: Type.Array(PricingChangeSchema, { description: 'what moved, plan by plan; this change\'s part' })
        },
        {
          description: "an intelligence pricing page's plans read as a table (JSON-LD or microdata, plan cards, " +
            'comparison tables, both states of a monthly/yearly toggle), before and after'
        }
      )
    ),
    edits: Type.Optional(Type.Object({
      kinds: Type.Record(Type.String(), Type.Integer(), {
        description: 'how many edits of each kind the change holds: substantive (passages that change what the ' +
          'text says), renumbering (section or reference numbers), typography (quotes, dashes, spaces, case), ' +
          'spelling (a variant or a typo fixed), last_updated (the date of last update)'
      }),
      updatedOn: Type.Optional(Type.String({ description: 'the date of last update the page now gives (YYYY-MM-DD)' }))
    }, { description: "the change's edits by kind: trivial ones never lead its summary nor raise its severity" })),
    changelog: Type.Optional(ChangelogEntrySchema),
    api: Type.Optional(ApiDiffSchema),
    facts: Type.Optional(Type.Array(FactSchema, {
      description: 'what the check found, one fact each (a price up 30 % on Pro, an operation removed, a section ' +
        'added…), the one that leads the change first: its type and severity are that fact\'s'
    })),
    visual: Type.Optional(
      Type.Object(
        {
          changedPercent: Type.Number({ description: "share of the page's pixels that changed, 0–100" }),
          regions: Type.Array(
            Type.Object({ x: Type.Integer(), y: Type.Integer(), width: Type.Integer(), height: Type.Integer() }),
            { description: 'boxes around the changed areas, in page pixels, largest first' }
          )
        },
        {
          description: 'pages with screenshots: how the page looks different between the two snapshots; the ' +
            'images are at /api/changes/{id}/images/{before,after,diff}'
        }
      )
    )
  },
  { $id: 'DiffData', title: 'DiffData' }
)
/** A change's diff: jsdiff's structuredPatch hunks, with the text as the page shows it. */
export type DiffData = Static<typeof DiffDataSchema>
export type DiffHunk = DiffData['hunks'][number]

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
