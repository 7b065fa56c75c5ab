import type PgBoss from 'pg-boss'
import type { Config } from '../config.js'

// The queues, the jobs they carry and how each is retried and expired: one table.

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

/**
 * A page's crawl runs on one of these queues (its record's `lane`); its `jobs.name` says
 * `crawl.page` either way. A crawl that finds its page needs the browser moves to the
 * render queue under the same id (see CrawlLane.move).
 */
export const CRAWL_QUEUES: readonly string[] = [QUEUE.crawl, QUEUE.render]

/** The queues pg-boss runs: all but the crawls, which are queued in their records (see crawl-lane.ts). */
export type BossQueueName = Exclude<QueueName, typeof QUEUE.crawl | typeof QUEUE.render>
export const BOSS_QUEUES = Object.values(QUEUE).filter((q): q is BossQueueName => !CRAWL_QUEUES.includes(q))

export const MAX_ATTEMPTS = 3

/** Webhook deliveries and e-mails get more attempts than crawls: a receiver may be down for a while. */
export const DELIVERY_ATTEMPTS = 6

type Policy = Omit<PgBoss.Queue, 'name'>

/**
 * How each of pg-boss's queues' jobs are retried and when a running one is taken to be
 * lost. Work a tenant asked for gets MAX_ATTEMPTS (crawls too: JOB_RETRY_DELAY_SECONDS
 * doubled per attempt, and JOB_EXPIRE_SECONDS, in crawl-lane.ts); deliveries get more,
 * with backoff; the scheduler's tick is never retried (the next minute's tick does its work).
 */
export const QUEUE_POLICIES = (config: Pick<Config, 'jobRetryDelaySeconds' | 'jobExpireSeconds'>) => {
  const tenantWork: Policy = {
    retryLimit: MAX_ATTEMPTS - 1,
    retryDelay: config.jobRetryDelaySeconds,
    retryBackoff: true,
    expireInSeconds: config.jobExpireSeconds
  }
  const backoff = { retryDelay: config.jobRetryDelaySeconds, retryBackoff: true }
  // A sender killed mid-send leaves its message to be retried once this expires.
  const delivery: Policy = {
    retryLimit: DELIVERY_ATTEMPTS - 1, ...backoff, expireInSeconds: Math.min(120, config.jobExpireSeconds)
  }
  const policies: Record<BossQueueName, Policy> = {
    [QUEUE.discover]: tenantWork,
    [QUEUE.research]: tenantWork,
    [QUEUE.tick]: { retryLimit: 0, expireInSeconds: 600 },
    [QUEUE.retention]: { retryLimit: 2, expireInSeconds: 3600 },
    [QUEUE.dispatch]: { retryLimit: 3, ...backoff, expireInSeconds: 300 },
    [QUEUE.deliver]: { retryLimit: DELIVERY_ATTEMPTS - 1, ...backoff, expireInSeconds: 120 },
    [QUEUE.digest]: { retryLimit: 2, expireInSeconds: 600 },
    [QUEUE.mail]: delivery,
    [QUEUE.mailDigest]: { retryLimit: 2, expireInSeconds: 600 },
    [QUEUE.accountMail]: delivery
  }
  return policies
}

export interface DiscoverJobData {
  orgId: string
  domainId: string
}
export interface ResearchJobData {
  orgId: string
  domainId: string
  briefId: string
}
/** An account e-mail a request asks for (see alerts/account-mail.ts): the reset link is made by the job. */
export interface AccountMailJobData {
  kind: 'reset'
  email: string
}
export interface CrawlJobData {
  orgId: string
  domainId: string
  pageId: string
  url: string
}

/** A page row's crawl job. */
export const crawlJobOf = (page: { id: string, org_id: string, domain_id: string, url: string }): CrawlJobData => ({
  orgId: page.org_id,
  domainId: page.domain_id,
  pageId: page.id,
  url: page.url
})
