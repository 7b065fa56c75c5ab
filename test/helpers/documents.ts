import { deflateSync } from 'node:zlib'
import { PNG } from 'pngjs'
import { PDFDocument, StandardFonts } from 'pdf-lib'

// Documents as sites serve them, for the crawler's document readers (detection/readers/documents.ts):
// PDFs made with pdf-lib the way office suites write them (one text run per line, a
// title in the metadata), and the broken and hostile ones a crawler meets.

/** A PDF of `pages`, each a list of lines, with `title` in its metadata. */
export async function textPdf (title: string, pages: string[][]): Promise<Buffer> {
  const doc = await PDFDocument.create()
  doc.setTitle(title)
  const font = await doc.embedFont(StandardFonts.Helvetica)
  for (const lines of pages) {
    const page = doc.addPage([595, 842])
    lines.forEach((line, i) => page.drawText(line, { x: 56, y: 780 - i * 18, size: 11, font }))
  }
  return Buffer.from(await doc.save())
}

/** A scanned document: a page that is one picture, with no text. */
export async function scannedPdf (): Promise<Buffer> {
  const png = new PNG({ width: 40, height: 40 })
  png.data.fill(0x88)
  const doc = await PDFDocument.create()
  const image = await doc.embedPng(PNG.sync.write(png))
  doc.addPage([595, 842]).drawImage(image, { x: 56, y: 400, width: 400, height: 400 })
  return Buffer.from(await doc.save())
}

/** A hand-written PDF of `objects` (numbered from 1) and a trailer, its cross-reference table exact. */
function rawPdf (objects: Array<string | Buffer>, trailer: string): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')]
  const offsets: number[] = []
  let at = parts[0].length
  objects.forEach((body, i) => {
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), Buffer.from(body), Buffer.from('\nendobj\n')])
    offsets.push(at)
    at += chunk.length
    parts.push(chunk)
  })
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map(o => `${String(o).padStart(10, '0')} 00000 n \n`).join('') +
    `trailer\n<< /Size ${objects.length + 1} ${trailer} >>\nstartxref\n${at}\n%%EOF\n`
  return Buffer.concat([...parts, Buffer.from(xref)])
}

const PAGE_TREE = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>']

/** A PDF encrypted with a user password (the standard security handler): nothing reads without it. */
export function encryptedPdf (): Buffer {
  const hex = (seed: number) => Array.from({ length: 32 }, (_, i) => ((i * 37 + seed) % 256).toString(16).padStart(2, '0')).join('')
  return rawPdf([
    ...PAGE_TREE,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>',
    `<< /Filter /Standard /V 1 /R 2 /O <${hex(11)}> /U <${hex(99)}> /P -44 >>`
  ], `/Root 1 0 R /Encrypt 4 0 R /ID [<${hex(5).slice(0, 32)}> <${hex(5).slice(0, 32)}>]`)
}

/**
 * A "PDF bomb": a page whose content stream is 100 KB that inflates to 100 MB (`inflatedMb`).
 * `hex`: the Deflate data written as hexadecimal under `[/ASCIIHexDecode /FlateDecode]`, as
 * an attacker hides it from a check that only inflates raw streams; `streams`: that many
 * content streams; `badChecksum`: each one's Adler-32 checksum corrupted, which a strict
 * inflater refuses at its end (and PDF.js reads all the same); `indirect`: the filters
 * named through another object (`/Filter 9 0 R`), which only a full PDF parser follows.
 */
export function bombPdf (
  opts: { inflatedMb?: number, hex?: boolean, streams?: number, badChecksum?: boolean, indirect?: boolean } = {}
): Buffer {
  const inflated = (opts.inflatedMb ?? 100) * 1024 * 1024
  const streams = opts.streams ?? 1
  let data = deflateSync(Buffer.alloc(Math.floor(inflated / streams), 0x20), { level: 9 })
  if (opts.badChecksum) data[data.length - 1] ^= 0xff
  if (opts.hex) data = Buffer.from(`${data.toString('hex')}>`, 'latin1')
  const filters = opts.hex ? '[/ASCIIHexDecode /FlateDecode]' : '/FlateDecode'
  const filterObject = 4 + streams
  const filter = opts.indirect ? `${filterObject} 0 R` : filters
  const contents = Array.from({ length: streams }, (_, i) => `${4 + i} 0 R`).join(' ')
  return rawPdf([
    ...PAGE_TREE,
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents [${contents}] >>`,
    ...Array.from({ length: streams }, () => Buffer.concat([
      Buffer.from(`<< /Length ${data.length} /Filter ${filter} >>\nstream\n`), data, Buffer.from('\nendstream')
    ])),
    ...(opts.indirect ? [filters] : [])
  ], '/Root 1 0 R')
}
