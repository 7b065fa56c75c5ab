import type { PageType } from '../domain/vocabulary.js'

type Typed = Exclude<PageType, 'other'>

// Words that name each kind of page, in URLs, link texts, titles and headings.
const NAMES: Record<Typed, RegExp> = {
  pricing: /\b(pricing|prices?|plans?|billing|subscriptions?|buy|upgrade|cost)\b/i,
  features: /\b(features?|products?|platform|capabilities|solutions?|compare|comparison|tour|why[- ]\w+)\b/i,
  terms:
    /\b(terms|tos|legal|privacy|cookies?[- ]policy|eula|dpa|gdpr|ccpa|acceptable[- ]use|aup|sla|policies|policy|agreement|conditions|imprint|impressum)\b/i,
  security:
    /\b(security|trust|compliance|soc ?2|iso ?27001|vulnerabilit\w*|responsible[- ]disclosure|bug[- ]bounty|security\.txt|subprocessors?)\b/i,
  api_docs: /\b(api|apis|docs|documentation|developers?|reference|sdks?|graphql|swagger|openapi|webhooks?|guides?)\b/i,
  changelog: /\b(changelog|change[- ]log|releases?|release[- ]notes|what'?s[- ]new|updates|product[- ]updates)\b/i
}

// What the text of each kind of page tends to say.
const CONTENT: Record<Typed, RegExp> = {
  pricing:
    /([$€£]\s?\d+|\/\s?(month|mo|year|yr)\b|per (user|seat|month)|billed (annually|monthly)|free trial|contact sales)/gi,
  features: /\b(feature|integrations?|workflow|collaborat\w+|automat\w+|dashboard|analytics)\b/gi,
  terms:
    /\b(agreement|liabilit\w+|indemn\w+|governing law|warrant\w+|terminat\w+|hereby|shall|personal data|arbitration)\b/gi,
  security:
    /\b(encrypt\w+|soc ?2|iso ?27001|penetration|vulnerabilit\w+|access control|audit|tls|aes-?256|incident)\b/gi,
  api_docs:
    /\b(endpoint|request|response|curl|json|authentication|bearer|parameters?|status code|rate limit|GET \/|POST \/)\b/gi,
  changelog: /(\bv?\d+\.\d+(\.\d+)?\b|\b(released?|fixed|improved|added|deprecated|bug fixes?)\b)/gi
}

export interface PageSignals {
  url: string
  linkText?: string
  title?: string
  headings?: readonly string[]
  text?: string
}

const words = (s: string) => s.replace(/[-_/.]+/g, ' ')

/**
 * The kind of a page and how sure we are (0–1). Each source of evidence adds its weight
 * when it names a kind: the URL path and host most, then title and headings, link text,
 * and what the text talks about. No evidence at all is `other`.
 */
export function classifyPageType (signals: PageSignals): { pageType: PageType, confidence: number } {
  let url: URL | undefined
  try {
    url = new URL(signals.url)
  } catch {
    /* scored without the URL */
  }
  const path = url ? words(decodeURIComponent(url.pathname)) : ''
  const sub = url ? url.hostname.split('.')[0] : ''
  const scores = new Map<Typed, number>()
  const add = (t: Typed, w: number) => scores.set(t, (scores.get(t) ?? 0) + w)
  for (const t of Object.keys(NAMES) as Typed[]) {
    const re = NAMES[t]
    // The last path segment speaks loudest: /docs/pricing-api is about the API.
    const segments = path.trim().split(/\s+/)
    if (segments.length > 0 && re.test(segments[segments.length - 1] ?? '')) add(t, 0.5)
    else if (re.test(path)) add(t, 0.3)
    if (re.test(sub)) add(t, 0.3)
    if (signals.title && re.test(signals.title)) add(t, 0.25)
    if (signals.headings?.slice(0, 3).some(h => re.test(h))) add(t, 0.15)
    if (signals.linkText && re.test(signals.linkText)) add(t, 0.2)
    if (signals.text) {
      const hits = signals.text.slice(0, 20_000).match(CONTENT[t])?.length ?? 0
      if (hits >= 3) add(t, Math.min(0.3, hits / 40))
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

const round = (n: number) => Math.max(0.05, Math.min(0.99, Math.round(n * 100) / 100))
