// The fleet bench's watched sites, in a thread of their own so that the bench's own work
// (its API calls, their answers) cannot delay the moment a request is seen: many hosts
// on one port, each with robots.txt, a sitemap of its pages, the pages, and 404 elsewhere.
// Each request's start (epoch ms) and the host's requests then in flight are recorded.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { parentPort, workerData } from 'node:worker_threads'

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
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end(`User-agent: *\nAllow: /\nSitemap: https://${host}/sitemap.xml\n`)
    } else if (path === '/sitemap.xml') {
      res.writeHead(200, { 'content-type': 'application/xml' })
      res.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${
        Array.from({ length: pages[host] ?? 0 }, (_, i) => `<url><loc>https://${host}/p/${i}</loc></url>`).join('')}</urlset>`)
    } else if (path !== '/' && !/^\/p\/\d+$/.test(path)) {
      // Discovery's probes of well-known paths find nothing here, as on most sites.
      res.writeHead(404, { 'content-type': 'text/plain' })
      res.end('not found')
    } else {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end(`<html><head><title>${host}${path}</title></head><body><main><h1>${host} ${path}</h1>` +
        `<p>Page ${path} of ${host}, with enough words to be read as a page of its own.</p></main></body></html>`)
    }
  }, answerMs)
})
server.listen(0, '127.0.0.1', () => {
  parentPort!.postMessage({ port: (server.address() as AddressInfo).port })
})
parentPort!.on('message', (msg: 'hits' | 'close') => {
  if (msg === 'hits') parentPort!.postMessage({ hits })
  else server.close(() => { parentPort!.close() })
})
