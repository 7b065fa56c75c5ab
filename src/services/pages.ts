import { classifyPageType } from '../crawl/page-type.js'
import { belongsToDomain, normalizeUrl } from '../crawl/url.js'
import { AppError, notFound } from '../vocabulary/errors.js'
import { assertCanCreate, pageCapReached, PLANS, type Org } from '../vocabulary/plans.js'
import { TYPES_THAT_MATTER, type NoiseRules, type PageCandidate, type PageType } from '../vocabulary/core.js'
import { crawlJobOf } from '../queue/queues.js'
import { isUniqueViolation, type Tx } from '../store/db.js'
import { discoveryEnded, domainAnswered, markDiscovered } from '../store/domains.js'
import { checkSoonerIfModified, recordDiscovered, syncSitemap } from '../store/page-events.js'
import {
  addPages,
  deletePage,
  findPage,
  pageExists,
  pagesAdded,
  reservedPages,
  unwatchedCandidates,
  updateOwnedPage,
  updatePage,
  type PageRow,
  type PageSettings
} from '../store/pages.js'
import type { RuleContext, ServiceContext } from './context.js'
import { type AddedLine, earlierLine, lineRefused, MAX_LINES_AT_ONCE, requireDomain } from './domains.js'
import { auditEventOf, audited, changesNothing, recordAudit } from './audit.js'

/** The most pages one discovery watches by itself: a domain's first, and each later one (see AutomaticWatch). */
export const WATCHED_BY_FIRST_DISCOVERY = 500
export const WATCHED_BY_LATER_DISCOVERY = 10

/**
 * Adds what discovery found (most valuable first, within what discovery may watch without a
 * person: see AutomaticWatch), queues each new page's baseline crawl and marks the domain
 * discovered, with `note` (what cut the discovery short, or null), in one transaction.
 * Pages of a type that matters left unwatched by those limits are told of for a person to
 * watch (page events, "Watch it" in the inbox).
 */
export async function addDiscoveredPages (
  ctx: ServiceContext,
  org: Org,
  domainId: string,
  candidates: PageCandidate[],
  sitemaps: { inSitemaps?: readonly string[], lastModified?: ReadonlyArray<{ url: string, at: Date }> } = {},
  note: string | null = null
): Promise<{ added: number, told: number, sooner: number }> {
  return await ctx.queue.transaction(ctx.db, async tx => {
    const { watched, fresh } = await unwatchedCandidates(tx, domainId, candidates)
    // A domain's first discovery watches the pages that matter most. A later one tells of
    // every page it found that is not watched, and watches a few of a type that matters:
    // others wait for a person.
    const again = watched > 0
    const wanted = again ? fresh.filter(c => TYPES_THAT_MATTER.includes(c.pageType)) : fresh
    const most = again ? WATCHED_BY_LATER_DISCOVERY : WATCHED_BY_FIRST_DISCOVERY
    const rows = await addPages(tx, org, domainId, wanted, new Date(), { most })
    await ctx.queue.enqueueCrawls(tx, rows.map(crawlJobOf))
    await markDiscovered(tx, domainId)
    await discoveryEnded(tx, domainId, note)
    // A domain whose earlier discovery failed is active once one finds its pages.
    if (rows.length > 0) await domainAnswered(tx, domainId)
    const byUrl = new Map(rows.map(r => [r.url, r.id]))
    // A first discovery tells only of the pages that matter it left for a person.
    const toTell = again ? fresh : fresh.filter(c => TYPES_THAT_MATTER.includes(c.pageType) && !byUrl.has(c.url))
    const left = toTell.some(c => !byUrl.has(c.url)) ? await leftForAPerson(tx, org, domainId, most) : null
    const told = await recordDiscovered(tx, org.id, domainId, toTell.map(c => ({
      url: c.url,
      pageType: c.pageType,
      pageId: byUrl.get(c.url) ?? null,
      lastmod: c.lastmod,
      ...(byUrl.has(c.url) || !TYPES_THAT_MATTER.includes(c.pageType) ? {} : { reason: left })
    })))
    // A watched page the sitemaps listed and list no more is told of as removed (sitemaps read whole only).
    const gone = sitemaps.inSitemaps ? await syncSitemap(tx, domainId, sitemaps.inSitemaps, again) : 0
    // A watched page whose sitemap <lastmod> is newer than its last check is checked at the next turn.
    const sooner = again ? await checkSoonerIfModified(tx, domainId, sitemaps.lastModified ?? [], new Date()) : 0
    return { added: rows.length, told: told.length + gone, sooner }
  })
}

/** Why pages of a type that matters were found and not watched: the allowance's reserve, or the discovery's share. */
async function leftForAPerson (tx: Tx, org: Org, domainId: string, most: number): Promise<string> {
  const cap = PLANS[org.plan].pagesPerDomain
  const used = await pagesAdded(tx, domainId)
  if (cap !== null && used + reservedPages(cap) >= cap) {
    return `not watched by itself: this domain has taken ${used} of its ${cap} pages, and discovery leaves the ` +
      'last ones for you to choose'
  }
  return `not watched by itself: a discovery watches at most ${most} new pages; watch it if it matters to you`
}

/**
 * Adds one page by hand and queues its first crawl. The URL is normalised and must be
 * on the domain or a subdomain; 409 when it is there already, 402 when the domain's
 * page allowance is used up. A type given is kept as a person's choice; without one, the
 * page is typed from its address now and from its content after its first crawl.
 */
export async function addPageByHand (
  ctx: ServiceContext,
  org: Org,
  domainId: string,
  rawUrl: string,
  pageType: PageType | undefined,
  name?: string
): Promise<PageRow> {
  const domain = await requireDomain(ctx, org.id, domainId)
  const url = normalizeUrl(rawUrl)
  if (!url) throw new AppError('VALIDATION_ERROR', 'url must be an absolute http or https URL', { field: 'url' })
  if (!belongsToDomain(new URL(url).hostname, domain.hostname)) {
    throw new AppError('VALIDATION_ERROR', `URL host must be ${domain.hostname} or one of its subdomains`, {
      field: 'url'
    })
  }
  assertCanCreate(org)
  const duplicate = () => new AppError('CONFLICT', `${url} is already monitored for ${domain.hostname}`)
  try {
    return await ctx.queue.transaction(ctx.db, async tx => {
      if (await pageExists(tx, domain.id, url)) throw duplicate()
      const typed = pageType
        ? { pageType, confidence: 1, typedBy: 'person' as const }
        : { ...classifyPageType({ url }), typedBy: 'address' as const }
      const [row] = await addPages(tx, org, domain.id, [{ url, ...typed }])
      if (!row) {
        // Nothing added: a concurrent request added it first, or the cap is reached.
        if (await pageExists(tx, domain.id, url)) throw duplicate()
        throw pageCapReached(org, await pagesAdded(tx, domain.id))
      }
      const named = name?.trim()
      if (named) await updatePage(tx, row.id, { name: named })
      await ctx.queue.enqueueCrawls(tx, [crawlJobOf(row)])
      await recordAudit(tx, {
        action: 'page.added',
        objectId: row.id,
        objectLabel: row.url,
        details: { pageType, ...(named ? { name: named } : {}) }
      })
      return named ? { ...row, name: named } : row
    })
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate()
    throw err
  }
}

/** The page, if it is one of the organisation's domain's; 404 otherwise. */
export async function requirePage (
  ctx: ServiceContext,
  orgId: string,
  domainId: string,
  pageId: string
): Promise<PageRow> {
  const page = await findPage(ctx.db, orgId, domainId, pageId)
  if (!page) throw notFound('Page')
  return page
}

/**
 * Sets a page's monitoring, type, priority or noise rules; rules that cannot work, or cost too
 * much, are a 400. The write and its audit event are one statement (store/pages.ts's
 * updateOwnedPage): a crawl that keeps the database busy makes it wait once, not five times.
 */
export async function changePage (
  ctx: RuleContext,
  orgId: string,
  domainId: string,
  pageId: string,
  settings: PageSettings
) {
  await checkNoiseRules(ctx, orgId, settings.noiseRules)
  if (typeof settings.name === 'string') settings = { ...settings, name: settings.name.trim() || null }
  const page = await updateOwnedPage(ctx.db, { orgId, domainId, pageId }, settings, auditEventOf({
    action: 'page.updated',
    objectId: pageId,
    details: { ...settings }
  }))
  if (!page) throw notFound('Page')
  return page
}

/**
 * Refuses (400) noise rules that cannot work or cost too much. It asks the analysis
 * threads, so it runs before the write's transaction, which must not wait on them.
 */
export async function checkNoiseRules (ctx: RuleContext, orgId: string, rules: NoiseRules | undefined): Promise<void> {
  if (!rules) return
  const problems = await ctx.ruleChecks(orgId, rules)
  if (problems.length > 0) {
    throw new AppError('VALIDATION_ERROR', problems[0].message, { field: problems[0].field, issues: problems })
  }
}

/** Deletes a page with its snapshots and changes; its allowance is not given back. */
export async function removePage (
  ctx: ServiceContext,
  orgId: string,
  domainId: string,
  pageId: string
): Promise<PageRow> {
  const page = await requirePage(ctx, orgId, domainId, pageId)
  await audited(ctx.db, { action: 'page.deleted', objectId: page.id, objectLabel: page.url }, async tx => {
    await deletePage(tx, page.id)
  })
  return page
}

/**
 * Checks one page now: queues its crawl. It takes no manual recheck: the contract counts a
 * recheck on a domain's crawl, and one page checked again is not a domain-wide recheck (its
 * cost is bounded by the heavy rate tier the route sits in). A page whose crawl is already
 * waiting or running queues nothing (`jobId` null); a page not monitored is a 409 (it would
 * be skipped).
 */
export async function crawlPageNow (ctx: ServiceContext, org: Org, domainId: string, pageId: string) {
  const page = await requirePage(ctx, org.id, domainId, pageId)
  if (!page.monitoring_enabled) {
    throw new AppError('CONFLICT', `Monitoring is off for ${page.url}: turn it on in the page's settings to check it`)
  }
  assertCanCreate(org)
  const jobId = await ctx.queue.transaction(ctx.db, async tx => {
    const queued = (await ctx.queue.enqueueCrawls(tx, [crawlJobOf(page)])).get(page.id)
    await recordAudit(tx, {
      action: 'page.crawl_requested', objectId: page.id, objectLabel: page.url, details: { queued: Boolean(queued) }
    })
    return queued ?? null
  })
  return { page, jobId }
}

/**
 * Adds each address of a pasted list to the domain, each on its own: one already
 * watched, not on the domain, or past the domain's page allowance is said so on its line.
 */
export async function addPagesByHand (
  ctx: ServiceContext, org: Org, domainId: string, lines: readonly string[]
): Promise<AddedLine[]> {
  if (lines.length > MAX_LINES_AT_ONCE) {
    const many = `Paste at most ${MAX_LINES_AT_ONCE} addresses at once (${lines.length} given).`
    throw new AppError('VALIDATION_ERROR', many)
  }
  const domain = await requireDomain(ctx, org.id, domainId)
  const out: AddedLine[] = []
  const named = new Set<string>()
  for (const input of lines) {
    // A path alone ("/pricing") is the domain's.
    const address = input.startsWith('/') ? `https://${domain.hostname}${input}` : input
    const url = normalizeUrl(address)
    if (url && !belongsToDomain(new URL(url).hostname, domain.hostname)) {
      const message = `${new URL(url).hostname} is not ${domain.hostname} nor one of its subdomains`
      out.push({ input, outcome: 'not on this domain', message })
      continue
    }
    if (url && named.has(url)) {
      out.push(earlierLine(input, url))
      continue
    }
    if (url) named.add(url)
    try {
      const row = await addPageByHand(ctx, org, domainId, address, undefined)
      out.push({ input, outcome: 'added', message: `${row.url}: its first check is queued`, id: row.id })
    } catch (err) {
      out.push(lineRefused(input, err))
    }
  }
  if (!out.some(l => l.outcome === 'added')) changesNothing()
  return out
}
