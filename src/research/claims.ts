import {
  COMPLIANCE_ANY, COMPLIANCE_WORDS, fold, matcher, ownLanguages, type Language
} from '../detection/words/lexicon.js'
import { COMPLIANCE_CLAIMS, type ComplianceClaim } from '../vocabulary/research.js'

// Security and compliance claims, in the words of the page's language (and English): each
// given with the sentence that makes it. Every line of every page read is tested against
// one expression of all the claims; only a line that matches is looked at claim by claim.

export interface FoundClaim<S> {
  claim: ComplianceClaim
  sentence: string
  language: Language | null
  source: S
}

const MAX_SENTENCES = 3
const MAX_SENTENCE = 300

/** The sentence of `line` around the match at `index` (lines are blocks: a paragraph is one line). */
export function sentenceAt (line: string, index: number): string {
  const starts = [...line.slice(0, index).matchAll(/[.!?。]\s+/g)]
  const start = starts.length > 0 ? starts[starts.length - 1].index + starts[starts.length - 1][0].length : 0
  const end = /[.!?。](?:\s|$)/.exec(line.slice(index))
  const sentence = line.slice(start, end ? index + end.index + 1 : line.length).replace(/^[-#|\s]+/, '').trim()
  return sentence.length <= MAX_SENTENCE ? sentence : `${sentence.slice(0, MAX_SENTENCE - 1)}…`
}

/**
 * The claims the pages make, pages in the order given (put the security page first):
 * at most MAX_SENTENCES different sentences per claim.
 */
export function findClaims<S> (
  pages: Iterable<{ text: string, language?: Language, source: S }>
): Array<FoundClaim<S>> {
  const found = new Map<ComplianceClaim, Array<FoundClaim<S>>>()
  const seen = new Set<string>()
  for (const page of pages) {
    const languages = ownLanguages(page.language)
    const any = matcher(COMPLIANCE_ANY, languages)
    for (const line of page.text.split('\n')) {
      const folded = fold(line)
      if (!any.test(folded)) continue
      for (const claim of COMPLIANCE_CLAIMS) {
        const some = found.get(claim) ?? []
        if (some.length >= MAX_SENTENCES) continue
        const m = matcher(COMPLIANCE_WORDS[claim], languages).exec(folded)
        if (!m) continue
        // Folding keeps a line's length in most scripts; if it did not, quote the whole line.
        const sentence = folded.length === line.length ? sentenceAt(line, m.index) : sentenceAt(line, 0)
        const key = `${claim}\n${fold(sentence).toLowerCase()}`
        if (seen.has(key)) continue
        seen.add(key)
        some.push({ claim, sentence, language: page.language ?? null, source: page.source })
        found.set(claim, some)
      }
    }
  }
  return COMPLIANCE_CLAIMS.flatMap(c => found.get(c) ?? [])
}
