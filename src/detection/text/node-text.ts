import type { AnyNode } from 'domhandler'
import { isCents, isLeftOut, isSkipped, withCents } from './extract.js'
import { BLOCK, CELL, STRUCK, tagOf } from './tags.js'

// A DOM element's text as a person reads it, as extraction writes it: what the outline, the
// selectors and the structured readers (pricing/, changelog/) read of an element.

/**
 * The text a person reads in `node`, as extraction writes it (the one table of text/tags.ts):
 * skipped elements (isSkipped) left out, hidden ones kept (a state a reader reads), blocks apart, spaces collapsed.
 */
export const blockText = (node: AnyNode): string => textOf(node, 0)

/** Whether `node` has text a person reads: blockText(node) !== '', each node's answer found once. */
export function hasText (node: AnyNode): boolean {
  const known = textFound.get(node)
  if (known !== undefined) return known
  const found = node.type === 'text'
    ? /\S/.test(node.data)
    : (node.type === 'tag' || node.type === 'script' || node.type === 'style') &&
      !isSkipped(tagOf(node.name), node.attribs) && node.children.some(hasText)
  textFound.set(node, found)
  return found
}
// A chain of wrappers asks of every level: the answer of each node is kept for its tree's life.
const textFound = new WeakMap<AnyNode, boolean>()

/**
 * The start of blockText(node): its first `chars` characters at least (when it has that
 * many), read without walking the rest of a large block.
 */
export const blockTextStart = (node: AnyNode, chars: number): string => textOf(node, 0, chars)

/** The text of `node` as a value reads it: without struck text (a price struck through is no longer the price). */
export const currentText = (node: AnyNode): string => textOf(node, STRUCK)

function textOf (node: AnyNode, leave: number, chars = Infinity): string {
  const out: string[] = []
  // Past `chars` characters that are not spaces, the text collapsed holds `chars` at least: the walk ends.
  let read = 0
  const walk = (n: AnyNode) => {
    if (read > chars) return
    if (n.type === 'text') {
      out.push(n.data)
      if (chars !== Infinity) read += n.data.replace(/\s+/g, '').length
    } else if (n.type === 'tag' || n.type === 'script' || n.type === 'style') {
      const tag = tagOf(n.name)
      if ((tag & leave) !== 0 || isSkipped(tag, n.attribs)) return
      if (isCents(n.name, n.attribs)) {
        const cents = n.children.map(c => textOf(c, leave)).join('')
        let last = out.length - 1
        while (last >= 0 && !/\S/.test(out[last])) last--
        const joined = last >= 0 ? withCents(out[last], cents) : ''
        if (last >= 0 && joined !== out[last] + cents) {
          out.length = last
          out.push(joined)
          return
        }
      }
      const block = (tag & (BLOCK | CELL)) !== 0
      if (block) out.push(' ')
      for (const c of n.children) walk(c)
      if (block) out.push(' ')
    }
  }
  walk(node)
  return out.join('').replace(/\s+/g, ' ').trim()
}

/**
 * The lines extraction writes whose nearest block is `node`: its text up to each block
 * inside it (a <br>, a <p>), which writes lines of its own. A reader claims a changed line
 * by these, so that "$49<br>per user / month" is claimed as the two lines the text has.
 */
export function ownLines (node: AnyNode): string[] {
  const out: string[] = []
  let run = ''
  const end = () => {
    const t = run.replace(/\s+/g, ' ').trim()
    if (t) out.push(t)
    run = ''
  }
  const walk = (n: AnyNode) => {
    if (n.type === 'text') run += n.data
    else if (n.type === 'tag' || n.type === 'script' || n.type === 'style') {
      const tag = tagOf(n.name)
      // What extraction leaves out (hidden, a banner) is no line of the text either.
      if (isLeftOut(tag, n.attribs)) return
      if (isCents(n.name, n.attribs)) {
        run = withCents(run, n.children.map(c => textOf(c, 0)).join(''))
        return
      }
      if (n !== node && (tag & (BLOCK | CELL)) !== 0) {
        end()
        return
      }
      for (const c of n.children) walk(c)
    }
  }
  walk(node)
  end()
  return out
}
