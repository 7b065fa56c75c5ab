import type { Logger } from 'pino'
import {
  defaultMailPreference,
  digestStart,
  effectiveMailPreference,
  isDigestDue,
  isHeldDigestDue,
  localClock,
  preferenceWants
} from '../vocabulary/mail-alerts.js'
import { SEVERITY_RANK, type ChangeType, type DiffData, type PageType, type Severity } from '../vocabulary/core.js'
import { changeMail, digestMail, type DiffLine } from '../mail/alert-messages.js'
import { MailRefused, type Mailer } from '../mail/mailer.js'
import { type JobQueue } from '../queue/queue.js'
import { QUEUE } from '../queue/queues.js'
import { unsubscribeToken } from '../services/mail-alerts.js'
import { changesBetween } from '../store/changes.js'
import { toldPageEvents } from '../store/page-events.js'
import type { Db, Tx } from '../store/db.js'
import {
  chosenPreference,
  clearBounces,
  findEmailToSend,
  insertEmails,
  mailRecipients,
  recordBounce,
  recordEmailAttempt,
  setLastMailDigest,
  type NewEmail,
  type Recipient
} from '../store/mail-alerts.js'
import { structuredDetails } from './details.js'
import { signedImageLinks } from './signature.js'

// E-mail alerts go through an outbox like webhooks: a row per message, written in the
// transaction that marks the change alerted (realtime) or the member's digest done, and
// a job that sends it. A 4xx from the SMTP server is retried with backoff; a 5xx fails
// the message, and three in a row pause the member's alerts with the server's words.

export const BOUNCES_BEFORE_PAUSE = 3
/** The most changes a digest lists; the rest are counted and linked to the inbox. */
export const DIGEST_LIMIT = 30

export interface MailDeps {
  db: Db
  queue: JobQueue
  mailer: Mailer
  /** Where links in messages point: PUBLIC_BASE_URL or this host. */
  appBase: string
  linkSecret: string
  log: Logger
}

interface AlertedChange {
  id: string
  org_id: string
  domain_id: string
  severity: Severity
  change_type: ChangeType
  confidence: string
  summary: string
  diff_data: DiffData
  page_url: string
  page_type: PageType
  hostname: string
  display_name: string | null
  domain_tags: string[]
  snapshot_after_id: string
}

const DIFF_LINES = 40

/** At most this many of what a structured reader saw, under the summary. */
const MAX_DETAILS = 10

const linesOf = (d: DiffData): DiffLine[] =>
  d.hunks.flatMap(h => h.lines).filter(l => l.type !== 'context').slice(0, DIFF_LINES)

const worstFirst = (a: { severity: Severity }, b: { severity: Severity }) =>
  SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity]

interface Facts {
  severity: Severity
  change_type: ChangeType
  domain_id: string
  page_type: PageType
  domain_tags: string[]
}
const wants = (r: Recipient, c: Facts) =>
  preferenceWants(effectiveMailPreference(r.plan, chosenPreference(r)), {
    severity: c.severity,
    changeType: c.change_type,
    domainId: c.domain_id,
    pageType: c.page_type,
    domainTags: c.domain_tags
  })

/**
 * The realtime messages for changes being alerted: one per member per check of a page, led
 * by its worst change; `recipients`: the members of the changes' organisations (mailRecipients).
 */
export function changeMails (changes: AlertedChange[], recipients: readonly Recipient[]): NewEmail[] {
  const checks = new Map<string, AlertedChange[]>()
  for (const c of changes) checks.set(c.snapshot_after_id, [...(checks.get(c.snapshot_after_id) ?? []), c])
  const emails: NewEmail[] = []
  for (const found of checks.values()) {
    for (const r of recipients) {
      if (r.org_id !== found[0].org_id || r.paused_reason) continue
      if (effectiveMailPreference(r.plan, chosenPreference(r)).mode !== 'realtime') continue
      const wanted = found.filter(c => wants(r, c))
      if (wanted.length === 0) continue
      const lead = wanted.reduce((a, b) => SEVERITY_RANK[b.severity] > SEVERITY_RANK[a.severity] ? b : a)
      const domain = lead.display_name ?? lead.hostname
      emails.push({
        org_id: r.org_id,
        user_id: r.user_id,
        to_address: r.email,
        kind: 'change',
        event_id: lead.id,
        subject: `[${lead.severity}] ${domain} — ${lead.summary}`.slice(0, 300),
        payload: {
          orgName: r.org_name,
          domain,
          pageUrl: lead.page_url,
          change: {
            id: lead.id,
            summary: lead.summary,
            severity: lead.severity,
            changeType: lead.change_type,
            confidence: lead.confidence,
            lines: linesOf(lead.diff_data),
            details: structuredDetails(lead.diff_data).slice(0, MAX_DETAILS),
            visual: Boolean(lead.diff_data.visual)
          },
          others: wanted.filter(c => c !== lead).map(c => c.summary)
        }
      })
    }
  }
  return emails
}

/** Queues the sending of messages written to the outbox, fair between organisations (each its own key). */
async function queueSending (tx: Tx, queue: JobQueue, emails: Array<{ id: string, org_id: string }>): Promise<void> {
  await queue.enqueueFair(tx, QUEUE.mail, emails.map(e => ({ emailId: e.id, orgId: e.org_id, key: e.org_id })))
}

/** Writes messages to the outbox and queues their sending, in the caller's transaction. */
export async function queueMails (tx: Tx, queue: JobQueue, emails: NewEmail[]): Promise<void> {
  await queueSending(tx, queue, await insertEmails(tx, emails))
}

/** New and removed pages a digest lists at most. */
const DIGEST_PAGES = 20

/**
 * Every quarter hour: the members whose daily or weekly digest is due at their local hour
 * get one message with the changes since their last, grouped by domain, worst first. A
 * digest with nothing in it is not sent; it still counts as done.
 */
export async function runMailDigests (
  deps: Pick<MailDeps, 'db' | 'queue' | 'appBase'>,
  now = new Date()
): Promise<number> {
  const { db, queue, appBase } = deps
  let queued = 0
  for (const r of await mailRecipients(db)) {
    const pref = effectiveMailPreference(r.plan, chosenPreference(r))
    // A real-time member gets, once a day, the changes alert rules kept for the digest (and nothing else).
    const held = isHeldDigestDue(pref, r.last_digest_at, now)
    if (r.paused_reason || !(held || isDigestDue(pref, r.last_digest_at, now))) continue
    const from = digestStart(held ? { ...pref, mode: 'daily' } : pref, r.last_digest_at, now)
    await queue.transaction(db, async tx => {
      const changes = (await changesBetween(tx, r.org_id, from, now))
        .filter(c => wants(r, c) && (!held || c.alert_action === 'digest'))
      // New and removed pages, of the member's domains and tags when they chose some.
      const pages = held
        ? []
        : (await toldPageEvents(tx, r.org_id, { from, to: now, limit: DIGEST_PAGES }))
            .filter(e => (!pref.domainIds || pref.domainIds.includes(e.domain_id)) &&
          (!pref.tags || pref.tags.some(t => e.domain_tags.includes(t))))
            .map(e => ({ kind: e.kind, url: e.url, domain: e.hostname, pageType: e.page_type, watched: e.watched }))
      if (changes.length > 0 || pages.length > 0) {
        const byDomain = new Map<string, typeof changes>()
        for (const c of changes) byDomain.set(c.hostname, [...(byDomain.get(c.hostname) ?? []), c])
        let budget = DIGEST_LIMIT
        const groups = [...byDomain.entries()]
          .map(([domain, list]) => ({ domain, list: list.sort(worstFirst) }))
          .sort((a, b) => worstFirst(a.list[0], b.list[0]) || a.domain.localeCompare(b.domain))
          .map(({ domain, list }) => {
            const counts: Record<string, number> = {}
            for (const c of list) counts[c.change_type] = (counts[c.change_type] ?? 0) + 1
            const shown = list.slice(0, Math.max(0, budget))
            budget -= shown.length
            return {
              domain,
              counts,
              changes: shown.map(c => ({
                summary: c.summary,
                severity: c.severity,
                changeType: c.change_type,
                link: `${appBase}/app/changes/${c.id}`
              }))
            }
          })
        const more = changes.length > DIGEST_LIMIT
          ? {
              count: changes.length - DIGEST_LIMIT,
              link: `${appBase}/app/changes?since=${encodeURIComponent(from.toISOString())}` +
                (pref.minSeverity !== 'low' ? `&severity=${pref.minSeverity}` : '')
            }
          : null
        const when = pref.mode === 'weekly' ? 'this week' : 'today'
        const mode = held ? 'daily' : pref.mode
        const ids = await insertEmails(tx, [{
          org_id: r.org_id,
          user_id: r.user_id,
          to_address: r.email,
          kind: 'digest',
          event_id: `${mode}:${localClock(pref.timeZone, now).date}`,
          subject: changes.length > 0
            ? `${changes.length} change${changes.length === 1 ? '' : 's'} ${when} on Sitewatch — ${r.org_name}`
            : `${pages.length} new or removed page${pages.length === 1 ? '' : 's'} ${when} on Sitewatch — ` +
              r.org_name,
          payload: {
            orgName: r.org_name,
            period: { from: from.toISOString(), to: now.toISOString(), mode },
            total: changes.length,
            groups,
            more,
            pages
          }
        }])
        await queueSending(tx, queue, ids)
        queued += ids.length
      }
      await setLastMailDigest(tx, r.user_id, r.org_id, pref, now)
    })
  }
  return queued
}

/** One attempt at one message; throws (the queue retries) on a temporary refusal or a broken connection. */
export async function sendEmail (deps: MailDeps, emailId: string, lastAttempt: boolean): Promise<{ status: string }> {
  const { db, mailer, appBase, linkSecret } = deps
  const row = await findEmailToSend(db, emailId)
  if (!row) return { status: 'gone' }
  if (row.status !== 'pending') return { status: row.status }
  if (row.mode === 'off' || row.paused_reason) {
    const error = row.paused_reason ?? 'alerts turned off'
    await recordEmailAttempt(db, emailId, { status: 'failed', smtpResponse: null, error })
    return { status: 'skipped' }
  }
  const p = row.payload as any
  const links = {
    unsubscribe: `${appBase}/app/unsubscribe/${unsubscribeToken(linkSecret, row.user_id, row.org_id)}`,
    settings: `${appBase}/app/alerts`
  }
  const mail = row.kind === 'change'
    ? changeMail({
      to: row.to_address,
      orgName: p.orgName,
      domain: p.domain,
      pageUrl: p.pageUrl,
      change: p.change,
      links: {
        ...links,
        change: `${appBase}/app/changes/${p.change.id}`,
        images: p.change.visual ? { diff: signedImageLinks(linkSecret, appBase, p.change.id).diff } : undefined
      }
    })
    : digestMail({
      to: row.to_address,
      orgName: p.orgName,
      period: { from: new Date(p.period.from), to: new Date(p.period.to), mode: p.period.mode },
      total: p.total,
      groups: p.groups,
      more: p.more,
      pages: p.pages ?? [],
      links
    })
  if (!mailer.configured) {
    // Written to the log, not sent: said so, never "delivered".
    await mailer.deliver(mail)
    await recordEmailAttempt(db, emailId, {
      status: 'not_sent', smtpResponse: null, error: 'SMTP_URL is not set: the message was written to the log, not sent'
    })
    return { status: 'not_sent' }
  }
  try {
    const response = await mailer.deliver({ ...mail, messageId: `<${row.id}@sitewatch>` })
    await recordEmailAttempt(db, emailId, { status: 'delivered', smtpResponse: response, error: null })
    await clearBounces(db, row.user_id, row.org_id)
    return { status: 'delivered' }
  } catch (err) {
    const refused = err instanceof MailRefused ? err : undefined
    const message = (err as Error).message
    if (refused?.permanent) {
      await recordEmailAttempt(db, emailId, { status: 'failed', smtpResponse: message, error: `refused: ${message}` })
      await recordBounce(db, row.user_id, row.org_id,
        `mail to ${row.to_address} was refused ${BOUNCES_BEFORE_PAUSE} times in a row (last: ${message})`,
        BOUNCES_BEFORE_PAUSE, defaultMailPreference(row.plan))
      return { status: 'failed' }
    }
    await recordEmailAttempt(db, emailId, {
      status: lastAttempt ? 'failed' : 'pending', smtpResponse: refused ? message : null, error: message
    })
    throw err
  }
}
