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

describe('terms that take away what they granted', () => {
  const tos = (lang: string, title: string, clause: string) => `<html lang="${lang}"><head><title>${title}</title></head>` +
    `<body><main><h1>${title}</h1><h2>1. Accounts</h2><p>Accounts are personal.</p><h2>2. Plans</h2><p>${clause}</p>` +
    '<p>Paid plans are billed in advance.</p><h2>3. Termination</h2><p>We may suspend accounts.</p></main></body></html>'
  const told = (lang: string, title: string, was: string, is: string) => {
    const [b, a] = [readPage(tos(lang, title, was)), readPage(tos(lang, title, is))]
    return compareContent(b.text, a, 'terms').map(c => [c.severity, c.diffData.facts?.[0]?.narrows === true])
  }

  it('a free tier losing what it includes, or a right moved from free users to paying ones, is medium', () => {
    assert.deepEqual(told('en', 'Terms of Service', 'The Free plan includes up to 3 projects, custom domains and API access.',
      'The Free plan includes up to 3 projects.'), [['medium', true]])
    assert.deepEqual(told('en', 'Terms of Service', 'Free accounts can export their content at any time.',
      'Paid accounts can export their content at any time.'), [['medium', true]])
    assert.deepEqual(told('de', 'Nutzungsbedingungen', 'Das kostenlose Paket enthält 3 Projekte, eigene Domains und API-Zugang.',
      'Das kostenlose Paket enthält 3 Projekte.'), [['medium', true]])
  })

  it('a grant re-worded is not narrowed: it stays low', () => {
    assert.deepEqual(told('en', 'Terms of Service', 'Members can invite colleagues from the team page.',
      'Members can invite colleagues from their workspace settings.'), [['low', false]])
  })
})
