import { Type, type Static } from '@sinclair/typebox'
import {
  ChangeTypeSchema, literals, PageTypeSchema, SEVERITY_RANK, SeveritySchema, TagSchema,
  type ChangeType, type DiffData, type PageType, type Severity
} from './core.js'

// Alert rules people write (custom alert rules, enterprise): each says which changes it
// matches and what becomes of them. Rules are data, kept in order; the first enabled rule
// that matches a change decides, and a change no rule matches is alerted as the plan says.
// The same evaluation serves the alerts' dispatch and the try-out over 30 days.

export const RULE_ACTIONS = ['alert', 'digest', 'mute'] as const
export type RuleAction = typeof RULE_ACTIONS[number]

export const RuleMatchSchema = Type.Object({
  domainIds: Type.Optional(Type.Array(Type.String({ format: 'uuid' }), { minItems: 1, maxItems: 100 })),
  tags: Type.Optional(Type.Array(TagSchema, { minItems: 1, maxItems: 20, description: 'any of these domain tags' })),
  pageTypes: Type.Optional(Type.Array(PageTypeSchema, { minItems: 1, maxItems: 7 })),
  changeTypes: Type.Optional(Type.Array(ChangeTypeSchema, { minItems: 1, maxItems: 7 })),
  minSeverity: Type.Optional(SeveritySchema),
  minConfidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  words: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
    minItems: 1,
    maxItems: 20,
    description: 'any of these words or phrases in a line the change added or removed (case aside)'
  })),
  price: Type.Optional(Type.Object({
    plan: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'a plan whose name holds this' })),
    direction: Type.Optional(literals(['up', 'down'] as const)),
    minPercent: Type.Optional(Type.Number({
      minimum: 0, maximum: 10_000, description: 'a move of at least this many percent'
    }))
  }, {
    additionalProperties: false,
    description: "a price move of a plan, wherever it was found (a table of plans or the page's text)"
  }))
}, {
  additionalProperties: false,
  description: 'every condition given must hold (within one, any of its values); none given matches every change'
})
export type RuleMatch = Static<typeof RuleMatchSchema>

/** A rule as people write it (the API's body, the app's form). */
export const RULE_FIELDS = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  match: RuleMatchSchema,
  action: literals(RULE_ACTIONS, {
    description: 'alert: sent as the plan sends changes; digest: not sent in real time, left to the e-mail digests ' +
      '(a member whose e-mail is real time gets those once a day, at their digest hour); mute: not sent, still ' +
      'stored and listed'
  }),
  enabled: Type.Optional(Type.Boolean({ default: true })),
  position: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'lower first; default last' }))
}
export const RuleInputSchema = Type.Object(RULE_FIELDS, { additionalProperties: false })

/** What a rule reads of a change. */
export interface RuleFacts {
  domainId: string
  domainTags: readonly string[]
  pageType: PageType
  changeType: ChangeType
  severity: Severity
  confidence: number
  /** The lines it added or removed, lower-case. */
  lines: readonly string[]
  priceMoves: ReadonlyArray<{ plan: string, direction: 'up' | 'down', percent: number | undefined }>
}

/**
 * What a rule reads of a change. A change read without its confidence or its diff (a
 * filter's list) passes no condition on them: filters hold none.
 */
export function factsOf (c: {
  domainId: string
  domainTags: readonly string[]
  pageType: PageType
  changeType: ChangeType
  severity: Severity
  confidence?: number | string
  diffData?: Pick<DiffData, 'hunks' | 'pricing' | 'facts'>
}): RuleFacts {
  // A price move wherever it was found: the facts of the change (the text's or a reader's), else, for a change
  // recorded before changes held facts, its pricing reader's moves.
  const facts = c.diffData?.facts
  const moves = facts
    ? facts.filter(f => f.kind === 'price_up' || f.kind === 'price_down')
      .map(f => ({ plan: f.subject ?? '', up: f.kind === 'price_up', percent: f.percent }))
    : (c.diffData?.pricing?.changes ?? []).filter(p => p.kind === 'price_up' || p.kind === 'price_down')
        .map(p => ({ plan: p.plan ?? '', up: p.kind === 'price_up', percent: p.percent }))
  return {
    domainId: c.domainId,
    domainTags: c.domainTags,
    pageType: c.pageType,
    changeType: c.changeType,
    severity: c.severity,
    confidence: c.confidence === undefined ? 0 : Number(c.confidence),
    lines: (c.diffData?.hunks ?? []).flatMap(h => h.lines).filter(l => l.type !== 'context')
      .map(l => l.content.toLowerCase()),
    priceMoves: moves.map(m => ({ plan: m.plan.toLowerCase(), direction: m.up ? 'up' : 'down', percent: m.percent }))
  }
}

/** Each condition a rule may hold, and whether a change passes it. */
const CONDITIONS: { [K in keyof RuleMatch]-?: (want: NonNullable<RuleMatch[K]>, f: RuleFacts) => boolean } = {
  domainIds: (ids, f) => ids.includes(f.domainId),
  tags: (tags, f) => tags.some(t => f.domainTags.includes(t.trim().replace(/\s+/g, ' ').toLowerCase())),
  pageTypes: (types, f) => types.includes(f.pageType),
  changeTypes: (types, f) => types.includes(f.changeType),
  minSeverity: (min, f) => SEVERITY_RANK[f.severity] >= SEVERITY_RANK[min],
  minConfidence: (min, f) => f.confidence >= min,
  words: (words, f) => words.some(w => f.lines.some(l => l.includes(w.toLowerCase()))),
  price: (p, f) => f.priceMoves.some(m =>
    (p.plan === undefined || m.plan.includes(p.plan.toLowerCase())) &&
    (p.direction === undefined || m.direction === p.direction) &&
    (p.minPercent === undefined || (m.percent !== undefined && Math.abs(m.percent) >= p.minPercent)))
}

export function ruleMatches (match: RuleMatch, f: RuleFacts): boolean {
  return (Object.keys(CONDITIONS) as Array<keyof RuleMatch>).every(key => {
    const want = match[key]
    return want === undefined || (CONDITIONS[key] as (w: unknown, f: RuleFacts) => boolean)(want, f)
  })
}

export interface AlertRule { id: string, name: string, match: RuleMatch, action: RuleAction, enabled: boolean }

/**
 * The filters a destination (webhook, Slack) or a member's e-mail takes, as the API and
 * the app show them: kept and evaluated as a rule's match, by the one evaluator above.
 */
export interface Filters {
  minSeverity: Severity
  changeTypes: ChangeType[] | null
  domainIds: string[] | null
  pageTypes: PageType[] | null
  tags: string[] | null
}

/** Filters as a rule's match: what lets every change through is left out. */
export function matchOfFilters (f: Filters): RuleMatch {
  return {
    ...(f.minSeverity !== 'low' ? { minSeverity: f.minSeverity } : {}),
    ...(f.changeTypes ? { changeTypes: f.changeTypes } : {}),
    ...(f.domainIds ? { domainIds: f.domainIds } : {}),
    ...(f.pageTypes ? { pageTypes: f.pageTypes } : {}),
    ...(f.tags ? { tags: f.tags } : {})
  }
}

/** A rule's match as filters (the conditions filters have; none: everything). */
export function filtersOfMatch (m: RuleMatch): Filters {
  return {
    minSeverity: m.minSeverity ?? 'low',
    changeTypes: m.changeTypes ?? null,
    domainIds: m.domainIds ?? null,
    pageTypes: m.pageTypes ?? null,
    tags: m.tags ?? null
  }
}

/**
 * Whether a page event (a page found or gone) passes a match: only its conditions on
 * where (domains, tags, page types) apply, an event having no severity nor type of change.
 */
export function pageEventMatches (
  m: RuleMatch, e: { domainId: string, domainTags: readonly string[], pageType: PageType }
): boolean {
  const where: RuleMatch = {
    ...(m.domainIds ? { domainIds: m.domainIds } : {}),
    ...(m.tags ? { tags: m.tags } : {}),
    ...(m.pageTypes ? { pageTypes: m.pageTypes } : {})
  }
  return ruleMatches(where, {
    ...e, changeType: 'content_change', severity: 'low', confidence: 1, lines: [], priceMoves: []
  })
}

/** The first enabled rule (in order) that matches the change decides; undefined: none does. */
export function decide (rules: readonly AlertRule[], f: RuleFacts): { action: RuleAction, ruleId: string } | undefined {
  const rule = rules.find(r => r.enabled && ruleMatches(r.match, f))
  return rule && { action: rule.action, ruleId: rule.id }
}
