import { extractPage } from '../detection/detect.js'
import { pageLanguage } from '../detection/words/language.js'
import {
  fold, IMPRINT, type Language, LANGUAGES, LEGAL_DOCUMENT_NAMES, matcher, ownLanguages, PAGE_CONTENT, PAGE_NAMES,
  POLICY_NAMES, TERMS_NAMES_ELSEWHERE, type Words
} from '../detection/words/lexicon.js'
import type { PageType } from '../vocabulary/core.js'

type Typed = Exclude<PageType, 'other'>

const TYPES = Object.keys(PAGE_NAMES) as Typed[]
const MONEY_HINT = /[$€£¥₹]\s?\d|\d\s?(?:€|CHF|kr)/gu
/** What a word of another language than the page's (and English) counts for: a hint, not evidence. */
const FOREIGN = 0.4

export interface PageSignals {
  url: string
  linkText?: string
  title?: string
  headings?: readonly string[]
  text?: string
  /** The page's language (see pageLanguage); unknown, every language's words count alike. */
  language?: Language
}

/** Scores a match of `words` in `s`: full in the page's own languages, FOREIGN in the others. */
function weigher (words: Words, language: Language | undefined, flags?: string) {
  const own = ownLanguages(language)
  const foreign = LANGUAGES.filter(l => !own.includes(l))
  return {
    own: matcher(words, own, flags),
    foreign: foreign.length > 0 ? matcher(words, foreign, flags) : undefined
  }
}

const words = (s: string) => s.replace(/[-_/.]+/g, ' ')

/**
 * The kind of a page and how sure we are (0–1), in any of the lexicon's languages (its own
 * language's words count in full, others' as a hint). Each
 * source of evidence adds its weight when it names a kind: the URL's last path segment
 * and host most, then title and headings, link text; what the text talks about can
 * weigh more than a name, so a page's content wins over a misleading URL. An imprint
 * or legal notice is `other`. No evidence at all is `other`.
 */
export function classifyPageType (signals: PageSignals): { pageType: PageType, confidence: number } {
  let url: URL | undefined
  try {
    url = new URL(signals.url)
  } catch {
    /* scored without the URL */
  }
  const path = url ? fold(words(safeDecode(url.pathname))) : ''
  // The last segment as the address writes it: /legal/privacy-notice's is "privacy notice", not "notice".
  const last = url ? fold(words(safeDecode(url.pathname.replace(/\/+$/, '').split('/').pop() ?? ''))).trim() : ''
  const sub = url ? url.hostname.split('.')[0] : ''
  const title = signals.title && fold(signals.title)
  const headings = signals.headings?.slice(0, 3).map(fold)
  const linkText = signals.linkText && fold(signals.linkText)
  const names = [title, headings?.[0], linkText].filter((s): s is string => Boolean(s))
  if (IMPRINT.test(path) || names.some(n => IMPRINT.test(n))) return { pageType: 'other', confidence: 0.9 }

  const scores = new Map<Typed, number>()
  const add = (t: Typed, w: number) => scores.set(t, (scores.get(t) ?? 0) + w)
  const text = signals.text && fold(signals.text.slice(0, 20_000))
  const named = namer(signals.language)
  for (const t of TYPES) {
    // The last path segment speaks loudest: /docs/pricing-api is about the API.
    const inPath = named(last)[t] * 0.5 || named(path)[t] * 0.3
    add(t, inPath + named(sub)[t] * 0.3)
    if (title) add(t, named(title)[t] * 0.25)
    if (headings) add(t, Math.max(0, ...headings.map(h => named(h)[t])) * 0.15)
    if (linkText) add(t, named(linkText)[t] * 0.2)
    if (text) {
      const content = weigher(PAGE_CONTENT[t], signals.language, 'giu')
      const hits = (text.match(content.own)?.length ?? 0) +
        FOREIGN * (content.foreign ? text.match(content.foreign)?.length ?? 0 : 0) +
        (t === 'pricing' ? (text.match(MONEY_HINT)?.length ?? 0) : 0)
      if (hits >= 3) add(t, Math.min(0.6, hits / 20))
    }
  }
  let best: Typed | undefined
  let bestScore = 0
  for (const [t, s] of scores) {
    if (s > bestScore) {
      best = t
      bestScore = s
    }
  }
  if (!best || bestScore < 0.25) return { pageType: 'other', confidence: round(0.9 - bestScore) }
  // Ambiguity (two kinds scoring alike) lowers confidence.
  const second = Math.max(0, ...[...scores].filter(([t]) => t !== best).map(([, s]) => s))
  return { pageType: best, confidence: round(Math.min(0.99, 0.35 + bestScore * 0.6 - second * 0.2)) }
}

/**
 * What a name (a path, a title, a heading, a link) says of each kind, per kind: 1 in the page's
 * own languages, FOREIGN in the others. A legal document's noun makes the name terms' alone
 * ("Billing terms", "Subscription agreement", "Product-specific terms"); a generic "policy"
 * yields to security's words ("Security policy", "Responsible disclosure policy").
 */
function namer (language: Language | undefined) {
  const { kinds, terms, document } = namesOf(language)
  const weight = (w: ReturnType<typeof weigher>, s: string) => w.own.test(s) ? 1 : w.foreign?.test(s) ? FOREIGN : 0
  const seen = new Map<string, Record<Typed, number>>()
  return (s: string): Record<Typed, number> => {
    let scores = seen.get(s)
    if (scores) return scores
    scores = {} as Record<Typed, number>
    for (const [t, w] of kinds) scores[t] = weight(w, s)
    if (TERMS_NAMES_ELSEWHERE.test(s)) scores.terms = 1
    if (scores.terms > 0 && weight(document, s) > 0) {
      for (const t of TYPES) if (t !== 'terms' && t !== 'security') scores[t] = 0
      if (scores.security > 0 && weight(terms, s.replace(POLICY, ' ')) === 0) scores.terms = 0
    }
    seen.set(s, scores)
    return scores
  }
}

const POLICY = matcher(POLICY_NAMES, LANGUAGES, 'giu')
const namings = new Map<Language | undefined, ReturnType<typeof naming>>()
/** The expressions that name each kind in a page's language, built once per language. */
function namesOf (language: Language | undefined) {
  let names = namings.get(language)
  if (!names) namings.set(language, (names = naming(language)))
  return names
}
const naming = (language: Language | undefined) => ({
  kinds: TYPES.map(t => [t, weigher(PAGE_NAMES[t], language)] as const),
  terms: weigher(PAGE_NAMES.terms, language),
  document: weigher(LEGAL_DOCUMENT_NAMES, language)
})

/** A fetched page's kind, read as discovery reads it: from its URL, the link to it, and itself. */
export function classifyFetchedPage (
  page: { url: string, linkText?: string, html: string, contentLanguage?: string | null }
): { pageType: PageType, confidence: number } {
  const read = extractPage(page.html)
  return classifyPageType({
    url: page.url,
    linkText: page.linkText,
    title: read.title,
    headings: read.headings,
    text: read.lines.join('\n'),
    language: pageLanguage({ declared: read.language, contentLanguage: page.contentLanguage, lines: read.lines })
  })
}

function safeDecode (s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

const round = (n: number) => Math.max(0.05, Math.min(0.99, Math.round(n * 100) / 100))
