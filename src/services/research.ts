import { randomUUID } from 'node:crypto'
import type { Org } from '../vocabulary/plans.js'
import { addUsage } from '../store/billing.js'
import { inTransaction, type Db } from '../store/db.js'
import { failBrief, insertBrief } from '../store/research.js'
import type { ServiceContext } from './context.js'
import { requireDomain } from './domains.js'
import { takeQuota } from './quota.js'
import { recordAudit } from './audit.js'

/**
 * Buys a research brief of the domain: takes one research credit (402 when none is left;
 * the period row's lock makes two requests for the last credit take turns) and queues
 * the job that builds it, in one transaction.
 */
export async function requestResearch (ctx: ServiceContext, org: Org, domainId: string) {
  const domain = await requireDomain(ctx, org.id, domainId)
  return await ctx.queue.transaction(ctx.db, async tx => {
    const periodId = await takeQuota(tx, org, 'researchCredits')
    const jobId = randomUUID()
    const briefId = await insertBrief(tx, { orgId: org.id, domainId: domain.id, jobId, periodId })
    await ctx.queue.enqueueResearch(tx, jobId, { orgId: org.id, domainId: domain.id, briefId })
    await recordAudit(tx, {
      action: 'research.requested',
      objectId: domain.id,
      objectLabel: domain.hostname,
      details: { briefId }
    })
    return { domain, briefId, jobId }
  })
}

/**
 * A brief whose job failed for good: failed, and its credit given back to the period
 * that paid for it, once however often this is called. Whether a credit went back.
 */
export async function giveBackCredit (db: Db, briefId: string, reason: string, at = new Date()): Promise<boolean> {
  return await inTransaction(db, async tx => {
    const periodId = await failBrief(tx, briefId, reason, at)
    if (periodId === undefined) return false
    await addUsage(tx, periodId, 'researchCredits', -1)
    return true
  })
}
