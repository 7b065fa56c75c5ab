import { createTransport, type Transporter } from 'nodemailer'
import type { Config } from '../config.js'

// E-mail to people (invitations, password resets; alerts next): through SMTP_URL with
// nodemailer, or, when it is unset, written to the log with its text, links included,
// so that a deployment without mail still works.

export interface Mail {
  to: string
  subject: string
  text: string
}

interface Log {
  info: (obj: object, msg: string) => void
  warn: (obj: object, msg: string) => void
}

export class Mailer {
  private readonly transport: Transporter | undefined

  constructor (private readonly config: Pick<Config, 'smtpUrl' | 'mailFrom'>, private readonly log: Log) {
    this.transport = config.smtpUrl ? createTransport(config.smtpUrl) : undefined
  }

  /** Sends, or logs; a failed delivery is logged and reported false, never thrown at the person's request. */
  async send (mail: Mail): Promise<boolean> {
    if (!this.transport) {
      this.log.info({ to: mail.to, subject: mail.subject, text: mail.text }, 'mail (SMTP_URL is unset: not sent)')
      return true
    }
    try {
      await this.transport.sendMail({ from: this.config.mailFrom, ...mail })
      return true
    } catch (err) {
      this.log.warn({ to: mail.to, subject: mail.subject, err: (err as Error).message }, 'mail not sent')
      return false
    }
  }

  close (): void {
    this.transport?.close()
  }
}
