import { PLANS } from '../vocabulary/plans.js'
import type { ResearchJobData } from '../queue/queues.js'
import { failedJobs, setJobProgress } from '../queue/job-records.js'
import { giveBackCredit } from '../services/research.js'
import type { Db } from '../store/db.js'
import { findDomainWithOrg } from '../store/domains.js'
import { findBrief, markBriefBuilding, researchInputs, saveBrief, unfinishedBriefs } from '../store/research.js'
import type { PageAnalysis } from './analysis.js'

export interface ResearchDeps {
  db: Db
  analysis: PageAnalysis
}

export interface ResearchResult {
  briefId: string
  skipped?: string
}

/**
 * Builds a research brief: what the store holds of the domain, read on an analysis
 * thread (the readers parse pages and API descriptions), saved with the brief.
 */
export async function runResearch (
  deps: ResearchDeps, jobId: string, data: ResearchJobData, signal?: AbortSignal
): Promise<ResearchResult> {
  const { briefId } = data
  const brief = await findBrief(deps.db, data.orgId, briefId)
  const loaded = await findDomainWithOrg(deps.db, data.domainId)
  // Gone with its domain, or ended by an earlier attempt: nothing to build.
  if (!brief || !loaded) return { briefId, skipped: 'the brief or its domain no longer exists' }
  if (!await markBriefBuilding(deps.db, briefId)) return { briefId, skipped: `the brief is already ${brief.status}` }
  const now = new Date()
  const inputs = await researchInputs(deps.db, loaded.domain, PLANS[loaded.org.plan].retentionDays, now)
  // An attempt whose lease ended (or whose worker was taken for lost) stops before its next step.
  signal?.throwIfAborted()
  await setJobProgress(deps.db, jobId, 50)
  const built = await deps.analysis.for(data.orgId).brief(inputs)
  signal?.throwIfAborted()
  await saveBrief(deps.db, briefId, built, new Date())
  return { briefId }
}

/** Unfinished briefs looked at in one sweep, oldest first. */
const SWEEP = 500

/**
 * Briefs whose job failed for good where no worker saw it end (its last attempt expired,
 * or was handed back by a process that stopped): failed, and their credits given back.
 * Returns how many credits went back.
 */
export async function settleAbandonedBriefs (db: Db): Promise<number> {
  const open = await unfinishedBriefs(db, SWEEP)
  const briefOf = new Map(open.map(b => [b.jobId, b.id]))
  let refunded = 0
  for (const job of await failedJobs(db, [...briefOf.keys()])) {
    if (await giveBackCredit(db, briefOf.get(job.id)!, job.reason)) refunded++
  }
  return refunded
}
