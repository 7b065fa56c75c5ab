// The shapes of the contract, so that the components of /openapi.json and the $refs between
// them are read (and reviewed) together: alerting's resources in schemas-alerts.ts; the
// responses a route documents, with their headers and errors, and pagination in responses.ts.
import { Type } from '@sinclair/typebox'
import { UsageSchema } from '../vocabulary/plans.js'
import { BriefSchema, BriefSummarySchema } from '../vocabulary/research.js'
import { AuditEventSchema } from '../vocabulary/audit.js'
import { SsoDomainStateSchema, SsoSettingsSchema } from '../vocabulary/sso.js'
import {
  ChangeTypeSchema,
  DiffDataSchema,
  DomainStatusSchema,
  JobNameSchema,
  JobStateSchema,
  literals,
  NoiseRulesSchema,
  Nullable,
  PageTypeSchema,
  PageTypeSourceSchema,
  RenderedWithSchema,
  RenderModeSchema,
  SeveritySchema
} from '../vocabulary/core.js'

// One TypeBox schema per shape of the contract. Each validates requests, types the
// handlers and becomes a component of /openapi.json. The vocabulary's own schemas
// (page types, severities, noise rules, …) come from src/vocabulary.

const Uuid = Type.String({ format: 'uuid' })
const DateTime = Type.String({ format: 'date-time' })
const Decimal = Type.String({
  pattern: '^(0|1)\\.\\d{2}$',
  description: 'a decimal from 0.00 to 1.00, as a string',
  examples: ['0.85']
})

export const IdParams = Type.Object({ id: Uuid }, { additionalProperties: false })

export const DiffData = DiffDataSchema

export const Change = Type.Object(
  {
    id: Uuid,
    pageId: Uuid,
    domainId: Uuid,
    orgId: Uuid,
    changeType: ChangeTypeSchema,
    severity: SeveritySchema,
    confidence: Decimal,
    summary: Type.String({
      description: 'what changed, in the page\'s own words: the page\'s kind and section, then the changed words ' +
        'quoted with a little context ("…old…" → "…new…", or added/removed "…"), and how many more passages changed',
      examples: ['Privacy Policy, Data retention: "…personal data for 30 days…" → "…personal data for 90 days…"']
    }),
    diffData: Type.Ref(DiffData),
    snapshotBeforeId: Uuid,
    snapshotAfterId: Uuid,
    acknowledgedAt: Nullable(DateTime),
    acknowledgedBy: Nullable(Type.String({
      description: 'who acknowledged the change: the id of the API key (acknowledgedByKind `key`), or the ' +
        'e-mail of the person who did in the web app (`person`)'
    })),
    acknowledgedByKind: Type.Union([literals(['key', 'person']), Type.Null()], {
      description: 'whether a key or a person acknowledged it; null when nobody has'
    }),
    createdAt: DateTime,
    verdict: Type.Union([literals(['important', 'not_important']), Type.Null()], {
      description: 'a person\'s verdict (POST /api/changes/:id/feedback), an addition to the contract'
    }),
    pinnedAt: Type.Union([DateTime, Type.Null()], { description: 'when "important" pinned it' }),
    learnedSeverity: Type.Union([
      Type.Object({
        from: SeveritySchema,
        ruleId: Type.Union([Uuid, Type.Null()], {
          description: 'the learned rule (GET /api/learned-rules); null once removed'
        })
      }),
      Type.Null()
    ], {
      description: 'set when a rule learned from feedback moved its severity: the severity it was detected at'
    }),
    alertRule: Type.Union([
      Type.Object({
        action: literals(['alert', 'digest', 'mute'] as const),
        ruleId: Type.Union([Uuid, Type.Null()], { description: 'the alert rule (null once deleted)' })
      }),
      Type.Null()
    ], {
      description: 'what an alert rule of the organisation made of it when it was dispatched (an addition): alert, ' +
        'digest (not sent in real time; in the digests) or mute (not sent; still listed); null when none matched'
    })
  },
  { $id: 'Change', title: 'Change' }
)

const domainBase = {
  id: Uuid,
  orgId: Uuid,
  domain: Type.String({ description: 'hostname', examples: ['example.com'] }),
  displayName: Nullable(Type.String({ examples: ['Example Inc.'] })),
  status: DomainStatusSchema,
  checkFrequencyHours: Type.Integer(),
  render: { ...RenderModeSchema, description: "the default of its pages' render setting (auto, always, never)" },
  tags: Type.Array(Type.String(), {
    description: 'labels of your own ("direct competitors", "suppliers"), trimmed and lower-case; the inbox, ' +
      'the feeds, the digest and webhooks can be narrowed to domains with a tag'
  }),
  discoveryFailure: Nullable(Type.Object({
    kind: literals(['blocked', 'error'] as const, {
      description: 'blocked: the site keeps Sitewatch out; error: it could not be read'
    }),
    reason: Type.String({ description: 'why, with what discovery tried (home page, sitemaps, common paths)' }),
    at: DateTime,
    nextStep: Type.String({ description: 'what a person can do about it, then POST …/discover to try again' })
  }, { description: 'why its last discovery failed for good; null once one finds its pages' })),
  discoveryNote: Nullable(Type.String({
    description: 'what cut its last discovery short, when something did (a limit of addresses, sitemap bytes ' +
      'or sitemaps read, or its deadline): the pages found until then were kept; null when it read everything'
  })),
  createdAt: DateTime,
  updatedAt: DateTime
}
const crawlTimes = {
  lastCrawledAt: Nullable(DateTime),
  nextCrawlAt: Nullable(DateTime)
}

export const CreatedDomain = Type.Object(
  { ...domainBase, discoveryJobId: Type.String() },
  { $id: 'CreatedDomain', title: 'CreatedDomain' }
)

export const DomainListItem = Type.Object(
  {
    ...domainBase,
    ...crawlTimes,
    pages: Type.Array(Type.Object({ id: Uuid, url: Type.String(), pageType: PageTypeSchema, status: Type.String() }))
  },
  { $id: 'DomainListItem', title: 'DomainListItem' }
)

export const DomainDetails = Type.Object(
  {
    ...domainBase,
    ...crawlTimes,
    pages: Type.Array(
      Type.Object({
        id: Uuid,
        domainId: Uuid,
        url: Type.String(),
        name: Nullable(Type.String({ description: 'the name people gave the page; null: none (see Page)' })),
        pageType: PageTypeSchema,
        status: Type.String(),
        monitoringEnabled: Type.Boolean(),
        priority: Type.Integer({ description: '1 (first) to 10' }),
        intelligence: Type.Boolean({ description: "one of the domain's intelligence pages (see Page)" }),
        lastCheckAt: Nullable(DateTime),
        lastChangeAt: Nullable(DateTime)
      })
    ),
    recentChanges: Type.Array(Type.Ref(Change), { description: 'the 20 newest changes of the domain, newest first' })
  },
  { $id: 'DomainDetails', title: 'DomainDetails' }
)

const pageBase = {
  id: Uuid,
  domainId: Uuid,
  url: Type.String(),
  name: Nullable(Type.String({
    description: 'the name people gave the page (PATCH it), shown in its place in the app and in alerts; null: ' +
      'it goes by its address'
  })),
  urlHash: Type.String({ description: 'SHA-256 of the normalised URL, hex' }),
  pageType: PageTypeSchema,
  pageTypeSource: PageTypeSourceSchema,
  status: Type.String({ description: 'active, or error after three failed crawls in a row' }),
  monitoringEnabled: Type.Boolean(),
  priority: Type.Integer({
    description: '1 (first) to 10; 5 unless set. Orders the crawls and the intelligence pages'
  }),
  intelligence: Type.Boolean({
    description: "one of its domain's intelligence pages: the plan's number of highest-ranked monitored pages " +
      '(limits.intelligencePagesPerDomain in /api/usage), by priority, then type (pricing, features, api_docs, ' +
      'changelog, terms, security, other), then discovery order. They also get screenshots when their ' +
      'screenshots setting is on and, when of type pricing, api_docs or changelog, its structured reader: their ' +
      'changes carry diffData.pricing, diffData.api or diffData.changelog'
  }),
  lastCheckAt: Nullable(DateTime),
  lastChangeAt: Nullable(DateTime),
  errorCount: Type.Integer(),
  lastError: Nullable(Type.String()),
  failure: Nullable(Type.Object({
    kind: literals(['blocked', 'error'] as const, {
      description: 'blocked: the site keeps Sitewatch out (a bot wall\'s challenge, a 401/403/429 refusal, its ' +
        'robots.txt); error: the page or the site is broken (gone, failing, unreachable, unreadable)'
    }),
    reason: Type.String({ description: 'what the last check met, as lastError' }),
    since: DateTime,
    failedChecks: Type.Integer({ description: 'checks failed in a row; the page is in error after 3 (status)' }),
    nextStep: Type.String({ description: 'what a person can do about it, in a sentence' })
  }, {
    description: 'while the page\'s checks fail (null once one succeeds): whether the site blocks Sitewatch or the ' +
      'page is broken, since when, and what to do. The page\'s status stays active, then error after three failed ' +
      'checks in a row, as decisions.md says; a blocked page is in error too, and failure.kind tells the two apart'
  })),
  metadata: Type.Object({}, { additionalProperties: true }),
  createdAt: DateTime
}

export const NoiseRules = NoiseRulesSchema

export const CreatedPage = Type.Object(pageBase, { $id: 'CreatedPage', title: 'CreatedPage' })
export const Page = Type.Object(
  {
    ...pageBase,
    pageTypeConfidence: Type.String({
      pattern: Decimal.pattern,
      examples: Decimal.examples,
      description: 'how sure the type is, 0.00 to 1.00: 1.00 for a type a person chose; for a type Sitewatch gave, ' +
        'each source of evidence that names a kind adds its weight (the last path segment 0.5, the rest of the path ' +
        'or the subdomain 0.3, the title 0.25, the link text 0.2, the first headings 0.15, the text up to 0.6 by ' +
        "how often it uses the kind's words), and the confidence is 0.35 + 0.6 × that score − 0.2 × the next " +
        "kind's score, within 0.05..0.99; `other` is 0.90 less the best kind's score"
    }),
    noiseRules: Type.Ref(NoiseRules),
    render: Type.Union([RenderModeSchema, Type.Null()], { description: "how the page is fetched; null: the domain's" }),
    renderedWith: Type.Union([RenderedWithSchema, Type.Null()], {
      description: 'what the page was last read with: http (a plain request) or browser; null before its first crawl'
    }),
    renderReason: Nullable(Type.String({
      description: 'why the browser was needed (auto mode), or why it is used; when the browser failed and a plain ' +
        'fetch read the page, that failure (`the browser failed (…); read without it`): the plain text was ' +
        'recorded, the page is not in error, and the next crawl tries the browser again'
    })),
    readingNote: Nullable(Type.String({
      description: "what its type's reader (plans and prices, the API description, the changelog's entries) could " +
        'not read or compare at its last check, in words: the page was then compared as text; null when it read it'
    })),
    screenshots: Type.Boolean({
      description: 'the page is rendered for its screenshots: its first is kept, then one with each change (a ' +
        'change\'s before is the last one kept); a version whose text moved only in its noise, or whose picture ' +
        'moved under its visualThreshold, keeps none (rendered pages always keep them so)'
    }),
    visualThreshold: Nullable(Type.Number({
      description: 'percentage of the page that must change in the pictures alone'
    }))
  },
  { $id: 'Page', title: 'Page' }
)

export const JobTypeSchema = literals(['crawl', 'discover', 'research'] as const, {
  description: 'crawl (crawl.page), discover (discover.pages) or research (research.domain: a research brief)'
})

const jobBase = {
  id: Type.String(),
  name: JobNameSchema,
  type: JobTypeSchema,
  url: Nullable(Type.String()),
  domainId: Uuid,
  pageId: Nullable(Uuid),
  state: JobStateSchema,
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  attemptsMade: Type.Integer(),
  createdAt: DateTime,
  processedAt: Nullable(DateTime),
  finishedAt: Nullable(DateTime),
  failedReason: Nullable(Type.String())
}
export const JobListItem = Type.Object(jobBase, { $id: 'JobListItem', title: 'JobListItem' })
export const Job = Type.Object(
  {
    ...jobBase,
    maxAttempts: Type.Integer(),
    returnValue: Nullable(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            'for discovery: pagesDiscovered and pagesAdded; for a crawl: outcome (skipped, not_modified, ' +
            'unchanged, baseline or changed), changed (a new snapshot after an earlier one), changesDetected, ' +
            'snapshotId, and skipped (why) when skipped; for research: briefId'
        }
      )
    )
  },
  { $id: 'Job', title: 'Job' }
)

export const QueueStats = Type.Object(
  {
    waiting: Type.Integer(),
    active: Type.Integer(),
    completed: Type.Integer(),
    failed: Type.Integer(),
    delayed: Type.Integer(),
    total: Type.Integer(),
    oldestWaitingSeconds: Type.Optional(Type.Number({
      description: 'How long the oldest job that may start has waited for a worker (0 when none waits)'
    })),
    hosts: Type.Optional(Type.Array(Type.Object({
      host: Type.String(),
      waiting: Type.Integer({ description: 'crawls due, each taken as soon as its host is free' }),
      delayed: Type.Integer({ description: "crawls held by a retry's backoff or the host's Retry-After" }),
      active: Type.Integer()
    }), { description: 'Unfinished crawls by host, the 20 with most' }))
  },
  { $id: 'QueueStats', title: 'QueueStats' }
)

export const Usage = UsageSchema

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'a human-readable message' }),
    code: Type.String({
      description:
        'VALIDATION_ERROR, QUOTA_EXCEEDED, TRIAL_EXPIRED, FORBIDDEN, NOT_FOUND, METHOD_NOT_ALLOWED, CONFLICT, ' +
        'PAYLOAD_TOO_LARGE, RATE_LIMITED, INTERNAL_ERROR or SERVICE_UNAVAILABLE'
    }),
    details: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            '400: field (the offending field), location (body, query or params) and issues; 402: resource ' +
            '(domains, pages, manualRechecks or researchCredits), used and limit, when the count starts again ' +
            '(resetsAt: the billing period\'s end; a trial\'s quota does not start again: trialEndsAt) and who ' +
            'can change the plan (changedBy: owner); 429: limit and retryAfter; 503: retryAfter'
        }
      )
    )
  },
  { $id: 'Error', title: 'Error' }
)

export const AuthErrorBody = Type.Object(
  {
    error: Type.Object({ code: Type.Literal('UNAUTHORIZED'), message: Type.String() })
  },
  { $id: 'AuthError', title: 'AuthError' }
)

export const ListMeta = Type.Object(
  {
    total: Type.Integer(),
    page: Type.Integer(),
    pageSize: Type.Integer(),
    totalCapped: Type.Optional(
      Type.Boolean({
        description:
          'changes and e-mails only: true when total is a lower bound (more than 1,000 match, or counting ran out ' +
          'of its time budget)'
      })
    ),
    nextCursor: Type.Optional(
      Type.String({
        description:
          'history lists only (changes, jobs, snapshots, webhook deliveries, e-mails): present when more follow; ' +
          'pass it as `cursor` to read the next page at the same cost whatever its depth (keyset pagination; ' +
          '`page` skips its way there)'
      })
    )
  },
  { $id: 'ListMeta', title: 'ListMeta' }
)

export const SHARED_SCHEMAS = [
  AuditEventSchema,
  SsoDomainStateSchema,
  SsoSettingsSchema,
  DiffData,
  BriefSummarySchema,
  BriefSchema,
  Change,
  CreatedDomain,
  DomainListItem,
  DomainDetails,
  NoiseRules,
  CreatedPage,
  Page,
  JobListItem,
  Job,
  QueueStats,
  Usage,
  ErrorBody,
  AuthErrorBody,
  ListMeta
]

export { DomainStatusSchema, JobStateSchema, literals, Nullable, PageTypeSchema, RenderModeSchema, Uuid, DateTime }
