// The fleet's watched sites (the fleet bench's and test's), in a thread of their own so that
// the work of the process that starts them (its API calls, their answers, services running in
// it) cannot delay the moment a request is seen: many hosts on one port, each with robots.txt,
// a sitemap of its pages, the pages, and 404 elsewhere. Each request's start and end (epoch
// ms), its status and the host's requests then in flight are recorded.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { parentPort, workerData } from 'node:worker_threads'
import { fleetAnswer } from './fleet-answers.js'

export interface Hit { host: string, path: string, start: number, end: number, status: number, inFlight: number }
export interface SitesConfig { answerMs: number, pages: Record<string, number> }
/** `tooMany`: the host answers its next page request 429 with this Retry-After (seconds). */
export type SitesMessage = 'hits' | 'close' | { tooMany: { host: string, seconds: number } }

const { answerMs, pages } = workerData as SitesConfig
const hits: Hit[] = []
const inFlight = new Map<string, number>()
const tooMany = new Map<string, number>()
const now = () => performance.timeOrigin + performance.now()

const server = createServer((req, res) => {
  const host = (req.headers.host ?? '').split(':')[0]
  const path = (req.url ?? '/').split('?')[0]
  const n = (inFlight.get(host) ?? 0) + 1
  inFlight.set(host, n)
  const hit: Hit = { host, path, start: now(), end: 0, status: 0, inFlight: n }
  hits.push(hit)
  setTimeout(() => {
    inFlight.set(host, inFlight.get(host)! - 1)
    hit.end = now()
    const retryAfter = tooMany.get(host)
    if (retryAfter !== undefined && path.startsWith('/p/')) {
      tooMany.delete(host)
      hit.status = 429
      res.writeHead(429, { 'retry-after': String(retryAfter), 'content-type': 'text/html' })
      res.end('<h1>Slow down</h1>')
      return
    }
    const answer = fleetAnswer(host, path, pages[host] ?? 0)
    hit.status = answer.status
    res.writeHead(answer.status, { 'content-type': answer.type })
    res.end(answer.body)
  }, answerMs)
})
server.listen(0, '127.0.0.1', () => {
  parentPort!.postMessage({ port: (server.address() as AddressInfo).port })
})
parentPort!.on('message', (msg: SitesMessage) => {
  if (msg === 'hits') parentPort!.postMessage({ hits })
  else if (msg === 'close') server.close(() => { parentPort!.close() })
  else tooMany.set(msg.tooMany.host, msg.tooMany.seconds)
})
