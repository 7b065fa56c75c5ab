import { trialEnd, type Org } from '../domain/plans.js'
import type { PlanName } from '../domain/vocabulary.js'
import { startPeriod, setTrialPeriodEnd } from '../store/billing.js'
import type { Db } from '../store/db.js'
import { resumeTrialPaused } from '../store/domains.js'
import { anyOrgExists, findOrg, insertOrg, issueKey, setOrgPlan } from '../store/orgs.js'

// Tenants, for the admin API and the operator's command.

/** A new organisation with its first billing period and an API key (shown once). */
export async function createOrg (
  db: Db,
  name: string,
  plan: PlanName,
  now = new Date()
): Promise<{ org: Org, apiKey: string, keyId: string }> {
  return await db.transaction().execute(async tx => {
    const org = await insertOrg(tx, { name, plan, trialEndsAt: plan === 'trial' ? trialEnd(now) : null, now })
    await startPeriod(tx, org, now)
    const key = await issueKey(tx, org.id)
    return { org, apiKey: key.apiKey, keyId: key.id }
  })
}

/**
 * Changing the plan starts a new billing period with fresh counters; `trialEndsAt`
 * lets support extend or end a trial. A plan, or a trial that has not ended, wakes the
 * domains the trial's expiry paused.
 */
export async function updateOrg (
  db: Db,
  id: string,
  patch: { plan?: PlanName, trialEndsAt?: Date },
  now = new Date()
): Promise<Org | undefined> {
  return await db.transaction().execute(async tx => {
    const org = await findOrg(tx, id, { forUpdate: true })
    if (!org) return undefined
    const plan = patch.plan ?? org.plan
    let trialEndsAt = patch.trialEndsAt ?? org.trial_ends_at
    if (patch.plan !== undefined && patch.plan !== org.plan) {
      if (plan === 'trial' && !patch.trialEndsAt) trialEndsAt = trialEnd(now)
      await startPeriod(tx, { id, plan }, now)
    } else if (plan === 'trial' && patch.trialEndsAt) {
      await setTrialPeriodEnd(tx, id, patch.trialEndsAt)
    }
    const updated = await setOrgPlan(tx, id, plan, plan === 'trial' ? trialEndsAt : null, now)
    if (plan !== 'trial' || (trialEndsAt && trialEndsAt > now)) await resumeTrialPaused(tx, id, now)
    return updated
  })
}

/** The first start on an empty database creates "default" on the trial plan. */
export async function bootstrapDefaultOrg (db: Db): Promise<{ apiKey: string, org: Org } | undefined> {
  if (await anyOrgExists(db)) return undefined
  const { org, apiKey } = await createOrg(db, 'default', 'trial')
  return { org, apiKey }
}
