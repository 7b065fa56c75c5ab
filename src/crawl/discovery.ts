import { extractPage } from '../detection/detect.js'
import type { PageCandidate } from '../vocabulary/core.js'
import type { Crawler } from './crawler.js'
import { FetchError } from './errors.js'
import { classifyFetchedPage, classifyPageType } from './page-type.js'
import { readSitemap, type SitemapStop } from './sitemap.js'
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
/**
 * The most distinct addresses one discovery reads (sitemaps and links): a site's pages that
 * matter are among its first hundred thousand, and reading eighteen million took the
 * process's memory (a hostile sitemap index).
 */
export const MAX_ADDRESSES = 100_000
/** What a discovery's sitemaps may inflate to, all together (each one: MAX_SITEMAP_INFLATED_BYTES). */
export const MAX_SITEMAPS_INFLATED_BYTES = 200 * 1024 * 1024

export interface DiscoveryLimits {
  maxFetches: number
  /**
   * When (epoch ms) the discovery stops reading and keeps what it has found: a site slow to
   * answer, or one with a long Crawl-delay, holds a discovery slot no longer.
   */
  deadline?: number
  /** Ends the discovery outright, keeping nothing: its attempt's lease ran out, or its domain was deleted. */
  signal?: AbortSignal
  onProgress?: (percent: number) => Promise<void> | void
  /** Pages a person named (see DiscoverJobData): read first, and ranked first when they answer. */
  asked?: readonly string[]
}

/** Why a discovery stopped short of reading everything it could: it kept what it had found by then. */
export type DiscoveryStop = 'addresses' | 'sitemap bytes' | 'sitemap depth' | 'sitemaps' | 'deadline'

/** What each stop says to a person, after "Discovery stopped early: ". */
export const DISCOVERY_STOPS: Record<DiscoveryStop, string> = {
  addresses: `the site lists more than ${MAX_ADDRESSES.toLocaleString('en')} addresses; the first were read`,
  'sitemap bytes': 'its sitemaps are larger than Sitewatch reads (50 MB each, 200 MB in all); the first part was read',
  'sitemap depth': 'a sitemap nests its elements deeper than a sitemap does; it was read to that point',
  sitemaps: `it has more than ${MAX_SITEMAPS} sitemaps; the first ${MAX_SITEMAPS} were read`,
  deadline: 'the site answered too slowly to be read whole in the time a discovery has'
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
  /** What cut the discovery short, if anything: what it found until then is all kept. */
  stopped: DiscoveryStop[]
}

/** The most addresses of the sitemaps kept to tell which pages left them. */
const MAX_SITEMAP_URLS = 50_000

interface Candidate {
  url: string
  /** Its sitemap's <lastmod>. */
  lastmod?: Date
  linkText?: string
  fetched?: boolean
  /** Named by a person: read and ranked before every other page. */
  asked?: boolean
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
  const stops = new Set<DiscoveryStop>()
  const { signal } = limits
  // Fetches end at the deadline as well as at the signal; a fetch the deadline cut is a page not read.
  const deadline = limits.deadline ?? Infinity
  const untilDeadline = Number.isFinite(deadline)
    ? AbortSignal.timeout(Math.max(0, Math.floor(deadline - Date.now())))
    : undefined
  const fetchSignal = signal && untilDeadline ? AbortSignal.any([signal, untilDeadline]) : (signal ?? untilDeadline)
  /** Throws if the discovery was ended; says whether its time is up (then it reads nothing more). */
  const timeIsUp = (): boolean => {
    signal?.throwIfAborted()
    if (Date.now() < deadline) return false
    stops.add('deadline')
    return true
  }
  const candidates = new Map<string, Candidate>()
  // Untyped, unread candidates in arrival order: the first to give way on a huge site.
  const evictable: string[] = []
  let fetches = 0
  const progress = async (p: number) => {
    await limits.onProgress?.(p)
  }

  const consider = (raw: string, linkText?: string): Candidate | undefined => {
    let url = normalizeUrl(raw)
    if (!url) return undefined
    let u = new URL(url)
    // A site that answers over HTTPS is watched over HTTPS, whatever its links and sitemaps write.
    if (u.protocol === 'http:' && secure.has(u.host)) {
      u.protocol = 'https:'
      url = normalizeUrl(u.href) ?? url
      u = new URL(url)
    }
    if (!belongsToDomain(u.hostname, hostname) || NOT_A_PAGE.test(u.pathname)) return undefined
    const doc = documentKey(url)
    if (!seen.has(doc)) {
      if (seen.size >= MAX_ADDRESSES) {
        stops.add('addresses')
        return undefined
      }
      seen.add(doc)
    }
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

  // The hosts whose home page was read over HTTPS (asked for so, or redirected there).
  const secure = new Set<string>()
  // 1. The home page: it decides the scheme (https, else http, else where http sends it) and gives the first links.
  let origin = `https://${hostname}`
  let homeError: FetchError | undefined
  const failed = (err: FetchError) => {
    homeError ??= err
  }
  let home = await fetchHtml(crawler, `${origin}/`, fetchSignal, failed)
  fetches++
  if (!home && !timeIsUp()) {
    origin = `http://${hostname}`
    home = await fetchHtml(crawler, `${origin}/`, fetchSignal, failed)
    fetches++
  }
  if (home) {
    // An http:// home that redirects to https:// (on the domain) makes the site's scheme https.
    const landed = new URL(home.url)
    if (landed.protocol === 'https:' && belongsToDomain(landed.hostname, hostname)) {
      secure.add(landed.host)
      if (landed.hostname === hostname) origin = `https://${landed.host}`
    }
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
  for (const url of limits.asked ?? []) {
    const c = consider(url)
    if (c) c.asked = true
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
  const budget = { inflatedLeft: MAX_SITEMAPS_INFLATED_BYTES, signal: fetchSignal }
  const sitemapStops: Record<SitemapStop, DiscoveryStop | undefined> = {
    'enough addresses': 'addresses',
    'inflated bytes': 'sitemap bytes',
    'nested too deep': 'sitemap depth',
    aborted: undefined
  }
  while (queue.length > 0 && visited.size < MAX_SITEMAPS && !stops.has('addresses') && !stops.has('sitemap bytes')) {
    if (timeIsUp()) break
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
    const read = await crawler.polite(sitemap, 'wait', async inTurn => await
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
        return !stops.has('addresses')
      },
      loc => {
        // An index's entries past what is read are not kept either.
        if (queue.length < MAX_SITEMAPS) queue.push(loc)
        else stops.add('sitemaps')
        indexed.add(loc)
      },
      budget,
      inTurn
    ), fetchSignal).catch(err => {
      // Its turn's wait was cut by the deadline: the loop's next check says so.
      if (fetchSignal?.aborted) return { ok: false, stopped: 'aborted' as const }
      throw err
    })
    signal?.throwIfAborted()
    const cut = read.stopped && sitemapStops[read.stopped]
    if (cut) stops.add(cut)
    // A sitemap that robots.txt or an index names and that cannot be read whole leaves the list unknown.
    if (!read.ok && (named.has(sitemap) || indexed.has(sitemap))) whole = false
  }
  if (queue.length > 0) {
    whole = false
    if (visited.size >= MAX_SITEMAPS) stops.add('sitemaps')
  }
  await progress(45)

  // 3. Well-known paths nobody linked to.
  let probed = 0
  for (const path of WELL_KNOWN_PATHS) {
    if (fetches >= limits.maxFetches || timeIsUp()) break
    const url = normalizeUrl(`${origin}${path}`)!
    if (candidates.has(documentKey(url))) continue
    fetches++
    probed++
    const page = await fetchHtml(crawler, url, fetchSignal)
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
    if (fetches >= limits.maxFetches || timeIsUp()) break
    fetches++
    const page = await fetchHtml(crawler, c.url, fetchSignal)
    signal?.throwIfAborted()
    if (page) {
      refine(c, page.html, page.contentLanguage)
      // A server that answers /a with a redirect to /a/ (or the reverse) says they are one page: its own spelling.
      const final = normalizeUrl(page.url)
      if (final && final !== c.url && final.replace(/\/$/, '') === c.url.replace(/\/$/, '')) {
        candidates.delete(documentKey(c.url))
        c.url = final
        if (!candidates.has(documentKey(final))) candidates.set(documentKey(final), c)
      }
    } else if (!untilDeadline?.aborted) {
      // A page the deadline cut was not read: it is kept as found, not dropped as broken.
      candidates.delete(documentKey(c.url))
    }
  }
  await progress(90)

  // Pages robots.txt forbids are never added, read or not.
  for (const c of [...candidates.values()]) {
    if (!(await crawler.robots.isAllowed(c.url).catch(() => false))) candidates.delete(documentKey(c.url))
  }
  signal?.throwIfAborted()
  const ranked = [...candidates.values()].sort((a, b) => {
    if (a.asked !== b.asked) return a.asked ? -1 : 1
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
    stopped: [...stops],
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

/** Asked for first, then typed before untyped, then surer first, then shallower URLs first. */
function byValue (a: Candidate, b: Candidate): number {
  if (a.asked !== b.asked) return a.asked ? -1 : 1
  if ((a.pageType === 'other') !== (b.pageType === 'other')) return a.pageType === 'other' ? 1 : -1
  if (b.score !== a.score) return b.score - a.score
  return a.url.split('/').length - b.url.split('/').length || a.url.length - b.url.length || (a.url < b.url ? -1 : 1)
}

async function fetchHtml (
  crawler: Crawler, url: string, signal: AbortSignal | undefined, failed?: (err: FetchError) => void
) {
  try {
    return await crawler.fetchPage(url, { signal })
  } catch (err) {
    if (err instanceof FetchError && err.code === 'BLOCKED_ADDRESS') throw err
    // Ended by the discovery's deadline or signal: not the page's failure.
    if (signal?.aborted) return undefined
    failed?.(err instanceof FetchError ? err : new FetchError('NETWORK', (err as Error)?.message ?? String(err)))
    return undefined
  }
}
