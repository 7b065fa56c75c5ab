import type { PageType } from '../store/schema.js'
import { classifyChanges, type DetectedChange } from './classify.js'
import { buildDiff } from './diff.js'
import { extractPage } from './extract.js'
import { comparableLines, contentHash } from './noise.js'

export interface PageContent {
  title: string
  /** The extracted text as stored in a snapshot: one block per line. */
  text: string
  /** Hash of the noise-masked text: equal hashes mean nothing worth reporting moved. */
  hash: string
}

export function readPage (html: string): PageContent & { lines: string[] } {
  const page = extractPage(html)
  return { title: page.title, lines: page.lines, text: page.lines.join('\n'), hash: contentHash(comparableLines(page.lines)) }
}

/** The changes between the text of the last snapshot and a new page read. Pure: no I/O. */
export function compareContent (previousText: string, current: { lines: string[] }, pageType: PageType): DetectedChange[] {
  const beforeLines = previousText === '' ? [] : previousText.split('\n')
  const diff = buildDiff(
    { lines: beforeLines, comparable: comparableLines(beforeLines) },
    { lines: current.lines, comparable: comparableLines(current.lines) }
  )
  if (diff.hunks.length === 0) return []
  return classifyChanges(diff, pageType, current.lines)
}
