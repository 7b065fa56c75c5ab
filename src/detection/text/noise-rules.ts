import { compile } from 'css-select'
import { parse as parseSelector, type Selector } from 'css-what'
import render from 'dom-serializer'
import type { AnyNode } from 'domhandler'
import { DomUtils } from 'htmlparser2'
import { parseDom, removeNodes } from './dom.js'
import { RE2JS } from 're2js'
import { JSON_PATH_PATTERN, type NoiseRules } from '../../vocabulary/core.js'
import { SELECT_OPTIONS, selectIn } from './selectors.js'

// A page's own noise rules: CSS selectors to leave out or to keep, and text patterns to
// mask. Checked when a client sets them, applied before extraction and comparison.
// Patterns are a tenant's input run on every check of its page: they run on RE2's
// linear-time engine (re2js, pure JavaScript), so no pattern can take exponential time,
// on at most MAX_MASKED_LINE characters of a line. Linear is not cheap: the engine's
// work per character grows with the compiled program (`.{0,1000}` four times is 8,000
// instructions, and took seconds a line), so a pattern is priced by its program's size,
// and a page's patterns by characters × instructions. Selectors are priced by their
// shape: `:has()` with a sibling combinator inside, or within another `:has()`, reads the
// page once per element per sibling (20 s on 2,000 paragraphs) and is refused, as is our
// `:section()` there (it reads an element's siblings: see selectors.ts).
// checkNoiseRules is costly itself (compiling): it runs on the analysis threads.

const MAX_MASKED_LINE = 2_000
/** The most instructions one pattern's compiled program may have (`\d+ (users|visits)` has 19). */
export const MAX_PATTERN_PROGRAM = 1_000
/**
 * What reading one character costs a pattern, in the engine's steps: its program's
 * instructions, and this much more that every pattern pays (measured: 0.02 µs a step on
 * large programs; 0.1–0.7 µs a character on small ones).
 */
const STEPS_PER_CHARACTER = 25
/**
 * How many steps a page's patterns may take in all, about two seconds of the engine:
 * lines past it are compared unmasked (reported, never hidden).
 */
const MAX_PATTERN_WORK = 100_000_000

/** A pattern compiled for the linear-time engine (case-insensitive), or why it cannot run. */
function compilePattern (pattern: string): RE2JS | Error {
  try {
    return RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE)
  } catch (err) {
    return err as Error
  }
}

/** Why a parsed selector is too costly to run on every check, if it is: a :has() reading siblings or nested. */
function costlySelector (selector: Selector[][], withinHas = false): string | undefined {
  for (const token of selector.flat()) {
    if (withinHas && token.type === 'pseudo' && token.name === 'section') {
      return ':section() within :has() reads the page once per element and sibling'
    }
    if (withinHas && (token.type === 'sibling' || token.type === 'adjacent')) {
      return ':has() with a sibling combinator (~ or +) inside reads the page once per element and sibling'
    }
    if (token.type !== 'pseudo' || !Array.isArray(token.data)) continue
    if (token.name === 'has' && withinHas) return ':has() within :has() reads the page once per element and descendant'
    const inner = costlySelector(token.data, withinHas || token.name === 'has')
    if (inner) return inner
  }
  return undefined
}

/** A problem with a client's rules: the field, and what is wrong in words a person can act on. */
export interface RulesProblem { field: string, message: string }

/** Problems with a client's rules, by field; empty when they are usable at a bounded cost. */
export function checkNoiseRules (rules: NoiseRules): RulesProblem[] {
  const problems: RulesProblem[] = []
  for (const key of ['ignoreSelectors', 'includeSelectors', 'restrictSelectors'] as const) {
    for (const selector of rules[key] ?? []) {
      let costly: string | undefined
      try {
        compile(selector, SELECT_OPTIONS)
        costly = costlySelector(parseSelector(selector))
      } catch {
        problems.push({ field: `noiseRules.${key}`, message: `"${selector}" is not a valid CSS selector` })
        continue
      }
      if (costly) {
        problems.push({
          field: `noiseRules.${key}`,
          message: `"${selector}" is too costly to run on every check: ${costly}; name the elements themselves ` +
            '(a class, an id, a descendant)'
        })
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
    } else if (compiled.programSize() > MAX_PATTERN_PROGRAM) {
      problems.push({
        field: 'noiseRules.ignorePatterns',
        message: `"${pattern}" is too costly to run on every line: it compiles to ${compiled.programSize()} ` +
          `instructions, and a pattern may have ${MAX_PATTERN_PROGRAM}; use smaller repetition counts ` +
          '(`.{0,1000}` is a thousand instructions; `.*` is two)'
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
  const doc = parseDom(html)
  for (const selector of rules.ignoreSelectors ?? []) removeNodes(selectIn(selector, doc))
  const selectors = included(rules)
  if (selectors.length === 0) return render(doc)
  const kept: AnyNode[] = []
  for (const selector of selectors) kept.push(...selectIn(selector, doc))
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
  // A pattern stored before programs were priced costs what its program says, like any other.
  const perCharacter = patterns.reduce((n, p) => n + STEPS_PER_CHARACTER + p.programSize(), 0)
  let work = 0
  return line => {
    const head = line.length > MAX_MASKED_LINE ? line.slice(0, MAX_MASKED_LINE) : line
    work += head.length * perCharacter
    if (work > MAX_PATTERN_WORK) return line
    const masked = patterns.reduce((out, re) => re.matcher(out).replaceAll('{ignored}'), head)
    return head === line ? masked : masked + line.slice(MAX_MASKED_LINE)
  }
}
