import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type Route =
  | string
  | { status?: number, headers?: Record<string, string>, body?: string | Buffer }
  | ((req: IncomingMessage, res: ServerResponse) => void)

/**
 * A real web site on 127.0.0.1 whose pages tests can change between crawls. Pages are
 * served with an ETag so conditional requests work as on a real site.
 */
export class TestSite {
  readonly routes = new Map<string, Route>()
  readonly hits: string[] = []
  /** Answers paths that have no route of their own. */
  fallback: ((path: string) => Route | undefined) | undefined
  private server = createServer((req, res) => this.handle(req, res))
  origin = ''

  async start (): Promise<this> {
    await new Promise<void>(resolve => this.server.listen(0, '127.0.0.1', resolve))
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  set (path: string, route: Route): this {
    this.routes.set(path, route)
    return this
  }

  page (path: string, html: string): this {
    return this.set(path, { body: html, headers: { 'content-type': 'text/html; charset=utf-8' } })
  }

  /** Answers `path` with 204 and keeps each JSON body posted to it in `into` (a webhook receiver). */
  receive (path: string, into: unknown[]): this {
    return this.set(path, (req, res) => {
      let body = ''
      req.on('data', d => { body += d })
      req.on('end', () => {
        into.push(JSON.parse(body))
        res.writeHead(204)
        res.end()
      })
    })
  }

  hitsOf (path: string): number {
    return this.hits.filter(h => h === path).length
  }

  private handle (req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? '/').split('?')[0]
    this.hits.push(path)
    const route = this.routes.get(path) ?? this.fallback?.(path)
    if (route === undefined) {
      res.writeHead(404, { 'content-type': 'text/html' })
      res.end('<h1>Not found</h1>')
      return
    }
    if (typeof route === 'function') {
      route(req, res)
      return
    }
    const r =
      typeof route === 'string' ? { body: route, headers: { 'content-type': 'text/html; charset=utf-8' } } : route
    const body = r.body ?? ''
    const etag = `"${Buffer.from(body).length}-${hash(body)}"`
    if ((r.status ?? 200) === 200 && req.headers['if-none-match'] === etag) {
      res.writeHead(304, { etag })
      res.end()
      return
    }
    res.writeHead(r.status ?? 200, { 'content-type': 'text/html; charset=utf-8', etag, ...r.headers })
    res.end(body)
  }

  async close (): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>(resolve => this.server.close(() => resolve()))
  }
}

function hash (s: string | Buffer): string {
  let h = 0
  const str = typeof s === 'string' ? s : s.toString('latin1')
  for (let i = 0; i < str.length; i++) h = (h * 31 + str.charCodeAt(i)) | 0
  return (h >>> 0).toString(16)
}
