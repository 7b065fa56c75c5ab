import { sql } from 'kysely'
import { AppError } from '../errors.js'
import type { Executor } from '../store/db.js'
import type { PlanName } from '../store/schema.js'
import { PLANS, periodContaining, trialEnd } from './plans.js'

export interface OrgRow {
  id: string
  name: string
  plan: PlanName
  trial_ends_at: Date | null
  created_at: Date
}

export interface PeriodRow {
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

export type MeteredResource = 'domains' | 'manualRechecks'

const COLUMN = { domains: 'domains_used', manualRechecks: 'manual_rechecks_used' } as const

export function isTrialExpired (org: OrgRow, now = new Date()): boolean {
  return org.plan === 'trial' && org.trial_ends_at !== null && org.trial_ends_at.getTime() <= now.getTime()
}

/** Opens the first billing period of an organisation (its trial, or month one of a paid plan). */
export async function startPeriod (db: Executor, org: { id: string, plan: PlanName }, start: Date): Promise<PeriodRow> {
  const end = org.plan === 'trial' ? trialEnd(start) : periodContaining(start, start).end
  return await db.insertInto('billing_periods')
    .values({ org_id: org.id, plan: org.plan, starts_at: start, ends_at: end })
    .returningAll().executeTakeFirstOrThrow() as PeriodRow
}

/**
 * The billing period in force now. Paid periods roll forward by themselves: the first
 * request after a period ends opens the next one (counters at zero). A trial's
 * period is the trial itself and does not roll.
 */
export async function currentPeriod (db: Executor, org: OrgRow, now = new Date(), forUpdate = false): Promise<PeriodRow> {
  const latest = async () => {
    let q = db.selectFrom('billing_periods').selectAll().where('org_id', '=', org.id).orderBy('starts_at', 'desc').limit(1)
    if (forUpdate) q = q.forUpdate()
    return await q.executeTakeFirst() as PeriodRow | undefined
  }
  const period = await latest()
  if (!period) return await startPeriod(db, org, now)
  if (period.plan === 'trial' || period.ends_at.getTime() > now.getTime()) return period
  const next = periodContaining(period.starts_at, now)
  await db.insertInto('billing_periods')
    .values({ org_id: org.id, plan: period.plan, starts_at: next.start, ends_at: next.end })
    .onConflict(oc => oc.columns(['org_id', 'starts_at']).doNothing()).execute()
  return (await latest())!
}

export function assertCanCreate (org: OrgRow, now = new Date()): void {
  if (isTrialExpired(org, now)) {
    throw new AppError('TRIAL_EXPIRED', `The trial of organisation "${org.name}" ended at ${org.trial_ends_at!.toISOString()}; choose a plan to continue`,
      { trialEndsAt: org.trial_ends_at!.toISOString() })
  }
}

/**
 * Takes `amount` of a metered resource from the current period, or throws 402.
 * Runs in the caller's transaction, with the period row locked, so concurrent
 * requests cannot both take the last unit.
 */
export async function consume (tx: Executor, org: OrgRow, resource: MeteredResource, amount = 1, now = new Date()): Promise<void> {
  assertCanCreate(org, now)
  const period = await currentPeriod(tx, org, now, true)
  const plan = PLANS[org.plan]
  const limit = resource === 'domains' ? plan.domains : plan.manualRechecksPerPeriod
  const used = period[COLUMN[resource]]
  if (limit !== null && used + amount > limit) {
    throw new AppError('QUOTA_EXCEEDED', `The ${org.plan} plan allows ${limit} ${resource === 'domains' ? 'domains' : 'manual rechecks'} per billing period`,
      { resource, used, limit })
  }
  await tx.updateTable('billing_periods')
    .set({ [COLUMN[resource]]: sql`${sql.ref(COLUMN[resource])} + ${amount}` })
    .where('id', '=', period.id).execute()
}

/** Counts pages added in the current period (reported only: the page cap is per domain). */
export async function countPages (tx: Executor, org: OrgRow, amount: number, now = new Date()): Promise<void> {
  if (amount <= 0) return
  const period = await currentPeriod(tx, org, now)
  await tx.updateTable('billing_periods').set({ pages_used: sql`pages_used + ${amount}` }).where('id', '=', period.id).execute()
}

export interface Usage {
  plan: PlanName
  billingCycle: 'monthly' | 'trial'
  period: { start: Date, end: Date }
  limits: {
    domains: Quota
    accessiblePagesPerDomain: number | null
    manualRechecks: Quota
    researchCredits: Quota
  }
  features: { slackIntegration: boolean, apiAccess: boolean, customAlertRules: boolean }
  trial: { expiresAt: Date, daysRemaining: number, isExpired: boolean } | null
}

interface Quota { used: number, limit: number | null, remaining: number | null }

const quota = (used: number, limit: number | null): Quota =>
  ({ used, limit, remaining: limit === null ? null : Math.max(0, limit - used) })

export function describeUsage (org: OrgRow, period: PeriodRow, now = new Date()): Usage {
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
      manualRechecks: quota(period.manual_rechecks_used, plan.manualRechecksPerPeriod),
      researchCredits: quota(period.research_credits_used, plan.researchCreditsPerPeriod)
    },
    features: { ...plan.features },
    trial: isTrial
      ? {
          expiresAt,
          daysRemaining: Math.max(0, Math.ceil((expiresAt.getTime() - now.getTime()) / 86_400_000)),
          isExpired: expiresAt.getTime() <= now.getTime()
        }
      : null
  }
}
