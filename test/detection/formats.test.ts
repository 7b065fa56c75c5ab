// The document formats (detection/readers/documents.ts) on the shapes the web serves them in.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DocumentError, documentFormat, MAX_PDF_PAGES } from '../../src/detection/readers/documents.js'
import { readPage } from '../../src/detection/detect.js'
import { textPdf } from '../helpers/documents.js'

const bytes = (s: string) => Buffer.from(s, 'utf8')
/** A document's text as every later stage reads it. */
async function textOf (contentType: string, body: Buffer, includePaths?: string[]) {
  const format = documentFormat(contentType, body)
  assert.ok(format, `${contentType} is a document`)
  return readPage(await format.read(body, { includePaths })).text
}

describe('document formats', () => {
  it('tells a document by its type or its bytes, and leaves HTML (even labelled text/plain) to the HTML reader', () => {
    assert.equal(documentFormat('application/pdf', bytes('garbage'))?.name, 'pdf')
    assert.equal(documentFormat('application/octet-stream', bytes('  %PDF-1.7\n'))?.name, 'pdf')
    assert.equal(documentFormat('application/vnd.api+json; charset=utf-8', bytes('{}'))?.name, 'json')
    assert.equal(documentFormat('text/plain', bytes('Release notes'))?.name, 'text')
    assert.equal(documentFormat('text/markdown', bytes('# Changelog'))?.name, 'text')
    assert.equal(documentFormat('text/plain', bytes('<!DOCTYPE html><html><body>Hi</body></html>')), undefined)
    assert.equal(documentFormat('text/html; charset=utf-8', bytes('<p>Hi</p>')), undefined)
    assert.equal(documentFormat('', bytes('<p>Hi</p>')), undefined)
  })

  it('JSON: one line per value by its path, odd keys quoted; includePaths keeps what it names, in place', async () => {
    const doc = bytes(JSON.stringify({
      plans: [{ name: 'Starter', price: 9, tags: [] }, { name: 'Pro', price: 29 }],
      'price list': { eur: 1 },
      updated: '2026-11-26'
    }))
    assert.equal(await textOf('application/json', doc), [
      '$.plans[0].name: "Starter"', '$.plans[0].price: 9', '$.plans[0].tags: []', '$.plans[1].name: "Pro"',
      '$.plans[1].price: 29', '$["price list"].eur: 1', '$.updated: "2026-11-26"'
    ].join('\n'))
    assert.equal(await textOf('application/json', doc, ['$.plans[1]', '$["price list"]']),
      '$.plans[1].name: "Pro"\n$.plans[1].price: 29\n$["price list"].eur: 1')
    assert.equal(await textOf('application/json', doc, ['$.plans[*].price']), '$.plans[0].price: 9\n$.plans[1].price: 29')
    // A part that is gone says so: that it went is a change to hear of, not an empty page.
    assert.equal(await textOf('application/json', doc, ['$.discounts']), 'Nothing at $.discounts')
    await assert.rejects(documentFormat('application/json', bytes('{'))!.read(bytes('{"a":'), {}), DocumentError)
    const deep = bytes(`${'['.repeat(100_000)}1${']'.repeat(100_000)}`)
    await assert.rejects(documentFormat('application/json', deep)!.read(deep, {}), DocumentError)
    const wide = bytes(JSON.stringify(Array.from({ length: 300_000 }, (_, i) => i)))
    await assert.rejects(documentFormat('application/json', wide)!.read(wide, {}), /too many values/)
  })

  it('plain text: a paragraph per line, markup kept as text, blank lines and spacing dropped', async () => {
    assert.equal(await textOf('text/plain', bytes('v2.0\r\n\r\n  Added <b>bold</b> &amp; more  \n\tFixed a bug\n')),
      'v2.0\nAdded <b>bold</b> &amp; more\nFixed a bug')
  })

  it('PDF: a heading per page; past its page limit it is refused with the count', async () => {
    const two = await textPdf('Price list', [['Starter €9 per month'], ['Pro €29 per month']])
    assert.equal(await textOf('application/pdf', two), '## Page 1\nStarter €9 per month\n## Page 2\nPro €29 per month')
    const long = await textPdf('', Array.from({ length: MAX_PDF_PAGES + 1 }, (_, i) => [`Page text ${i}`]))
    await assert.rejects(documentFormat('application/pdf', long)!.read(long, {}),
      { name: 'Error', message: new RegExp(`has ${MAX_PDF_PAGES + 1} pages`) })
  })
})
