import { explainFailure } from '../vocabulary/failures.js'
import { PLANS } from '../vocabulary/plans.js'
import {
  SEVERITY_RANK, TYPES_THAT_MATTER, type ChangeType, type PageType, type Severity
} from '../vocabulary/core.js'
import type { JobFailed, PageRecovered } from '../pipeline/events.js'
import type { JobQueue } from '../queue/queue.js'
import { queueDeliveries } from '../services/webhooks.js'
import { changeView, markAlerted, unalertedChanges } from '../store/changes.js'
import type { Db } from '../store/db.js'
import { domainHostname } from '../store/domains.js'
import { pageFailure } from '../store/page-checks.js'
import { alertRulesOf, recordAlertActions } from '../store/alert-rules.js'
import { decide, factsOf, pageEventMatches, ruleMatches, type RuleAction } from '../vocabulary/alert-rules.js'
import { markPageEventsAlerted, pageEventView, takeUnalertedPageEvents } from '../store/page-events.js'
import { endpointsFor, type EndpointRow, type NewDelivery } from '../store/webhooks.js'
import { mailRecipients } from '../store/mail-alerts.js'
import { changeMails, queueMails } from './mail-outbox.js'

// Alerting reads the pipeline's records, never the other way round: changes not yet
// alerted (alerted_at null) are the outbox. Each is matched against the organisation's
// endpoints and becomes delivery rows plus queued delivery jobs, in one transaction
// with the flag that marks it done, so nothing is sent twice or lost in a crash.

export const DISPATCH_BATCH = 500

/** Whether a destination's filters (an alert rule's match, see vocabulary/alert-rules.ts) let a change through. */
export function endpointWants (
  e: Pick<EndpointRow, 'match'>,
  c: { severity: Severity, change_type: ChangeType, domain_id: string, page_type: PageType, domain_tags: string[] }
): boolean {
  return ruleMatches(e.match, factsOf({
    severity: c.severity,
    changeType: c.change_type,
    domainId: c.domain_id,
    pageType: c.page_type,
    domainTags: c.domain_tags
  }))
}

/**
 * Hands changes not yet alerted to their endpoints: all of them (the sweep), or the
 * given ones (right after a crawl). Digest plans are marked alerted here and sent by
 * the daily digest. Returns how many changes were handled.
 */
export async function dispatchChanges (db: Db, queue: JobQueue, changeIds?: string[]): Promise<number> {
  let handled = 0
  for (;;) {
    // Read before the transaction, which only writes: on the embedded database a
    // transaction holds its one session, and the API's reads waited for it while the busy
    // main thread came back between its statements (up to 97 ms in a noisy recrawl).
    const unalerted = await unalertedChanges(db, DISPATCH_BATCH, changeIds)
    if (unalerted.length === 0) return handled
    const orgIds = [...new Set(unalerted.map(r => r.org_id))]
    const endpoints = await endpointsFor(db, orgIds, 'change.detected')
    // The organisation's alert rules decide first: a change muted or kept for the digest is not sent now.
    const decided = await decideByRules(db, unalerted)
    const recipients = await mailRecipients(db, orgIds)
    const alerting = (rows: Unalerted) => rows.filter(r => (decided.get(r.id)?.action ?? 'alert') === 'alert')
    const ids = unalerted.map(r => r.id)
    // Nothing to write beside the flag (no endpoint or member wants them now, no rule
    // decided): one statement, no transaction.
    const alertingAll = alerting(unalerted)
    const quiet = decided.size === 0 && deliveriesOf(alertingAll, endpoints).length === 0 &&
      changeMails(alertingAll, recipients).length === 0
    const alerted = quiet
      ? (await markAlerted(db, ids)).size
      : await queue.transaction(db, async tx => {
        // A change another dispatch marked since it was read is that one's to alert.
        const marked = await markAlerted(tx, ids)
        const taken = unalerted.filter(r => marked.has(r.id))
        await queueDeliveries(tx, queue, deliveriesOf(alerting(taken), endpoints))
        await queueMails(tx, queue, changeMails(alerting(taken), recipients))
        await recordAlertActions(tx, taken.flatMap(r => {
          const d = decided.get(r.id)
          return d ? [{ id: r.id, ...d }] : []
        }))
        return taken.length
      })
    handled += alerted
    // None taken: another dispatch has them (and the sweep comes again); reading them again would spin.
    if (unalerted.length < DISPATCH_BATCH || changeIds || alerted === 0) return handled
  }
}

type Unalerted = Awaited<ReturnType<typeof unalertedChanges>>

/**
 * The changes one check of a page found (one new snapshot) go as one alert that lists
 * them, to each endpoint that wants some.
 */
function deliveriesOf (rows: Unalerted, endpoints: EndpointRow[]): NewDelivery[] {
  const deliveries: NewDelivery[] = []
  const checks = new Map<string, Unalerted>()
  for (const r of rows) {
    const found = checks.get(r.snapshot_after_id)
    if (found) found.push(r)
    else checks.set(r.snapshot_after_id, [r])
  }
  for (const found of checks.values()) {
    const r = found[0]
    if (PLANS[r.plan].alerts === 'digest') continue
    for (const e of endpoints) {
      if (e.org_id !== r.org_id) continue
      const wanted = found.filter(c => endpointWants(e, c))
      if (wanted.length === 0) continue
      const lead = wanted.reduce((a, b) => SEVERITY_RANK[b.severity] > SEVERITY_RANK[a.severity] ? b : a)
      deliveries.push({
        endpoint_id: e.id,
        org_id: r.org_id,
        event_type: 'change.detected',
        event_id: lead.id,
        payload: {
          change: changeView(lead),
          changes: [lead, ...wanted.filter(c => c !== lead)].map(changeView),
          page: { id: r.page_id, url: r.page_url, name: r.page_name, pageType: r.page_type },
          domain: { id: r.domain_id, domain: r.hostname, displayName: r.display_name }
        }
      })
    }
  }
  return deliveries
}

/** What the alert rules of each change's organisation make of it (rules are custom alerts: plans that have them). */
async function decideByRules (db: Db, rows: Unalerted) {
  const decided = new Map<string, { action: RuleAction, ruleId: string }>()
  const withRules = [...new Set(rows.filter(r => PLANS[r.plan].features.customAlertRules).map(r => r.org_id))]
  const rules = await alertRulesOf(db, withRules)
  for (const r of rows) {
    const own = rules.get(r.org_id)
    if (!own) continue
    const d = decide(own, factsOf({
      domainId: r.domain_id,
      domainTags: r.domain_tags,
      pageType: r.page_type,
      changeType: r.change_type,
      severity: r.severity,
      confidence: r.confidence,
      diffData: r.diff_data
    }))
    if (d) decided.set(r.id, d)
  }
  return decided
}

/**
 * Page events not yet alerted (pages.told), to the endpoints that asked for page.discovered
 * or page.removed and whose filters let the page through. A page found of a type that does
 * not matter is recorded and listed, not sent. Returns how many events were handled.
 */
export async function dispatchPageEvents (db: Db, queue: JobQueue): Promise<number> {
  return await queue.transaction(db, async tx => {
    const rows = await takeUnalertedPageEvents(tx, DISPATCH_BATCH)
    if (rows.length === 0) return 0
    const orgs = [...new Set(rows.map(r => r.org_id))]
    const deliveries: NewDelivery[] = []
    for (const type of ['page.discovered', 'page.removed'] as const) {
      const endpoints = await endpointsFor(tx, orgs, type)
      for (const r of rows) {
        if (`page.${r.kind}` !== type) continue
        if (r.kind === 'discovered' && !TYPES_THAT_MATTER.includes(r.page_type)) continue
        for (const e of endpoints) {
          if (e.org_id !== r.org_id) continue
          const where = { domainId: r.domain_id, domainTags: r.domain_tags, pageType: r.page_type }
          if (!pageEventMatches(e.match, where)) continue
          deliveries.push({
            endpoint_id: e.id,
            org_id: r.org_id,
            event_type: type,
            event_id: r.id,
            payload: {
              event: pageEventView(r),
              domain: { id: r.domain_id, domain: r.hostname, displayName: r.display_name }
            }
          })
        }
      }
    }
    await queueDeliveries(tx, queue, deliveries)
    await markPageEventsAlerted(tx, rows.map(r => r.id))
    return rows.length
  })
}

/** A page that works again after its failure was alerted, to the endpoints that asked for job.failed. */
export async function dispatchPageRecovered (db: Db, queue: JobQueue, e: PageRecovered): Promise<void> {
  await dispatchToFailureEndpoints(db, queue, e, 'page.recovered', `${e.pageId}@${e.at.toISOString()}`, domain => ({
    page: { id: e.pageId, url: e.url },
    domain,
    recoveredAt: e.at.toISOString()
  }))
}

/** One event to each endpoint of the organisation that receives job.failed for the domain. */
async function dispatchToFailureEndpoints (
  db: Db,
  queue: JobQueue,
  e: { orgId: string, domainId: string },
  eventType: string,
  eventId: string,
  payload: (domain: { id: string, domain: string } | null) => Record<string, unknown>
): Promise<void> {
  await queue.transaction(db, async tx => {
    const endpoints = (await endpointsFor(tx, [e.orgId], 'job.failed')).filter(
      x => !x.match.domainIds || x.match.domainIds.includes(e.domainId)
    )
    const hostname = await domainHostname(tx, e.domainId)
    const body = payload(hostname !== undefined ? { id: e.domainId, domain: hostname } : null)
    await queueDeliveries(tx, queue, endpoints.map(x => ({
      endpoint_id: x.id, org_id: e.orgId, event_type: eventType, event_id: eventId, payload: body
    })))
  })
}

/** A job that failed for good, to the endpoints that asked for job.failed. */
export async function dispatchJobFailed (db: Db, queue: JobQueue, e: JobFailed): Promise<void> {
  // A page's failure says which page, and whether the site blocks Sitewatch or the page is broken.
  const failing = e.pageId ? await pageFailure(db, e.pageId) : undefined
  await dispatchToFailureEndpoints(db, queue, e, 'job.failed', e.jobId, domain => ({
    job: { id: e.jobId, name: e.name, domainId: e.domainId, pageId: e.pageId, failedReason: e.reason },
    ...(failing
      ? { page: { id: e.pageId, url: failing.url, failure: { ...explainFailure(failing.code), since: failing.since } } }
      : {}),
    domain
  }))
}
