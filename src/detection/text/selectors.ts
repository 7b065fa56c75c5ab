import { selectAll, type Options } from 'css-select'
import { isTag, type AnyNode, type Element } from 'domhandler'
import nthCheck from 'nth-check'
import { blockText } from './node-text.js'
import { withoutPermalink } from './extract.js'
import { HEADING, tagOf } from './tags.js'

// The selectors a page's noise rules are written in: CSS as css-select reads it, and two
// pseudo-classes of ours that name a part of a page by its heading, which outlives what a
// position or a class name does (a section moved, a stylesheet rebuilt):
//   :heading("Data we collect")  a heading whose words are these (case, spaces and a leading
//                                section number aside: "4. Data we collect" is the same);
//   :section("Data we collect")  that heading and what follows it up to the next heading of
//                                its level or above, as Markdown-rendered pages write a
//                                section: a run of siblings, not an element of its own.
// A section's members are found in one walk of their parent's children, remembered for
// the parent (a flat page of 40,000 elements would otherwise walk back over its siblings
// for each); `:section` is still refused inside `:has()` (noise-rules.ts), where it would
// run once per element and descendant.

/** A heading's words as `:heading` compares them: no permalink sign, number, case or extra space. */
export function headingKey (text: string): string {
  return withoutPermalink(text).toLowerCase().replace(/\s+/g, ' ').trim()
    .replace(/^(§+\s*|(section|article|art\.)\s+)?([0-9]+(\.[0-9]+)*[.):]?|[ivxlc]+[.):])\s+(?=\S)/, '')
}

const levels = new WeakMap<AnyNode, number>()
/** An element's heading level (1–6), 0 when it is none. */
function levelOf (node: AnyNode): number {
  if (node.type !== 'tag') return 0
  let level = levels.get(node)
  if (level === undefined) {
    level = tagOf(node.name) & HEADING
    levels.set(node, level)
  }
  return level
}

/** The one section rule: a heading's section runs up to a heading of its level or above, which ends it. */
export const endsSection = (node: AnyNode, level: number): boolean => {
  const l = levelOf(node)
  return l > 0 && l <= level
}

const keys = new WeakMap<AnyNode, string>()
function keyOf (node: Element): string {
  let key = keys.get(node)
  if (key === undefined) {
    key = headingKey(blockText(node))
    keys.set(node, key)
  }
  return key
}

/** A pseudo-class's argument as written, quoted or not (css-select hands it over with its quotes). */
function argument (value: string | null | undefined): string {
  const v = (value ?? '').trim()
  const quoted = v.length >= 2 && (v[0] === '"' || v[0] === "'") && v.at(-1) === v[0]
  return quoted ? v.slice(1, -1).replace(/\\(.)/g, '$1') : v
}

/** The keys of the pseudo-classes' arguments as written, each read once (a page's rules name a few hundred at most). */
const argumentKeys = new Map<string, string>()
function keyOfArgument (value: string | null | undefined, keyOf: (arg: string) => string): string {
  const id = `${keyOf === headingKey ? 'h' : 's'}${value ?? ''}`
  let key = argumentKeys.get(id)
  if (key === undefined) {
    if (argumentKeys.size >= 10_000) argumentKeys.clear()
    key = keyOf(argument(value))
    argumentKeys.set(id, key)
  }
  return key
}

const isHeading = (node: AnyNode, wanted: string): boolean =>
  levelOf(node) > 0 && keyOf(node as Element) === wanted

/**
 * What a `:section()` names its heading by: its words (`:section("Data we collect")`), or
 * its id (`:section(#plan-types)`), for a heading whose words are not the page's only ones.
 */
export const sectionKey = (arg: string): string => /^#[\w-]+$/.test(arg) ? arg : headingKey(arg)

const sections = new WeakMap<AnyNode, Map<string, Set<AnyNode>>>()
/**
 * The children of `parent` in the sections its headings named by `wanted` (sectionKey)
 * start: each heading and what follows it, up to a heading of its level or above.
 */
export function sectionsOf (parent: AnyNode, wanted: string): Set<AnyNode> {
  let byKey = sections.get(parent)
  if (!byKey) sections.set(parent, byKey = new Map())
  let members = byKey.get(wanted)
  if (members) return members
  members = new Set()
  const id = wanted.startsWith('#') ? wanted.slice(1) : undefined
  const starts = (heading: Element) => id !== undefined ? heading.attribs.id === id : keyOf(heading) === wanted
  // The level of the section being collected (0: none).
  let open = 0
  for (const child of 'children' in parent ? parent.children : []) {
    const level = levelOf(child)
    if (open > 0 && endsSection(child, open)) open = 0
    if (level > 0 && open === 0 && starts(child as Element)) open = level
    if (open > 0 && child.type === 'tag') members.add(child)
  }
  byKey.set(wanted, members)
  return members
}

/** An element's place among its parent's elements: from the first and the last, of all and of its tag (0-based). */
export interface Place { nth: number, nthLast: number, ofType: number, ofTypeLast: number }

/**
 * The places of a parent's elements, counted once per list of children: css-select's
 * :nth-child walks back over the siblings for each element, and a list of 20,000 cards
 * cost its square. A list rebuilt (removeNodes in dom.ts) is a new key.
 */
const places = new WeakMap<AnyNode[], Map<AnyNode, Place>>()

export function placeOf (el: Element): Place | undefined {
  const siblings = el.parent?.children
  if (!siblings) return undefined
  let known = places.get(siblings)
  if (!known) {
    known = new Map()
    const elements = siblings.filter(isTag)
    const ofType = new Map<string, number>()
    const typeTotal = new Map<string, number>()
    for (const e of elements) typeTotal.set(e.name, (typeTotal.get(e.name) ?? 0) + 1)
    elements.forEach((e, i) => {
      const t = ofType.get(e.name) ?? 0
      ofType.set(e.name, t + 1)
      known!.set(e, { nth: i, nthLast: elements.length - 1 - i, ofType: t, ofTypeLast: typeTotal.get(e.name)! - 1 - t })
    })
    places.set(siblings, known)
  }
  return known.get(el)
}

/** css-select's four :nth-… pseudo-classes, each answered from the places counted once (placeOf). */
function nthPseudo (which: keyof Place) {
  const formulas = new Map<string, (n: number) => boolean>()
  return (el: Element, value?: string | null): boolean => {
    const formula = value ?? ''
    let check = formulas.get(formula)
    if (!check) formulas.set(formula, check = nthCheck(formula))
    const place = placeOf(el)
    return place !== undefined && check(place[which])
  }
}

export const SELECT_OPTIONS: Options<AnyNode, Element> = {
  pseudos: {
    'nth-child': nthPseudo('nth'),
    'nth-last-child': nthPseudo('nthLast'),
    'nth-of-type': nthPseudo('ofType'),
    'nth-last-of-type': nthPseudo('ofTypeLast'),
    // The argument's key is read once per selector, not once per element the selector visits.
    heading: (el, value) => levelOf(el) > 0 && isHeading(el, keyOfArgument(value, headingKey)),
    section: (el, value) => {
      const parent = el.parent
      return parent ? sectionsOf(parent, keyOfArgument(value, sectionKey)).has(el) : false
    }
  }
}

/** The elements a selector of a page's rules selects in a parsed page, in document order. */
export const selectIn = (selector: string, root: AnyNode | AnyNode[]): Element[] =>
  selectAll(selector, root, SELECT_OPTIONS)
