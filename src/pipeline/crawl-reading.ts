import { classifyPageType } from '../crawl/page-type.js'
import { readerOf, type VisualDiff } from '../detection/detect.js'
import type { FetchedPage } from '../crawl/crawler.js'
import type { Db } from '../store/db.js'
import { recordReadingNote, typeFromContent, type CrawlTarget } from '../store/page-checks.js'
import { snapshotText, snapshotTextAndPage } from '../store/page-versions.js'
import type { DetectedChange, Fact, PageType } from '../vocabulary/core.js'
import { judge } from '../vocabulary/facts.js'
import { headingText, isHeading } from '../vocabulary/lines.js'
import type { Comparison, PageAnalysis, PageReading } from './analysis.js'
import type { PipelineEvents } from './events.js'
import type { PageDocument } from './fetch-page.js'

// What a check makes of a page around the comparison of its text: the comparison with its
// previous version (through its reader when it has one), what the reader could not do,
// the type its words give a page added without one, and a change seen only in its pictures.

/** What the comparison needs of a check (pipeline/crawl-job.ts Crawl). */
export interface Checking {
  deps: { db: Db, analysis: PageAnalysis, events: PipelineEvents }
  page: CrawlTarget
  /** The page's type when its structured reader reads it. */
  structured: PageType | undefined
}

/** A page typed from its address alone (added by hand without a type) is typed from what it says; its new type. */
export async function typeFromRead (
  db: Db, page: CrawlTarget, title: string, read: NonNullable<PageReading['snapshot']>
): Promise<PageType> {
  const lines = read.text.split('\n')
  const typed = classifyPageType({
    url: page.url,
    title,
    headings: lines.filter(isHeading).map(headingText),
    text: read.text,
    language: read.language
  })
  await typeFromContent(db, page.id, typed.pageType, typed.confidence)
  return typed.pageType
}

/** A change seen only in the screenshots (the text is the same). */
export function visualChange (visual: VisualDiff, pageType: PageType): DetectedChange {
  const n = visual.regions.length
  const fact: Fact = { kind: 'visual_change', percent: visual.changedPercent }
  return {
    ...judge(fact, pageType),
    confidence: 0.6,
    summary: `The page looks different: ${visual.changedPercent}% of it changed, in ${n} region${n === 1 ? '' : 's'}`,
    diffData: {
      before: '', after: '', stats: { additions: 0, deletions: 0, changes: 0 }, hunks: [], visual, facts: [fact]
    }
  }
}

export async function compareWithPrevious (
  { deps, page, structured }: Checking, previousId: string, pageType: PageType,
  { text, language, priceLines }: NonNullable<PageReading['snapshot']>,
  fetched: Pick<FetchedPage, 'raw' | 'contentType'>, document: PageDocument | undefined
): Promise<Comparison> {
  // Only what the comparison reads crosses to its thread (not the gzipped page).
  const current = { text, language, priceLines }
  if (!structured) {
    return await deps.analysis.compare(await snapshotText(deps.db, previousId), current, pageType, page.noise_rules)
  }
  const before = await snapshotTextAndPage(deps.db, previousId)
  const after = { raw: fetched.raw, contentType: fetched.contentType }
  const documents = before.document && before.page && document
    ? { before: { ...before.page, document: before.document }, after: { ...after, document } }
    : undefined
  const pages = documents ?? (before.page && { before: before.page, after })
  return await deps.analysis.compare(before.text, current, pageType, page.noise_rules, pages)
}

/**
 * What the page's reader could not do is the page's note: read its new version as its
 * structure, or compare the two (a fault of ours, with its message). Told to the log and
 * the metrics; a version it reads again clears it.
 */
export async function readerSaid ({ deps, page, structured }: Checking, reading: PageReading, comparison: Comparison) {
  const failure = comparison.readerFailure
  if (failure) {
    deps.events.emit('reader.failed', { orgId: page.org_id, pageId: page.id, url: page.url, ...failure })
  }
  if (!structured && page.reading_note === null) return
  const reads = readerOf(structured)
  const note = failure?.error
    ? failure.note
    : reading.unreadable && reads
      ? `${reads.reads} could not be read: compared as text`
      : null
  if (note !== page.reading_note) await recordReadingNote(deps.db, page.id, note)
}
