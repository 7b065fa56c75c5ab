import type { NoiseRules, PageType, PricingTable } from '../domain/vocabulary.js'
import { classifyChanges, type DetectedChange } from './classify.js'
import { buildDiff } from './diff.js'
import { extractPage } from './extract.js'
import { pageLanguage } from './language.js'
import { isBoilerplateLink, type Language } from './lexicon.js'
import { plain } from './quote.js'
import { comparableLines, contentHash } from './noise.js'
import { applySelectors, hasSelectors, patternMasker } from './noise-rules.js'
import { apiChange, compareSpecs, parseSpec, specLinks } from './api-spec.js'
import { feedLinks, readChangelog, readFeed, withChangelog } from './changelog.js'
import { readPricing } from './pricing.js'
import { withPricing } from './pricing-changes.js'

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
    hash: structured === 'pricing'
      ? contentHash([...comparable(lines, rules), JSON.stringify(sortedPlans(readPricing(shown).table))])
      : structured === 'changelog'
        ? contentHash([...comparable(lines, rules), JSON.stringify(readChangelog(shown).entries)])
        : contentHash(comparable(lines, rules))
  }
}

/** Plans in one order, so that a re-ordered page hashes as the same table. */
const sortedPlans = (t: PricingTable) => [...t.plans].sort((a, b) => a.name.localeCompare(b.name))

function comparable (lines: readonly string[], rules?: NoiseRules): string[] {
  const own = patternMasker(rules)
  const masked = comparableLines(lines)
  return own ? masked.map(own) : masked
}

/** Both versions of an intelligence page as fetched: its HTML and its document (API description, feed), if any. */
export interface PageVersions {
  before: string
  after: string
  beforeDocument?: string
  afterDocument?: string
}

/**
 * The changes between the text of the last snapshot and a new page read; with both
 * versions (`pages`, an intelligence page's), its type's structured reader has its say:
 * a pricing page's plans, a changelog's entries (from its feed when both versions have
 * one), an API page's description. Pure: no I/O.
 */
export function compareContent (
  previousText: string,
  current: { lines: string[], language?: Language, priceLines?: readonly number[] },
  pageType: PageType,
  rules?: NoiseRules,
  pages?: PageVersions
): DetectedChange[] {
  const changes = compareText(previousText, current, pageType, rules)
  if (!pages) return changes
  const html = (h: string) => hasSelectors(rules) ? applySelectors(h, rules!) : h
  if (pageType === 'pricing') {
    return withPricing(changes, readPricing(html(pages.before)), readPricing(html(pages.after)))
  }
  if (pageType === 'changelog') {
    const [before, after] = [readChangelog(html(pages.before)), readChangelog(html(pages.after))]
    if (pages.beforeDocument && pages.afterDocument) {
      const [b, a] = [readFeed(pages.beforeDocument), readFeed(pages.afterDocument)]
      return withChangelog(changes, { entries: b.entries, lines: new Set([...before.lines, ...b.lines]) },
        { entries: a.entries, lines: new Set([...after.lines, ...a.lines]) })
    }
    return withChangelog(changes, before, after)
  }
  if (pageType === 'api_docs' && pages.beforeDocument && pages.afterDocument) {
    const api = apiChange(compareSpecs(parseSpec(pages.beforeDocument), parseSpec(pages.afterDocument)),
      { before: '', after: '', stats: { additions: 0, deletions: 0, changes: 0 }, hunks: [] })
    return api ? [api, ...changes] : changes
  }
  return changes
}

/** What a page links to that its type's structured reader reads with it: API descriptions, feeds. */
export function documentLinks (html: string, pageUrl: string, pageType: PageType): string[] {
  if (pageType === 'api_docs') return specLinks(html, pageUrl)
  if (pageType === 'changelog') return feedLinks(html, pageUrl)
  return []
}

/** Checks that a page's document is one its reader reads; throws an Error that says why not. */
export function checkDocument (text: string, pageType: PageType): void {
  if (pageType === 'api_docs') parseSpec(text)
  else if (pageType === 'changelog') readFeed(text)
}

function compareText (
  previousText: string,
  current: { lines: string[], language?: Language, priceLines?: readonly number[] },
  pageType: PageType,
  rules?: NoiseRules
): DetectedChange[] {
  // Snapshots read before boilerplate links were left out may still hold them.
  const beforeLines = previousText === '' ? [] : previousText.split('\n').filter(l => !isBoilerplate(l))
  const diff = buildDiff(
    { lines: beforeLines, comparable: comparable(beforeLines, rules) },
    { lines: current.lines, comparable: comparable(current.lines, rules) }
  )
  if (diff.hunks.length === 0) return []
  return classifyChanges(diff, pageType, current.lines, current.language, new Set(current.priceLines))
}

const isBoilerplate = (line: string) => !line.startsWith('#') && isBoilerplateLink(plain(line))
