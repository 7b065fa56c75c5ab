import { createFetcher } from '../../src/crawl/fetch.js'
import { BrowserRenderer } from '../../src/crawl/render.js'
import type { TestSite } from './site.js'

/** A browser renderer, one render at a time, whose requests for `host` go to the test site. */
export function siteRenderer (site: TestSite, host: string): BrowserRenderer {
  const fetcher = createFetcher({
    hostMap: new Map([[host, new URL(site.origin)]]),
    allowPrivateNetworks: false,
    timeoutMs: 10_000,
    maxBytes: 5_000_000
  })
  return new BrowserRenderer({ fetcher, concurrency: 1, timeoutMs: 20_000, quietMs: 100, restartAfter: 100 })
}
