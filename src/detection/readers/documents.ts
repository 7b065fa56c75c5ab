import { constants, inflateRawSync } from 'node:zlib'
import { extractText, getDocumentProxy, getMeta } from 'unpdf'
import { parseSpec } from './api/spec.js'

// Documents that are not HTML pages (a PDF of terms or prices, a JSON endpoint, a plain
// text file) are read into the HTML every other stage reads: one paragraph per line of
// text, and a heading per PDF page ("Page 3"), so that a change's summary says on which
// page it is. The first format whose rule matches reads the bytes; none: it is HTML.

/** Why a document cannot be read: said to the user as the page's lastError. */
export class DocumentError extends Error {}

export interface ReadDocumentOptions {
  /** JSON only: the paths whose values alone are compared (see selectPaths). */
  includePaths?: readonly string[]
}

export interface DocumentFormat {
  name: 'pdf' | 'openapi' | 'json' | 'text'
  /** Whether bytes of `mime` (the Content-Type without its parameters) starting with `head` are this format. */
  matches: (mime: string, head: string) => boolean
  /** The document as HTML (title, and one <p> per line of its text). */
  read: (bytes: Uint8Array, opts: ReadDocumentOptions) => Promise<string>
  /**
   * Read in a process of its own, whose memory is watched: its decoder (PDF.js) allocates
   * outside any heap limit, and a hostile document would take the service's memory.
   */
  isolated?: boolean
}

/** The most a PDF's streams may inflate to, all together: past it the PDF is a bomb, not a document. */
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024
/** The most pages of a PDF read: a contract or a price list is far shorter. */
export const MAX_PDF_PAGES = 500
/** The most text a document may hold, in characters (a 5 MB page's text is far less). */
export const MAX_DOCUMENT_CHARS = 2_000_000

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)
const paragraphs = (lines: readonly string[]) => lines.map(l => `<p>${escapeHtml(l)}</p>`).join('\n')
const html = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
  `<body><main>\n${body}\n</main></body></html>`

/** A document's lines: whitespace collapsed, blank lines left out. */
const linesOf = (text: string) => text.split(/\r\n|\r|\n/).map(l => l.replace(/\s+/g, ' ').trim()).filter(Boolean)

function withinSize (chars: number): void {
  if (chars > MAX_DOCUMENT_CHARS) {
    const most = MAX_DOCUMENT_CHARS.toLocaleString('en')
    throw new DocumentError(`the document holds more than ${most} characters of text`)
  }
}

/** A stream's filters, from the dictionary before it: `/FlateDecode` or `[/ASCIIHexDecode /FlateDecode]`. */
function filtersBefore (pdf: Buffer, streamAt: number): string[] {
  const head = pdf.subarray(Math.max(0, streamAt - 1024), streamAt).toString('latin1')
  const dict = head.slice(head.lastIndexOf('obj') + 1)
  const m = /\/Filter\s*(\[[^\]]*\]|\/[A-Za-z0-9]+)/.exec(dict)
  return m ? [...m[1].matchAll(/\/([A-Za-z0-9]+)/g)].map(f => f[1]) : []
}

/** ASCII85 to bytes (`<~`, whitespace and the `~>` end handled), as PDF.js reads it. */
function ascii85 (text: string): Buffer {
  const out: number[] = []
  let group: number[] = []
  const flush = (n: number) => {
    while (group.length < 5) group.push(84)
    const v = group.reduce((acc, d) => acc * 85 + d, 0)
    for (let i = 0; i < n - 1; i++) out.push((v >>> (24 - 8 * i)) & 0xff)
    group = []
  }
  for (const ch of text.replace(/^<~/, '')) {
    if (ch === '~') break
    if (ch === 'z' && group.length === 0) out.push(0, 0, 0, 0)
    const d = ch.charCodeAt(0) - 33
    if (d < 0 || d > 84) continue
    group.push(d)
    if (group.length === 5) flush(5)
  }
  if (group.length > 1) flush(group.length)
  return Buffer.from(out)
}

/**
 * A stream's bytes through its filters, as far as they can be measured here, each step's
 * output capped at `most` bytes (ERR_BUFFER_TOO_LARGE past it). Deflate is read raw and
 * to the end of what it holds, as PDF.js reads it: a corrupted checksum or a cut stream
 * still counts. A filter not measured here (LZW, images) ends the chain: its output is
 * bounded by the process that reads the PDF (see DocumentFormat.isolated).
 */
function decodedStream (bytes: Buffer, filters: readonly string[], most: number): Buffer {
  let data = bytes
  for (const f of filters) {
    if (f === 'ASCIIHexDecode' || f === 'AHx') {
      const hex = data.toString('latin1').split('>')[0].replace(/[^0-9A-Fa-f]/g, '')
      data = Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex')
    } else if (f === 'ASCII85Decode' || f === 'A85') {
      data = ascii85(data.toString('latin1'))
    } else if (f === 'FlateDecode' || f === 'Fl') {
      data = inflateRawSync(data.subarray(2), { maxOutputLength: most, finishFlush: constants.Z_SYNC_FLUSH })
    } else break
    if (data.length > most) throw Object.assign(new Error('too large'), { code: 'ERR_BUFFER_TOO_LARGE' })
  }
  return data
}

/**
 * Refuses a PDF whose streams decode past MAX_INFLATED_BYTES (a "PDF bomb": a few
 * kilobytes that PDF.js would inflate to gigabytes), whatever chain of hexadecimal,
 * ASCII85 and Deflate filters hides them. What this cannot measure, the process that
 * reads PDFs bounds (see DocumentFormat.isolated).
 */
function refuseBomb (bytes: Uint8Array): void {
  const pdf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let budget = MAX_INFLATED_BYTES
  for (let at = pdf.indexOf('stream'); at !== -1; at = pdf.indexOf('stream', at + 6)) {
    if (pdf.subarray(at - 3, at).toString('latin1') === 'end') continue
    let start = at + 6
    if (pdf[start] === 0x0d) start++
    if (pdf[start] !== 0x0a) continue
    const end = pdf.indexOf('endstream', ++start)
    if (end === -1) return
    // A filter named indirectly (`/Filter 5 0 R`) is not read here: Deflate data is known by its header.
    const named = filtersBefore(pdf, at)
    const filters = named.length === 0 && pdf[start] === 0x78 ? ['FlateDecode'] : named
    try {
      if (filters.length > 0) budget -= decodedStream(pdf.subarray(start, end), filters, budget + 1).length
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') budget = -1
    }
    if (budget < 0) {
      throw new DocumentError(`the PDF inflates to more than ${MAX_INFLATED_BYTES / 1024 / 1024} MB (a PDF bomb); ` +
        'it was not read')
    }
    at = end + 3
  }
}

async function readPdf (bytes: Uint8Array): Promise<string> {
  refuseBomb(bytes)
  let pdf
  try {
    // PDF.js takes the buffer over: it reads a copy.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, stopAtErrors: false })
  } catch (err) {
    const name = (err as Error).name
    if (name === 'PasswordException') {
      throw new DocumentError('the PDF is encrypted with a password: its text cannot be read')
    }
    throw new DocumentError(`the PDF cannot be read (${(err as Error).message || name})`)
  }
  try {
    if (pdf.numPages > MAX_PDF_PAGES) {
      throw new DocumentError(`the PDF has ${pdf.numPages} pages; Sitewatch reads at most ${MAX_PDF_PAGES}`)
    }
    const { text } = await extractText(pdf, { mergePages: false })
    const pages = text.map(linesOf)
    if (pages.every(p => p.length === 0)) {
      throw new DocumentError('the PDF holds no text, only images (a scan?): Sitewatch compares text, and found none')
    }
    withinSize(pages.reduce((n, p) => n + p.reduce((m, l) => m + l.length, 0), 0))
    const title = await getMeta(pdf).then(m => String((m.info as { Title?: unknown }).Title ?? ''), () => '')
    return html(title, pages.map((lines, i) => `<section><h2>Page ${i + 1}</h2>\n${paragraphs(lines)}</section>`)
      .join('\n'))
  } finally {
    await pdf.destroy()
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** A path's steps (JSON_PATH_PATTERN says what people may write): a key, an index, or `*` (any key or index). */
type Step = string | number

interface Leaf { path: string, steps: Step[], value: string }

/** How deep a JSON document may nest: an API's answer is far shallower, a hostile one is not read. */
export const MAX_JSON_DEPTH = 64

/** A JSON value's leaves (an empty array or object is one), in document order: `$.plans[0].price` and `49`. */
function leavesOf (value: Json, path: string, steps: Step[], out: Leaf[]): void {
  if (out.length > MAX_DOCUMENT_CHARS / 8) throw new DocumentError('the JSON document holds too many values to compare')
  if (steps.length > MAX_JSON_DEPTH) {
    throw new DocumentError(`the JSON document nests deeper than ${MAX_JSON_DEPTH} levels`)
  }
  const container = value !== null && typeof value === 'object'
  const entries: Array<[Step, Json]> = !container
    ? []
    : Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value)
  if (entries.length === 0) {
    out.push({ path, steps, value: JSON.stringify(value) })
    return
  }
  for (const [k, v] of entries) {
    const step = typeof k === 'number' ? `[${k}]` : /^[A-Za-z_$][\w$-]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`
    leavesOf(v, path + step, [...steps, k], out)
  }
}

function stepsOf (path: string): Step[] {
  const steps: Step[] = []
  for (const m of path.slice(1).matchAll(/\.([A-Za-z_$][\w$-]*|\*)|\[(\d+|\*|"[^"\\]+")\]/g)) {
    const s = m[1] ?? m[2]
    steps.push(/^\d+$/.test(s) ? Number(s) : s.startsWith('"') ? s.slice(1, -1) : s)
  }
  return steps
}

/** Whether `route` names the leaf at `steps` or a value it is part of. */
const under = (steps: readonly Step[], route: readonly Step[]) =>
  route.length <= steps.length && route.every((r, i) => r === '*' || r === steps[i])

async function readJson (bytes: Uint8Array, opts: ReadDocumentOptions): Promise<string> {
  withinSize(bytes.byteLength)
  let value: Json
  try {
    value = JSON.parse(new TextDecoder().decode(bytes)) as Json
  } catch (err) {
    throw new DocumentError(`the JSON document does not parse (${(err as Error).message})`)
  }
  let leaves: Leaf[] = []
  leavesOf(value, '$', [], leaves)
  const routes = (opts.includePaths ?? []).map(stepsOf)
  if (routes.length > 0) {
    leaves = leaves.filter(l => routes.some(r => under(l.steps, r)))
    // Said, not left empty: when the watched part goes, that is a change to hear of.
    if (leaves.length === 0) return html('', paragraphs([`Nothing at ${opts.includePaths!.join(', ')}`]))
  }
  return html('', paragraphs(leaves.map(l => `${l.path}: ${l.value}`)))
}

async function readText (bytes: Uint8Array): Promise<string> {
  withinSize(bytes.byteLength)
  const lines = linesOf(new TextDecoder().decode(bytes))
  return html(lines[0] ?? '', paragraphs(lines))
}

/** What the first bytes of an OpenAPI or Swagger description say, in YAML or JSON: its version. */
export const LOOKS_LIKE_A_SPEC = /(?:^|[\s{,])["']?(?:openapi|swagger)["']?\s*:\s*["']?(?:3\.\d|2\.0)/

/** The types an API description is served as; JSON and YAML, and plain text or bytes from a file server. */
const SPEC_TYPES = /^(?:application|text)\/(?:x-)?yaml$|^application\/(?:vnd\.oai\.openapi(?:\+json)?|json|[\w.-]+\+json)$|^text\/plain$|^application\/octet-stream$/

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/**
 * An OpenAPI or Swagger description watched as a page: its title and one line per
 * operation ("GET /pets: List all pets"), which the text compares; an intelligence API
 * page compares the description itself too (its contract: see api/spec.ts).
 */
async function readSpec (bytes: Uint8Array): Promise<string> {
  withinSize(bytes.byteLength)
  let spec: Record<string, any>
  try {
    spec = parseSpec(new TextDecoder().decode(bytes))
  } catch (err) {
    throw new DocumentError(`the API description cannot be read (${(err as Error).message})`)
  }
  const title = [spec.info?.title, spec.info?.version].filter(x => typeof x === 'string' && x).join(' ') || 'API'
  const lines: string[] = []
  for (const [path, item] of Object.entries(spec.paths as Record<string, any>)) {
    for (const method of HTTP_METHODS) {
      const op = item?.[method]
      if (!op || typeof op !== 'object') continue
      const said = typeof op.summary === 'string' ? `: ${op.summary}` : ''
      lines.push(`${method.toUpperCase()} ${path}${said}${op.deprecated === true ? ' (deprecated)' : ''}`)
    }
  }
  withinSize(lines.reduce((n, l) => n + l.length, 0))
  return html(title, `<h1>${escapeHtml(title)}</h1>\n${paragraphs(lines)}`)
}

/** The formats read, first match wins; anything else is read as HTML. */
export const DOCUMENT_FORMATS: readonly DocumentFormat[] = [
  {
    name: 'pdf',
    matches: (mime, head) => mime === 'application/pdf' || head.startsWith('%PDF-'),
    read: readPdf,
    isolated: true
  },
  {
    name: 'openapi',
    matches: (mime, head) => SPEC_TYPES.test(mime) && LOOKS_LIKE_A_SPEC.test(head),
    read: readSpec
  },
  {
    name: 'json',
    matches: mime => mime === 'application/json' || /^application\/[\w.-]+\+json$/.test(mime),
    read: readJson
  },
  {
    name: 'text',
    // A server that labels its HTML text/plain is not rare: that stays HTML.
    matches: (mime, head) => /^text\/(plain|markdown)$/.test(mime) && !/<(!doctype|html|head|body)\b/i.test(head),
    read: async bytes => await readText(bytes)
  }
]

/**
 * A document read into HTML, or why it cannot be (a DocumentError's words); any other
 * error is thrown.
 */
export async function readDocument (
  contentType: string, raw: Uint8Array, opts: ReadDocumentOptions
): Promise<{ html: string } | { error: string }> {
  const format = documentFormat(contentType, raw)
  if (!format) return { error: 'not a document' }
  try {
    return { html: await format.read(raw, opts) }
  } catch (err) {
    if (err instanceof DocumentError) return { error: err.message }
    throw err
  }
}

/** The format of a body of Content-Type `contentType`, if it is a document and not an HTML page. */
export function documentFormat (contentType: string, bytes: Uint8Array): DocumentFormat | undefined {
  const mime = contentType.split(';')[0].trim().toLowerCase()
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).toString('latin1')
  return DOCUMENT_FORMATS.find(f => f.matches(mime, head.trimStart()))
}
