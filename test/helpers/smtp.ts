import { simpleParser, type ParsedMail } from 'mailparser'
import { SMTPServer, type SMTPServerAddress } from 'smtp-server'
import { freePort } from './service.js'

/** A real SMTP server on 127.0.0.1 that keeps what it receives, parsed; `onRcptTo` may refuse addresses. */
export async function startSmtp (onRcptTo?: (to: string) => { code: number, message: string } | undefined) {
  const mails: ParsedMail[] = []
  const port = await freePort()
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onRcptTo (address: SMTPServerAddress, _session, done) {
      const refusal = onRcptTo?.(address.address)
      if (refusal) return done(Object.assign(new Error(refusal.message), { responseCode: refusal.code }))
      done()
    },
    onData (stream, _session, done) {
      simpleParser(stream).then(m => { mails.push(m); done() }, done)
    }
  })
  await new Promise<void>(resolve => server.listen(port, '127.0.0.1', resolve))
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** The first message to `to` whose subject matches. */
    find: (to: string, subject: RegExp = /./) =>
      mails.find(m => (m.to as { text: string }).text === to && subject.test(m.subject ?? '')),
    close: async () => await new Promise<void>(resolve => server.close(() => resolve()))
  }
}
