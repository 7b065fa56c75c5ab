// An oversized body always gets its answer: a client that writes the whole body before it
// reads (as many HTTP clients do) reads the 413 in the contract's envelope for bodies of
// 1.5, 2 and 8 MB, sent at once and slowly, all at the same time, on the API's routes and
// the app's forms; the service lingers to read and drop the rest of such a body, and closes
// the connection only past a bound (a 40 MB body may be cut off).
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { LINGER_BYTES } from '../../src/api/app.js'
import { startTestService, type TestService } from '../helpers/service.js'

/**
 * Sends a request whose body is `size` bytes, written in `chunk`s (waiting `pauseMs`
 * between them), reading nothing until the whole body is written: the head of the answer,
 * or the socket's error.
 */
async function writeThenRead (
  url: string, path: string, headers: Record<string, string>, size: number, chunk: number, pauseMs = 0
): Promise<{ status?: number, body?: string, error?: string }> {
  const target = new URL(url)
  return await new Promise(resolve => {
    const socket = connect(Number(target.port), target.hostname)
    socket.pause()
    let got = ''
    const answered = () => {
      const [head, body = ''] = got.split('\r\n\r\n')
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? NaN)
      if (Buffer.byteLength(body) < length) return
      resolve({ status: Number(head.split(' ')[1]), body })
      socket.destroy()
    }
    socket.on('data', d => { got += d.toString(); answered() })
    socket.on('error', err => resolve({ error: (err as NodeJS.ErrnoException).code ?? err.message }))
    socket.on('close', () => resolve({ error: `closed after ${got.length} bytes` }))
    const head = Object.entries({ host: target.host, 'content-length': String(size), ...headers })
      .map(([k, v]) => `${k}: ${v}\r\n`).join('')
    socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`)
    const block = Buffer.alloc(chunk, 0x20)
    let sent = 0
    const next = () => {
      if (sent >= size) {
        socket.resume()
        return
      }
      const n = Math.min(chunk, size - sent)
      sent += n
      const flushed = socket.write(block.subarray(0, n), err => {
        if (!err && pauseMs > 0) setTimeout(next, pauseMs)
      })
      if (pauseMs === 0) {
        if (flushed) setImmediate(next)
        else socket.once('drain', next)
      }
    }
    next()
  })
}

describe('an oversized body', () => {
  let t: TestService
  before(async () => { t = await startTestService() })
  after(async () => { await t.stop() })

  it('gets its 413 in the envelope, on the API and the app, at once and slowly, for a client that reads last', async () => {
    const api = { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' }
    const form = { 'content-type': 'application/x-www-form-urlencoded' }
    const sends: Array<[string, ReturnType<typeof writeThenRead>]> = []
    for (const mb of [1.5, 2, 8]) {
      const size = Math.round(mb * 1024 * 1024)
      sends.push(
        [`POST /api/domains, ${mb} MB at once`, writeThenRead(t.url, '/api/domains', api, size, 64 * 1024)],
        [`POST /api/domains, ${mb} MB slowly`, writeThenRead(t.url, '/api/domains', api, size, 256 * 1024, 20)],
        [`POST /api/alert-rules, ${mb} MB at once`, writeThenRead(t.url, '/api/alert-rules', api, size, 256 * 1024)],
        [`POST /app/sign-in, ${mb} MB at once`, writeThenRead(t.url, '/app/sign-in', form, size, 64 * 1024)]
      )
    }
    const results = await Promise.all(sends.map(async ([what, sent]) => [what, await sent] as const))
    for (const [what, res] of results) {
      assert.equal(res.status, 413, `${what}: ${JSON.stringify(res)}`)
      if (what.includes('/api/')) {
        assert.equal(JSON.parse(res.body!).code, 'PAYLOAD_TOO_LARGE', what)
      }
    }
    // The connection a lingering answer kept still serves the next request.
    const ok = await fetch(`${t.url}/api/domains`, { headers: { authorization: `Bearer ${t.key}` } })
    assert.equal(ok.status, 200)
  })

  it('is cut off past its bound, and the service goes on answering', async () => {
    const res = await writeThenRead(t.url, '/api/domains', { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      LINGER_BYTES * 3, 256 * 1024)
    assert.ok(res.error !== undefined || res.status === 413, JSON.stringify(res))
    const ok = await fetch(`${t.url}/api/domains`, { headers: { authorization: `Bearer ${t.key}` } })
    assert.equal(ok.status, 200)
  })
})
