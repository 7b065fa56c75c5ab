import { DomHandler, type AnyNode, type Document, type DomHandlerOptions, type ParentNode } from 'domhandler'
import { DomUtils, Parser, type Handler, type ParserOptions } from 'htmlparser2'

// The one way a page, a feed or a document becomes a tree: htmlparser2's DOM with its
// nesting bounded. htmlparser2's Parser keeps its open elements in an array it unshifts
// on every opening tag, so a tag costs the depth, and a few megabytes of nested tags take
// minutes (80,000 unclosed <a> took 2 s, a 9 KB gzipped sitemap of three million froze the
// service); a tree that deep also overflows the stack of every recursive walk over it.
// Past MAX_DEPTH, the innermost element is closed before the next one opens: what is
// nested deeper becomes its siblings, its text all kept. No page a person reads nests so deep.

/** The deepest an element is nested in a tree read here. */
export const MAX_DEPTH = 256

/** What of htmlparser2's Parser the bound reaches into (its own fields, private to its types). */
interface ParserInternals {
  stack: string[]
  foreignContext: boolean[]
  cbs: Partial<Handler>
  emitOpenTag: (name: string) => void
}

/** htmlparser2's Parser for `handler` whose open elements never nest deeper than MAX_DEPTH. */
export function boundedParser (handler: Partial<Handler>, options?: ParserOptions): Parser {
  const parser = new Parser(handler, options)
  const inside = parser as unknown as ParserInternals
  const open = inside.emitOpenTag.bind(parser)
  inside.emitOpenTag = (name: string) => {
    if (inside.stack.length >= MAX_DEPTH) inside.cbs.onclosetag?.(inside.stack.shift()!, true)
    if (inside.foreignContext.length > MAX_DEPTH) inside.foreignContext.length = MAX_DEPTH
    open(name)
  }
  return parser
}

/** An HTML (or, with `xmlMode`, XML) document as htmlparser2's DOM, its nesting bounded. */
export function parseDom (markup: string, options?: ParserOptions & DomHandlerOptions): Document {
  const handler = new DomHandler(undefined, options)
  boundedParser(handler, options).end(markup)
  return handler.root
}

/** An RSS or Atom feed, as htmlparser2's parseFeed reads it, its nesting bounded. */
export function parseFeedBounded (xml: string): ReturnType<typeof DomUtils.getFeed> {
  return DomUtils.getFeed(parseDom(xml, { xmlMode: true }).children)
}

/**
 * Removes `nodes` from their trees, each parent's children rebuilt once: DomUtils.removeElement
 * splices one at a time, and a page's thousands of look-alike cards cost their square.
 */
export function removeNodes (nodes: Iterable<AnyNode>): void {
  const byParent = new Map<ParentNode, Set<AnyNode>>()
  for (const node of nodes) {
    if (!node.parent) continue
    const gone = byParent.get(node.parent)
    if (gone) gone.add(node)
    else byParent.set(node.parent, new Set([node]))
  }
  for (const [parent, gone] of byParent) {
    const kept = parent.children.filter(c => !gone.has(c))
    kept.forEach((c, i) => {
      c.prev = kept[i - 1] ?? null
      c.next = kept[i + 1] ?? null
    })
    for (const node of gone) {
      node.parent = null
      node.prev = null
      node.next = null
    }
    parent.children = kept
  }
}
