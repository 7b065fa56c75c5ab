// What a person's "not important" teaches: the pattern of the passage that moved, so that
// the same noise is masked from then on. A line and its new version are split into words,
// numbers and the rest; what stayed is kept as it is, what moved becomes the class of what
// it was (digits, hexadecimal, a word). Pairs that share too little are no pattern: the
// offer is then left out, never a pattern that would hide more than that passage.

/** What a token that moved becomes, first class that fits both versions wins. */
const MOVED: ReadonlyArray<{ fits: RegExp, pattern: string }> = [
  { fits: /^\d+(?:[.,:/-]\d+)*$/, pattern: '\\d+(?:[.,:/-]\\d+)*' },
  { fits: /^[0-9a-f]{4,}$/i, pattern: '[0-9a-f]+' },
  { fits: /^[\p{L}\p{N}_-]+$/u, pattern: '[\\p{L}\\p{N}_-]+' }
]

/** A currency beside a number that moved: that is a price, and a price is never learned as noise. */
const CURRENCY = /^(?:[$€£¥₹₩₽]|usd|eur|gbp|jpy|chf|cad|aud|inr|kr|zł)$/i

const TOKENS = /\d+(?:[.,:/-]\d+)*(?![\p{L}_])|[\p{L}\p{N}_-]+|\s+|./gu
/** The most of a pair's tokens that may have moved for its pattern to still name that passage. */
const MAX_MOVED_SHARE = 0.4
/** The patterns people may keep are this long at most (see NoiseRulesSchema's ignorePatterns). */
export const MAX_PATTERN_LENGTH = 200

const escape = (s: string) => s.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&').replace(/\s+/g, '\\s+')

/** What a pattern masks, for people: the passage with its moving parts shown as "…". */
export interface Learned { pattern: string, shown: string }

/** The pattern of one line and its new version, or undefined when they are not one passage that moved. */
function pairPattern (before: string, after: string): Learned | undefined {
  const a = before.match(TOKENS) ?? []
  const b = after.match(TOKENS) ?? []
  if (a.length !== b.length || a.length === 0) return undefined
  let moved = 0
  const parts: string[] = []
  const shown: string[] = []
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i] || (/^\s+$/.test(a[i]) && /^\s+$/.test(b[i]))) {
      parts.push(escape(a[i]))
      shown.push(a[i])
      continue
    }
    const kind = MOVED.find(m => m.fits.test(a[i]) && m.fits.test(b[i]))
    if (!kind || nextToCurrency(a, i)) return undefined
    moved++
    parts.push(kind.pattern)
    shown.push('…')
  }
  const words = a.filter(t => !/^\s+$/.test(t)).length
  if (moved === 0 || moved / words > MAX_MOVED_SHARE) return undefined
  const pattern = parts.join('')
  return pattern.length <= MAX_PATTERN_LENGTH ? { pattern, shown: shown.join('') } : undefined
}

/** Whether the token at `i` has a currency beside it (spaces aside). */
function nextToCurrency (tokens: readonly string[], i: number): boolean {
  const near = (step: number) => {
    let j = i + step
    while (tokens[j] !== undefined && /^\s+$/.test(tokens[j])) j += step
    return tokens[j] ?? ''
  }
  return CURRENCY.test(near(-1)) || CURRENCY.test(near(1))
}

/**
 * The pattern that masks a passage's movement: its removed lines paired in order with its
 * added ones, each pair's pattern the same. Undefined when the passage is no such pair
 * (a line added or removed outright, lines that differ in more than their moving parts).
 */
export function learnedPattern (removed: readonly string[], added: readonly string[]): Learned | undefined {
  if (removed.length === 0 || removed.length !== added.length) return undefined
  const learned = removed.map((line, i) => pairPattern(line, added[i]))
  const first = learned[0]
  return first && learned.every(l => l?.pattern === first.pattern) ? first : undefined
}
