import type { Fetcher } from '../crawl/fetch.js'
import type { Db } from '../store/db.js'
import { findDeliveryToSend, markDeliveryFailed, recordAttempt } from '../store/webhooks.js'
import { structuredDetails } from './details.js'
import { SIGNATURE_HEADER, sign, signedImageLinks } from './signature.js'

export interface DeliverDeps {
  db: Db
  fetcher: Fetcher
  publicBaseUrl: string | undefined
  /** Signs the image links of change payloads (see signedImageLinks). */
  linkSecret: string
}

const SEVERITY_MARK: Record<string, string> = {
  critical: ':rotating_light:',
  high: ':warning:',
  medium: ':large_orange_diamond:',
  low: ':white_circle:'
}

const MAX_DETAILS = 8

/** What a structured reader saw (see structuredDetails), quoted a line each, when it saw more than the summary says. */
function details (diffData: any): string {
  const lines = structuredDetails(diffData)
  if (lines.length < 2) return ''
  const more = lines.length > MAX_DETAILS ? `\n…and ${lines.length - MAX_DETAILS} more` : ''
  return lines.slice(0, MAX_DETAILS).map(l => `\n> ${l}`).join('') + more
}

/** The Slack message for an event: who, where, what, how bad, and a link to the diff. */
export function slackMessage (
  eventType: string,
  payload: any,
  publicBaseUrl: string | undefined
): { text: string, blocks: unknown[] } {
  const base = publicBaseUrl?.replace(/\/$/, '') ?? ''
  if (eventType === 'change.detected') {
    const c = payload.change
    const link = `${base}/app/changes/${c.id}`
    const others: any[] = (payload.changes ?? []).filter((x: any) => x.id !== c.id)
    const more = others.map(x => `\n• ${x.summary} (${x.changeType}, ${x.severity})`).join('')
    const text =
      `${SEVERITY_MARK[c.severity] ?? ''} ${payload.domain.displayName ?? payload.domain.domain}: ${c.summary}`.trim()
    return {
      text,
      blocks: [
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text: (`*${payload.domain.displayName ?? payload.domain.domain}* · ` +
              `<${payload.page.url}|${payload.page.name ?? payload.page.url}>\n` +
              `${c.summary}${details(c.diffData)}${more}`).slice(0, 2900)
          }
        },
        {
          type: 'context',
          elements: [
            {
              type: 'mrkdwn',
              text: `*${c.changeType}* · severity *${c.severity}* · confidence ${c.confidence} · <${link}|diff>` +
                (c.images ? ` · <${c.images.diff}|before / after>` : '')
            }
          ]
        }
      ]
    }
  }
  if (eventType === 'changes.digest') {
    const lines = (payload.changes as any[]).map(
      c =>
        `• ${SEVERITY_MARK[c.severity] ?? ''} *${c.domain}* (${c.changeType}): ${c.summary} ` +
        `<${base}/app/changes/${c.id}|diff>`
    )
    return {
      text: `${payload.total} change${payload.total === 1 ? '' : 's'} since ${payload.period.from}`,
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: lines.join('\n').slice(0, 2900) } }]
    }
  }
  if (eventType === 'page.discovered' || eventType === 'page.removed') {
    const e = payload.event
    const what = eventType === 'page.discovered'
      ? `:new: new ${e.pageType} page${e.watched ? ', now watched' : ''}`
      : `:wastebasket: page gone${e.reason ? ` (${e.reason})` : ''}`
    const text = `${what} on ${payload.domain.displayName ?? payload.domain.domain}: ${e.url}`
    return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] }
  }
  if (eventType === 'page.recovered') {
    const text = `:white_check_mark: ${payload.domain?.domain ?? ''} ${payload.page.url} works again`
    return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] }
  }
  if (eventType === 'job.failed') {
    const failure = payload.page?.failure
    const text = failure
      ? `${failure.kind === 'blocked' ? ':no_entry: blocked' : ':x: failing'}: ${payload.page.url}: ` +
        `${payload.job.failedReason}. ${failure.nextStep}`
      : `:x: ${payload.domain?.domain ?? ''} ${payload.job.name} failed: ${payload.job.failedReason}`
    return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] }
  }
  return { text: 'Sitewatch test message: this Slack destination works.', blocks: [] }
}

/**
 * A change that has screenshots gets links to them that work without a key for a week,
 * signed when the delivery is sent (a retry days later still carries fresh ones). Only
 * with PUBLIC_BASE_URL: without it there is no address to link to.
 */
function withImageLinks (eventType: string, payload: any, deps: DeliverDeps): any {
  if (eventType !== 'change.detected' || !deps.publicBaseUrl || !payload?.change?.diffData?.visual) return payload
  return {
    ...payload,
    change: { ...payload.change, images: signedImageLinks(deps.linkSecret, deps.publicBaseUrl, payload.change.id) }
  }
}

/**
 * One attempt at one delivery. Records the attempt (status code, time, error); a non-2xx
 * answer or a network failure throws so the queue retries with backoff. A delivery
 * already made is never made again.
 */
export async function deliver (
  deps: DeliverDeps,
  deliveryId: string,
  lastAttempt: boolean
): Promise<{ delivered: boolean, status?: number, skipped?: string }> {
  const row = await findDeliveryToSend(deps.db, deliveryId)
  if (!row) return { delivered: false, skipped: 'endpoint deleted' }
  if (row.status === 'delivered') return { delivered: true, skipped: 'already delivered' }
  if (!row.enabled) {
    await markDeliveryFailed(deps.db, deliveryId, 'endpoint disabled')
    return { delivered: false, skipped: 'endpoint disabled' }
  }

  const payload = withImageLinks(row.event_type, row.payload, deps)
  const body =
    row.kind === 'slack'
      ? JSON.stringify(slackMessage(row.event_type, payload, deps.publicBaseUrl))
      : JSON.stringify({ id: row.id, type: row.event_type, createdAt: row.created_at.toISOString(), data: payload })
  const headers: Record<string, string> =
    row.kind === 'slack'
      ? {}
      : {
          'X-Sitewatch-Event': row.event_type,
          'X-Sitewatch-Delivery': row.id,
          [SIGNATURE_HEADER]: sign(row.secret, body)
        }

  let status: number | undefined
  let durationMs: number | undefined
  let error: string | null = null
  try {
    const res = await deps.fetcher.post(row.url, body, headers)
    status = res.status
    durationMs = res.durationMs
    if (status < 200 || status >= 300) error = `HTTP ${status}${res.body ? `: ${res.body.slice(0, 200)}` : ''}`
  } catch (err) {
    error = (err as Error).message
  }
  const delivered = error === null
  await recordAttempt(deps.db, deliveryId, { status, durationMs, error, lastAttempt })
  if (!delivered) throw new Error(`delivery to ${new URL(row.url).host} failed: ${error}`)
  return { delivered, status }
}
