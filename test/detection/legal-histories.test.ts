import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { compareContent, readPage } from '../../src/detection/detect.js'

// Legal pages through a real edit each, shaped as policies are written (fixtures/histories):
// numbered sections, a list of the data collected, a table of sub-processors, a revision date.

const fixture = (name: string) => readFileSync(new URL(`fixtures/histories/${name}.html`, import.meta.url), 'utf8')

describe('a privacy policy edited in several sections', () => {
  it('leads with its weightiest edit and names the sections of the others, the sub-processor swapped among them', () => {
    const [before, after] = [fixture('privacy-1'), fixture('privacy-2')]
    const [b, a] = [readPage(before, undefined, undefined, 'terms'), readPage(after, undefined, undefined, 'terms')]
    const [c, ...more] = compareContent(b.text, a, 'terms')
    assert.equal(more.length, 0)
    assert.equal(c.severity, 'high')
    assert.match(c.summary, /^Privacy Policy, 2\. Data we collect: added "Device identifiers: IP address, browser fingerprint\."/)
    assert.match(c.summary, /, and 3 more passages \(3\. How we use data; 4\. Sub-processors; 1\. Who we are\); also 1 typographic edit, updated 2026-06-01$/)
    assert.doesNotMatch(c.summary, /beverage/, 'a re-wording never leads')
  })
})
