import type { NoiseRules, PageType } from '../domain/vocabulary.js'
import { classifyChanges, type DetectedChange } from './classify.js'
import { buildDiff } from './diff.js'
import { extractPage } from './extract.js'
import { pageLanguage } from './language.js'
import { isBoilerplateLink, type Language } from './lexicon.js'
import { plain } from './quote.js'
import { comparableLines, contentHash } from './noise.js'
import { applySelectors, hasSelectors, patternMasker } from './noise-rules.js'

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

export function readPage (html: string, rules?: NoiseRules, contentLanguage?: string | null): PageRead {
  const page = extractPage(hasSelectors(rules) ? applySelectors(html, rules!) : html)
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
    hash: contentHash(comparable(lines, rules))
  }
}

function comparable (lines: readonly string[], rules?: NoiseRules): string[] {
  const own = patternMasker(rules)
  const masked = comparableLines(lines)
  return own ? masked.map(own) : masked
}

/** The changes between the text of the last snapshot and a new page read. Pure: no I/O. */
export function compareContent (
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
