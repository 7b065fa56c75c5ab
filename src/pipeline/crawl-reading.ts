import { classifyPageType } from '../crawl/page-type.js'
import type { VisualDiff } from '../detection/detect.js'
import type { Db } from '../store/db.js'
import { typeFromContent, type CrawlTarget } from '../store/page-checks.js'
import type { DetectedChange, Fact, PageType } from '../vocabulary/core.js'
import { judge } from '../vocabulary/facts.js'
import { headingText, isHeading } from '../vocabulary/lines.js'
import type { PageReading } from './analysis.js'

// What a check makes of a page beside the comparison of its text: the type its words
// give a page added without one, and a change seen only in its pictures.

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
