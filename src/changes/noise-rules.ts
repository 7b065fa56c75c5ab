import { compile, selectAll } from 'css-select'
import render from 'dom-serializer'
import type { AnyNode } from 'domhandler'
import { parseDocument, DomUtils } from 'htmlparser2'
import type { NoiseRules } from '../domain/vocabulary.js'

// A page's own noise rules: CSS selectors to leave out or to keep, and text patterns to
// mask. Checked when a client sets them, applied before extraction and comparison.

// A quantified group that itself ends in a quantifier, (a+)+ and the like: the shape
// of catastrophic backtracking.
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}]\)\s*[+*{]/

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
    try {
      // eslint-disable-next-line no-new -- compiling it is the check
      new RegExp(pattern, 'i')
    } catch {
      problems.push({ field: 'noiseRules.ignorePatterns', message: `"${pattern}" is not a valid regular expression` })
      continue
    }
    if (NESTED_QUANTIFIER.test(pattern)) {
      problems.push({
        field: 'noiseRules.ignorePatterns',
        message: `"${pattern}" nests quantifiers, which can take exponential time`
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

export function patternMasker (rules: NoiseRules | undefined): ((line: string) => string) | undefined {
  const patterns = (rules?.ignorePatterns ?? []).map(p => new RegExp(p, 'gi'))
  if (patterns.length === 0) return undefined
  return line => patterns.reduce((out, re) => out.replace(re, '{ignored}'), line)
}
