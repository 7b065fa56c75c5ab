import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

// A generated company site for the benchmark: N pages of 30–150 KB that read like real
// ones (masthead, nav, cookie banner, inline CSS and JS, prose, feature lists, price
// tables, footer), served with ETags. `version` moves every page's noise (nonces,
// timestamps, build ids); `mutate` changes a page's content for real.

const WORDS = (
  'team project workflow deploy secure scale platform data insight report integrate automate customer support ' +
  'billing invoice analytics dashboard release update feature enterprise compliance audit access role permission api webhook ' +
  'export import sync realtime collaborate comment review approve schedule notify alert monitor uptime latency region backup'
).split(' ')

function rng (seed: number) {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

function sentence (r: () => number, n = 8 + Math.floor(r() * 14)): string {
  const w = Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)])
  w[0] = w[0][0].toUpperCase() + w[0].slice(1)
  return `${w.join(' ')}.`
}

export function pageHtml (i: number, version: number, mutated: boolean): string {
  const r = rng(i * 7919 + 17)
  const target = 30_000 + Math.floor(r() * 120_000)
  const kind = ['pricing', 'features', 'docs', 'blog', 'changelog'][i % 5]
  const price = mutated ? 59 + (i % 7) : 49 + (i % 7)
  const parts: string[] = []
  parts.push(`<!doctype html><html><head><meta charset="utf-8"><title>${kind} ${i} — Benchco</title>`)
  parts.push(`<style>${'.c' + i + '{margin:0 auto;padding:1rem;display:flex}'.repeat(40)}</style>`)
  parts.push(
    `<script nonce="n${version}x${i}">window.__DATA__=${JSON.stringify({ build: `b${version}${i}`, ts: Date.now(), items: Array.from({ length: 60 }, (_, k) => ({ k, v: sentence(r, 6) })) })}</script>`
  )
  parts.push(
    `</head><body><header><a href="/">Benchco</a><nav>${Array.from({ length: 12 }, (_, k) => `<a href="/p/${(i + k) % 1000}">Page ${k}</a>`).join(' ')}</nav></header>`
  )
  parts.push(
    `<div class="cookie-banner">We use cookies (session ${version}-${i}).</div><main><h1>${kind[0].toUpperCase()}${kind.slice(1)} ${i}</h1>`
  )
  parts.push(
    `<p>Updated ${1 + ((version * 7 + i) % 50)} minutes ago · build ${createHash('sha1').update(`${version}:${i}`).digest('hex').slice(0, 12)}</p>`
  )
  parts.push(
    `<section class="plans"><h2>Pro plan</h2><p class="price">$${price}/month</p><ul><li>10 users</li><li>SSO</li><li>Priority support</li></ul></section>`
  )
  // The blocks are counted on their version-0 rendering, so noise never adds or drops one.
  const block = (section: number, v: number, words: string[]) =>
    section % 4 === 0
      ? `<h2>${words[0]}</h2>`
      : section % 4 === 1
        ? `<ul>${words
            .slice(0, 5)
            .map(w => `<li>${w}</li>`)
            .join('')}</ul>`
        : section % 4 === 2
          ? `<table><tr><th>Plan</th><th>Seats</th></tr>${Array.from({ length: 4 }, (_, k) => `<tr><td>Tier ${k}</td><td>${k * 10}</td></tr>`).join('')}</table>`
          : `<div class="prose" data-v="${v}"><p>${words.slice(0, 3).join(' ')}</p><p>${words.slice(3, 5).join(' ')}</p></div>` +
            `<script>track("${v}-${section}")</script><svg width="10"><path d="M0 0L${section} ${section}"/></svg>`
  let size = 8_000
  for (let section = 0; size < target; section++) {
    const words = [sentence(r, 3), sentence(r, 5), sentence(r, 5), sentence(r), sentence(r)]
    size += block(section, 0, words).length
    parts.push(block(section, version, words))
  }
  parts.push(
    `</main><footer><a href="/terms">Terms</a> <a href="/privacy">Privacy</a><p>© ${2024 + version} Benchco</p></footer></body></html>`
  )
  return parts.join('')
}

export class BenchSite {
  private server: Server
  /** Each page's noise version (nonces, timestamps, build ids); 0 when never moved. */
  readonly noise = new Map<number, number>()
  readonly mutated = new Set<number>()
  origin = ''
  private cache = new Map<number, { body: string, etag: string }>()

  constructor (readonly pages: number) {
    this.server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]
      if (path === '/robots.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' })
        res.end('User-agent: *\nAllow: /\nSitemap: https://bench.test/sitemap.xml\n')
        return
      }
      if (path === '/sitemap.xml') {
        res.writeHead(200, { 'content-type': 'application/xml' })
        res.end(
          `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${Array.from({ length: this.pages }, (_, k) => `<url><loc>https://bench.test/p/${k}</loc></url>`).join('')}</urlset>`
        )
        return
      }
      const m = /^\/p\/(\d+)$/.exec(path)
      const i = path === '/' ? 0 : m ? Number(m[1]) : -1
      if (i < 0 || i >= this.pages) {
        res.writeHead(404)
        res.end()
        return
      }
      const page = this.page(i)
      if (req.headers['if-none-match'] === page.etag) {
        res.writeHead(304, { etag: page.etag })
        res.end()
        return
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag: page.etag })
      res.end(page.body)
    })
  }

  async start (): Promise<this> {
    await new Promise<void>(resolve => this.server.listen(0, '127.0.0.1', resolve))
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  private page (i: number): { body: string, etag: string } {
    let page = this.cache.get(i)
    if (!page) {
      const body = pageHtml(i, this.noise.get(i) ?? 0, this.mutated.has(i))
      page = { body, etag: `"${createHash('md5').update(body).digest('hex')}"` }
      this.cache.set(i, page)
    }
    return page
  }

  /**
   * Moves the noise of these pages; `real` ones also change for real (a price). The new
   * pages are built here, before the crawl that reads them: a real site's CPU is not ours.
   */
  mutate (noiseOnly: Iterable<number>, real: Iterable<number>): void {
    const moved = new Set<number>()
    for (const i of noiseOnly) {
      this.noise.set(i, (this.noise.get(i) ?? 0) + 1)
      moved.add(i)
    }
    for (const i of real) {
      this.noise.set(i, (this.noise.get(i) ?? 0) + 1)
      this.mutated.add(i)
      moved.add(i)
    }
    for (const i of moved) {
      this.cache.delete(i)
      this.page(i)
    }
  }

  async close (): Promise<void> {
    this.server.closeAllConnections()
    await new Promise(resolve => this.server.close(resolve))
  }
}
