import { AppError, notFound, validation } from '../vocabulary/errors.js'
import { assertCanCreate, type Org } from '../vocabulary/plans.js'
import { MAX_TAG_LENGTH, MAX_TAGS, normalTags, type RenderMode } from '../vocabulary/core.js'
import { parseDomainInput, pastedHost, pastedPage } from '../crawl/url.js'
import { crawlJobOf } from '../queue/queues.js'
import { inTransaction, isUniqueViolation } from '../store/db.js'
import {
  deleteDomain, domainView, findDomain, findDomainByHost, findDomainDetails, insertDomain, updateDomain, type DomainRow
} from '../store/domains.js'
import { monitoredPages, type PagesRead } from '../store/pages.js'
import type { ServiceContext } from './context.js'
import { takeQuota } from './quota.js'
import { audited, changesNothing, recordAudit } from './audit.js'

/** The domain, if the organisation has it; 404 otherwise. */
export async function requireDomain (ctx: ServiceContext, orgId: string, id: string): Promise<DomainRow> {
  const domain = await findDomain(ctx.db, orgId, id)
  if (!domain) throw notFound('Domain')
  return domain
}

/** The domain with its pages and newest changes (findDomainDetails), if the organisation has it; 404 otherwise. */
export async function requireDomainDetails<PageView> (
  ctx: ServiceContext, orgId: string, id: string, pages: PagesRead<PageView>
) {
  const details = await findDomainDetails(ctx.db, orgId, id, pages)
  if (!details) throw notFound('Domain')
  return details
}

/**
 * Adds a domain: takes one unit of the domains quota and queues its discovery, in one
 * transaction. `hostname` must already be checked (see crawl/url.ts parseDomainInput).
 */
export async function createDomain (
  ctx: ServiceContext, org: Org, hostname: string, displayName?: string, tags: readonly string[] = [],
  /** Pages of the domain a person named (a pasted address): its discovery reads them first and watches them. */
  asked: readonly string[] = []
) {
  try {
    return await ctx.queue.transaction(ctx.db, async tx => {
      const domain = await insertDomain(tx, org.id, hostname, displayName?.trim() || null, checkedTags(tags))
      await takeQuota(tx, org, 'domains')
      const { id: discoveryJobId } = await ctx.queue.enqueueDiscovery(tx,
        { orgId: org.id, domainId: domain.id, ...(asked.length > 0 ? { asked: [...asked] } : {}) })
      await recordAudit(tx, {
        action: 'domain.created',
        objectId: domain.id,
        objectLabel: hostname,
        ...(asked.length ? { details: { asked } } : {})
      })
      return { ...domainView(domain), discoveryJobId }
    })
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AppError('CONFLICT', `Domain ${hostname} already exists for this organisation`)
    }
    throw err
  }
}

/**
 * Renames, pauses or resumes a domain. A domain paused because its trial expired
 * resumes only with a plan (402 TRIAL_EXPIRED).
 */
export async function changeDomain (
  ctx: ServiceContext,
  org: Org,
  id: string,
  change: { displayName?: string | null, paused?: boolean, render?: RenderMode, tags?: readonly string[] }
): Promise<void> {
  const domain = await requireDomain(ctx, org.id, id)
  const { displayName, paused, render, tags } = change
  if (paused === false && domain.status === 'paused') assertCanCreate(org)
  const settings = {
    displayName: displayName === undefined ? undefined : displayName?.trim() || null,
    pause: paused === true && domain.status !== 'paused',
    resume: paused === false && domain.status === 'paused',
    render,
    tags: tags === undefined ? undefined : checkedTags(tags)
  }
  const details = { displayName: settings.displayName, paused, render, tags: settings.tags }
  await audited(ctx.db, { action: 'domain.updated', objectId: domain.id, objectLabel: domain.hostname, details },
    async tx => { await updateDomain(tx, domain.id, settings) })
}

/** Tags as kept (normalTags), or a 400 saying which rule they break. */
function checkedTags (tags: readonly string[]): string[] {
  const kept = normalTags(tags)
  const bad = kept.find(t => t.length > MAX_TAG_LENGTH || t.includes(','))
  if (bad !== undefined) {
    throw validation('tags', `"${bad}" is not a tag: at most ${MAX_TAG_LENGTH} characters, and no commas`)
  }
  if (kept.length > MAX_TAGS) throw validation('tags', `a domain has at most ${MAX_TAGS} tags`)
  return kept
}

/** Deletes a domain with its pages, snapshots and changes; its hostname. Quota is not restored. */
export async function removeDomain (ctx: ServiceContext, orgId: string, id: string): Promise<string> {
  return await inTransaction(ctx.db, async tx => {
    const hostname = await deleteDomain(tx, orgId, id)
    if (hostname === undefined) throw notFound('Domain')
    await recordAudit(tx, { action: 'domain.deleted', objectId: id, objectLabel: hostname })
    return hostname
  })
}

/**
 * Queues a new discovery of the domain's pages, unless one is waiting or running: its
 * job's id either way, and whether it is new (one discovery per domain at a time).
 */
export async function rediscover (ctx: ServiceContext, org: Org, id: string) {
  const domain = await requireDomain(ctx, org.id, id)
  assertCanCreate(org)
  const { id: discoveryJobId, queued } = await ctx.queue.transaction(ctx.db, async tx => {
    const discovery = await ctx.queue.enqueueDiscovery(tx, { orgId: org.id, domainId: domain.id })
    await recordAudit(tx, {
      action: 'domain.discovery_requested',
      objectId: domain.id,
      objectLabel: domain.hostname,
      details: { jobId: discovery.id, queued: discovery.queued }
    })
    return discovery
  })
  const message = queued
    ? `Discovery queued for ${domain.hostname}`
    : `A discovery of ${domain.hostname} is already queued or running: its job is ${discoveryJobId}`
  return { domain, discoveryJobId, queued, message }
}

/**
 * Crawls every monitored page of the domain now: takes one manual recheck and queues a
 * crawl for each page that has none waiting or running. `jobIds` lists the new jobs,
 * `pending` counts the pages that already had one. The API takes the recheck on every call
 * (the contract's counter); the web app, `onlyIfQueued`, only when a crawl was queued.
 */
export async function crawlNow (ctx: ServiceContext, org: Org, id: string, opts: { onlyIfQueued?: boolean } = {}) {
  const domain = await requireDomain(ctx, org.id, id)
  const { jobIds, pending } = await ctx.queue.transaction(ctx.db, async tx => {
    const pages = await monitoredPages(tx, domain.id)
    const queued = await ctx.queue.enqueueCrawls(tx, pages.map(crawlJobOf))
    // Taken after the crawls are queued, in their transaction: a quota that ran out queues none.
    if (queued.size > 0 || !opts.onlyIfQueued) await takeQuota(tx, org, 'manualRechecks')
    await recordAudit(tx, {
      action: 'domain.crawl_requested',
      objectId: domain.id,
      objectLabel: domain.hostname,
      details: { queued: queued.size, pending: pages.length - queued.size }
    })
    return { jobIds: pages.flatMap(p => queued.get(p.id) ?? []), pending: pages.length - queued.size }
  })
  return { domain, jobIds, pending }
}

/** What became of one line of a list of domains (or pages) a person pasted. */
export interface AddedLine {
  input: string
  outcome: 'added' | 'duplicate' | 'invalid' | 'not on this domain' | 'over quota' | 'refused'
  message: string
  /** The domain (or page) added or already there. */
  id?: string
}

/** The most lines one paste adds: more is refused with a sentence, not half done. */
export const MAX_LINES_AT_ONCE = 100

/**
 * The lines of a pasted list: one per line (or separated by commas or semicolons, as a
 * spreadsheet's row is); blanks dropped. A line with spaces in it is one line, said invalid
 * on its own ("not a domain" is no three entries). A repeat is kept, to be said so on its
 * line (see earlierLine).
 */
export function pastedLines (text: string): string[] {
  return text.split(/[\r\n,;]+/).map(l => l.trim()).filter(Boolean)
}

/** A line that names what an earlier line of the same list named (`what`: the host or address). */
export const earlierLine = (input: string, what: string): AddedLine =>
  ({ input, outcome: 'duplicate', message: `${what} is on an earlier line of this list` })

/**
 * Adds each domain of a pasted list, each on its own: one that is there already, not a
 * domain, or past the quota is said so on its line. A page's address adds its host and
 * that page (its discovery reads it first); several of one host's pages add the host once,
 * with each of them.
 */
export async function addDomains (
  ctx: ServiceContext, org: Org, lines: readonly string[], mappedHosts: ReadonlySet<string>,
  /** Adds a page (its address) to a domain watched already (see addPagesByHand); its line leads to the domain. */
  addPage?: (domainId: string, url: string) => Promise<AddedLine>
): Promise<AddedLine[]> {
  if (lines.length > MAX_LINES_AT_ONCE) {
    const many = `Paste at most ${MAX_LINES_AT_ONCE} domains at once (${lines.length} given).`
    throw new AppError('VALIDATION_ERROR', many)
  }
  const read = lines.map(input =>
    ({ input, parsed: parseDomainInput(pastedHost(input), mappedHosts), page: pastedPage(input) }))
  const asked = new Map<string, string[]>()
  for (const { parsed, page } of read) {
    if ('error' in parsed || !page) continue
    const pages = asked.get(parsed.hostname) ?? []
    if (!pages.includes(page)) asked.set(parsed.hostname, [...pages, page])
  }
  const out: AddedLine[] = []
  const first = new Map<string, AddedLine>()
  // The domains watched already that a line named: a page's address adds that page to its domain.
  const existing = new Map<string, string>()
  const pagesSaid = new Set<string>()
  for (const { input, parsed, page } of read) {
    if ('error' in parsed) {
      out.push({ input, outcome: 'invalid', message: parsed.error })
      continue
    }
    const host = parsed.hostname
    const watched = existing.get(host)
    if (watched && page && addPage) {
      out.push({ ...await addPage(watched, page), input, id: watched })
      continue
    }
    const earlier = first.get(host)
    if (earlier) {
      // A page of a host named on an earlier line goes with that line's host: added with it, or refused as it was
      // (a domain already there, the quota). The same page again, or the host alone, is a duplicate.
      const newPage = page !== undefined && !pagesSaid.has(page)
      if (page) pagesSaid.add(page)
      if (!newPage) out.push(earlierLine(input, page ?? host))
      else if (earlier.outcome !== 'added') out.push({ input, outcome: earlier.outcome, message: earlier.message })
      else {
        out.push({
          input, outcome: 'added', message: `${page}: watched with ${host}, added on an earlier line`, id: earlier.id
        })
      }
      continue
    }
    if (page) pagesSaid.add(page)
    let line: AddedLine
    try {
      const pages = asked.get(host) ?? []
      const created = await createDomain(ctx, org, host, undefined, [], pages)
      const starting = page ? ', starting with the page of the address pasted' : ''
      line = { input, outcome: 'added', message: `${host}: discovering its pages${starting}`, id: created.id }
    } catch (err) {
      const there = err instanceof AppError && err.code === 'CONFLICT' && addPage
        ? await findDomainByHost(ctx.db, org.id, host)
        : undefined
      if (there) {
        existing.set(host, there.id)
        // The address of a page of a domain watched already: that page is added to it.
        if (page && addPage) {
          out.push({ ...await addPage(there.id, page), input, id: there.id })
          continue
        }
      }
      // A domain there already: the line leads to it.
      line = { ...lineRefused(input, err), ...(there ? { id: there.id } : {}) }
    }
    first.set(host, line)
    out.push(line)
  }
  if (!out.some(l => l.outcome === 'added')) changesNothing()
  return out
}

/** A line's refusal, in its words: a duplicate, the quota, or why else. */
export function lineRefused (input: string, err: unknown): AddedLine {
  if (!(err instanceof AppError)) throw err
  const outcome = err.code === 'CONFLICT'
    ? 'duplicate'
    : err.code === 'QUOTA_EXCEEDED' || err.code === 'TRIAL_EXPIRED'
      ? 'over quota'
      : err.code === 'VALIDATION_ERROR' ? 'invalid' : 'refused'
  return { input, outcome, message: err.message }
}
