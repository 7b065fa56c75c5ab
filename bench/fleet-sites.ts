// The fleet bench's watched sites, in a thread of their own so that the bench's own work
// (its API calls, their answers) cannot delay the moment a request is seen: many hosts
// on one port, each with robots.txt, a sitemap of its pages, the pages, and 404 elsewhere.
// Each request's start (epoch ms) and the host's requests then in flight are recorded.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { parentPort, workerData } from 'node:worker_threads'
import { fleetAnswer } from './fleet-answers.js'

export interface Hit { host: string, start: number, inFlight: number }
export interface SitesConfig { answerMs: number, pages: Record<string, number> }

const { answerMs, pages } = workerData as SitesConfig
const hits: Hit[] = []
const inFlight = new Map<string, number>()
const now = () => performance.timeOrigin + performance.now()

const server = createServer((req, res) => {
  const host = (req.headers.host ?? '').split(':')[0]
  const path = (req.url ?? '/').split('?')[0]
  const n = (inFlight.get(host) ?? 0) + 1
  inFlight.set(host, n)
  hits.push({ host, start: now(), inFlight: n })
  setTimeout(() => {
    inFlight.set(host, inFlight.get(host)! - 1)
    const answer = fleetAnswer(host, path, pages[host] ?? 0)
    res.writeHead(answer.status, { 'content-type': answer.type })
    res.end(answer.body)
  }, answerMs)
})
server.listen(0, '127.0.0.1', () => {
  parentPort!.postMessage({ port: (server.address() as AddressInfo).port })
})
parentPort!.on('message', (msg: 'hits' | 'close') => {
  if (msg === 'hits') parentPort!.postMessage({ hits })
  else server.close(() => { parentPort!.close() })
})
