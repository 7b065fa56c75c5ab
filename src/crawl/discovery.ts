import { extractPage } from '../detection/extract.js'
import type { PageCandidate } from '../vocabulary/core.js'
import type { Crawler } from './crawler.js'
import { FetchError } from './errors.js'
import { classifyFetchedPage, classifyPageType } from './page-type.js'
import { readSitemap } from './sitemap.js'
import { belongsToDomain, normalizeUrl } from './url.js'

// Paths where the pages that matter usually live, probed when nothing links to them.
export const WELL_KNOWN_PATHS = [
  '/pricing',
  '/plans',
  '/features',
  '/product',
  '/terms',
  '/legal',
  '/privacy',
  '/security',
  '/trust',
  '/docs',
  '/api',
  '/developers',
  '/changelog',
  '/releases'
]

const NOT_A_PAGE =
  /\.(pdf|jpe?g|png|gif|webp|svg|ico|css|js|mjs|json|xml|gz|zip|tar|mp4|mp3|woff2?|ttf|eot|txt|csv|rss|atom)$/i
const MAX_SITEMAPS = 25
const MAX_CANDIDATES = 10_000

export interface DiscoveryLimits {
  maxFetches: number
  onProgress?: (percent: number) => Promise<void> | void
}

export interface DiscoveryResult {
  /** Distinct pages of the domain seen in sitemaps, links and probes. */
  pagesDiscovered: number
  /** Most valuable first: typed pages by confidence, then the home page, then the rest. */
  candidates: PageCandidate[]
  homepage: string
  /** Why the home page could not be read (it is then not a candidate). */
  homeError?: FetchError
  /** What was tried beside the home page: sitemaps read, well-known paths probed. */
  tried: { sitemaps: number, paths: number }
  /**
   * Every page the sitemaps list (normalised), when they were read whole and list any;
   * undefined otherwise (then nobody can tell that a page left them).
   */
  inSitemaps?: string[]
  /** The pages the sitemaps give a <lastmod>, with it. */
  lastModified: Array<{ url: string, at: Date }>
}

/** The most addresses of the sitemaps kept to tell which pages left them. */
const MAX_SITEMAP_URLS = 50_000

interface Candidate {
  url: string
  /** Its sitemap's <lastmod>. */
  lastmod?: Date
  linkText?: string
  fetched?: boolean
  score: number
  pageType: PageCandidate['pageType']
  confidence: number
}

/** Finds the pages of `hostname` worth watching: robots.txt, sitemaps, the home page's links, well-known paths. */
export async function discoverPages (
  crawler: Crawler,
  hostname: string,
  limits: DiscoveryLimits
): Promise<DiscoveryResult> {
  const seen = new Set<string>()
  const candidates = new Map<string, Candidate>()
  // Untyped, unread candidates in arrival order: the first to give way on a huge site.
  const evictable: string[] = []
  let fetches = 0
  const progress = async (p: number) => {
    await limits.onProgress?.(p)
  }

  const consider = (raw: string, linkText?: string): Candidate | undefined => {
    const url = normalizeUrl(raw)
    if (!url) return undefined
    const u = new URL(url)
    if (!belongsToDomain(u.hostname, hostname) || NOT_A_PAGE.test(u.pathname)) return undefined
    const doc = documentKey(url)
    seen.add(doc)
    const known = candidates.get(doc)
    if (known) {
      // One page per document: the same path over http and https is one page, https if either says so.
      if (u.protocol === 'https:' && known.url.startsWith('http:')) known.url = url
      if (linkText && !known.linkText) Object.assign(known, typed(url, linkText), { linkText })
      return known
    }
    const c: Candidate = { url, linkText, ...typed(url, linkText) }
    if (candidates.size >= MAX_CANDIDATES) {
      // Keep memory flat on huge sites: only a typed URL may displace an untyped one.
      if (c.pageType === 'other') return undefined
      let weakest: Candidate | undefined
      while (evictable.length > 0 && !weakest) {
        const x = candidates.get(evictable.shift()!)
        if (x && x.pageType === 'other' && !x.fetched) weakest = x
      }
      if (!weakest) return undefined
      candidates.delete(documentKey(weakest.url))
    }
    candidates.set(doc, c)
    if (c.pageType === 'other') evictable.push(doc)
    return c
  }

  // 1. The home page: it decides the scheme (https, else http) and gives the first links.
  let origin = `https://${hostname}`
  let homeError: FetchError | undefined
  const failed = (err: FetchError) => {
    homeError ??= err
  }
  let home = await fetchHtml(crawler, `${origin}/`, failed)
  fetches++
  if (!home) {
    origin = `http://${hostname}`
    home = await fetchHtml(crawler, `${origin}/`, failed)
    fetches++
  }
  const homepage = normalizeUrl(`${origin}/`)!
  if (home) {
    homeError = undefined
    // A home page that cannot be read is neither added nor counted.
    const homeCandidate = consider(homepage)!
    const page = extractPage(home.html, { links: true })
    Object.assign(homeCandidate, { fetched: true, pageType: 'other', confidence: 0.9 })
    for (const link of page.links) {
      const url = normalizeUrl(link.url, home.url)
      if (url) consider(url, link.text)
    }
  }
  await progress(20)

  // 2. robots.txt's Sitemap lines, and /sitemap.xml, streamed, indexes followed. A
  // sitemap robots.txt names may be read whatever it disallows; any other only where it allows.
  let robotsSitemaps: string[] = []
  try {
    robotsSitemaps = (await crawler.robots.get(homepage)).getSitemaps()
  } catch {
    /* no robots.txt */
  }
  const named = new Set(robotsSitemaps)
  const listed = new Set<string>()
  const modified = new Map<string, Date>()
  const indexed = new Set<string>()
  let whole = true
  const queue = [...new Set([...robotsSitemaps, `${origin}/sitemap.xml`])]
  const visited = new Set<string>()
  while (queue.length > 0 && visited.size < MAX_SITEMAPS) {
    const sitemap = queue.shift()!
    if (visited.has(sitemap)) continue
    visited.add(sitemap)
    if (!named.has(sitemap) && !(await crawler.robots.isAllowed(sitemap).catch(() => false))) continue
    let sitemapUrl: URL
    try {
      sitemapUrl = new URL(sitemap)
    } catch {
      continue
    }
    if (!belongsToDomain(sitemapUrl.hostname, hostname)) continue
    fetches++
    const read = await crawler.polite(sitemap, 'wait', async () => await
    readSitemap(
      crawler.fetcher,
      sitemap,
      (loc, lastmod) => {
        const c = consider(loc)
        if (c && lastmod) c.lastmod = lastmod
        const url = normalizeUrl(loc)
        if (url && listed.size < MAX_SITEMAP_URLS) {
          listed.add(url)
          if (lastmod) modified.set(url, lastmod)
        } else whole = false
      },
      loc => {
        queue.push(loc)
        indexed.add(loc)
      }
    )
    )
    // A sitemap that robots.txt or an index names and that cannot be read leaves the list unknown.
    if (!read && (named.has(sitemap) || indexed.has(sitemap))) whole = false
  }
  if (queue.length > 0) whole = false
  await progress(45)

  // 3. Well-known paths nobody linked to.
  let probed = 0
  for (const path of WELL_KNOWN_PATHS) {
    if (fetches >= limits.maxFetches) break
    const url = normalizeUrl(`${origin}${path}`)!
    if (candidates.has(documentKey(url))) continue
    fetches++
    probed++
    const page = await fetchHtml(crawler, url)
    if (!page) continue
    const finalUrl = normalizeUrl(page.url)
    if (!finalUrl) continue
    const c = consider(finalUrl)
    if (c) refine(c, page.html, page.contentLanguage)
  }
  await progress(70)

  // 4. Read the most promising pages themselves to type them from title, headings and text.
  const toRead = [...candidates.values()].filter(c => !c.fetched && c.url !== homepage).sort(byValue)
  for (const c of toRead) {
    if (fetches >= limits.maxFetches) break
    fetches++
    const page = await fetchHtml(crawler, c.url)
    if (page) {
      refine(c, page.html, page.contentLanguage)
      // A server that answers /a with a redirect to /a/ (or the reverse) says they are one page: its own spelling.
      const final = normalizeUrl(page.url)
      if (final && final !== c.url && final.replace(/\/$/, '') === c.url.replace(/\/$/, '')) {
        candidates.delete(documentKey(c.url))
        c.url = final
        if (!candidates.has(documentKey(final))) candidates.set(documentKey(final), c)
      }
    } else {
      candidates.delete(documentKey(c.url))
    }
  }
  await progress(90)

  // Pages robots.txt forbids are never added, read or not.
  for (const c of [...candidates.values()]) {
    if (!(await crawler.robots.isAllowed(c.url).catch(() => false))) candidates.delete(documentKey(c.url))
  }
  const ranked = [...candidates.values()].sort((a, b) => {
    if (a.url === homepage) return b.pageType === 'other' ? -1 : 1
    if (b.url === homepage) return a.pageType === 'other' ? 1 : -1
    return byValue(a, b)
  })
  return {
    pagesDiscovered: seen.size,
    homepage,
    homeError,
    tried: { sitemaps: visited.size, paths: probed },
    ...(whole && listed.size > 0 ? { inSitemaps: [...listed] } : {}),
    lastModified: [...modified].map(([url, at]) => ({ url, at })),
    candidates: ranked.map(c => ({
      url: c.url,
      pageType: c.pageType,
      confidence: c.confidence,
      ...(c.lastmod ? { lastmod: c.lastmod } : {})
    }))
  }
}

/** A normalised URL without its scheme: http and https of the same path are one document. */
const documentKey = (url: string) => url.replace(/^https?:/, '')

function typed (url: string, linkText?: string) {
  const { pageType, confidence } = classifyPageType({ url, linkText })
  return { pageType, confidence, score: pageType === 'other' ? 0 : confidence }
}

function refine (c: Candidate, html: string, contentLanguage: string | null): void {
  const { pageType, confidence } = classifyFetchedPage({ url: c.url, linkText: c.linkText, html, contentLanguage })
  Object.assign(c, { pageType, confidence, fetched: true, score: pageType === 'other' ? 0 : confidence })
}

/** Typed before untyped, then surer first, then shallower URLs first. */
function byValue (a: Candidate, b: Candidate): number {
  if ((a.pageType === 'other') !== (b.pageType === 'other')) return a.pageType === 'other' ? 1 : -1
  if (b.score !== a.score) return b.score - a.score
  return a.url.split('/').length - b.url.split('/').length || a.url.length - b.url.length || (a.url < b.url ? -1 : 1)
}

async function fetchHtml (crawler: Crawler, url: string, failed?: (err: FetchError) => void) {
  try {
    return await crawler.fetchPage(url)
  } catch (err) {
    if (err instanceof FetchError && err.code === 'BLOCKED_ADDRESS') throw err
    failed?.(err instanceof FetchError ? err : new FetchError('NETWORK', (err as Error)?.message ?? String(err)))
    return undefined
  }
}
