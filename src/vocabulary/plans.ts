import { Type, type Static } from '@sinclair/typebox'
import { AppError } from './errors.js'
import {
  literals, Nullable, PlanNameSchema, Timestamp, type DomainStatus, type PageType, type PlanName
} from './core.js'

/** The contract's plan table, as data. `null` means unlimited. */
export interface Plan {
  name: PlanName
  domains: number | null
  pagesPerDomain: number | null
  researchCreditsPerPeriod: number | null
  retentionDays: number | null
  intelligencePages: number | null
  manualRechecksPerPeriod: number | null
  alerts: 'realtime' | 'digest' | 'custom'
  features: { slackIntegration: boolean, apiAccess: boolean, customAlertRules: boolean, singleSignOn: boolean }
}

/** The trial gives what pro gives, for TRIAL_DAYS. */
const PRO: Omit<Plan, 'name'> = {
  domains: 25,
  pagesPerDomain: 500,
  researchCreditsPerPeriod: 50,
  retentionDays: 180,
  intelligencePages: 25,
  manualRechecksPerPeriod: 10,
  alerts: 'realtime',
  features: { slackIntegration: true, apiAccess: true, customAlertRules: false, singleSignOn: false }
}

export const PLANS: Record<PlanName, Plan> = {
  trial: { name: 'trial', ...PRO },
  starter: {
    name: 'starter',
    domains: 5,
    pagesPerDomain: 50,
    researchCreditsPerPeriod: 10,
    retentionDays: 30,
    intelligencePages: 5,
    manualRechecksPerPeriod: 5,
    alerts: 'digest',
    features: { slackIntegration: false, apiAccess: false, customAlertRules: false, singleSignOn: false }
  },
  pro: { name: 'pro', ...PRO },
  enterprise: {
    name: 'enterprise',
    domains: null,
    pagesPerDomain: null,
    researchCreditsPerPeriod: null,
    retentionDays: null,
    intelligencePages: null,
    manualRechecksPerPeriod: null,
    alerts: 'custom',
    features: { slackIntegration: true, apiAccess: true, customAlertRules: true, singleSignOn: true }
  }
}

export const TRIAL_DAYS = 14

/**
 * After a page's priority (1 first), the order in which a domain's monitored pages become
 * its intelligence pages (the plan's `intelligencePages` per domain); then discovery order.
 */
export const INTELLIGENCE_TYPE_ORDER: readonly PageType[] =
  ['pricing', 'features', 'api_docs', 'changelog', 'terms', 'security', 'other']

/** Paid periods are calendar months from the day the plan started, clamped to short months. */
export function addMonths (start: Date, months: number): Date {
  const d = new Date(start.getTime())
  const day = d.getUTCDate()
  d.setUTCDate(1)
  d.setUTCMonth(d.getUTCMonth() + months)
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate()
  d.setUTCDate(Math.min(day, lastDay))
  return d
}

/** The period that contains `now`, counting whole months on from `anchor`. */
export function periodContaining (anchor: Date, now: Date): { start: Date, end: Date } {
  let months = Math.max(
    0,
    (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + now.getUTCMonth() - anchor.getUTCMonth() - 1
  )
  while (addMonths(anchor, months + 1) <= now) months++
  return { start: addMonths(anchor, months), end: addMonths(anchor, months + 1) }
}

export function trialEnd (start: Date): Date {
  return new Date(start.getTime() + TRIAL_DAYS * 24 * 3600 * 1000)
}

/** What the plan rules need to know of an organisation. */
export interface Org {
  id: string
  name: string
  plan: PlanName
  trial_ends_at: Date | null
  created_at: Date
}

/** A billing period and what was used in it. */
export interface BillingPeriod {
  id: string
  org_id: string
  plan: PlanName
  starts_at: Date
  ends_at: Date
  domains_used: number
  pages_used: number
  manual_rechecks_used: number
  research_credits_used: number
}

/** Where a period starting at `start` ends: a trial's end, or the end of the first paid month. */
export function firstPeriodEnd (plan: PlanName, start: Date): Date {
  return plan === 'trial' ? trialEnd(start) : periodContaining(start, start).end
}

export function isTrialExpired (org: Org, now = new Date()): boolean {
  return org.plan === 'trial' && org.trial_ends_at !== null && org.trial_ends_at.getTime() <= now.getTime()
}

/**
 * A domain as its organisation's plan lets it be: from the moment a trial ends, its
 * domains read `paused`. The scheduler's next tick (within a minute) records it and
 * queues no crawl for them from then on.
 */
export function asPlanAllows<D extends { status: DomainStatus }> (domain: D, org: Org, now = new Date()): D {
  return domain.status !== 'paused' && isTrialExpired(org, now) ? { ...domain, status: 'paused' } : domain
}

/** An expired trial may read but not add or resume anything: 402 TRIAL_EXPIRED. */
export function assertCanCreate (org: Org, now = new Date()): void {
  if (isTrialExpired(org, now)) {
    const endedAt = org.trial_ends_at!.toISOString()
    throw new AppError(
      'TRIAL_EXPIRED',
      `The trial of organisation "${org.name}" ended at ${endedAt}; choose a plan to continue`,
      { trialEndsAt: endedAt }
    )
  }
}

/** The per-period quotas a request can use up. */
export type MeteredResource = 'domains' | 'manualRechecks' | 'researchCredits'

export const USAGE_COLUMN = {
  domains: 'domains_used',
  manualRechecks: 'manual_rechecks_used',
  researchCredits: 'research_credits_used'
} as const

const QUOTA_OF: Record<MeteredResource, { limit: (p: Plan) => number | null, words: string }> = {
  domains: { limit: p => p.domains, words: 'domains' },
  manualRechecks: { limit: p => p.manualRechecksPerPeriod, words: 'manual rechecks' },
  researchCredits: { limit: p => p.researchCreditsPerPeriod, words: 'research credits' }
}

/** Who can change the plan, and where: every 402 says it. */
export const WHO_CHANGES_THE_PLAN = "the organisation's owner can change the plan under Usage and plan (/app/usage)"

const day = (d: Date) => d.toISOString().slice(0, 10)

/**
 * What ran out, and when it comes back: a period's quota starts again when the period
 * ends (a monthly plan's next month); a trial's does not (the trial ends then).
 */
export function quotaSentence (org: Org, period: Pick<BillingPeriod, 'ends_at'>, words: string, limit: number): string {
  if (org.plan === 'trial') {
    const ends = org.trial_ends_at ?? period.ends_at
    return `The trial allows ${limit} ${words}, and all ${limit} are used. The trial ends on ${day(ends)}; ` +
      `${WHO_CHANGES_THE_PLAN} to get more now.`
  }
  return `The ${org.plan} plan allows ${limit} ${words} per billing period, and all ${limit} are used. ` +
    `The count starts again on ${day(period.ends_at)}, when this period ends; ${WHO_CHANGES_THE_PLAN}.`
}

/** Throws 402 QUOTA_EXCEEDED when taking `amount` more of `resource` would pass the plan's limit. */
export function assertWithinQuota (org: Org, period: BillingPeriod, resource: MeteredResource, amount: number): void {
  const { limit: limitOf, words } = QUOTA_OF[resource]
  const limit = limitOf(PLANS[org.plan])
  const used = period[USAGE_COLUMN[resource]]
  if (limit !== null && used + amount > limit) {
    throw new AppError('QUOTA_EXCEEDED', quotaSentence(org, period, words, limit), {
      resource,
      used,
      limit,
      ...(org.plan === 'trial'
        ? { trialEndsAt: (org.trial_ends_at ?? period.ends_at).toISOString() }
        : { resetsAt: period.ends_at.toISOString() }),
      changedBy: 'owner'
    })
  }
}

/** The 402 QUOTA_EXCEEDED of a domain that already took every page its plan allows. */
export function pageCapReached (org: Org, pagesAdded: number): AppError {
  const limit = PLANS[org.plan].pagesPerDomain
  return new AppError(
    'QUOTA_EXCEEDED',
    `The ${org.plan === 'trial' ? 'trial' : `${org.plan} plan`} allows ${limit} pages per domain, and this domain ` +
      `has taken ${pagesAdded}. A deleted page does not give its place back; ${WHO_CHANGES_THE_PLAN}.`,
    { resource: 'pages', used: pagesAdded, limit, changedBy: 'owner' }
  )
}

const Quota = Type.Object({
  used: Type.Integer(),
  limit: Nullable(Type.Integer({ description: 'null when unlimited' })),
  remaining: Nullable(Type.Integer({ description: 'null when unlimited' }))
})

export const UsageSchema = Type.Object(
  {
    plan: PlanNameSchema,
    billingCycle: literals(['monthly', 'trial'] as const),
    period: Type.Object({ start: Timestamp, end: Timestamp }),
    limits: Type.Object({
      domains: Quota,
      accessiblePagesPerDomain: Nullable(Type.Integer({ description: 'null when unlimited' })),
      intelligencePagesPerDomain: Nullable(Type.Integer({
        description: "a domain's intelligence pages: its highest-ranked monitored pages (by priority, 1 first; " +
          'then type: pricing, features, api_docs, changelog, terms, security, other; then discovery order), which ' +
          'also get the structured readers and screenshots; null when every monitored page is one'
      })),
      manualRechecks: Quota,
      researchCredits: Quota
    }),
    features: Type.Object({
      slackIntegration: Type.Boolean(),
      apiAccess: Type.Boolean(),
      customAlertRules: Type.Boolean()
    }),
    watching: Type.Optional(Type.Object({
      domains: Type.Integer(),
      pages: Type.Integer(),
      monitoredPages: Type.Integer({ description: 'pages whose monitoring is on' })
    }, {
      description: 'what is watched now, whatever the period: the counters above count what was added in this ' +
        'period (a domain added then deleted still counts; a domain added last period does not)'
    })),
    trial: Nullable(
      Type.Object({
        expiresAt: Timestamp,
        daysRemaining: Type.Integer(),
        isExpired: Type.Boolean()
      })
    )
  },
  { $id: 'Usage', title: 'Usage' }
)
/** GET /api/usage: the plan, its period, and each quota used and left. */
export type Usage = Static<typeof UsageSchema>

const quota = (used: number, limit: number | null) => ({
  used,
  limit,
  remaining: limit === null ? null : Math.max(0, limit - used)
})

export function describeUsage (org: Org, period: BillingPeriod, now = new Date()): Usage {
  const plan = PLANS[org.plan]
  const isTrial = org.plan === 'trial'
  const expiresAt = org.trial_ends_at ?? period.ends_at
  return {
    plan: org.plan,
    billingCycle: isTrial ? 'trial' : 'monthly',
    period: { start: period.starts_at, end: isTrial ? expiresAt : period.ends_at },
    limits: {
      domains: quota(period.domains_used, plan.domains),
      accessiblePagesPerDomain: plan.pagesPerDomain,
      intelligencePagesPerDomain: plan.intelligencePages,
      manualRechecks: quota(period.manual_rechecks_used, plan.manualRechecksPerPeriod),
      researchCredits: quota(period.research_credits_used, plan.researchCreditsPerPeriod)
    },
    // The contract's three; single sign-on is the enterprise plan's (docs/security.md), not a field of its.
    features: {
      slackIntegration: plan.features.slackIntegration,
      apiAccess: plan.features.apiAccess,
      customAlertRules: plan.features.customAlertRules
    },
    trial: isTrial
      ? {
          expiresAt,
          daysRemaining: Math.max(0, Math.ceil((expiresAt.getTime() - now.getTime()) / 86_400_000)),
          isExpired: expiresAt.getTime() <= now.getTime()
        }
      : null
  }
}
