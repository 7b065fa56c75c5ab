import { checkNoiseRules } from '../changes/noise-rules.js'
import { classifyPageType } from '../crawl/page-type.js'
import { belongsToDomain, normalizeUrl } from '../crawl/url.js'
import { AppError, notFound } from '../domain/errors.js'
import { assertCanCreate, pageCapReached, type Org } from '../domain/plans.js'
import type { PageCandidate, PageType } from '../domain/vocabulary.js'
import { crawlJobOf } from '../queue/queue.js'
import { isUniqueViolation } from '../store/db.js'
import { markActive } from '../store/domains.js'
import {
  addPages,
  deletePage,
  findPage,
  pageExists,
  pagesAdded,
  updatePage,
  type PageRow,
  type PageSettings
} from '../store/pages.js'
import type { ServiceContext } from './context.js'
import { requireDomain } from './domains.js'

/**
 * Adds what discovery found (most valuable first, within the plan's cap), queues each
 * new page's baseline crawl and marks the domain discovered, in one transaction.
 * Returns how many pages were added.
 */
export async function addDiscoveredPages (
  ctx: ServiceContext,
  org: Org,
  domainId: string,
  candidates: PageCandidate[]
): Promise<number> {
  return await ctx.queue.transaction(ctx.db, async tx => {
    const rows = await addPages(tx, org, domainId, candidates)
    await ctx.queue.enqueueCrawls(tx, rows.map(crawlJobOf))
    await markActive(tx, domainId, 'discovering')
    // A domain whose earlier discovery failed is active once one finds its pages.
    if (rows.length > 0) await markActive(tx, domainId, 'error')
    return rows.length
  })
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
  pageType: PageType | undefined
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
      await ctx.queue.enqueueCrawls(tx, [crawlJobOf(row)])
      return row
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

/** Sets a page's monitoring, type, priority or noise rules; rules that cannot work are a 400. */
export async function changePage (
  ctx: ServiceContext,
  orgId: string,
  domainId: string,
  pageId: string,
  settings: PageSettings
): Promise<PageRow> {
  await requirePage(ctx, orgId, domainId, pageId)
  if (settings.noiseRules) {
    const problems = checkNoiseRules(settings.noiseRules)
    if (problems.length > 0) {
      throw new AppError('VALIDATION_ERROR', problems[0].message, { field: problems[0].field, issues: problems })
    }
  }
  return await updatePage(ctx.db, pageId, settings)
}

/** Deletes a page with its snapshots and changes; its allowance is not given back. */
export async function removePage (
  ctx: ServiceContext,
  orgId: string,
  domainId: string,
  pageId: string
): Promise<PageRow> {
  const page = await requirePage(ctx, orgId, domainId, pageId)
  await deletePage(ctx.db, page.id)
  return page
}
