import type { Fact, PageType } from '../../vocabulary/core.js'
import { STRUCTURED_PAGE_TYPES, type StructuredPageType } from '../../vocabulary/core.js'
import { compareApiDocuments, CONVENTIONAL_SPEC_PATHS, parseSpec, specLinks, specsNamedIn } from './api/spec.js'
import { compareChangelogs, feedLinks, readChangelog, readFeed } from './changelog/read.js'
import { readPricing } from './pricing/read.js'
import { comparePricingReadings } from './pricing/compare.js'
import type { StructuredReading } from './structure.js'

// The structured readers, one row per structured page type: what each adds to a page's
// content hash, the document it reads with the page (an API description, a feed), and how
// it compares two versions. Nothing else branches on these types. Every row's comparison
// goes through one rule (withReading, structure.ts): a reader takes over only the text
// changes it explains, and a reader that cannot read a version explains nothing.

/** Both versions of an intelligence page as fetched: its HTML and its document (API description, feed), if any. */
export interface PageVersions {
  before: string
  after: string
  beforeDocument?: string
  afterDocument?: string
}

/** The document a reader reads with its page. */
export interface ReaderDocument {
  /** What it is called in a page's error ("API description https://…: …"). */
  name: string
  /** The documents a page names, best first. */
  links: (html: string, pageUrl: string) => string[]
  /** Where hosts put one by convention, asked when the page names none, and what its first bytes show. */
  conventional?: { paths: readonly string[], looksLike: RegExp }
  /** Throws an Error that says why a text is not such a document. */
  check: (text: string) => void
  /** Whether a named document that cannot be fetched or read fails the page's check (else the page is read alone). */
  failsThePage: boolean
  /**
   * When what `links` named is a script that configures the page's viewer (Swagger UI's
   * swagger-initializer.js): the documents it names, as addresses of the page.
   */
  follow?: (script: string, pageUrl: string) => string[]
}

export interface StructuredReader {
  /** Its name (for metrics) and what it reads, as a person says it ("The plans and prices"). */
  name: string
  reads: string
  /** What the structure adds to the page's content hash: its parts the text does not show (a toggle's other state). */
  hashPart?: (html: string) => string
  /** Whether a version of the page (with its document, if its reader reads one) reads as the structure. */
  readable: (html: string, document?: string) => boolean
  document?: ReaderDocument
  /** Two versions compared: undefined when a version cannot be read as this structure; `muted`: facts not told. */
  compare: (versions: PageVersions, muted?: (f: Fact) => boolean) => StructuredReading | undefined
}

/** Whether a pricing page's reading holds plans: with a price or a limit. */
const plansRead = (r: ReturnType<typeof readPricing>) =>
  r.table.plans.some(p => p.prices.length > 0 || p.limits.length > 0)

const sortedPlans = (html: string) =>
  JSON.stringify([...readPricing(html).table.plans].sort((a, b) => a.name.localeCompare(b.name)))

export const READERS: Readonly<Record<StructuredPageType, StructuredReader>> = {
  pricing: {
    name: 'pricing',
    reads: 'The plans and prices',
    // Plans in one order, so that a re-ordered page hashes as the same table.
    hashPart: sortedPlans,
    readable: html => plansRead(readPricing(html)),
    compare: ({ before, after }, muted) => {
      const [b, a] = [readPricing(before), readPricing(after)]
      return plansRead(b) && plansRead(a) ? comparePricingReadings(b, a, muted) : undefined
    }
  },
  api_docs: {
    name: 'api',
    reads: 'The API description',
    document: {
      name: 'API description',
      links: specLinks,
      conventional: { paths: CONVENTIONAL_SPEC_PATHS, looksLike: /["']?(?:openapi|swagger)["']?\s*:/ },
      check: parseSpec,
      failsThePage: true,
      follow: specsNamedIn
    },
    readable: (_html, document) => document !== undefined,
    compare: ({ beforeDocument, afterDocument }) =>
      beforeDocument !== undefined && afterDocument !== undefined
        ? compareApiDocuments(beforeDocument, afterDocument)
        : undefined
  },
  changelog: {
    name: 'changelog',
    reads: 'The changelog\'s entries',
    hashPart: html => JSON.stringify(readChangelog(html).entries),
    readable: (html, document) => document !== undefined || readChangelog(html).entries.length > 0,
    document: { name: 'Feed', links: feedLinks, check: readFeed, failsThePage: false },
    compare: ({ before, after, beforeDocument, afterDocument }) => {
      const [b, a] = [readChangelog(before), readChangelog(after)]
      if (beforeDocument === undefined || afterDocument === undefined) return compareChangelogs(b, a)
      // The feed's entries, and the page's lines and the feed's as the entries' text.
      // A feed that cannot be read now was checked when fetched (see ReaderDocument.check): a failure here is loud.
      const [fb, fa] = [readFeed(beforeDocument), readFeed(afterDocument)]
      return compareChangelogs({ entries: fb.entries, lines: new Map([...b.lines, ...fb.lines]) },
        { entries: fa.entries, lines: new Map([...a.lines, ...fa.lines]) })
    }
  }
}

/** The structured reader of a page type, if it has one. */
export const readerOf = (pageType: PageType | undefined): StructuredReader | undefined =>
  (STRUCTURED_PAGE_TYPES as readonly PageType[]).includes(pageType as PageType)
    ? READERS[pageType as StructuredPageType]
    : undefined
