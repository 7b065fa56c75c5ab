import { walkElements, type Attributes } from './elements.js'
import { isBoilerplateLink } from '../words/lexicon.js'
import { writeLine, writeRow } from '../../vocabulary/lines.js'
import { BLOCK, CELL, CONTENT, HEADING, ITEM, ROW, SKIP, tagOf } from './tags.js'

// HTML → structured text, one line per block: headings as "# …" (one # per level),
// list items as "- …", table rows as "| a | b |", other blocks as plain text. What a
// reader never sees, or sees on every page alike, is dropped.

export interface ExtractedPage {
  title: string
  /** The page's text, one block per line. */
  lines: string[]
  headings: string[]
  links: Array<{ url: string, text: string }>
  /** The `lang` of the <html> element, as the page wrote it. */
  language?: string
  /** The lines (indexes) written inside a price's or plan's markup (see PRICE_MARKUP). */
  priceLines: number[]
  /**
   * Where each line stands in the HTML: the offset of its first character (a row's: its first
   * cell's), as htmlparser2's DOM counts (`startIndex`). A reader claims lines by this.
   */
  sources: number[]
}

// The attributes extraction reads; the walk leaves the rest unread.
const ATTRIBUTES = new Set(['hidden', 'aria-hidden', 'role', 'style', 'id', 'class', 'href', 'lang', 'itemprop'])
// A price's or plan's element, as shops and pricing pages mark them: schema.org's
// properties, and class names in the seven languages' words for price, plan and tariff.
const PRICE_ITEMPROP = /(^|\s)(price|lowprice|highprice|offers|pricespecification)(\s|$)/i
const PRICE_CLASS =
  /(^|[\s_-])(price|prices|pricing|plan|plans|tarif|tarife|tarifs|tariff|preis|preise|prix|precio|precios|prezzo|prezzi|prijs|prijzen|preco|precos|preço|preços)([\s_-]|$)/i
const isPriceMarkup = (name: string, attrs: Attributes) =>
  name !== 'body' && name !== 'html' && name !== 'main' &&
  ((attrs.itemprop !== undefined && PRICE_ITEMPROP.test(attrs.itemprop)) ||
    (attrs.class !== undefined && PRICE_CLASS.test(attrs.class)))
const SKIP_ROLES = new Set(['navigation', 'contentinfo', 'banner', 'alertdialog', 'dialog'])
// Cookie and consent banners, by the class or id names their vendors and themes use: a
// banner's name, never a topic's. A privacy policy's own "Cookies", "Consent" or "GDPR"
// section (id="cookies", class="cookie-policy") is content, and its changes are the page's.
const BANNER = new RegExp('(^|[\\s_-])(onetrust|cookiebot|cc-window|cc-banner|osano|truste|didomi|usercentrics|' +
  '(cookies?|consent|gdpr|ccpa)[-_]?(banner|bar|notice|consent|popup|modal|overlay|wall|box|law|message|manager))' +
  '([\\s_-]|$)', 'i')
const HIDDEN_STYLE = /(display\s*:\s*none|visibility\s*:\s*hidden)/i
// An inline element its page lays out as a block ("<span style="display:block">Suite 398</span>"):
// its text is a line of its own, not run into the text before it.
const BLOCK_STYLE = /display\s*:\s*(?:block|flex|grid|list-item|table)\b/i
// Control characters other than white space (NUL above all, which PostgreSQL's text
// cannot hold) show as nothing in a browser.
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const INVISIBLE = /[\x00-\x08\x0e-\x1f\x7f\u200B-\u200D\u2060\uFEFF\u00AD]/g
const SPACE = /[\s\u00A0\u2000-\u200A\u202F\u205F\u3000]+/g

const MAX_LINES = 20_000
const MAX_LINE = 2_000

const NEEDS_INVISIBLE = new RegExp(INVISIBLE.source)
// What clean() would change: white space other than single plain spaces between words,
// spaces at the ends, control characters, invisible ones. Most text has none, and one
// test of this (machine code) is cheaper than the replacements, or a loop in JavaScript.
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const UNCLEAN = /[\x00-\x1f\x7f\xa0\xad\u1680\u2000-\u200d\u2028\u2029\u202f\u205f\u2060\u3000\ufeff]| {2}|^ | $/

/** A heading's words without the permalink sign docs generators append to it ("Plans¶", "Setup 🔗"). */
export const withoutPermalink = (heading: string) => heading.replace(PERMALINK, '')
const PERMALINK = /\s*[¶🔗]+$/u

export function clean (s: string): string {
  if (!UNCLEAN.test(s)) return s
  const visible = NEEDS_INVISIBLE.test(s) ? s.replace(INVISIBLE, '') : s
  return visible.replace(SPACE, ' ').trim()
}

/**
 * Whether an element, and all it holds, is never a page's content, for extraction and
 * every reader alike: by its tag (scripts, styles, navigation, forms…), by its role in
 * the site's frame (navigation, banner, contentinfo, a dialog), or as a cookie or consent
 * banner.
 */
export function isSkipped (tag: number, attrs: Attributes): boolean {
  if (tag & SKIP) return true
  if (attrs.role && SKIP_ROLES.has(attrs.role)) return true
  return (attrs.id !== undefined && BANNER.test(attrs.id)) || (attrs.class !== undefined && BANNER.test(attrs.class))
}

/**
 * Whether an element is hidden as written (`hidden`, `aria-hidden`, `display: none`,
 * `visibility: hidden`). The text a person reads leaves it out (extraction, its lines, the
 * outline); the structured readers read it, as a state the page can show (a pricing
 * toggle's other period, a changelog's older entries behind "show more").
 */
export function isHidden (attrs: Attributes): boolean {
  return 'hidden' in attrs || attrs['aria-hidden'] === 'true' ||
    (attrs.style !== undefined && HIDDEN_STYLE.test(attrs.style))
}

/**
 * Cents set apart from the whole amount, raised or in an element of their own ("€34<sup>40</sup>",
 * `<span class="cents">99</span>`): a person reads a decimal point there that the markup does not write.
 */
export const isCents = (name: string, attrs: Attributes): boolean =>
  name === 'sup' || (attrs.class !== undefined && CENTS_CLASS.test(attrs.class))
const CENTS_CLASS = /(?:^|[\s_-])(?:cents?|decimals?|fraction)(?:$|[\s_-])/i

/** `text` with cents that follow its amount (see isCents) after a decimal point: "€34" and "40" make "€34.40". */
export function withCents (text: string, cents: string): string {
  return /\d\s*$/.test(text) && /^\s*\d{2}\s*$/.test(cents) ? `${text.trimEnd()}.${cents.trim()}` : text + cents
}

/** Whether the text a person reads leaves an element out: skipped, or hidden. */
export const isLeftOut = (tag: number, attrs: Attributes): boolean => isSkipped(tag, attrs) || isHidden(attrs)

export function extractPage (html: string, opts: { links?: boolean } = {}): ExtractedPage {
  const lines: string[] = []
  const headings: string[] = []
  const links: ExtractedPage['links'] = []
  const priceLines: number[] = []
  const sources: number[] = []
  // Where the text being collected, and the row, began in the HTML.
  let textAt = -1
  let rowAt = -1
  // The depth of the outermost price or plan element open (0: none), and whether the text
  // or table row being collected holds one (an inline price in a sentence marks its line).
  let priceDepth = 0
  let pricedText = false
  let pricedRow = false
  let title = ''
  let language: string | undefined
  let inTitle = false
  let skipDepth = 0
  let depth = 0
  // A <header> straight under <body> is the
  // site's masthead; one inside <main>, <article> or <section> belongs to the content.
  let contentDepth = 0
  let bodyDepth = 0
  let text = ''
  // What kind of line the text being collected will become: a heading level, or 0 for a list item.
  const kinds: number[] = []
  let row: string[] | null = null
  let cell: string | null = null
  let link: { href: string, text: string } | null = null
  // The depths of the inline elements open that are styled as blocks.
  const styledBlocks: number[] = []
  // The depth of the element of cents open (see isCents), 0: none.
  let centsDepth = 0

  const flush = () => {
    const priced = pricedText || priceDepth > 0
    pricedText = false
    if (text.length === 0) return
    const t = clean(text)
    const at = textAt
    text = ''
    if (!t || lines.length >= MAX_LINES) return
    if (cell !== null) {
      cell += (cell ? ' ' : '') + t
      if (rowAt < 0) rowAt = at
      pricedRow ||= priced
      return
    }
    const kind = kinds[kinds.length - 1]
    // "Back", "zurück", "top", "menu": a template's links, which come and go with no edit of the page.
    if ((kind === undefined || kind === 0) && isBoilerplateLink(t)) return
    const line = writeLine(kind !== undefined && kind > 0 ? withoutPermalink(t) : t, kind)
    if (kind !== undefined && kind > 0) headings.push(withoutPermalink(t))
    if (priced) priceLines.push(lines.length)
    sources.push(at)
    lines.push(line.length > MAX_LINE ? line.slice(0, MAX_LINE) : line)
  }

  walkElements(
    html,
    {
      open (name, attrs) {
        depth++
        if (name === 'html' && language === undefined) language = attrs.lang ?? ''
        // Links count wherever they stand: the footer is where terms and privacy live.
        if (name === 'a' && opts.links && attrs.href) link = { href: attrs.href, text: '' }
        if (skipDepth > 0) return
        if (name === 'title' && !title) {
          inTitle = true
          return
        }
        if (name === 'body') bodyDepth = depth
        const tag = tagOf(name)
        if (isLeftOut(tag, attrs) || (name === 'header' && contentDepth === 0 && depth === bodyDepth + 1)) {
          skipDepth = depth
          return
        }
        if (tag & CONTENT) contentDepth++
        const priced = priceDepth === 0 && (attrs.class !== undefined || attrs.itemprop !== undefined) &&
          isPriceMarkup(name, attrs)
        if (!(tag & (BLOCK | CELL))) {
          if (centsDepth === 0 && isCents(name, attrs)) centsDepth = depth
          if (attrs.style && BLOCK_STYLE.test(attrs.style)) {
            flush()
            styledBlocks.push(depth)
          }
          if (priced) {
            priceDepth = depth
            pricedText = true
          }
          return
        }
        flush()
        if (priced) priceDepth = depth
        if (tag & HEADING) kinds.push(tag & HEADING)
        else if (tag & ITEM) kinds.push(0)
        else if (tag & ROW) {
          row = []
          rowAt = -1
          pricedRow = false
        } else if (tag & CELL && row) cell = ''
      },
      text (data, at) {
        if (inTitle) {
          title += data
          return
        }
        if (link) link.text += data
        if (skipDepth > 0) return
        // Whitespace between blocks is nothing; between inline words it is a space.
        if (text.length === 0) {
          if (data.trim().length === 0) return
          textAt = at
        }
        text = centsDepth > 0 ? withCents(text, data) : text + data
      },
      close (name) {
        if (name === 'a' && link) {
          links.push({ url: link.href, text: clean(link.text) })
          link = null
        }
        if (skipDepth > 0) {
          if (depth === skipDepth) skipDepth = 0
          depth--
          return
        }
        if (depth === priceDepth) {
          priceDepth = 0
          pricedText = true
        }
        if (depth === centsDepth) centsDepth = 0
        depth--
        if (name === 'title') {
          inTitle = false
          return
        }
        const tag = tagOf(name)
        if (tag & CONTENT) contentDepth--
        if (!(tag & (BLOCK | CELL))) {
          if (styledBlocks.at(-1) === depth + 1) {
            styledBlocks.pop()
            flush()
          }
          return
        }
        flush()
        if (tag & (HEADING | ITEM)) kinds.pop()
        else if (tag & CELL && row && cell !== null) {
          row.push(cell)
          cell = null
        } else if (tag & ROW && row) {
          const cells = row
          row = null
          if (cells.some(c => c) && lines.length < MAX_LINES) {
            if (pricedRow || priceDepth > 0) priceLines.push(lines.length)
            sources.push(rowAt)
            lines.push(writeRow(cells))
          }
        }
      }
    },
    ATTRIBUTES
  )
  flush()
  return { title: clean(title), lines, headings, links, language: language || undefined, priceLines, sources }
}
