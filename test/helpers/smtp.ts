import { simpleParser, type ParsedMail } from 'mailparser'
import { SMTPServer, type SMTPServerAddress } from 'smtp-server'
import { freePort } from './service.js'

/**
 * A real SMTP server on 127.0.0.1 that keeps what it receives, parsed; `onRcptTo` may refuse
 * addresses, and while `holding()` is true a message's data is read but never answered (a
 * sender killed then has not had it accepted).
 */
export async function startSmtp (
  onRcptTo?: (to: string) => { code: number, message: string } | undefined,
  holding: () => boolean = () => false
) {
  const mails: ParsedMail[] = []
  let held = 0
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
      if (holding()) {
        held++
        stream.resume()
        return
      }
      simpleParser(stream).then(m => { mails.push(m); done() }, done)
    }
  })
  // A sender killed mid-send (what the recovery tests do) resets its connection: the server
  // says so as an error event, which would otherwise end the test process.
  server.on('error', () => {})
  await new Promise<void>(resolve => server.listen(port, '127.0.0.1', resolve))
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    held: () => held,
    /** The first message to `to` whose subject matches. */
    find: (to: string, subject: RegExp = /./) =>
      mails.find(m => (m.to as { text: string }).text === to && subject.test(m.subject ?? '')),
    close: async () => await new Promise<void>(resolve => server.close(() => resolve()))
  }
}
