// What each HTML tag is to a reader of the page, in one table that extraction
// (extract.ts), the structured readers (readers/structure.ts's blockText) and the outline all read: the
// tags whose text nobody reads as the page's, the blocks that end a line, and the
// kinds of line a block makes. Tags not listed are inline: their text runs on.
//
// Struck text (<s>, <del>, <strike>) is shown, and extraction keeps it ("$20 $15"); a
// value read from the page (a price) leaves it out: a price struck through is no longer
// the price.

export const SKIP = 8
export const BLOCK = 16
export const ITEM = 32
export const CELL = 64
export const ROW = 128
/** The page's content (<main>, <article>, <section>): a <header> inside one is the content's. */
export const CONTENT = 256
export const STRUCK = 512
/** A heading keeps its level (1–6) in the low bits. */
export const HEADING = 7

/** What the outline shows a block as: one block of text, a list, a table (text/outline.ts). */
export const PARAGRAPH = 1024
export const LIST = 2048
export const TABLE = 4096
/** A block that is a card among look-alike siblings (a pricing page's plans), when it has a heading. */
export const CARD = 8192
/** A landmark a selector may name by its tag alone when the page has one (<main>, <aside>…). */
export const LANDMARK = 16384

const table = new Map<string, number>()
const mark = (tags: readonly string[], flags: number) => {
  for (const t of tags) table.set(t, (table.get(t) ?? 0) | flags)
}
mark([
  'script', 'style', 'noscript', 'template', 'svg', 'iframe', 'object', 'embed', 'canvas', 'nav', 'footer',
  'select', 'option', 'button', 'input', 'textarea', 'dialog', 'map', 'audio', 'video', 'link', 'meta'
], SKIP)
mark([
  'p', 'div', 'header', 'aside', 'ul', 'ol', 'dl', 'table', 'thead', 'tbody', 'tfoot', 'blockquote', 'pre',
  'figure', 'figcaption', 'caption', 'address', 'br', 'hr', 'form', 'fieldset', 'legend', 'details', 'summary',
  'label', 'body', 'html', 'center', 'hgroup', 'menu', 'search', 'dir'
], BLOCK)
mark(['section', 'article', 'main'], BLOCK | CONTENT)
mark(['li', 'dt', 'dd'], BLOCK | ITEM)
for (const level of [1, 2, 3, 4, 5, 6]) mark([`h${level}`], BLOCK | level)
mark(['tr'], BLOCK | ROW)
mark(['td', 'th'], CELL)
mark(['s', 'del', 'strike'], STRUCK)
mark(['p', 'pre', 'blockquote', 'figure', 'address', 'details', 'center'], PARAGRAPH)
mark(['ul', 'ol', 'dl', 'menu'], LIST)
mark(['table'], TABLE)
mark(['div', 'li', 'article'], CARD)
mark(['main', 'header', 'aside', 'article', 'form'], LANDMARK)

// One Map lookup per tag (tag names come from the parser as new strings, and a Map
// caches the string's hash) beats several object and Set lookups.
export const TAGS: ReadonlyMap<string, number> = table

export const tagOf = (name: string): number => TAGS.get(name) ?? 0
/** The tags of the blocks a page's outline may show (a picture keeps their boxes): blocks nobody skips. */
export const OUTLINE_TAGS: readonly string[] = [...TAGS]
  .filter(([, t]) => (t & BLOCK) !== 0 && (t & (SKIP | ROW)) === 0)
  .map(([name]) => name)
/** Whether nobody reads the tag's text as the page's (a script, the site's navigation, a form's controls). */
/** Whether the tag's text is a block of its own: a line, a cell, a list's item. */
export const isBlockTag = (name: string): boolean => (tagOf(name) & (BLOCK | CELL)) !== 0
