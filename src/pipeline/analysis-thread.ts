import { gzipSync } from 'node:zlib'
import { compareContent, readPage } from '../changes/detect.js'
import { compareScreenshots, type VisualDiff } from '../changes/visual.js'
import { decodeHtml } from '../crawl/charset.js'
import type { Language } from '../changes/lexicon.js'
import type { NoiseRules, PageType } from '../domain/vocabulary.js'

// The tasks of PageAnalysis (analysis.ts), run on its worker threads.

export interface ReadTask {
  raw: Uint8Array
  contentType: string
  contentLanguage?: string | null
  rules?: NoiseRules | null
  previousHash?: string | null
}

export interface PageReading {
  title: string
  /** Hash of the noise-masked text. */
  hash: string
  /** The extracted text, the gzipped raw page and its language, for a new snapshot: only when the hash moved. */
  snapshot?: { text: string, rawGzip: Uint8Array, language?: Language, priceLines: number[] }
}

export function read ({ raw, contentType, contentLanguage, rules, previousHash }: ReadTask): PageReading {
  const body = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)
  const page = readPage(decodeHtml(body, contentType), rules ?? undefined, contentLanguage)
  if (page.hash === previousHash) return { title: page.title, hash: page.hash }
  return {
    title: page.title,
    hash: page.hash,
    snapshot: {
      text: page.text,
      rawGzip: gzipSync(body, { level: 1 }),
      language: page.language,
      priceLines: page.priceLines
    }
  }
}

export interface CompareTask {
  previousText: string
  current: CurrentText
  pageType: PageType
  rules?: NoiseRules | null
}

/** A page's new text, its language and the lines of its price markup. */
export interface CurrentText {
  text: string
  language?: Language
  priceLines?: readonly number[]
}

export function compare ({ previousText, current, pageType, rules }: CompareTask) {
  const { text, language, priceLines } = current
  return compareContent(
    previousText,
    { lines: text === '' ? [] : text.split('\n'), language, priceLines },
    pageType,
    rules ?? undefined
  )
}

export interface ScreenshotsTask {
  before: Uint8Array
  after: Uint8Array
}

export function screenshots ({ before, after }: ScreenshotsTask): VisualDiff {
  const asBuffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)
  return compareScreenshots(asBuffer(before), asBuffer(after))
}
