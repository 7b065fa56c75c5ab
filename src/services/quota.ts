import { assertCanCreate, assertWithinQuota, type MeteredResource, type Org } from '../vocabulary/plans.js'
import { addUsage, currentPeriod } from '../store/billing.js'
import type { Tx } from '../store/db.js'

/**
 * Takes `amount` of a metered resource from the current period, or throws 402; the
 * period's id. Runs in the caller's transaction, with the period row locked, so
 * concurrent requests cannot both take the last unit.
 */
export async function takeQuota (
  tx: Tx,
  org: Org,
  resource: MeteredResource,
  amount = 1,
  now = new Date()
): Promise<string> {
  assertCanCreate(org, now)
  const period = await currentPeriod(tx, org, now, true)
  assertWithinQuota(org, period, resource, amount)
  await addUsage(tx, period.id, resource, amount)
  return period.id
}
