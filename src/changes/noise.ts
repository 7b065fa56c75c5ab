import { createHash } from 'node:crypto'

// Text that moves on every visit without the page changing: relative times, clocks,
// timestamps, copyright years, build ids, session tokens. Masked before pages are
// compared, so such movement never becomes a change. Dates in prose ("effective
// March 3") are kept: on a terms page they are news.
const RULES: Array<[RegExp, string]> = [
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, '{datetime}'],
  [/\b(?:just now|moments? ago|(?:a|an|one|a few|\d+)\s*(?:s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?|mos?|months?|y|yrs?|years?) ago)\b/gi, '{ago}'],
  [/\b(?:today|yesterday) at \d{1,2}:\d{2}\s*(?:[ap]\.?m\.?)?/gi, '{ago}'],
  [/\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?(?:\s*(?:UTC|GMT|[A-Z]{2,4}T))?(?![\d:])/gi, '{time}'],
  [/((?:©|\(c\)|copyright)\s*)(?:\d{4}\s*[-–]\s*)?\d{4}/gi, '$1{year}'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '{id}'],
  [/\b(build|commit|request id|trace id|session|nonce|csrf(?: token)?|token)(\s*(?:id)?\s*[:#=]?\s*)[\w.+/=-]{4,}/gi, '$1$2{id}'],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{12,}\b/gi, '{hex}'],
  [/\b(?=[\w-]*\d)(?=[\w-]*[a-z])(?=[\w-]*[A-Z])[\w-]{20,}\b/g, '{token}']
]

export function maskNoise (line: string): string {
  let out = line
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement)
  return out
}

/** Lines as they are compared: noise masked, one for one with the page's lines. */
export function comparableLines (lines: readonly string[]): string[] {
  return lines.map(maskNoise)
}

export function contentHash (comparable: readonly string[]): string {
  return createHash('sha256').update(comparable.join('\n')).digest('hex')
}
