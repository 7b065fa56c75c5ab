import { pageLanguage } from '../detection/words/language.js'
import type { Language } from '../detection/words/lexicon.js'
import { sourceKey, type ResearchInputs, type Source, type StoredBytes } from '../vocabulary/research.js'
import type { PageType } from '../vocabulary/core.js'
import { plural } from './markdown.js'

// What every section of a brief reads (see brief.ts): the domain's pages with their latest
// snapshots, and how a section says where its facts were read or why it is left out.

/** Bytes as a snapshot keeps them → text (the caller's charset decoding). */
export type Decode = (bytes: StoredBytes) => string

export const DAY_MS = 86_400_000
/** A site's home page: its address has no path. */
export const isHome = (url: string) => /^https?:\/\/[^/]+\/?$/.test(url)
export const MAX_LIST = 100

interface PageFacts {
  url: string
  pageType: PageType
  monitored: boolean
  /** Its place among the pages read, the highest-ranked first. */
  rank: number
  snapshot?: { id: string, at: Date }
  text?: string
  language?: Language
}

/** What every section reads: the pages by id, with their latest snapshot and language. */
export class Reading {
  readonly pages = new Map<string, PageFacts>()

  constructor (readonly inputs: ResearchInputs, readonly decode: Decode) {
    for (const p of inputs.pages) {
      this.pages.set(p.id, { url: p.url, pageType: p.pageType, monitored: p.monitored, rank: Infinity })
    }
    inputs.texts.forEach((t, rank) => {
      const page = this.pages.get(t.pageId)
      if (!page) return
      Object.assign(page, { rank, snapshot: { id: t.snapshotId, at: t.at }, text: t.text })
      page.language = pageLanguage({ declared: t.declared, lines: t.text.split('\n', 400) })
    })
  }

  get monitored () { return [...this.pages.values()].filter(p => p.monitored) }

  /** The page as its latest snapshot read it. */
  source (pageId: string, snapshot?: { id: string, at: Date }): Source {
    const page = this.pages.get(pageId)
    const s = snapshot ?? page?.snapshot
    return { url: page?.url ?? '', at: s?.at ?? this.inputs.now, snapshotId: s?.id ?? null, changeId: null }
  }

  /** The page as one of its changes showed it. */
  changeSource (c: { pageId: string, changeId: string, at: Date }): Source {
    return { url: this.pages.get(c.pageId)?.url ?? '', at: c.at, snapshotId: null, changeId: c.changeId }
  }

  /** The raw pages of `type`, highest-ranked first, decoded. */
  raws (type?: PageType) {
    return this.inputs.raws
      .filter(r => type === undefined || this.pages.get(r.pageId)?.pageType === type)
      .sort((a, b) => (this.pages.get(a.pageId)?.rank ?? Infinity) - (this.pages.get(b.pageId)?.rank ?? Infinity))
      .map(r => ({
        ...r,
        html: () => this.decode(r.page),
        document: r.document && { url: r.document.url, text: () => this.decode(r.document!) },
        source: this.source(r.pageId, { id: r.snapshotId, at: r.at })
      }))
  }

  count (type: PageType) { return this.monitored.filter(p => p.pageType === type).length }
}

/** A section's facts with their sources, or the section left out with a reason. */
export function included<T extends object> (sources: Source[], facts: T) {
  const seen = new Set<string>()
  const unique = sources.filter(s => {
    const key = sourceKey(s)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  return { included: true, reason: null, sources: unique, ...facts }
}
export const omitted = <T extends object>(reason: string, empty: T) =>
  ({ included: false, reason, sources: [], ...empty })

export const noPageOf = (r: Reading, what: string) =>
  `no ${what} is among its ${plural(r.monitored.length, 'monitored page')}`
