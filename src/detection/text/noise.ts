import { createHash } from 'node:crypto'
import { COUNTDOWN, COUNTDOWN_GATE, RELATIVE_TIME } from '../words/lexicon.js'

// Text that moves on every visit without the page changing: relative times, clocks,
// timestamps, copyright years, build ids, session tokens. Masked before pages are
// compared, so such movement never becomes a change. Dates in prose ("effective
// March 3") are kept: on a terms page they are news.
// Rules for lines with a digit in them (nearly all noise has one), then the few without.
// A rule runs on a line only when its cheap literal gate finds what every match must contain.
type Rule = [gate: RegExp | null, pattern: RegExp, replacement: string | ((m: string) => string)]
const DIGIT_RULES: Rule[] = [
  [/\d-\d/, /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, '{datetime}'],
  [
    /ago/i,
    /\b(?:a|an|one|a few|\d+)\s*(?:s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?|mos?|months?|y|yrs?|years?) ago\b/gi,
    '{ago}'
  ],
  [/ at /i, /\b(?:today|yesterday) at \d{1,2}:\d{2}\s*(?:[ap]\.?m\.?)?/gi, '{ago}'],
  // A sale's countdown ("ends in 3 days", "2 hours left", in each language): a time to come, moving on its own.
  [COUNTDOWN_GATE, COUNTDOWN, '{countdown}'],
  [/:/, /\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?(?:\s*(?:UTC|GMT|[A-Z]{2,4}T))?(?![\d:])/gi, '{time}'],
  [/©|\(c\)|copyright/i, /((?:©|\(c\)|copyright)\s*)(?:\d{4}\s*[-–]\s*)?\d{4}/gi, '$1{year}'],
  [/-/, /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '{id}'],
  [
    /build|commit|request id|trace id|session|nonce|csrf|token/i,
    /\b(build|commit|request id|trace id|session|nonce|csrf(?: token)?|token)(\s*(?:id)?\s*[:#=]?\s*)[\w.+/=-]{4,}/gi,
    '$1$2{id}'
  ],
  // Long hex runs with letters and digits (hashes, build ids), and long mixed-case
  // tokens with digits (session ids, nonces): checked in code, not with look-aheads.
  [null, /\b[0-9a-f]{12,}\b/gi, m => (/\d/.test(m) && /[a-f]/i.test(m) ? '{hex}' : m)],
  [null, /\b[\w-]{20,}\b/g, m => (/\d/.test(m) && /[a-z]/.test(m) && /[A-Z]/.test(m) ? '{token}' : m)]
]
const WORD_RULES: Array<[RegExp, string]> = [
  [
    /\b(?:just now|moments? ago|(?:a|an|one|a few)\s+(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?) ago)\b/gi,
    '{ago}'
  ]
]
const HAS_DIGIT = /\d/
const MAY_BE_WORD_NOISE = /ago\b|just now|il y a|hace|há|vor |fa\b|geleden/i
// Most lines have neither: one test sends them back untouched.
const MAY_BE_NOISE = new RegExp(`${HAS_DIGIT.source}|${MAY_BE_WORD_NOISE.source}`, 'i')

export function maskNoise (line: string): string {
  if (!MAY_BE_NOISE.test(line)) return line
  let out = line
  if (HAS_DIGIT.test(out)) {
    for (const [gate, pattern, replacement] of DIGIT_RULES) {
      if (!gate || gate.test(out)) out = out.replace(pattern, replacement as string)
    }
  }
  if (MAY_BE_WORD_NOISE.test(out)) {
    for (const [pattern, replacement] of WORD_RULES) out = out.replace(pattern, replacement)
    out = out.replace(RELATIVE_TIME, '{ago}')
  }
  return out
}

/** Lines as they are compared: noise masked, one for one with the page's lines. */
export function comparableLines (lines: readonly string[]): string[] {
  return lines.map(maskNoise)
}

/** SHA-256 of the lines joined by newlines, hashed line by line: joining a page's lines cost more than hashing them. */
export function contentHash (comparable: readonly string[]): string {
  const hash = createHash('sha256')
  for (let i = 0; i < comparable.length; i++) {
    if (i > 0) hash.update('\n')
    hash.update(comparable[i])
  }
  return hash.digest('hex')
}
