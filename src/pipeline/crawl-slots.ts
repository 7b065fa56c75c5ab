import { createHash } from 'node:crypto'

/**
 * When a page is next due. Each page owns a fixed slot in the period (from its id),
 * so a domain's pages spread over the day instead of all falling due in one minute;
 * the next crawl is the page's slot at least half a period after `after`.
 */
export function nextCrawlAt (pageId: string, after: Date, periodHours: number): Date {
  const period = periodHours * 3_600_000
  const slot = createHash('sha1').update(pageId).digest().readUInt32BE(0) % period
  const earliest = after.getTime() + period / 2
  const base = earliest - (earliest % period) + slot
  return new Date(base >= earliest ? base : base + period)
}
