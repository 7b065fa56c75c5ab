import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { eventually, startTestService, type TestService } from '../helpers/service.js'

// Requests that Node's HTTP parser refuses before Fastify sees them, and URLs Fastify's
// router cannot decode: each is answered in the contract's envelope, with a trace id,
// and a connection the parser can no longer trust says it is closing.

interface RawAnswer {
  status: number
  headers: Record<string, string>
  body: any
  /** Everything received, in order: a keep-alive test sends two requests on one connection. */
  raw: string
}

/** Writes each of `requests` on one new connection, 200 ms apart, and reads until the server closes it. */
async function rawExchange (port: number, ...requests: string[]): Promise<RawAnswer[]> {
  const socket = connect(port, '127.0.0.1')
  let raw = ''
  socket.setEncoding('latin1')
  socket.on('data', d => {
    raw += d
  })
  for (const [i, bytes] of requests.entries()) {
    if (i > 0) await new Promise(resolve => setTimeout(resolve, 200))
    socket.write(bytes)
  }
  await new Promise<void>(resolve => {
    socket.on('close', () => resolve())
    socket.on('error', () => resolve())
    setTimeout(() => {
      socket.destroy()
      resolve()
    }, 3000)
  })
  const answers: RawAnswer[] = []
  let rest = raw
  while (rest.startsWith('HTTP/1.1')) {
    const end = rest.indexOf('\r\n\r\n')
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n')
    const headers = Object.fromEntries(lines.map(l => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
    const length = Number(headers['content-length'] ?? 0)
    const text = rest.slice(end + 4, end + 4 + length)
    answers.push({ status: Number(statusLine.split(' ')[1]), headers, body: text ? JSON.parse(text) : undefined, raw })
    rest = rest.slice(end + 4 + length)
  }
  return answers
}

function assertEnvelope (a: RawAnswer | undefined, status: number, what: string): void {
  assert.ok(a, `${what}: an answer`)
  assert.equal(a.status, status, `${what}: ${a.raw.slice(0, 300)}`)
  assert.equal(a.body?.code, 'VALIDATION_ERROR', what)
  assert.equal(typeof a.body?.error, 'string', what)
  assert.match(a.headers['content-type'] ?? '', /^application\/json/, what)
  assert.match(a.headers['x-trace-id'] ?? '', /^[0-9a-f-]{36}$/, `${what}: a trace id`)
}

describe('requests the HTTP parser refuses', () => {
  let t: TestService
  let port: number
  before(async () => {
    t = await startTestService()
    port = Number(new URL(t.url).port)
  })
  after(async () => {
    await t.stop()
  })

  const malformed: Array<[string, string]> = [
    ['a malformed request line', 'GARBAGE\r\n\r\n'],
    ['a request line with an unknown version', 'GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n'],
    ['an invalid byte in a header value', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\x01b\r\n\r\n'],
    ['a space in a header name', 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n'],
    ['bare LF line ends', 'GET /healthz HTTP/1.1\nHost: x\n\n'],
    [
      'both Content-Length and Transfer-Encoding',
      'POST /api/domains HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'
    ],
    ['two different Content-Lengths', 'POST /api/domains HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'],
    ['a bad chunk size', 'POST /api/domains HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'],
    ["HTTP/2's connection preface (h2 with prior knowledge)", 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n']
  ]
  for (const [what, bytes] of malformed) {
    it(`${what}: 400 VALIDATION_ERROR in the envelope, with a trace id and Connection: close`, async () => {
      const [answer] = await rawExchange(port, bytes)
      assertEnvelope(answer, 400, what)
      assert.equal(answer.headers.connection, 'close')
    })
  }

  it('a request line that says HTTP/2.0 is answered in the envelope, with a trace id', async () => {
    const [answer] = await rawExchange(port, 'GET /api/domains HTTP/2.0\r\nHost: x\r\nConnection: close\r\n\r\n')
    assert.ok(answer, 'an answer')
    assert.match(answer.headers['content-type'] ?? '', /^application\/json/)
    assert.match(answer.headers['x-trace-id'] ?? '', /^[0-9a-f-]{36}$/)
    assert.ok(answer.body?.error, answer.raw.slice(0, 300))
  })

  it('headers too large: 431 in the envelope, saying Connection: close on a keep-alive connection', async () => {
    const ok = 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n'
    const huge = `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`
    const answers = await rawExchange(port, ok, huge)
    assert.equal(answers[0]?.status, 200)
    assertEnvelope(answers[1], 431, 'headers too large')
    assert.equal(answers[1].headers.connection, 'close')
  })

  it('an Expect other than 100-continue: 417 in the envelope, not a bare 417', async () => {
    const [answer] = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 999-bogus\r\nConnection: close\r\n\r\n')
    assertEnvelope(answer, 417, 'Expect')
  })

  for (const path of ['/api/domains/%E0%A4%A', '/api/domains/%zz', '/%']) {
    it(`a malformed percent-escape (${path}) is 400 VALIDATION_ERROR, not an internal code`, async () => {
      const [answer] = await rawExchange(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\nConnection: close\r\n\r\n`)
      assertEnvelope(answer, 400, path)
    })
  }
})

describe('a client that stalls', () => {
  // Fastify's close waits for every connection with a request in flight: one whose client stalls (a body half
  // sent, an answer it stops reading) held it until Node's request or keep-alive timeout (300 s, 72 s), and a
  // SIGTERM ran out of its 10 s before jobs were handed back. The stop gives requests in flight a grace, then
  // cuts what is left.
  it('does not hold the service\'s stop: its connection is cut after the grace', { timeout: 60_000 }, async () => {
    const t = await startTestService()
    const socket = connect(Number(new URL(t.url).port), '127.0.0.1')
    const closed = new Promise<void>(resolve => socket.on('close', () => resolve()))
    socket.on('error', () => {})
    socket.write('POST /api/domains HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      `Authorization: Bearer ${t.key}\r\nContent-Length: 100000\r\n\r\n{"domain":`)
    await eventually(async () => (await fetch(`${t.url}/healthz`)).ok || undefined, 10_000, 'the service to answer')
    await t.stop()
    await closed
    assert.ok(socket.destroyed)
  })
})
