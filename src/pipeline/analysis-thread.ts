import { readlinkSync } from 'node:fs'
import { setPriority } from 'node:os'
import { isMainThread } from 'node:worker_threads'
import { constants, gunzipSync, gzipSync } from 'node:zlib'
import { createHash } from 'node:crypto'
import {
  checkDocument, compareContent, documentLinks, readPage, readsAsStructure, type ReaderFailure
} from '../detection/detect.js'
import { compareScreenshots, type VisualDiff } from '../detection/detect.js'
import { decodeHtml } from '../crawl/charset.js'
import type { Language } from '../detection/words/lexicon.js'
import { CRAWL_WORK_NICE, type DetectedChange, type NoiseRules, type PageType } from '../vocabulary/core.js'
import type { ResearchInputs, StoredBytes } from '../vocabulary/research.js'
import { buildBrief } from '../research/brief.js'
import { readDocument, type ReadDocumentOptions } from '../detection/detect.js'
import { checkNoiseRules, type RulesProblem } from '../detection/detect.js'
import {
  boxesOf, type ChangedLines, movesOf, outlineOf, tryRules, type OutlineEntry, type RulesTried
} from '../detection/detect.js'
import type { PictureBoxes } from '../vocabulary/outline.js'

export type { RulesProblem }

// The tasks of PageAnalysis (analysis.ts), run on its worker threads.

// These threads run at CRAWL_WORK_NICE: a read of the API waited behind them while a crawl filled the cores.
if (!isMainThread) {
  try {
    // Linux keeps a nice value per thread, and /proc/thread-self names this one.
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), CRAWL_WORK_NICE)
  } catch {
    // No per-thread priority here: the threads run as the process does.
  }
}

/** What every task carries: the flag it sets when a thread starts it (its deadline runs from then). */
interface Started { started?: Int32Array }
const begin = (task: Started) => { if (task.started) Atomics.store(task.started, 0, 1) }

export interface ReadTask {
  raw: Uint8Array
  contentType: string
  contentLanguage?: string | null
  rules?: NoiseRules | null
  previousHash?: string | null
  /** An intelligence page of a type with a structured reader: that type (see readPage). */
  structured?: PageType
  /** The document the page is read with (see LinksTask): in its hash, and checked when the hash moved. */
  document?: { raw: Uint8Array, contentType: string }
}

export interface PageReading {
  title: string
  /** Hash of the noise-masked text. */
  hash: string
  /** The extracted text, the gzipped raw page and its language, for a new snapshot: only when the hash moved. */
  snapshot?: { text: string, rawGzip: Uint8Array, language?: Language, priceLines: number[], documentGzip?: Uint8Array }
  /** Why the page's document cannot be read (it is not what its reader reads). */
  documentError?: string
  /** An intelligence page its type's reader cannot read as its structure (it is compared as text). */
  unreadable?: boolean
}

export function read (task: ReadTask & Started): PageReading {
  begin(task)
  const { raw, contentType, contentLanguage, rules, previousHash, structured, document } = task
  const body = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)
  const html = decodeHtml(body, contentType)
  const page = readPage(html, rules ?? undefined, contentLanguage, structured)
  const hash = document
    ? createHash('sha256').update(page.hash).update(document.raw).digest('hex')
    : page.hash
  if (hash === previousHash) return { title: page.title, hash }
  if (document && structured) {
    try {
      checkDocument(textOf(document), structured)
    } catch (err) {
      return { title: page.title, hash, documentError: (err as Error).message }
    }
  }
  const unreadable = structured !== undefined &&
    !readsAsStructure(html, structured, rules ?? undefined, document ? textOf(document) : undefined)
  return {
    title: page.title,
    hash,
    ...(unreadable ? { unreadable } : {}),
    snapshot: {
      text: page.text,
      rawGzip: gzipSync(body, { level: 1 }),
      language: page.language,
      priceLines: page.priceLines,
      ...(document ? { documentGzip: gzipSync(document.raw, { level: 1 }) } : {})
    }
  }
}

const textOf = (d: { raw: Uint8Array, contentType: string }) =>
  decodeHtml(Buffer.from(d.raw.buffer, d.raw.byteOffset, d.raw.byteLength), d.contentType)

export interface DocumentTask extends ReadDocumentOptions {
  raw: Uint8Array
  contentType: string
}

/** A document (PDF, JSON, text: see detection/readers/documents.ts) as the HTML the other tasks read, or why not. */
export async function document (task: DocumentTask & Started): Promise<{ html: string } | { error: string }> {
  begin(task)
  return await readDocument(task.contentType, task.raw, { includePaths: task.includePaths })
}

/** A page's noise rules checked: compiling and pricing a tenant's patterns is work for a thread. */
export function rules (task: { rules: NoiseRules } & Started): RulesProblem[] {
  begin(task)
  return checkNoiseRules(task.rules)
}

export interface LinksTask {
  raw: Uint8Array
  contentType: string
  url: string
  pageType: PageType
}

/** The documents a page names that its type's reader reads with it (see documentLinks). */
export function links (task: LinksTask & Started): string[] {
  begin(task)
  const { raw, contentType, url, pageType } = task
  return documentLinks(textOf({ raw, contentType }), url, pageType)
}

export interface CompareTask {
  previousText: string
  current: CurrentText
  pageType: PageType
  rules?: NoiseRules | null
  /** An intelligence page's two versions as fetched, for its type's structured reader. */
  pages?: { before: FetchedPage, after: FetchedPage }
}

/** A page's (or its document's) bytes as fetched (`gzip` when stored so) and their content type. */
export interface FetchedPage {
  raw?: Uint8Array
  gzip?: Uint8Array
  contentType: string
  document?: FetchedPage
}

function htmlOf (page: FetchedPage): string {
  const bytes = page.gzip ? gunzipSync(page.gzip) : page.raw!
  return decodeHtml(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), page.contentType)
}

/** A page's new text, its language and the lines of its price markup. */
export interface CurrentText {
  text: string
  language?: Language
  priceLines?: readonly number[]
}

/** A comparison's changes, and what its page type's reader could not do, if anything. */
export interface Comparison { changes: DetectedChange[], readerFailure?: ReaderFailure }

export function compare (task: CompareTask & Started): Comparison {
  begin(task)
  const { previousText, current, pageType, rules, pages } = task
  const { text, language, priceLines } = current
  let readerFailure: ReaderFailure | undefined
  const changes = compareContent(
    previousText,
    { lines: text === '' ? [] : text.split('\n'), language, priceLines },
    pageType,
    rules ?? undefined,
    pages && {
      before: htmlOf(pages.before),
      after: htmlOf(pages.after),
      ...(pages.before.document && pages.after.document
        ? { beforeDocument: htmlOf(pages.before.document), afterDocument: htmlOf(pages.after.document) }
        : {})
    },
    failure => { readerFailure = failure }
  )
  return readerFailure ? { changes, readerFailure } : { changes }
}

export interface ScreenshotsTask {
  before: Uint8Array
  after: Uint8Array
}

export function screenshots (task: ScreenshotsTask & Started): VisualDiff {
  begin(task)
  const { before, after } = task
  const asBuffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)
  return compareScreenshots(asBuffer(before), asBuffer(after))
}

const decodeStored = (b: StoredBytes) => {
  const bytes = gunzipSync(b.gzip)
  return decodeHtml(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), b.contentType)
}

/** The `lang` a page's HTML declares, from the first bytes of its gzip (decompressed as far as they go). */
function declaredLanguage (head: Uint8Array): string | undefined {
  try {
    const html = gunzipSync(head, { finishFlush: constants.Z_SYNC_FLUSH }).toString('latin1')
    return /<html\b[^>]*?\slang\s*=\s*["']?([A-Za-z]{2,3}(?:[-_][A-Za-z0-9]+)*)/i.exec(html)?.[1]
  } catch {
    return undefined
  }
}

/** A research brief from what the store holds of a domain. */
export function brief (inputs: ResearchInputs & Started) {
  begin(inputs)
  for (const t of inputs.texts) {
    if (t.head) t.declared = declaredLanguage(t.head)
    t.head = null
  }
  return buildBrief(inputs, decodeStored)
}

export interface OutlineTask {
  /** The page's versions to read its churn from, oldest first: the last is the one outlined. */
  versions: StoredBytes[]
  /** Its picture's page and where its blocks are, for each block's box. */
  picture?: { page: StoredBytes, boxes: PictureBoxes }
  /** The lines of the change recorded on arrival of each version, by the version's index (see movesOf). */
  changes?: Array<ChangedLines | undefined>
}

export interface OutlineReading {
  blocks: OutlineEntry[]
  truncated: boolean
  /** For each block, the indexes of the versions that moved its text (see movesOf). */
  moves: number[][]
  /** For each block, those of its moves that the change recorded with them was of. */
  reported: number[][]
  /** For each block, its box on the picture (null: not known). */
  boxes: Array<{ x: number, y: number, width: number, height: number } | null>
}

/** A page's outline, read from its last version, and where each block moved in the versions before. */
export function outline (task: OutlineTask & Started): OutlineReading {
  begin(task)
  const pages = task.versions.map(storedHtml)
  const { blocks, truncated } = outlineOf(pages.at(-1) ?? '')
  const { picture } = task
  const boxes = picture ? boxesOf(blocks, storedHtml(picture.page), picture.boxes) : blocks.map(() => null)
  return { blocks, truncated, ...movesOf(blocks, pages, task.changes), boxes }
}

export interface TryRulesTask {
  latest: StoredBytes
  changes: Array<{ before: StoredBytes, after: StoredBytes }>
  pageType: PageType
  proposed: NoiseRules
  current?: NoiseRules
}

/** A page's proposed rules tried on its last version and its earlier changes (see tryRules). */
export function tryPageRules (task: TryRulesTask & Started): RulesTried {
  begin(task)
  const { latest, changes, pageType, proposed, current } = task
  const pairs = changes.map(c => ({ before: storedHtml(c.before), after: storedHtml(c.after) }))
  return tryRules(storedHtml(latest), pairs, pageType, proposed, current)
}

const storedHtml = (page: StoredBytes) => decodeHtml(gunzipSync(page.gzip), page.contentType)
