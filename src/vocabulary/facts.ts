import {
  FACT_SUBJECT_OF, LEGAL_PAGE_TYPES, type ChangeType, type Fact, type FactKind, type IgnoredFact, type PageType,
  type Severity
} from './core.js'

// What a check found, as facts (a price up 30 % on Pro, an operation removed, a section
// added, a revision date changed), and the one table that turns a fact into a change
// type and a severity, with the page's type as a column. The text comparison and every
// structured reader say what they found as facts; nothing else decides a severity (a
// person's learned rules adjust it afterwards, see learned.ts). The first row whose kind,
// page types and condition match names the fact; every kind ends in a row for any page.

export interface FactRule {
  kind: FactKind
  /** The page types the row is for: `legal` for terms and security pages; none: any page. */
  pages?: readonly PageType[] | 'legal'
  when?: (f: Fact) => boolean
  changeType: ChangeType
  severity: Severity
}

const PRODUCT: readonly PageType[] = ['pricing', 'features']
const up = (n: number) => (f: Fact) => (f.percent ?? Infinity) >= n
const apart = (n: number) => (f: Fact) => Math.abs(f.percent ?? Infinity) >= n
const charged = (f: Fact) => f.charge !== undefined
const bigText = (f: Fact) => (f.words ?? 0) > 40 || (f.lines ?? 0) > 6
const legal = (f: Fact) => f.legalWords === true
const quantities = (f: Fact) => f.quantities === true
const halved = (f: Fact) => f.percent === undefined || f.percent <= -50
const release = (weight: Fact['release'], adds?: boolean) => (f: Fact) =>
  f.release === weight && (adds === undefined || f.adds === adds)

/** The one table: fact (and page type) → change type and severity. First match wins. */
export const FACT_RULES: readonly FactRule[] = [
  // A fee, a term's total or an add-on's price weighs less than the plan's own price, however far it moved.
  { kind: 'price_up', when: charged, changeType: 'price_change', severity: 'medium' },
  { kind: 'price_down', when: charged, changeType: 'price_change', severity: 'medium' },
  { kind: 'price_changed', when: charged, changeType: 'price_change', severity: 'medium' },
  { kind: 'price_removed', when: charged, changeType: 'price_change', severity: 'medium' },
  { kind: 'price_up', when: up(50), changeType: 'price_change', severity: 'critical' },
  { kind: 'price_up', when: up(20), changeType: 'price_change', severity: 'high' },
  { kind: 'price_up', changeType: 'price_change', severity: 'medium' },
  { kind: 'price_down', when: apart(20), changeType: 'price_change', severity: 'high' },
  { kind: 'price_down', changeType: 'price_change', severity: 'medium' },
  // Per another period or in another currency: a move the numbers cannot weigh.
  { kind: 'price_changed', changeType: 'price_change', severity: 'high' },
  { kind: 'price_removed', changeType: 'price_change', severity: 'high' },
  { kind: 'price_added', changeType: 'price_change', severity: 'medium' },
  { kind: 'plan_removed', when: f => f.priced === true, changeType: 'price_change', severity: 'high' },
  { kind: 'plan_removed', changeType: 'feature_removed', severity: 'high' },
  { kind: 'plan_added', when: f => f.priced === true, changeType: 'price_change', severity: 'medium' },
  { kind: 'plan_added', changeType: 'feature_added', severity: 'medium' },
  { kind: 'limit_lowered', when: halved, changeType: 'feature_removed', severity: 'high' },
  { kind: 'limit_lowered', changeType: 'feature_removed', severity: 'medium' },
  { kind: 'limit_raised', changeType: 'feature_added', severity: 'medium' },
  { kind: 'feature_removed', pages: PRODUCT, changeType: 'feature_removed', severity: 'high' },
  { kind: 'feature_removed', changeType: 'feature_removed', severity: 'medium' },
  { kind: 'feature_moved', changeType: 'feature_removed', severity: 'medium' },
  { kind: 'feature_added', pages: PRODUCT, changeType: 'feature_added', severity: 'medium' },
  { kind: 'feature_added', changeType: 'feature_added', severity: 'low' },
  // A legal page's sections are its terms: weighed by what they say, at least medium.
  { kind: 'section_added', pages: 'legal', when: legal, changeType: 'terms_update', severity: 'high' },
  { kind: 'section_added', pages: 'legal', changeType: 'terms_update', severity: 'medium' },
  { kind: 'section_added', pages: PRODUCT, changeType: 'section_added', severity: 'medium' },
  { kind: 'section_added', changeType: 'section_added', severity: 'low' },
  { kind: 'section_removed', pages: 'legal', when: legal, changeType: 'terms_update', severity: 'high' },
  { kind: 'section_removed', pages: 'legal', changeType: 'terms_update', severity: 'medium' },
  { kind: 'section_removed', pages: PRODUCT, changeType: 'section_removed', severity: 'high' },
  { kind: 'section_removed', changeType: 'section_removed', severity: 'medium' },
  { kind: 'operation_removed', changeType: 'feature_removed', severity: 'critical' },
  { kind: 'api_breaking', changeType: 'feature_removed', severity: 'high' },
  { kind: 'operation_added', changeType: 'feature_added', severity: 'medium' },
  { kind: 'api_deprecated', changeType: 'content_change', severity: 'medium' },
  { kind: 'api_described', changeType: 'content_change', severity: 'low' },
  { kind: 'release_added', when: release('breaking', true), changeType: 'feature_added', severity: 'critical' },
  { kind: 'release_added', when: release('breaking'), changeType: 'content_change', severity: 'critical' },
  { kind: 'release_added', when: release('removal', true), changeType: 'feature_added', severity: 'high' },
  { kind: 'release_added', when: release('removal'), changeType: 'content_change', severity: 'high' },
  { kind: 'release_added', when: f => f.adds === true, changeType: 'feature_added', severity: 'medium' },
  { kind: 'release_added', when: release('deprecation'), changeType: 'content_change', severity: 'medium' },
  { kind: 'release_added', changeType: 'content_change', severity: 'low' },
  { kind: 'release_edited', changeType: 'content_change', severity: 'low' },
  { kind: 'text_edit', pages: 'legal', when: legal, changeType: 'terms_update', severity: 'high' },
  // A duration, share or amount of the terms changed is substance, above any re-wording around it.
  { kind: 'text_edit', pages: 'legal', when: quantities, changeType: 'terms_update', severity: 'medium' },
  // So is a grant taken away: what a plan includes, what a free tier may do.
  { kind: 'text_edit', pages: 'legal', when: f => f.narrows === true, changeType: 'terms_update', severity: 'medium' },
  { kind: 'text_edit', pages: 'legal', when: f => (f.lines ?? 0) > 4, changeType: 'terms_update', severity: 'medium' },
  { kind: 'text_edit', pages: 'legal', changeType: 'terms_update', severity: 'low' },
  { kind: 'text_edit', when: bigText, changeType: 'content_change', severity: 'medium' },
  { kind: 'text_edit', changeType: 'content_change', severity: 'low' },
  // A legal page's new date of revision is an update of its terms, of no weight by itself.
  { kind: 'revision_date_changed', pages: 'legal', changeType: 'terms_update', severity: 'low' },
  { kind: 'revision_date_changed', changeType: 'content_change', severity: 'low' },
  { kind: 'trivial_edit', changeType: 'content_change', severity: 'low' },
  { kind: 'visual_change', when: up(10), changeType: 'content_change', severity: 'medium' },
  { kind: 'visual_change', changeType: 'content_change', severity: 'low' }
]

const onPage = (rule: FactRule, pageType: PageType) =>
  rule.pages === undefined ||
  (rule.pages === 'legal' ? LEGAL_PAGE_TYPES.includes(pageType) : rule.pages.includes(pageType))

/** The change type and severity of `fact` on a page of `pageType`: the first row of FACT_RULES that matches. */
export function judge (fact: Fact, pageType: PageType): { changeType: ChangeType, severity: Severity } {
  const rule = FACT_RULES.find(r => r.kind === fact.kind && onPage(r, pageType) && (r.when?.(fact) ?? true))
  // Every kind ends in a row for any page (a test walks them all): this is never reached.
  if (!rule) throw new Error(`no rule for the fact ${fact.kind} on a ${pageType} page`)
  return { changeType: rule.changeType, severity: rule.severity }
}

/** How each kind of fact is counted after a change's lead: "and 11 more prices up". */
export const FACT_WORDS: Record<FactKind, readonly [one: string, many: string]> = {
  price_up: ['price up', 'prices up'],
  price_down: ['price down', 'prices down'],
  price_changed: ['price changed', 'prices changed'],
  price_added: ['price added', 'prices added'],
  price_removed: ['price removed', 'prices removed'],
  plan_added: ['plan added', 'plans added'],
  plan_removed: ['plan removed', 'plans removed'],
  limit_raised: ['limit raised', 'limits raised'],
  limit_lowered: ['limit lowered', 'limits lowered'],
  feature_added: ['feature added', 'features added'],
  feature_removed: ['feature removed', 'features removed'],
  feature_moved: ['feature moved', 'features moved'],
  section_added: ['section added', 'sections added'],
  section_removed: ['section removed', 'sections removed'],
  operation_added: ['operation added', 'operations added'],
  operation_removed: ['operation removed', 'operations removed'],
  api_breaking: ['breaking change', 'breaking changes'],
  api_deprecated: ['deprecation', 'deprecations'],
  api_described: ['description edited', 'descriptions edited'],
  release_added: ['release', 'releases'],
  release_edited: ['entry edited', 'entries edited'],
  text_edit: ['passage', 'passages'],
  revision_date_changed: ['revision date', 'revision dates'],
  trivial_edit: ['minor edit', 'minor edits'],
  visual_change: ['visual change', 'visual changes']
}

/** A subject as muting compares it: no case, spaces collapsed. */
const subjectKey = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim()

/** Whether a fact is one a page's `ignoreFacts` leaves out: undefined when the page leaves none out. */
export function factMuter (ignored: readonly IgnoredFact[] | undefined): ((f: Fact) => boolean) | undefined {
  if (!ignored?.length) return undefined
  const keys = new Set(ignored.map(i => `${i.kind}\n${subjectKey(i.subject)}`))
  return f => {
    const kind = FACT_SUBJECT_OF[f.kind]
    return kind !== undefined && f.subject !== undefined && keys.has(`${kind}\n${subjectKey(f.subject)}`)
  }
}

/** Whether every fact of a change is muted: then nothing of it is told (a change with no facts never is). */
export const allMuted = (facts: readonly Fact[] | undefined, muted: ((f: Fact) => boolean) | undefined): boolean =>
  muted !== undefined && facts !== undefined && facts.length > 0 && facts.every(muted)
