import { trialEnd, type Org } from '../vocabulary/plans.js'
import { AppError } from '../vocabulary/errors.js'
import { PLAN_NAMES, type PlanName, type Role } from '../vocabulary/core.js'
import { carryUsage, currentPeriod, startPeriod, setTrialPeriodEnd } from '../store/billing.js'
import { inTransaction, type Db } from '../store/db.js'
import { resumeTrialPaused } from '../store/domains.js'
import { anyOrgExists, deleteOrg, findOrg, insertOrg, issueKey, setOrgPlan } from '../store/orgs.js'
import { assertMay } from './accounts.js'
import { audited, recordAudit } from './audit.js'

// Tenants, for the admin API and the operator's command.

/** A new organisation with its first billing period and an API key (shown once). */
export async function createOrg (
  db: Db,
  name: string,
  plan: PlanName,
  now = new Date()
): Promise<{ org: Org, apiKey: string, keyId: string }> {
  return await inTransaction(db, async tx => {
    const org = await insertOrg(tx, { name, plan, trialEndsAt: plan === 'trial' ? trialEnd(now) : null, now })
    await startPeriod(tx, org, now)
    const key = await issueKey(tx, org.id)
    await recordAudit(tx, {
      action: 'org.created',
      orgId: org.id,
      objectId: org.id,
      objectLabel: name,
      details: { plan }
    })
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
  now = new Date(),
  opts: { keepUsage?: boolean } = {}
): Promise<Org | undefined> {
  return await inTransaction(db, async tx => {
    const org = await findOrg(tx, id, { forUpdate: true })
    if (!org) return undefined
    const plan = patch.plan ?? org.plan
    let trialEndsAt = patch.trialEndsAt ?? org.trial_ends_at
    if (patch.plan !== undefined && patch.plan !== org.plan) {
      if (plan === 'trial' && !patch.trialEndsAt) trialEndsAt = trialEnd(now)
      const before = opts.keepUsage ? await currentPeriod(tx, org, now, true) : undefined
      const started = await startPeriod(tx, { id, plan }, now)
      if (before) await carryUsage(tx, before, started.id)
    } else if (plan === 'trial' && patch.trialEndsAt) {
      await setTrialPeriodEnd(tx, id, patch.trialEndsAt)
    }
    const updated = await setOrgPlan(tx, id, plan, plan === 'trial' ? trialEndsAt : null, now)
    if (plan !== 'trial' || (trialEndsAt && trialEndsAt > now)) await resumeTrialPaused(tx, id, now)
    await recordAudit(tx, {
      action: opts.keepUsage ? 'plan.changed' : 'org.updated',
      orgId: id,
      objectId: id,
      objectLabel: org.name,
      details: { from: org.plan, plan, ...(plan === 'trial' ? { trialEndsAt } : {}) }
    })
    return updated
  })
}

/** The plans an owner may choose in the app: a trial is given, not chosen. */
export const SELF_SERVICE_PLANS: readonly PlanName[] = PLAN_NAMES.filter(p => p !== 'trial')

/**
 * An owner's change of plan. Unlike an operator's, it keeps what this period used: the
 * new limits apply to it at once, and switching back and forth does not reset counters.
 */
export async function changePlan (db: Db, actor: { role: Role }, org: Org, plan: PlanName, now = new Date()) {
  assertMay(actor.role, 'owner')
  if (!SELF_SERVICE_PLANS.includes(plan)) {
    throw new AppError('VALIDATION_ERROR', `Choose one of ${SELF_SERVICE_PLANS.join(', ')}`, { field: 'plan' })
  }
  return (await updateOrg(db, org.id, { plan }, now, { keepUsage: true }))!
}

/** Deletes the organisation with everything it holds; the owner confirms by typing its name. */
export async function deleteOrganisation (db: Db, actor: { role: Role }, org: Org, typedName: string): Promise<void> {
  assertMay(actor.role, 'owner')
  if (typedName.trim() !== org.name) {
    throw new AppError('VALIDATION_ERROR', `Type the organisation's name, ${org.name}, to delete it`, { field: 'name' })
  }
  // The organisation's log goes with it: the event is kept in the operator's (no organisation's).
  await audited(db, { action: 'org.deleted', orgId: null, objectId: org.id, objectLabel: org.name }, async tx => {
    await deleteOrg(tx, org.id)
  })
}

/** The first start on an empty database creates "default" on the trial plan. */
export async function bootstrapDefaultOrg (db: Db): Promise<{ apiKey: string, org: Org } | undefined> {
  if (await anyOrgExists(db)) return undefined
  const { org, apiKey } = await createOrg(db, 'default', 'trial')
  return { org, apiKey }
}
