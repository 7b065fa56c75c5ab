import type { DetectedChange } from '../../src/vocabulary/core.js'
import { compareContent, readPage } from '../../src/detection/detect.js'
import { classifyFetchedPage } from '../../src/crawl/page-type.js'
import type { ChangeType, PageType, Severity } from '../../src/vocabulary/core.js'
import { de, es } from './corpus-de-es.js'
import { en, fr } from './corpus-en-fr.js'
import { it, nl, pt } from './corpus-it-nl-pt.js'
import { SAY_IT_RIGHT } from './corpus-say-it-right.js'

// The labelled set behind `npm run quality` and test/quality: realistic pages of one
// made-up company per language, written for the project, each page in two states.
// A noise pair differs only in what moves on every visit (relative times, clocks,
// timestamps, copyright years, build ids, session and CSRF tokens, hashed class names,
// script nonces); a change pair also carries one real edit, labelled with its type.

export const LANGUAGES = ['en', 'fr', 'de', 'es', 'it', 'nl', 'pt'] as const
export type Lang = (typeof LANGUAGES)[number]

export type PageKind =
  | 'pricing' | 'features' | 'terms' | 'privacy' | 'cookies' | 'community' | 'security' | 'api' | 'changelog'
  | 'imprint' | 'faq'

/** What each kind of page is typed as: privacy, cookie and community rules bind users (terms); an imprint does not. */
export const TYPE_OF: Record<PageKind, PageType> = {
  pricing: 'pricing',
  features: 'features',
  terms: 'terms',
  privacy: 'terms',
  cookies: 'terms',
  community: 'terms',
  security: 'security',
  api: 'api_docs',
  changelog: 'changelog',
  imprint: 'other',
  faq: 'other'
}

interface LabelledEdit {
  expect: ChangeType
  severity?: Severity
  /** Replaced in the page's main content by `to`. */
  from: string
  to: string
  /** What the summary must say (the page's own words). */
  summary?: RegExp
}

export interface LanguageSet {
  lang: Lang
  company: string
  updated: (minutes: number) => string
  pages: Record<Exclude<PageKind, 'faq'>, { path: string, link: string, title: string, main: string, changes: LabelledEdit[] }>
}

export interface QualityCase {
  id: string
  lang: Lang
  kind: PageKind
  pageType: PageType
  url: string
  linkText: string
  before: string
  after: string
  /** undefined: a noise pair, which must stay silent. */
  edit?: LabelledEdit
}

const NOISE = [
  { minutes: 3, year: 2025, hex: 'a1b2c3d4e5f6', token: 'Xk9PqL2mNz7RtY4vWb8s', clock: '09:14', iso: '2026-03-01T09:14:00Z', cls: 'x7f2' },
  { minutes: 17, year: 2026, hex: '9f8e7d6c5b4a', token: 'Qw3ErT5yUi8oP1aS2dF6', clock: '17:52', iso: '2026-03-02T17:52:11Z', cls: 'k9q1' }
]

function layout (set: LanguageSet, title: string, main: string, noise: (typeof NOISE)[number]): string {
  const nav = (['pricing', 'features', 'api', 'changelog'] as const)
    .map(k => `<a href="${set.pages[k].path}">${set.pages[k].link}</a>`).join(' ')
  const legal = (['terms', 'privacy', 'cookies', 'imprint'] as const)
    .map(k => `<a href="${set.pages[k].path}">${set.pages[k].link}</a>`).join(' ')
  return `<!doctype html><html lang="${set.lang}"><head><meta charset="utf-8"><title>${title} — ${set.company}</title>
<link rel="stylesheet" href="/assets/app.${noise.hex}.css"><script nonce="${noise.token}">window.__BUILD__="${noise.hex}"</script></head>
<body><header class="hdr-${noise.cls}"><a href="/">${set.company}</a><nav>${nav}</nav></header>
<main class="main-${noise.cls}">${main}
<p class="meta-${noise.cls}">${set.updated(noise.minutes)} · ${noise.clock}</p></main>
<footer><nav>${legal}</nav><p>© ${noise.year} ${set.company}</p><p>Build ${noise.hex} · Session ${noise.token}</p>
<p>${noise.iso}</p></footer><input type="hidden" name="csrf" value="${noise.token}"></body></html>`
}

const SETS: LanguageSet[] = [en, fr, de, es, it, nl, pt]

/** Every pair of the set: per language and kind of page, a noise pair and each labelled edit. */
export function qualityCases (): QualityCase[] {
  const cases: QualityCase[] = []
  for (const set of SETS) {
    const host = `https://www.${set.company.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '')}.test`
    for (const [kind, page] of Object.entries(set.pages) as Array<[PageKind, LanguageSet['pages']['pricing']]>) {
      const base = {
        lang: set.lang,
        kind,
        pageType: TYPE_OF[kind],
        url: `https://www.${set.company.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '')}.test${page.path}`,
        linkText: page.link,
        before: layout(set, page.title, page.main, NOISE[0])
      }
      cases.push({ ...base, id: `${set.lang}/${kind}/noise`, after: layout(set, page.title, page.main, NOISE[1]) })
      for (const edit of page.changes) {
        if (!page.main.includes(edit.from)) throw new Error(`${set.lang}/${kind}: "${edit.from}" is not on the page`)
        const after = layout(set, page.title, page.main.replace(edit.from, edit.to), NOISE[1])
        cases.push({ ...base, id: `${set.lang}/${kind}/${edit.expect}`, after, edit })
      }
    }
    // A page whose address misleads: the terms, filed under a path that names the changelog.
    const terms = set.pages.terms
    cases.push({
      id: `${set.lang}/terms/misleading-url`,
      lang: set.lang,
      kind: 'terms',
      pageType: 'terms',
      url: `https://www.${set.company.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '')}.test${set.pages.changelog.path}-2024`,
      linkText: terms.link,
      before: layout(set, terms.title, terms.main, NOISE[0]),
      after: layout(set, terms.title, terms.main, NOISE[1])
    })
    for (const page of SAY_IT_RIGHT[set.lang]) {
      const base = {
        lang: set.lang,
        kind: page.kind,
        pageType: TYPE_OF[page.kind],
        url: `${host}${page.path}`,
        linkText: page.link,
        before: layout(set, page.title, page.main, NOISE[0])
      }
      const state = (from: string, to: string) => {
        if (!page.main.includes(from)) throw new Error(`${set.lang}/${page.name}: "${from}" is not on the page`)
        return layout(set, page.title, page.main.replace(from, to), NOISE[1])
      }
      cases.push({ ...base, id: `${set.lang}/${page.name}/noise`, after: layout(set, page.title, page.main, NOISE[1]) })
      page.silent?.forEach((edit, i) => cases.push({ ...base, id: `${set.lang}/${page.name}/silent-${i + 1}`, after: state(edit.from, edit.to) }))
      page.changes.forEach((edit, i) => cases.push({
        ...base,
        id: `${set.lang}/${page.name}/${i + 1}-${edit.expect}`,
        after: state(edit.from, edit.to),
        edit
      }))
    }
  }
  return cases
}

export interface Outcome {
  pageTypeGot: PageType
  pageTypeRight: boolean
  changes: DetectedChange[]
  /** Noise pairs: nothing reported. */
  silent?: boolean
  /** Change pairs: something reported, of the labelled type (and severity and summary where labelled). */
  found?: boolean
  typeRight?: boolean
  /** Change pairs: every summary quotes words of the edit, and never two identical quotes. */
  showsDifference?: boolean
  /** Change pairs (each one edit): recorded as one change. */
  oneChange?: boolean
  /** Change pairs where no price moved: a price_change reported all the same. */
  priceWithoutPrice?: boolean
}

/** Reads a case as the service does: types the page from its first state, then compares the two. */
export function evaluate (c: QualityCase): Outcome {
  const { pageType } = classifyFetchedPage({ url: c.url, linkText: c.linkText, html: c.before })
  const before = readPage(c.before)
  const after = readPage(c.after)
  const changes = before.hash === after.hash ? [] : compareContent(before.text, after, pageType)
  const outcome: Outcome = { pageTypeGot: pageType, pageTypeRight: pageType === c.pageType, changes }
  if (!c.edit) return { ...outcome, silent: changes.length === 0 }
  const { expect, severity, summary } = c.edit
  const typeRight = changes.length > 0 && changes.every(ch =>
    ch.changeType === expect && (!severity || ch.severity === severity) && (!summary || summary.test(ch.summary)))
  return {
    ...outcome,
    found: changes.length > 0,
    typeRight,
    showsDifference: changes.length > 0 && changes.every(ch => showsDifference(ch.summary, c.edit!)),
    oneChange: changes.length === 1,
    priceWithoutPrice: expect !== 'price_change' && changes.some(ch => ch.changeType === 'price_change')
  }
}

/**
 * Whether a summary shows what changed: it holds a word that only one side of the edit
 * has (the new side's, or the old side's for a removal), and no quote stands unchanged
 * on both sides of an arrow.
 */
export function showsDifference (summary: string, edit: { from: string, to: string }): boolean {
  if (/"([^"]*)" → "\1"/.test(summary)) return false
  const words = (html: string) => new Set(
    html.replace(/<[^>]+>/g, ' ').split(/\s+/).map(w => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
      .filter(w => w.length > 0)
  )
  const from = words(edit.from)
  const to = words(edit.to)
  const added = [...to].filter(w => !from.has(w))
  const distinct = added.length > 0 ? added : [...from].filter(w => !to.has(w))
  return distinct.some(w => summary.includes(w))
}
