import type { Config } from '../config.js'
import type { Fairness } from './fair-lanes.js'

// The queues, the jobs they carry, and how each is run, retried and expired: one table.
// Every queue is a lane of the one `jobs` table (see queue.ts).

export const QUEUE = {
  discover: 'discover.pages',
  crawl: 'crawl.page',
  /** Crawls of pages read in the browser: pulled by processes that run browsers (see RENDER_ROLES). */
  render: 'crawl.render',
  tick: 'schedule.tick',
  retention: 'retention.sweep',
  dispatch: 'alerts.dispatch',
  deliver: 'webhook.deliver',
  digest: 'alerts.digest',
  mail: 'mail.deliver',
  mailDigest: 'mail.digest',
  /** Account e-mails sent from a request that must answer at once (a password reset). */
  accountMail: 'mail.account',
  research: 'research.domain'
} as const
export type QueueName = (typeof QUEUE)[keyof typeof QUEUE]
export const QUEUE_NAMES: readonly QueueName[] = Object.values(QUEUE)

/**
 * A page's crawl runs on one of these queues (its record's `lane`); its `jobs.name` says
 * `crawl.page` either way. A crawl that finds its page needs the browser moves to the
 * render queue under the same id (see Lane.move). They are taken by free host.
 */
export const CRAWL_QUEUES: readonly string[] = [QUEUE.crawl, QUEUE.render]
export type CrawlLaneName = 'crawl.page' | 'crawl.render'

export const MAX_ATTEMPTS = 3

/** Webhook deliveries and e-mails get more attempts than crawls: a receiver may be down for a while. */
export const DELIVERY_ATTEMPTS = 6

/** How a queue's jobs are run and retried. */
export interface QueuePolicy {
  attempts: number
  /** The first retry's delay; doubled per attempt made when `backoff`, up to twice that at random. */
  retryDelaySeconds: number
  backoff: boolean
  /** How long an attempt may run: its lease, after which the sweep takes it to be lost. */
  expireSeconds: number
  /** A lane shared by tenants whose jobs wait on others' servers: its limits in flight (see fair-lanes.ts). */
  fair?: Fairness
}

/**
 * Each queue's policy. Work a tenant asked for gets MAX_ATTEMPTS, JOB_RETRY_DELAY_SECONDS
 * doubled per attempt, and JOB_EXPIRE_SECONDS; deliveries get more attempts, with a short
 * lease (a sender killed mid-send leaves its message to be retried once it ends); the cron's
 * jobs are never retried (the next slot does their work) but the sweeps of the day.
 */
export function queuePolicies (
  config: Pick<Config, 'jobRetryDelaySeconds' | 'jobExpireSeconds'>
): Readonly<Record<QueueName, QueuePolicy>> {
  const retry = { retryDelaySeconds: config.jobRetryDelaySeconds, backoff: true }
  const tenantWork: QueuePolicy = { attempts: MAX_ATTEMPTS, ...retry, expireSeconds: config.jobExpireSeconds }
  const delivery: QueuePolicy = {
    attempts: DELIVERY_ATTEMPTS, ...retry, expireSeconds: Math.min(120, config.jobExpireSeconds)
  }
  const once = (expireSeconds: number): QueuePolicy => ({ attempts: 1, ...retry, expireSeconds })
  return {
    [QUEUE.crawl]: tenantWork,
    [QUEUE.render]: tenantWork,
    [QUEUE.discover]: tenantWork,
    [QUEUE.research]: tenantWork,
    [QUEUE.tick]: once(600),
    [QUEUE.retention]: { ...once(3600), attempts: 3 },
    [QUEUE.dispatch]: { attempts: 4, ...retry, expireSeconds: 300 },
    // Eight delivery slots: two to one endpoint at most, four to one organisation.
    [QUEUE.deliver]: { ...delivery, fair: { perKey: 2, perOrg: 4 } },
    [QUEUE.digest]: { ...once(600), attempts: 3 },
    // Four sending slots, two to one organisation at most (its key is its own).
    [QUEUE.mail]: { ...delivery, fair: { perKey: 2, perOrg: 2 } },
    [QUEUE.mailDigest]: { ...once(600), attempts: 3 },
    [QUEUE.accountMail]: delivery
  }
}

export interface DiscoverJobData {
  orgId: string
  domainId: string
  /** Pages a person named as they added the domain: read first, and watched when they answer. */
  asked?: string[]
}
export interface ResearchJobData {
  orgId: string
  domainId: string
  briefId: string
}
/** An account e-mail a request asks for (see alerts/account-mail.ts): the reset link is made by the job. */
export type AccountMailJobData =
  | { kind: 'reset', email: string }
  /** A link that proves an account, to link a provider identity to it (services/sso.ts): made by the job. */
  | { kind: 'sso-link', email: string, linkTokenHash: string }
export interface CrawlJobData {
  orgId: string
  domainId: string
  pageId: string
  url: string
  /** Its host's turn, taken with it from the queue (see crawl-order.ts): the start and the lease (the job's id). */
  turn?: { startAt: number, lease: string }
}

/** A page row's crawl job. */
export const crawlJobOf = (page: { id: string, org_id: string, domain_id: string, url: string }): CrawlJobData => ({
  orgId: page.org_id,
  domainId: page.domain_id,
  pageId: page.id,
  url: page.url
})
