import { sql } from 'kysely'
import {
  firstPeriodEnd,
  periodContaining,
  USAGE_COLUMN,
  type BillingPeriod,
  type MeteredResource,
  type Org
} from '../vocabulary/plans.js'
import type { PlanName } from '../vocabulary/core.js'
import type { Db } from './db.js'

// Billing periods and the usage counted in them.

/** Opens a billing period of an organisation (its trial, or month one of a paid plan). */
export async function startPeriod (db: Db, org: { id: string, plan: PlanName }, start: Date): Promise<BillingPeriod> {
  return (await db
    .insertInto('billing_periods')
    .values({ org_id: org.id, plan: org.plan, starts_at: start, ends_at: firstPeriodEnd(org.plan, start) })
    .returningAll()
    .executeTakeFirstOrThrow()) as BillingPeriod
}

/**
 * The billing period in force now. Paid periods roll forward by themselves: the first
 * request after a period ends opens the next one (counters at zero). A trial's
 * period is the trial itself and does not roll. `forUpdate` locks the row, so that
 * concurrent requests cannot both take the last unit of a quota.
 */
export async function currentPeriod (db: Db, org: Org, now = new Date(), forUpdate = false): Promise<BillingPeriod> {
  const latest = async () => {
    let q = db
      .selectFrom('billing_periods')
      .selectAll()
      .where('org_id', '=', org.id)
      .orderBy('starts_at', 'desc')
      .limit(1)
    if (forUpdate) q = q.forUpdate()
    return (await q.executeTakeFirst()) as BillingPeriod | undefined
  }
  const period = await latest()
  if (!period) return await startPeriod(db, org, now)
  if (period.plan === 'trial' || period.ends_at.getTime() > now.getTime()) return period
  const next = periodContaining(period.starts_at, now)
  await db
    .insertInto('billing_periods')
    .values({ org_id: org.id, plan: period.plan, starts_at: next.start, ends_at: next.end })
    .onConflict(oc => oc.columns(['org_id', 'starts_at']).doNothing())
    .execute()
  return (await latest())!
}

/** Puts what one period used into another (a plan changed by its owner keeps the period's usage). */
export async function carryUsage (tx: Db, from: BillingPeriod, toId: string): Promise<void> {
  await tx
    .updateTable('billing_periods')
    .set({
      domains_used: from.domains_used,
      pages_used: from.pages_used,
      manual_rechecks_used: from.manual_rechecks_used,
      research_credits_used: from.research_credits_used
    })
    .where('id', '=', toId)
    .execute()
}

/** Adds `amount` to what the period used of `resource`. */
export async function addUsage (tx: Db, periodId: string, resource: MeteredResource, amount: number): Promise<void> {
  const column = USAGE_COLUMN[resource]
  await tx
    .updateTable('billing_periods')
    .set({ [column]: sql`${sql.ref(column)} + ${amount}` })
    .where('id', '=', periodId)
    .execute()
}

/** Counts pages added in the current period (reported only: the page cap is per domain). */
export async function countPages (tx: Db, org: Org, amount: number, now = new Date()): Promise<void> {
  if (amount <= 0) return
  const period = await currentPeriod(tx, org, now)
  await tx
    .updateTable('billing_periods')
    .set({ pages_used: sql`pages_used + ${amount}` })
    .where('id', '=', period.id)
    .execute()
}

/** Moves the end of an organisation's latest trial period (support extending or ending a trial). */
export async function setTrialPeriodEnd (tx: Db, orgId: string, endsAt: Date): Promise<void> {
  await tx
    .updateTable('billing_periods')
    .set({ ends_at: endsAt })
    .where('org_id', '=', orgId)
    .where('plan', '=', 'trial')
    .where(
      'starts_at',
      '=',
      tx
        .selectFrom('billing_periods')
        .select(b => b.fn.max('starts_at').as('s'))
        .where('org_id', '=', orgId)
    )
    .execute()
}
