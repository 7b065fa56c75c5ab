import { Type, type Static, type TSchema } from '@sinclair/typebox'
import {
  ChangeTypeSchema, literals, Nullable, PageTypeSchema, PricingPlanSchema, SeveritySchema, Timestamp,
  type ApiChange, type ChangeType, type Fact, type PageType, type Severity
} from './core.js'

// A research brief: what Sitewatch has seen of one domain, section by section, each fact
// with its source. Built by the research job (research/brief.ts), kept, and shown as JSON,
// Markdown and a printable page.

export const BRIEF_STATUSES = ['queued', 'building', 'ready', 'failed'] as const
export type BriefStatus = (typeof BRIEF_STATUSES)[number]

/** Where a fact was read: a page as one of its snapshots held it, or one of its changes. */
export const SourceSchema = Type.Object({
  url: Type.String({ description: "the page's address" }),
  at: Timestamp,
  snapshotId: Nullable(Type.String({ description: 'the snapshot the fact was read in' })),
  changeId: Nullable(Type.String({ description: 'the change the fact was read in' }))
}, { description: 'the page and the time of the snapshot (or change) a fact was read in' })
export type Source = Static<typeof SourceSchema>

/** One source's identity: a section lists each once, and its facts point to it by it. */
export const sourceKey = (s: Source) => `${s.url} ${s.snapshotId ?? ''} ${s.changeId ?? ''}`

/** Every section: whether it is in the brief, why not when it is not, and the sources of its facts. */
const section = <P extends Record<string, TSchema>>(properties: P, description: string) => Type.Object({
  included: Type.Boolean({ description: 'false when nothing Sitewatch holds supports the section' }),
  reason: Nullable(Type.String({ description: 'why the section is left out (null when included)' })),
  sources: Type.Array(SourceSchema, { description: "every page the section's facts were read on" }),
  ...properties
}, { description })

export const COMPANY_NAME_SOURCES = ['og:site_name', 'application-name', 'title'] as const

const Count = Type.Integer({ minimum: 0 })
const byKey = (keys: TSchema, description: string) =>
  Type.Record(Type.String(), Count, { description: `${description}; keys: ${JSON.stringify(keys.enum)}` })

export const COMPLIANCE_CLAIMS = [
  'SOC 2', 'ISO 27001', 'ISO 27017', 'ISO 27018', 'GDPR', 'CCPA', 'HIPAA', 'PCI DSS', 'FedRAMP', 'SSO', 'SAML',
  'SCIM', 'Data residency', 'Encryption', 'Penetration testing', 'Bug bounty'
] as const
export type ComplianceClaim = (typeof COMPLIANCE_CLAIMS)[number]

const Dated = { at: Timestamp, source: SourceSchema }

export const BriefSectionsSchema = Type.Object({
  company: section({
    name: Nullable(Type.String()),
    nameFrom: Nullable(literals(COMPANY_NAME_SOURCES, { description: 'where the name was read' })),
    legalName: Nullable(Type.Object({ name: Type.String(), source: SourceSchema }, {
      description: 'the company behind it, as its imprint or terms name it (a name with a legal form: GmbH, Inc.…)'
    })),
    languages: Type.Array(
      Type.Object({ language: Type.String({ description: 'en, fr, de, es, it, nl or pt' }), pages: Count }),
      { description: 'the languages its pages are written in, most pages first' }
    ),
    monitoredPages: Count,
    pagesByType: byKey(PageTypeSchema, 'monitored pages by type')
  }, 'the name the site gives itself, its languages, its monitored pages by type'),
  pricing: section({
    currency: Nullable(Type.String({ description: 'the currency most of its prices are in' })),
    plans: Type.Array(Type.Object({ ...PricingPlanSchema.properties, source: SourceSchema }),
      { description: 'the current plans, as the pricing reader reads them' }),
    freeTier: Nullable(Type.Object({ plan: Type.String(), source: SourceSchema })),
    trial: Nullable(Type.Object({
      text: Type.String({ description: 'the sentence that offers it' }),
      days: Nullable(Type.Integer()),
      source: SourceSchema
    })),
    priceChanges: Type.Array(Type.Object({
      ...Dated,
      kind: Type.String({
        description: 'what the change\'s alert found, one fact each: price_up, price_down, price_changed (per ' +
          'another period or currency), price_added, price_removed, plan_added, plan_removed; or price_change ' +
          '(a change recorded before its facts were kept, told by its summary)'
      }),
      plan: Nullable(Type.String()),
      before: Nullable(Type.String()),
      after: Nullable(Type.String()),
      percent: Nullable(Type.Number()),
      summary: Type.String()
    }), { description: 'every price move in the window, newest first (at most 100)' })
  }, 'the current plans and prices, a free tier or trial, and every price move in the window'),
  features: section({
    groups: Type.Array(Type.Object({ name: Type.String(), features: Type.Array(Type.String()), source: SourceSchema }),
      { description: "the features pages' inventory, grouped under the pages' own headings" }),
    windows: Type.Array(Type.Object({
      days: Type.Integer({ description: '30 or 90' }),
      since: Timestamp,
      added: Type.Array(Type.Object({ feature: Type.String(), group: Type.String(), source: SourceSchema })),
      removed: Type.Array(Type.Object({ feature: Type.String(), group: Type.String(), source: SourceSchema }))
    }), {
      description: 'what was added and removed over the last 30 and 90 days: the inventory now against the one in ' +
        'force then (`since` is later when Sitewatch first read the page later)'
    })
  }, 'the current feature inventory and what moved in 30 and 90 days'),
  security: section({
    claims: Type.Array(Type.Object({
      claim: literals(COMPLIANCE_CLAIMS),
      sentence: Type.String({ description: 'the sentence that makes it, as written' }),
      language: Nullable(Type.String()),
      source: SourceSchema
    }), { description: 'each claim as found: at most 3 sentences per claim' })
  }, 'security and compliance claims (SOC 2, ISO 27001, GDPR, HIPAA, PCI DSS, SSO/SAML, data residency…)'),
  legal: section({
    pages: Type.Array(Type.Object({
      url: Type.String(),
      pageType: PageTypeSchema,
      changes: Type.Integer({ description: 'its changes in the window' }),
      lastChange: Nullable(Type.Object({ ...Dated, summary: Type.String(), severity: SeveritySchema })),
      source: SourceSchema
    })),
    highSeverity: Type.Array(Type.Object({
      ...Dated,
      url: Type.String(),
      summary: Type.String(),
      severity: SeveritySchema
    }), { description: 'the high and critical edits of legal pages in the window, newest first' })
  }, 'each terms, privacy and security page with its last change and its changes in the window'),
  api: section({
    specification: Nullable(Type.Object({
      url: Type.String(),
      format: Type.String({ description: 'e.g. OpenAPI 3.1.0, Swagger 2.0' }),
      title: Nullable(Type.String()),
      version: Nullable(Type.String()),
      operations: Count,
      source: SourceSchema
    })),
    breaking: Type.Array(Type.Object({
      ...Dated,
      method: Type.String(),
      path: Type.String(),
      change: Type.String()
    }), { description: 'breaking changes in the window, newest first (at most 100)' })
  }, 'whether an API description was found, its operations, and its breaking changes in the window'),
  releases: section({
    months: Type.Array(Type.Object({ month: Type.String({ description: 'YYYY-MM' }), entries: Count }),
      { description: 'dated changelog entries per month over the last 90 days, oldest first' }),
    latest: Type.Array(Type.Object({
      version: Nullable(Type.String()),
      date: Nullable(Type.String()),
      title: Type.String(),
      items: Type.Array(Type.String()),
      source: SourceSchema
    }), { description: 'the latest five entries' })
  }, "the changelog's entries per month over 90 days, and its latest five entries"),
  activity: section({
    windows: Type.Array(Type.Object({
      days: Type.Integer({ description: '7, 30 or 90' }),
      total: Count,
      byType: byKey(ChangeTypeSchema, 'changes by type'),
      bySeverity: byKey(SeveritySchema, 'changes by severity')
    })),
    mostChanged: Type.Array(Type.Object({
      url: Type.String(),
      pageType: PageTypeSchema,
      changes: Type.Integer({ description: 'its changes over 90 days' })
    }), { description: 'the pages that changed most over 90 days (at most 10)' })
  }, 'changes by type and severity over 7, 30 and 90 days, and the pages that change most')
}, { description: 'the sections, in reading order; null until the brief is ready' })
export type BriefSections = Static<typeof BriefSectionsSchema>
export type SectionName = keyof BriefSections

const briefBase = {
  id: Type.String({ format: 'uuid' }),
  domainId: Type.String({ format: 'uuid' }),
  domain: Type.String({ description: 'the hostname' }),
  status: literals(BRIEF_STATUSES, {
    description: 'queued → building → ready; failed once its job has failed for good (the credit is given back)'
  }),
  jobId: Type.String({ description: 'its research.domain job, in /api/jobs' }),
  createdAt: Timestamp,
  completedAt: Nullable(Timestamp),
  failedReason: Nullable(Type.String()),
  creditRefunded: Type.Boolean({ description: 'true once a failed brief gave its research credit back' })
}

export const BriefSummarySchema = Type.Object(briefBase, { $id: 'ResearchBriefSummary', title: 'ResearchBriefSummary' })
export type BriefSummary = Static<typeof BriefSummarySchema>

export const BriefSchema = Type.Object({
  ...briefBase,
  window: Nullable(Type.Object({
    builtAt: Timestamp,
    retentionDays: Nullable(Type.Integer({ description: "the plan's history retention; null when unlimited" })),
    pages: Count,
    changes: Count
  }, { description: 'when it was built, over what history (the pages and changes it read)' })),
  sections: Nullable(BriefSectionsSchema)
}, { $id: 'ResearchBrief', title: 'ResearchBrief' })
export type Brief = Static<typeof BriefSchema>

/** What the brief is built from, as the store reads it (the research job's thread gets it whole). */
export interface ResearchInputs {
  hostname: string
  now: Date
  retentionDays: number | null
  /** Every page of the domain (monitored or not): types and counts. */
  pages: Array<{ id: string, url: string, pageType: PageType, monitored: boolean }>
  /** The latest snapshot of the domain's highest-ranked monitored pages, highest first (within READ_LIMITS). */
  texts: Array<{
    pageId: string
    snapshotId: string
    at: Date
    text: string
    /** The first bytes of its gzipped HTML: enough for `<html lang>`. */
    head?: Uint8Array | null
    /** The language its HTML declares (read from `head` on the analysis thread). */
    declared?: string
  }>
  /** The raw page (and its document) of the home page and of the pages the structured readers read. */
  raws: Array<{
    pageId: string
    snapshotId: string
    at: Date
    page: StoredBytes
    document?: StoredBytes & { url: string }
  }>
  /** Features pages as they read now (`days` 0) and at the start of each window (see FEATURE_WINDOWS). */
  features: Array<{ pageId: string, days: number, snapshotId: string, at: Date, text: string }>
  /** Changes over 7/30/90 days by type and severity. */
  activity: Array<{ changeType: ChangeType, severity: Severity, d7: number, d30: number, d90: number }>
  mostChanged: Array<{ pageId: string, changes: number }>
  /** Changes kept (the retention window) on each legal page, with its latest one. */
  legal: Array<{ pageId: string, changes: number, last: DatedChange | null, snapshot: { id: string, at: Date } | null }>
  legalHigh: DatedChange[]
  /**
   * Price changes in the window, newest first: their facts, as their alerts told them (null
   * on changes recorded before facts were kept), and the pricing reader's moves.
   */
  priceChanges: Array<DatedChange & { facts: Fact[] | null, moves: PriceMove[] | null }>
  apiBreaking: Array<{ changeId: string, pageId: string, at: Date, breaking: ApiChange[] }>
  changesInWindow: number
}

/** A page or document as a snapshot keeps it: gzipped, with its content type (for its charset). */
export interface StoredBytes { gzip: Uint8Array, contentType: string }

export interface DatedChange { changeId: string, pageId: string, at: Date, summary: string, severity: Severity }
export interface PriceMove {
  kind: string
  plan?: string
  before?: string
  after?: string
  percent?: number
  summary: string
}

/**
 * What a brief reads of its pages' text, so that its memory is bounded whatever the site
 * serves: the highest-ranked monitored pages, at most `pages` of them, the first
 * `charsPerPage` characters of each, and no more pages once their total would pass
 * `chars` (about 2 bytes a character in memory). A text counts its stored bytes there, at
 * most `charsPerPage`: never fewer than its characters, so the total holds.
 */
export const READ_LIMITS = { pages: 500, charsPerPage: 200_000, chars: 20_000_000 }
export type ReadLimits = typeof READ_LIMITS
/** Pages of each structured type whose raw page a brief reads, the highest-ranked first. */
export const RAW_PAGES_PER_TYPE = 5
export const FEATURE_WINDOWS = [30, 90] as const
export const ACTIVITY_WINDOWS = [7, 30, 90] as const
