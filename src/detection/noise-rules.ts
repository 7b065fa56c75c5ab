import { compile, selectAll } from 'css-select'
import render from 'dom-serializer'
import type { AnyNode } from 'domhandler'
import { parseDocument, DomUtils } from 'htmlparser2'
import { RE2JS } from 're2js'
import { JSON_PATH_PATTERN, type NoiseRules } from '../vocabulary/core.js'

// A page's own noise rules: CSS selectors to leave out or to keep, and text patterns to
// mask. Checked when a client sets them, applied before extraction and comparison.
// Patterns are a tenant's input run on every check of its page: they run on RE2's
// linear-time engine (re2js, pure JavaScript), so no pattern can take exponential time,
// on at most MAX_MASKED_LINE characters of a line.

const MAX_MASKED_LINE = 2_000
/**
 * How many characters a page's patterns may read in all (characters × patterns), about two
 * seconds of the engine: lines past it are compared unmasked (reported, never hidden).
 */
const MAX_PATTERN_WORK = 20_000_000

/** A pattern compiled for the linear-time engine (case-insensitive), or why it cannot run. */
function compilePattern (pattern: string): RE2JS | Error {
  try {
    return RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE)
  } catch (err) {
    return err as Error
  }
}

/** Problems with a client's rules, by field; empty when they are usable. */
export function checkNoiseRules (rules: NoiseRules): Array<{ field: string, message: string }> {
  const problems: Array<{ field: string, message: string }> = []
  for (const key of ['ignoreSelectors', 'includeSelectors', 'restrictSelectors'] as const) {
    for (const selector of rules[key] ?? []) {
      try {
        compile(selector)
      } catch {
        problems.push({ field: `noiseRules.${key}`, message: `"${selector}" is not a valid CSS selector` })
      }
    }
  }
  for (const pattern of rules.ignorePatterns ?? []) {
    const compiled = compilePattern(pattern)
    if (compiled instanceof Error) {
      problems.push({
        field: 'noiseRules.ignorePatterns',
        message: `"${pattern}" is not a pattern we can run (${compiled.message.replace(/^error parsing regexp: /, '')}); ` +
          'patterns run in linear time, without lookarounds or backreferences'
      })
    }
  }
  const path = new RegExp(JSON_PATH_PATTERN)
  for (const p of rules.includePaths ?? []) {
    if (!path.test(p)) {
      problems.push({
        field: 'noiseRules.includePaths',
        message: `"${p}" is not a path we read: from $, by .key, ["key"], [n], .* or [*] (as in $.plans[*].price)`
      })
    }
  }
  return problems
}

/** The selectors whose elements alone are compared (includeSelectors, and restrictSelectors, its former name). */
const included = (rules: NoiseRules | undefined): string[] =>
  [...(rules?.includeSelectors ?? []), ...(rules?.restrictSelectors ?? [])]

export const hasSelectors = (rules: NoiseRules | undefined): boolean =>
  Boolean(rules?.ignoreSelectors?.length || included(rules).length)

/** The page with ignored elements removed and, when restricted, only the kept elements. */
export function applySelectors (html: string, rules: NoiseRules): string {
  const doc = parseDocument(html)
  for (const selector of rules.ignoreSelectors ?? []) {
    for (const el of selectAll(selector, doc)) DomUtils.removeElement(el)
  }
  const selectors = included(rules)
  if (selectors.length === 0) return render(doc)
  const kept: AnyNode[] = []
  for (const selector of selectors) kept.push(...selectAll(selector, doc))
  // An element inside another kept one is already part of it; document order is kept.
  const outer = DomUtils.uniqueSort(DomUtils.removeSubsets(kept))
  return `<html><body>${outer.map(el => render(el)).join('\n')}</body></html>`
}

/**
 * The masker of a page's patterns, for one reading of a page: each match becomes
 * `{ignored}`. A stored pattern that cannot run (checked before this engine) masks
 * nothing, and neither does any pattern past the page's work budget: they never hide a change.
 */
export function patternMasker (rules: NoiseRules | undefined): ((line: string) => string) | undefined {
  const patterns = (rules?.ignorePatterns ?? []).map(compilePattern).filter((p): p is RE2JS => !(p instanceof Error))
  if (patterns.length === 0) return undefined
  let work = 0
  return line => {
    const head = line.length > MAX_MASKED_LINE ? line.slice(0, MAX_MASKED_LINE) : line
    work += head.length * patterns.length
    if (work > MAX_PATTERN_WORK) return line
    const masked = patterns.reduce((out, re) => re.matcher(out).replaceAll('{ignored}'), head)
    return head === line ? masked : masked + line.slice(MAX_MASKED_LINE)
  }
}
