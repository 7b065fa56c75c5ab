import { resetMail, ssoLinkMail } from '../mail/messages.js'
import type { Mailer } from '../mail/mailer.js'
import type { AccountMailJobData } from '../queue/queues.js'
import { requestReset } from '../services/accounts.js'
import { mailedLinkSecret } from '../services/sso.js'
import type { Db } from '../store/db.js'

// Account e-mails that a request only asks for: the request answers at once, the same way
// and in the same time whether or not the address has an account, and the link is made
// and sent here, by a job, retried when the mail server does not take it.

/** Sends the e-mail a job asks for; nothing when the address has no account. */
export async function sendAccountMail (
  deps: { db: Db, mailer: Mailer, appBase: string }, job: AccountMailJobData
): Promise<{ sent: boolean }> {
  if (job.kind === 'sso-link') {
    const link = await mailedLinkSecret(deps.db, job.linkTokenHash)
    if (!link) return { sent: false }
    await deps.mailer.deliver(ssoLinkMail({ to: link.email, link: `${deps.appBase}/app/sso/link/${link.secret}` }))
    return { sent: true }
  }
  const secret = await requestReset(deps.db, job.email)
  if (!secret) return { sent: false }
  await deps.mailer.deliver(resetMail({ to: job.email, link: `${deps.appBase}/app/reset/${secret}` }))
  return { sent: true }
}
