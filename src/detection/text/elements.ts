import { Tokenizer } from 'htmlparser2'

// HTML's elements as events (open with attributes, text, close), built on htmlparser2's
// tokenizer with the same rules as its Parser: void elements, the tags whose opening
// closes an open one (<li> an <li>, <td> a <td>, a block a <p>), closing tags that match
// an outer element close everything inside it, `</p>` and `</br>` on their own, and
// self-closing tags. The Parser's own bookkeeping (a stack it shifts and unshifts, five
// set lookups per tag, every attribute's value) was a third of a page's extraction time;
// here a tag costs a slice and two lookups, and only the attributes asked for are read.

export type Attributes = Readonly<Record<string, string>>

export interface ElementHandler {
  open(name: string, attributes: Attributes): void
  /** `at`: where the text stands in the HTML (its first character's offset), as htmlparser2's DOM counts. */
  text(data: string, at: number): void
  close(name: string): void
}

const VOID = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr'
])

// htmlparser2's table (Parser.js): an element opening closes these, while they are the innermost open.
const P = new Set(['p'])
const FORM = new Set(['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea'])
const DD_DT = new Set(['dd', 'dt'])
const RT_RP = new Set(['rt', 'rp'])
const TABLE_SECTION = new Set(['thead', 'tbody'])
const IMPLIES_CLOSE = new Map<string, ReadonlySet<string>>([
  ['tr', new Set(['tr', 'th', 'td'])],
  ['th', new Set(['th'])],
  ['td', new Set(['thead', 'th', 'td'])],
  ['body', new Set(['head', 'link', 'script'])],
  ['li', new Set(['li'])],
  ['option', new Set(['option'])],
  ['optgroup', new Set(['optgroup', 'option'])],
  ['dd', DD_DT],
  ['dt', DD_DT],
  ['rt', RT_RP],
  ['rp', RT_RP],
  ['tbody', TABLE_SECTION],
  ['tfoot', TABLE_SECTION],
  ...['select', 'input', 'output', 'button', 'datalist', 'textarea'].map(t => [t, FORM] as const),
  ...[
    'p',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'address',
    'article',
    'aside',
    'blockquote',
    'details',
    'div',
    'dl',
    'fieldset',
    'figcaption',
    'figure',
    'footer',
    'form',
    'header',
    'hr',
    'main',
    'nav',
    'ol',
    'pre',
    'section',
    'table',
    'ul'
  ].map(t => [t, P] as const)
])

const NO_ATTRIBUTES: Attributes = Object.freeze({})
const character = (cp: number) => (cp > 0x10ffff ? '\uFFFD' : String.fromCodePoint(cp))

/** Walks `html`, calling `handler` for each element and text; attributes are those named in `wanted`. */
export function walkElements (html: string, handler: ElementHandler, wanted: ReadonlySet<string>): void {
  const stack: string[] = []
  let tag = ''
  let tagIsVoid = false
  let attributes: Record<string, string> | null = null
  let attribute = ''
  let value = ''

  const begin = (name: string) => {
    const closes = IMPLIES_CLOSE.get(name)
    if (closes) while (stack.length > 0 && closes.has(stack[stack.length - 1])) handler.close(stack.pop()!)
    tagIsVoid = VOID.has(name)
    if (!tagIsVoid) stack.push(name)
    tag = name
    attributes = null
  }
  const opened = () => {
    handler.open(tag, attributes ?? NO_ATTRIBUTES)
    if (tagIsVoid) handler.close(tag)
  }

  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      onopentagname (start, end) {
        begin(html.slice(start, end).toLowerCase())
      },
      onattribname (start, end) {
        const name = html.slice(start, end).toLowerCase()
        attribute = wanted.has(name) ? name : ''
        value = ''
      },
      onattribdata (start, end) {
        if (attribute) value += html.slice(start, end)
      },
      onattribentity (cp) {
        if (attribute) value += character(cp)
      },
      onattribend () {
        // The first of a repeated attribute counts, as in the browser.
        if (attribute && !(attributes !== null && attribute in attributes)) (attributes ??= {})[attribute] = value
        attribute = ''
      },
      onopentagend () {
        opened()
      },
      onselfclosingtag () {
        opened()
        if (stack[stack.length - 1] === tag) handler.close(stack.pop()!)
      },
      onclosetag (start, end) {
        const name = html.slice(start, end).toLowerCase()
        if (VOID.has(name)) {
          if (name === 'br') {
            handler.open('br', NO_ATTRIBUTES)
            handler.close('br')
          }
          return
        }
        const at = stack.lastIndexOf(name)
        if (at !== -1) {
          while (stack.length > at) handler.close(stack.pop()!)
        } else if (name === 'p') {
          begin('p')
          opened()
          handler.close(stack.pop()!)
        }
      },
      ontext (start, end) {
        handler.text(html.slice(start, end), start)
      },
      ontextentity (cp, end) {
        handler.text(character(cp), end - 1)
      },
      oncdata () {},
      oncomment () {},
      ondeclaration () {},
      onprocessinginstruction () {},
      onend () {
        while (stack.length > 0) handler.close(stack.pop()!)
      }
    }
  )
  tokenizer.write(html)
  tokenizer.end()
}
