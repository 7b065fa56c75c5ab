import { type DetectedChange, LEGAL_PAGE_TYPES, type NoiseRules, type PageType } from '../vocabulary/core.js'
import { allMuted, factMuter } from '../vocabulary/facts.js'
import { isHeading } from '../vocabulary/lines.js'
import { classifyChanges, oneChange } from './classify/classify.js'
import { buildDiff } from './text/diff.js'
import { extractPage, withoutPermalink } from './text/extract.js'
import { pageLanguage } from './words/language.js'
import { isBoilerplateLink, type Language } from './words/lexicon.js'
import { plain } from './text/quote.js'
import { comparableLines, contentHash } from './text/noise.js'
import { passagesOf } from './text/passages.js'
import { applySelectors, hasSelectors, patternMasker } from './text/noise-rules.js'
import { type PageVersions, readerOf } from './readers/table.js'
import { withReading } from './readers/structure.js'

export type { PageVersions }

// What the rest of the service uses of reading and comparing, all through this file (the
// words, detection/words/, are shared as they are).
export { learnedPattern } from './classify/learn.js'
export { sayPrices } from './classify/prices.js'
export { findMoney } from './words/money.js'
export { operationCount, parseSpec } from './readers/api/spec.js'
export { readChangelog, readFeed } from './readers/changelog/read.js'
export { documentFormat, readDocument, type ReadDocumentOptions } from './readers/documents.js'
export { planKey, readPricing } from './readers/pricing/read.js'
export { lineKey, pairUp } from './text/hunks.js'
export { readerOf, type ReaderDocument } from './readers/table.js'
export { compareScreenshots, diffImage, pngSize, type VisualDiff } from './readers/visual.js'
export { buildDiff } from './text/diff.js'
export { boundedParser } from './text/dom.js'
export { type EditKind, trivialPhrase } from './text/edit-kinds.js'
export { extractPage } from './text/extract.js'
export { checkNoiseRules, type RulesProblem } from './text/noise-rules.js'
export { blocksOf, passagesOf } from './text/passages.js'
export { plain } from './text/quote.js'
export { boxesOf, type ChangedLines, MAX_BLOCKS, movesOf, outlineOf, type OutlineEntry } from './text/outline.js'
export { OUTLINE_TAGS } from './text/tags.js'

export interface PageContent {
  title: string
  /** The extracted text as stored in a snapshot: one block per line. */
  text: string
  /** Hash of the noise-masked text: equal hashes mean nothing worth reporting moved. */
  hash: string
}

export interface PageRead extends PageContent {
  lines: string[]
  /** The lines written inside a price's or plan's markup (see extractPage). */
  priceLines: number[]
  /** The language it is written in, of the lexicon's (see pageLanguage). */
  readonly language: Language | undefined
}

/**
 * A page's text, title and hash; `structured`: the page is an intelligence page of that
 * type, whose structure (a pricing page's plans, hidden toggle states included) counts in
 * its hash too.
 */
export function readPage (
  html: string, rules?: NoiseRules, contentLanguage?: string | null, structured?: PageType
): PageRead {
  const shown = hasSelectors(rules) ? applySelectors(html, rules!) : html
  const page = extractPage(shown)
  const { title, lines, priceLines } = page
  let language: Language | undefined | null = null
  // Most reads end in "nothing moved", so the text (one more page-sized string) and the
  // language are only worked out when asked for.
  return {
    title,
    lines,
    priceLines,
    get text () {
      return lines.join('\n')
    },
    get language () {
      if (language === null) language = pageLanguage({ declared: page.language, contentLanguage, lines })
      return language
    },
    hash: contentHash(structuredHash(comparable(lines, rules), shown, structured))
  }
}

/** The compared lines, and what the page type's structured reader adds to them (its hidden parts). */
function structuredHash (lines: string[], html: string, structured?: PageType): string[] {
  const part = structured ? readerOf(structured)?.hashPart?.(html) : undefined
  return part === undefined ? lines : [...lines, part]
}

function comparable (lines: readonly string[], rules?: NoiseRules): string[] {
  const own = patternMasker(rules)
  const masked = comparableLines(lines)
  return own ? masked.map(own) : masked
}

/**
 * The change between the text of the last snapshot and a new page read, one at most (all
 * that moved, led by what matters most: see oneChange); with both versions (`pages`, an
 * intelligence page's), its type's structured reader has its say (see readers/table.ts): it
 * takes over the text changes it explains. Its passages are read here, once, and recorded
 * with it (text/passages.ts). Pure: no I/O.
 */
export function compareContent (
  previousText: string,
  current: { lines: string[], language?: Language, priceLines?: readonly number[] },
  pageType: PageType,
  rules?: NoiseRules,
  pages?: PageVersions,
  /** Told when the type's reader could not read or compare the versions: the text was compared alone. */
  readerFailed?: (failure: ReaderFailure) => void
): DetectedChange[] {
  const beforeLines = linesOf(previousText)
  const diff = textDiff(beforeLines, current.lines, rules)
  const muted = factMuter(rules?.ignoreFacts)
  const classify = (d: typeof diff) => d.hunks.length === 0
    ? []
    : classifyChanges(d, pageType, { before: beforeLines, after: current.lines }, current.language,
      new Set(current.priceLines), muted)
  const reader = pages ? readerOf(pageType) : undefined
  // One change, its passages read; a reader's change whose every fact the page mutes is not told.
  const recorded = (changes: DetectedChange[]) => oneChange(changes.filter(c => !allMuted(c.diffData.facts, muted)))
    .map(c => c.diffData.hunks.length === 0
      ? c
      : {
          ...c,
          diffData: {
            ...c.diffData,
            passages: passagesOf(c.diffData.hunks, current.lines, current.language, LEGAL_PAGE_TYPES.includes(pageType))
          }
        })
  if (!reader || !pages) return recorded(classify(diff))
  const html = (h: string) => hasSelectors(rules) ? applySelectors(h, rules!) : h
  const [before, after] = [html(pages.before), html(pages.after)]
  // A reader never decides that nothing changed by failing: the text is compared alone, and it says so.
  let reading
  try {
    reading = reader.compare({ ...pages, before, after }, muted)
    if (!reading) {
      readerFailed?.({ reader: reader.name, error: false, note: `${reader.reads} could not be read: compared as text` })
    }
  } catch (err) {
    const message = (err as Error)?.message ?? String(err)
    const note = `${reader.reads} could not be compared (${message}): compared as text`
    readerFailed?.({ reader: reader.name, error: true, note })
  }
  const places = reading ? { before: placesOf(before, beforeLines), after: placesOf(after, current.lines) } : {}
  return recorded(withReading(diff, reading, classify, places))
}

/**
 * Where each line of a version's text stands in its HTML, for its reader to claim lines by
 * (see Spans): known when that HTML reads as that text, line for line; a text stored from
 * another reading (an older extraction, a rendered page read otherwise) leaves the reader
 * to claim its lines by their words.
 */
function placesOf (html: string, lines: readonly string[]): readonly number[] | undefined {
  const page = extractPage(html)
  if (page.lines.length !== lines.length) return undefined
  return page.lines.every((l, i) => l === lines[i]) ? page.sources : undefined
}

/** A structured reader that could not read (`error` false) or compare (true) two versions, in words. */
export interface ReaderFailure { reader: string, error: boolean, note: string }

/** Whether a version of an intelligence page reads as its type's structure (plans, entries, API description). */
export function readsAsStructure (html: string, pageType: PageType, rules?: NoiseRules, document?: string): boolean {
  const reader = readerOf(pageType)
  return !reader || reader.readable(hasSelectors(rules) ? applySelectors(html, rules!) : html, document)
}

/** What a page links to that its type's structured reader reads with it: API descriptions, feeds. */
export function documentLinks (html: string, pageUrl: string, pageType: PageType): string[] {
  return readerOf(pageType)?.document?.links(html, pageUrl) ?? []
}

/** Checks that a page's document is one its reader reads; throws an Error that says why not. */
export function checkDocument (text: string, pageType: PageType): void {
  readerOf(pageType)?.document?.check(text)
}

/** The last snapshot's lines, as extraction writes them now. */
function linesOf (previousText: string): string[] {
  // Snapshots read before boilerplate links and headings' permalink signs were left out may still hold them.
  return previousText === '' ? [] : previousText.split('\n').filter(l => !isBoilerplate(l)).map(earlier)
}

/** The line diff of the last snapshot's lines and the page's, compared as masked by noise and the page's rules. */
function textDiff (beforeLines: string[], lines: string[], rules?: NoiseRules) {
  return buildDiff(
    { lines: beforeLines, comparable: comparable(beforeLines, rules) },
    { lines, comparable: comparable(lines, rules) }
  )
}

const earlier = (line: string) => isHeading(line) ? withoutPermalink(line) : line
const isBoilerplate = (line: string) => !isHeading(line) && isBoilerplateLink(plain(line))

/** What a page's rules would compare: the lines read from one version, and each earlier change tried again. */
export interface RulesTried {
  lines: string[]
  /** Still a change reading the same lines, a change reading other lines, or none. */
  changes: { kept: number, changed: number, muted: number }
}

/**
 * A page's proposed rules tried before they are saved (selectors and patterns: facts left
 * out and learned rules aside): what the latest version reads with them, and what each of
 * its earlier changes (the two versions around it) would have been, beside the rules it
 * was found with.
 */
export function tryRules (
  latest: string,
  changes: ReadonlyArray<{ before: string, after: string }>,
  pageType: PageType,
  proposed: NoiseRules,
  current?: NoiseRules
): RulesTried {
  const counts = { kept: 0, changed: 0, muted: 0 }
  for (const { before, after } of changes) {
    const [b, a] = [readPage(before, proposed, undefined, pageType), readPage(after, proposed, undefined, pageType)]
    if (b.hash === a.hash) {
      counts.muted++
      continue
    }
    const moved = movedLines(b.lines, a.lines)
    const was = movedLines(readPage(before, current).lines, readPage(after, current).lines)
    if (moved === was) counts.kept++
    else counts.changed++
  }
  return { lines: readPage(latest, proposed, undefined, pageType).lines, changes: counts }
}

/** The lines one version has and the other has not (as many times), in one comparable string. */
function movedLines (before: readonly string[], after: readonly string[]): string {
  const count = new Map<string, number>()
  for (const l of before) count.set(l, (count.get(l) ?? 0) - 1)
  for (const l of after) count.set(l, (count.get(l) ?? 0) + 1)
  return [...count].filter(([, n]) => n !== 0).map(([l, n]) => `${n}\t${l}`).sort().join('\n')
}
