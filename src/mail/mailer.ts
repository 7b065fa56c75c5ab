import { createTransport, type Transporter } from 'nodemailer'
import type { Config } from '../config.js'

// E-mail to people (invitations, password resets; alerts next): through SMTP_URL with
// nodemailer, or, when it is unset, written to the log with its text, links included,
// so that a deployment without mail still works.

export interface Mail {
  to: string
  subject: string
  text: string
  html?: string
  headers?: Record<string, string>
}

/** What the SMTP server said to a message it did not take: 4xx is worth a retry, 5xx is not. */
export class MailRefused extends Error {
  constructor (message: string, readonly responseCode: number | undefined) {
    super(message)
  }

  get permanent (): boolean {
    return this.responseCode !== undefined && this.responseCode >= 500
  }
}

interface Log {
  info: (obj: object, msg: string) => void
  warn: (obj: object, msg: string) => void
}

export class Mailer {
  private readonly transport: Transporter | undefined

  constructor (private readonly config: Pick<Config, 'smtpUrl' | 'mailFrom'>, private readonly log: Log) {
    // A server that stops answering gives up well before the job's expiry (two minutes),
    // so that a retry never overlaps a send still waiting for its answer.
    this.transport = config.smtpUrl
      ? createTransport({
        url: config.smtpUrl, connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000
      } as Parameters<typeof createTransport>[0])
      : undefined
  }

  /** Whether mail leaves at all (SMTP_URL is set): without it, a message is only written to the log. */
  get configured (): boolean {
    return this.transport !== undefined
  }

  /** Sends, or logs; a failed delivery is logged and reported false, never thrown at the person's request. */
  async send (mail: Mail): Promise<boolean> {
    try {
      await this.deliver(mail)
      return true
    } catch (err) {
      this.log.warn({ to: mail.to, subject: mail.subject, err: (err as Error).message }, 'mail not sent')
      return false
    }
  }

  /**
   * Sends one message and reports the server's answer, or throws MailRefused. Without
   * SMTP_URL the message is written to the log, and that is its delivery.
   */
  async deliver (mail: Mail & { messageId?: string }): Promise<string> {
    if (!this.transport) {
      this.log.info({ to: mail.to, subject: mail.subject, text: mail.text }, 'mail (SMTP_URL is unset: not sent)')
      return 'logged: SMTP_URL is unset'
    }
    try {
      const info = await this.transport.sendMail({ from: this.config.mailFrom, ...mail })
      return String(info.response ?? 'sent').slice(0, 300)
    } catch (err) {
      const e = err as Error & { responseCode?: number, response?: string }
      throw new MailRefused((e.response ?? e.message).slice(0, 300), e.responseCode)
    }
  }

  close (): void {
    this.transport?.close()
  }
}
