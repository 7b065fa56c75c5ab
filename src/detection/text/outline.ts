import type { AnyNode, Document, Element } from 'domhandler'
import { parseDom } from './dom.js'
import type { OutlineKind } from '../../vocabulary/outline.js'
import { parseLine } from '../../vocabulary/lines.js'
import { blockText, blockTextStart, hasText } from './node-text.js'
import { withoutPermalink, isLeftOut } from './extract.js'
import { endsSection, headingKey, placeOf, SELECT_OPTIONS, sectionsOf, selectIn } from './selectors.js'
import { is } from 'css-select'
import { BLOCK, CARD, CELL, HEADING, LANDMARK, LIST, PARAGRAPH, ROW, TABLE, tagOf } from './tags.js'

// A page's outline: the blocks a person reads, in order (sections with their heading,
// cards, paragraphs, lists, tables), each with a selector that selects it alone, for a
// person to tick rather than write. The selector is the most stable the page allows: an
// id without a number in it, a landmark, a heading's words (`:heading()`, and `:section()`
// for a heading and what follows it, see selectors.ts), before a class name, before a
// position. Each candidate is tried on the page itself: one that selects anything more, or
// anything else, is passed over.

export interface OutlineEntry {
  selector: string
  kind: OutlineKind
  depth: number
  text: string
  lines: number
}

/** The most blocks an outline shows, and how deep it goes. */
export const MAX_BLOCKS = 400
const MAX_DEPTH = 4
const MAX_TEXT = 160

/** What the outline shows a block of this tag as when it goes no deeper into it (see text/tags.ts). */
const leafKind = (name: string): OutlineKind | undefined => {
  const tag = tagOf(name)
  return tag & PARAGRAPH ? 'paragraph' : tag & LIST ? 'list' : tag & TABLE ? 'table' : undefined
}
const isLeaf = (name: string) => leafKind(name) !== undefined

const elementsOf = (node: AnyNode): Element[] =>
  'children' in node ? node.children.filter((c): c is Element => c.type === 'tag') : []
const levelOf = (el: Element) => tagOf(el.name) & HEADING
const isBlock = (el: Element) => (tagOf(el.name) & (BLOCK | CELL)) !== 0
const quoted = (s: string) => `"${s.replace(/["\\]/g, m => `\\${m}`)}"`
/** A heading's words as a selector names them: no permalink sign or section number, case kept. */
const headingWords = (el: Element) => {
  const words = withoutPermalink(blockText(el)).replace(/\s+/g, ' ').trim()
  const key = headingKey(words)
  return words.slice(words.toLowerCase().lastIndexOf(key))
}
const lineCount = (el: Element) => {
  let n = 0
  const walk = (e: Element) => {
    const blocks = elementsOf(e).filter(c => isBlock(c) && !isLeftOut(tagOf(c.name), c.attribs))
    // A table's row is one line, its cells side by side.
    if (blocks.length === 0 || (tagOf(e.name) & ROW) !== 0) {
      if (hasText(e)) n++
      return
    }
    for (const c of blocks) walk(c)
  }
  walk(el)
  return n
}
const excerpt = (text: string) => text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text

/** Whether an id or a class name lasts: no digits, which positions and builds put in them. */
const lasting = (name: string) => /^[A-Za-z][\w-]{0,40}$/.test(name) && !/\d/.test(name) && !/^(css|sc|jsx|svelte)-/.test(name)

export function outlineOf (html: string): { blocks: OutlineEntry[], truncated: boolean } {
  const doc = parseDom(html)
  const body = selectIn('body', doc)[0] ?? doc
  const blocks: OutlineEntry[] = []
  let truncated = false
  const selectors = new Selectors(doc)

  const push = (entry: Omit<OutlineEntry, 'selector'>, selector: string | undefined) => {
    if (!selector) return true
    if (blocks.length >= MAX_BLOCKS) {
      truncated = true
      return false
    }
    blocks.push({ selector, ...entry })
    return true
  }

  // What a container holds that a person reads: its blocks that extraction keeps and that
  // have words (an inline element is its parent's text).
  const contentOf = (el: AnyNode): Element[] => elementsOf(el).filter(c =>
    isBlock(c) &&
    !isLeftOut(tagOf(c.name), c.attribs) &&
    !(c.name === 'header' && el === body) &&
    hasText(c))
  // A wrapper of one block is no block of its own (an app's root, a layout's column, a card's head).
  const unwrapped = (el: Element): Element => {
    for (let inner = contentOf(el); inner.length === 1 && !isLeaf(el.name) && levelOf(el) === 0;
      inner = contentOf(el)) el = inner[0]
    return el
  }

  /** Blocks in order; a heading with the blocks after it up to the next of its level is a section. */
  const visit = (children: readonly Element[], depth: number): boolean => {
    const cards = cardsAmong(children)
    for (let i = 0; i < children.length; i++) {
      const el = children[i]
      const level = levelOf(el)
      if (level === 0) {
        if (!emit(el, depth, cards)) return false
        continue
      }
      let end = i + 1
      while (end < children.length && !endsSection(children[end], level)) end++
      const text = excerpt(withoutPermalink(blockText(el)))
      if (end === i + 1) {
        if (!push({ kind: 'heading', depth, text, lines: 1 }, selectors.of(el))) return false
        continue
      }
      const members = children.slice(i, end)
      // A container that starts with its heading is the section already.
      const whole = i === 0 && end === children.length && depth > 0
      if (!whole) {
        const lines = members.reduce((n, m) => n + lineCount(m), 0)
        const all = excerpt([text, ...members.slice(1).map(m => blockTextStart(m, MAX_TEXT))].join(' '))
        const selector = selectors.ofRun(headingWords(el), members)
        if (!push({ kind: 'section', depth, text: all, lines }, selector)) return false
      }
      const inner = whole ? depth : depth + 1
      if (inner <= MAX_DEPTH) {
        if (whole && !push({ kind: 'heading', depth, text, lines: 1 }, selectors.of(el))) return false
        if (!visit(members.slice(1), inner)) return false
      }
      i = end - 1
    }
    return true
  }

  const emit = (block: Element, depth: number, cards: ReadonlySet<Element>): boolean => {
    const el = unwrapped(block)
    const text = excerpt(blockTextStart(el, MAX_TEXT))
    const leaf = leafKind(el.name)
    const inner = leaf ? [] : contentOf(el)
    if (levelOf(el) > 0) return push({ kind: 'heading', depth, text, lines: 1 }, selectors.of(el))
    if (leaf || inner.length === 0) {
      return push({ kind: leaf ?? 'block', depth, text, lines: lineCount(el) }, selectors.of(el))
    }
    const kind: OutlineKind = cards.has(block) ? 'card' : firstHeading(el) ? 'section' : 'block'
    if (!push({ kind, depth, text, lines: lineCount(el) }, selectors.of(el))) return false
    return depth >= MAX_DEPTH || visit(inner, depth + 1)
  }

  let top = contentOf(body)
  while (top.length === 1 && !isLeaf(top[0].name) && levelOf(top[0]) === 0 && contentOf(top[0]).length > 0) {
    top = contentOf(top[0])
  }
  visit(top, 0)
  return { blocks, truncated }
}

/** Siblings that are cards: two or more of one tag, each with a heading of its own (a pricing page's plans). */
function cardsAmong (children: readonly Element[]): Set<Element> {
  const byTag = new Map<string, Element[]>()
  for (const c of children) {
    if ((tagOf(c.name) & CARD) === 0 || !firstHeading(c)) continue
    const group = byTag.get(c.name)
    if (group) group.push(c)
    else byTag.set(c.name, [c])
  }
  return new Set([...byTag.values()].filter(group => group.length >= 2).flat())
}

/**
 * The heading that names `el`: its first child that is one, or the heading of a child
 * that holds nothing but headings (a card's head, with its badge); a heading deeper names
 * a block inside `el` (a grid's first card), not `el`. With the tag on the way to it.
 */
function firstHeading (el: Element): { heading: Element, path: string[] } | undefined {
  for (const c of elementsOf(el)) {
    if (levelOf(c) > 0) return { heading: c, path: [] }
    const blocks = elementsOf(c).filter(g => isBlock(g) && !isLeftOut(tagOf(g.name), g.attribs))
    if (!isLeaf(c.name) && blocks.length > 0 && blocks.every(g => levelOf(g) > 0)) {
      return { heading: blocks[0], path: [c.name] }
    }
  }
  return undefined
}

/** The selectors of one parsed page, each checked to select its block alone. */
class Selectors {
  // How many elements have each id, tag, class and heading: a candidate is unique when what
  // it names is (one walk, instead of running each candidate over the whole page).
  private readonly counts = new Map<string, number>()

  constructor (doc: Document) {
    const count = (key: string) => this.counts.set(key, (this.counts.get(key) ?? 0) + 1)
    for (const el of selectIn('*', doc)) {
      count(`<${el.name}`)
      if (el.attribs.id) count(`#${el.attribs.id}`)
      for (const name of (el.attribs.class ?? '').split(/\s+/)) if (name) count(`.${el.name}.${name}`)
      if (levelOf(el) > 0) count(`h:${headingKey(blockText(el))}`)
    }
  }

  private once (key: string): boolean {
    return this.counts.get(key) === 1
  }

  /** Whether the selector selects `el` (its uniqueness is the candidate's own). */
  private matches (selector: string, el: Element): boolean {
    try {
      return is(el, selector, SELECT_OPTIONS)
    } catch {
      return false
    }
  }

  /**
   * A heading's section written as a run of siblings: by its heading's words, else by its
   * heading's id, else as the list of its members' own selectors. Never by its heading
   * alone, which would watch the heading and not the section.
   */
  ofRun (words: string, members: readonly Element[]): string | undefined {
    const parent = members[0].parent
    if (!parent) return undefined
    const isRun = (key: string) => {
      const run = [...sectionsOf(parent, key)]
      return run.length === members.length && run.every((m, i) => m === members[i])
    }
    if (words && this.once(`h:${headingKey(blockText(members[0]))}`) && isRun(headingKey(words))) {
      return `:section(${quoted(words)})`
    }
    const id = members[0].attribs.id
    if (id && lasting(id) && /^[\w-]+$/.test(id) && this.once(`#${id}`) && isRun(`#${id}`)) return `:section(#${id})`
    const each = members.map(m => this.of(m))
    return each.every(s => s !== undefined) ? each.join(', ') : undefined
  }

  of (el: Element): string | undefined {
    for (const [candidate, unique] of this.candidates(el)) {
      if (unique && this.matches(candidate, el)) return candidate
    }
    return this.positional(el)
  }

  /** Selectors that may name `el`, most lasting first, each with whether it can name nothing else. */
  private * candidates (el: Element): Generator<[string, boolean]> {
    const id = el.attribs.id
    if (id && lasting(id)) yield [`#${id}`, this.once(`#${id}`)]
    if ((tagOf(el.name) & LANDMARK) !== 0) yield [el.name, this.once(`<${el.name}`)]
    const named = (heading: Element) => {
      const words = headingWords(heading)
      return words ? { words: quoted(words), unique: this.once(`h:${headingKey(blockText(heading))}`) } : undefined
    }
    if (levelOf(el) > 0) {
      const h = named(el)
      if (h) yield [`:heading(${h.words})`, h.unique]
    }
    const found = isLeaf(el.name) ? undefined : firstHeading(el)
    const h = found && named(found.heading)
    if (found && h) yield [`${el.name}:has(> ${[...found.path, ''].join(' > ')}:heading(${h.words}))`, h.unique]
    // The block's place after the heading before it, among its siblings.
    let steps = 0
    for (let s = el.prev; s && steps < 8; s = s.prev) {
      if (s.type !== 'tag') continue
      if (levelOf(s) > 0) {
        const before = named(s)
        if (before) yield [`:heading(${before.words}) ${'+ * '.repeat(steps)}+ ${el.name}`, before.unique]
        break
      }
      steps++
    }
    for (const name of (el.attribs.class ?? '').split(/\s+/)) {
      if (name && lasting(name)) yield [`${el.name}.${name}`, this.once(`.${el.name}.${name}`)]
    }
  }

  /** Its place under the nearest ancestor that has a selector of its own, the page's body at last. */
  private positional (el: Element): string | undefined {
    const parent = el.parent
    if (!parent || parent.type !== 'tag') return undefined
    const place = placeOf(el)
    if (!place) return undefined
    const step = place.ofType + place.ofTypeLast === 0 ? el.name : `${el.name}:nth-of-type(${place.ofType + 1})`
    // Under a parent named alone, the k-th child of its tag is one element.
    const above = parent.name === 'body' || parent.name === 'html' ? parent.name : this.of(parent)
    if (!above) return undefined
    const selector = `${above} > ${step}`
    return this.matches(selector, el) ? selector : undefined
  }
}

const selectedText = (doc: AnyNode, selector: string): string => {
  try {
    return selectIn(selector, doc).map(blockText).join('\n')
  } catch {
    return ''
  }
}

/** A change's changed lines, as its diff writes them: those it removed and those it added. */
export interface ChangedLines { removed: readonly string[], added: readonly string[] }

/** Text with its spaces as one, to find a diff's line in a block's text (which runs its lines together). */
const spaced = (text: string) => text.replace(/\s+/g, ' ').trim()

/**
 * Where each block's text moved in a page's versions, oldest first: for each block, the
 * indexes of the versions whose text of it is not the one before's. A block whose text
 * did not move holds blocks that did not either: they are not looked at (most of a page
 * holds still), and only two versions are parsed at a time. `changes`: the change
 * recorded on arrival of each version, if any; a move is `reported` when that change's
 * own lines are in the block (a line it removed in the block before, one it added in the
 * block after), not when the change was of another part of the page.
 */
export function movesOf (
  blocks: ReadonlyArray<Pick<OutlineEntry, 'selector' | 'depth'>>,
  versions: readonly string[],
  changes: ReadonlyArray<ChangedLines | undefined> = []
): { moves: number[][], reported: number[][] } {
  const moves: number[][] = blocks.map(() => [])
  const reported: number[][] = blocks.map(() => [])
  const read = (html: string) => {
    const doc = parseDom(html)
    const texts = new Map<number, string>()
    return (b: number) => {
      let text = texts.get(b)
      if (text === undefined) {
        text = selectedText(doc, blocks[b].selector)
        texts.set(b, text)
      }
      return text
    }
  }
  // A row's cells are each in the block's text, whatever stands between them there.
  const holds = (text: string, lines: readonly string[]) => {
    const inBlock = spaced(text)
    return lines.some(l => {
      const parts = (parseLine(l).cells ?? [parseLine(l).text]).map(spaced).filter(Boolean)
      return parts.length > 0 && parts.every(part => inBlock.includes(part))
    })
  }
  let before: ((b: number) => string) | undefined
  versions.forEach((html, v) => {
    const now = read(html)
    if (before) {
      const change = changes[v]
      for (let b = 0; b < blocks.length; b++) {
        if (now(b) !== before(b)) {
          moves[b].push(v)
          if (change && (holds(before(b), change.removed) || holds(now(b), change.added))) reported[b].push(v)
          continue
        }
        const depth = blocks[b].depth
        while (b + 1 < blocks.length && blocks[b + 1].depth > depth) b++
      }
    }
    before = now
  })
  return { moves, reported }
}

type Box = [x: number, y: number, width: number, height: number]

/** An element's path from <html>, as the browser keyed its box (see PictureBoxes). */
function pathOf (el: Element): string | undefined {
  const steps: number[] = []
  let node: Element = el
  while (node.name !== 'html') {
    const parent = node.parent
    if (!parent || parent.type !== 'tag') return undefined
    steps.push(elementsOf(parent).indexOf(node))
    node = parent
  }
  return ['0', ...steps.reverse()].join('.')
}

/**
 * Where each block is on a picture of the page: the box around what its selector selects
 * in the page the picture was taken of (null: nothing there, or no box kept for it).
 */
export function boxesOf (
  blocks: ReadonlyArray<Pick<OutlineEntry, 'selector'>>, html: string, boxes: Readonly<Record<string, Box>>
): Array<{ x: number, y: number, width: number, height: number } | null> {
  const doc = parseDom(html)
  return blocks.map(b => {
    let found: Element[]
    try {
      found = selectIn(b.selector, doc)
    } catch {
      return null
    }
    const kept = found.map(el => { const p = pathOf(el); return p === undefined ? undefined : boxes[p] })
      .filter((box): box is Box => box !== undefined)
    if (kept.length === 0) return null
    const [x0, y0] = [Math.min(...kept.map(k => k[0])), Math.min(...kept.map(k => k[1]))]
    const x1 = Math.max(...kept.map(k => k[0] + k[2]))
    const y1 = Math.max(...kept.map(k => k[1] + k[3]))
    return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 }
  })
}
