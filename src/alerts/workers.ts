import type { Logger } from 'pino'
import type { Fetcher } from '../crawl/fetch.js'
import { MailRefused, type Mailer } from '../mail/mailer.js'
import { type JobQueue } from '../queue/queue.js'
import { QUEUE, type AccountMailJobData } from '../queue/queues.js'
import type { Db } from '../store/db.js'
import { markEmailFailed } from '../store/mail-alerts.js'
import { markDeliveryFailed } from '../store/webhooks.js'
import { sendAccountMail } from './account-mail.js'
import { deliver } from './deliver.js'
import { runDigest } from './webhook-digest.js'
import { runMailDigests, sendEmail } from './mail-outbox.js'
import { dispatchChanges, dispatchPageEvents } from './dispatch.js'

export interface AlertDeps {
  db: Db
  queue: JobQueue
  fetcher: Fetcher
  publicBaseUrl: string | undefined
  /** Where links in e-mails point: PUBLIC_BASE_URL or this host. */
  appBase: string
  mailer: Mailer
  linkSecret: string
  log: Logger
}

/**
 * Registers alerting's handlers with the queue: deliveries, dispatch of new changes
 * (and, every minute, the sweep of the changes outbox: a dispatch job with no ids),
 * and the daily digest.
 */
export async function startAlertWorkers (deps: AlertDeps): Promise<void> {
  const { db, queue } = deps
  // A delivery or a message whose last attempt ended without its worker (lost, past its lease) fails with that reason.
  queue.pull<{ deliveryId: string }, object>(QUEUE.deliver, 8, {
    run: async job => await deliver(deps, job.data.deliveryId, job.retryCount >= job.retryLimit),
    onGiveUp: async (job, reason, _err, tx) => {
      await markDeliveryFailed(tx, job.data.deliveryId, reason)
      return undefined
    }
  })
  await queue.work<{ changeIds?: string[] } | null>(QUEUE.dispatch, 4, async jobs => {
    for (const job of jobs) {
      const alerted = await dispatchChanges(db, queue, job.data?.changeIds)
      if (!job.data?.changeIds && alerted > 0) deps.log.info({ alerted }, 'changes outbox swept')
      // Page events have no ids to hand over: a job without them sweeps their outbox too.
      if (!job.data?.changeIds) await dispatchPageEvents(db, queue)
    }
  })
  await queue.work(QUEUE.digest, 1, async () => ({ sent: await runDigest(db, queue) }))
  queue.pull<{ emailId: string }, object>(QUEUE.mail, 4, {
    run: async job => await sendEmail(deps, job.data.emailId, job.retryCount >= job.retryLimit),
    onGiveUp: async (job, reason, _err, tx) => {
      await markEmailFailed(tx, job.data.emailId, reason)
      return undefined
    }
  })
  await queue.work(QUEUE.mailDigest, 1, async () => ({ queued: await runMailDigests(deps) }))
  queue.pull<AccountMailJobData, object>(QUEUE.accountMail, 2, {
    run: async job => await sendAccountMail(deps, job.data),
    isPermanent: err => err instanceof MailRefused && err.permanent
  })
  await queue.schedule(QUEUE.mailDigest, '*/15 * * * *')
  await queue.schedule(QUEUE.dispatch, '* * * * *')
  await queue.schedule(QUEUE.digest, '0 8 * * *')
}
