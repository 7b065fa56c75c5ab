import { anyWord, fold, IMPRINT, PAGE_CONTENT, PAGE_NAMES } from '../changes/lexicon.js'
import type { PageType } from '../domain/vocabulary.js'

type Typed = Exclude<PageType, 'other'>

const TYPES = Object.keys(PAGE_NAMES) as Typed[]
const NAMES = Object.fromEntries(TYPES.map(t => [t, anyWord(PAGE_NAMES[t])])) as Record<Typed, RegExp>
const MONEY_HINT = /[$€£¥₹]\s?\d|\d\s?(?:€|CHF|kr)/gu
const CONTENT = Object.fromEntries(TYPES.map(t => [t, anyWord(PAGE_CONTENT[t], 'giu')])) as Record<Typed, RegExp>

export interface PageSignals {
  url: string
  linkText?: string
  title?: string
  headings?: readonly string[]
  text?: string
}

const words = (s: string) => s.replace(/[-_/.]+/g, ' ')

/**
 * The kind of a page and how sure we are (0–1), in any of the lexicon's languages. Each
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
  const segments = path.trim().split(/\s+/)
  const last = segments[segments.length - 1] ?? ''
  const sub = url ? url.hostname.split('.')[0] : ''
  const title = signals.title && fold(signals.title)
  const headings = signals.headings?.slice(0, 3).map(fold)
  const linkText = signals.linkText && fold(signals.linkText)
  const named = [title, headings?.[0], linkText].filter((s): s is string => Boolean(s))
  if (IMPRINT.test(path) || named.some(n => IMPRINT.test(n))) return { pageType: 'other', confidence: 0.9 }

  const scores = new Map<Typed, number>()
  const add = (t: Typed, w: number) => scores.set(t, (scores.get(t) ?? 0) + w)
  const text = signals.text && fold(signals.text.slice(0, 20_000))
  for (const t of TYPES) {
    const re = NAMES[t]
    // The last path segment speaks loudest: /docs/pricing-api is about the API.
    if (re.test(last)) add(t, 0.5)
    else if (re.test(path)) add(t, 0.3)
    if (re.test(sub)) add(t, 0.3)
    if (title && re.test(title)) add(t, 0.25)
    if (headings?.some(h => re.test(h))) add(t, 0.15)
    if (linkText && re.test(linkText)) add(t, 0.2)
    if (text) {
      const hits = (text.match(CONTENT[t])?.length ?? 0) + (t === 'pricing' ? (text.match(MONEY_HINT)?.length ?? 0) : 0)
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

function safeDecode (s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

const round = (n: number) => Math.max(0.05, Math.min(0.99, Math.round(n * 100) / 100))
