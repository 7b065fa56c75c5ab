// Every reader of markup on the shapes a hostile (or careless) site writes, a few MB each:
// tags nested hundreds of thousands deep, closed or not, tens of thousands of look-alike
// cards side by side, table rows and releases. Each is read whole (what is nested deepest
// kept), with its tree no deeper than MAX_DEPTH. Before, these took minutes (quadratic
// parsing, pairing and walking); the file's run time is the check, not a timed assertion
// (docs/performance.md has the measures).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { AnyNode } from 'domhandler'
import { readChangelog, readFeed, readPage, readPricing } from '../../src/detection/detect.js'
import { MAX_DEPTH, parseDom } from '../../src/detection/text/dom.js'
import { outlineOf } from '../../src/detection/text/outline.js'
import { applySelectors } from '../../src/detection/text/noise-rules.js'
import { specLinks } from '../../src/detection/readers/api/spec.js'

const DEEP = 300_000
const nested = (tag: string, closed: boolean) =>
  `<html><body><h1>Deep</h1>${`<${tag}>`.repeat(DEEP)}Price Pro $12 per month DEEPEST` +
  `${closed ? `</${tag}>`.repeat(DEEP) : ''}<p>After the nest</p></body></html>`
const CARDS = 30_000
const cards = `<html><body><main><h1>Shop</h1><section><h2>All plans</h2>${Array.from({ length: CARDS }, (_, i) =>
  `<div class="card"><h3>Plan ${i}</h3><p>$${i} per month</p><a href="/p/${i}">More</a></div>`).join('')}` +
  '</section></main></body></html>'

function depthOf (nodes: AnyNode[]): number {
  let deepest = 0
  let level = nodes.map(n => n)
  while (level.length > 0) {
    deepest++
    level = level.flatMap(n => 'children' in n ? n.children : [])
  }
  return deepest
}

describe('readers on nested and flat pages of a few MB', () => {
  it('a tree is never deeper than MAX_DEPTH, and keeps what was nested past it', () => {
    for (const shape of [nested('div', true), nested('a', false), nested('svg', false)]) {
      const doc = parseDom(shape)
      assert.ok(depthOf(doc.children) <= MAX_DEPTH + 2, `depth ${depthOf(doc.children)}`)
      assert.match(doc.children.map(textOf).join(''), /DEEPEST/)
    }
    const xml = parseDom(`<rss><channel>${'<item>'.repeat(DEEP)}`, { xmlMode: true })
    assert.ok(depthOf(xml.children) <= MAX_DEPTH + 2)
  })

  it('the page, its outline, its selectors and every structured reader read a deep nest whole', () => {
    for (const html of [nested('div', true), nested('a', false)]) {
      assert.ok(readPage(html).lines.some(l => /DEEPEST/.test(l)))
      assert.ok(outlineOf(html).blocks.length > 0)
      assert.match(applySelectors(html, { ignoreSelectors: ['div:nth-child(2n) p', 'p ~ p', 'h1 + h2'] }), /DEEPEST/)
      assert.ok(readPricing(html))
      assert.ok(readChangelog(html))
      assert.deepEqual(specLinks(html, 'https://deep.test/docs'), [])
    }
    assert.ok(readFeed(`<?xml version="1.0"?><rss><channel><title>x</title>${'<item>'.repeat(DEEP)}`))
  })

  it('thirty thousand look-alike cards: outlined, and selected by position, each once', () => {
    const outline = outlineOf(cards)
    assert.ok(outline.truncated)
    const kept = applySelectors(cards, { ignoreSelectors: ['div.card:nth-child(2n+1)', 'div.card:nth-last-of-type(1)'] })
    // The section's heading is its first element: the odd cards are its even children, and the last one goes too.
    assert.equal((kept.match(/class="card"/g) ?? []).length, CARDS / 2 - 1)
    assert.match(kept, /Plan 0</)
    assert.doesNotMatch(kept, /Plan 1</)
    assert.doesNotMatch(kept, /Plan 29999</)
    assert.ok(readPricing(cards))
  })

  it('twenty thousand table rows and releases: each reader reads them', () => {
    const rows = `<html><body><h1>Prices</h1><table><tr><th>Plan</th><th>Price</th></tr>${Array.from({ length: 20_000 },
      (_, i) => `<tr><td>Plan ${i}</td><td>$${i}/mo</td></tr>`).join('')}</table></body></html>`
    assert.equal(readPricing(rows).table.plans.length, 20_000)
    const log = `<html><body><h1>Changelog</h1>${Array.from({ length: 20_000 }, (_, i) =>
      `<h2>v1.${i} (2024-01-${String((i % 28) + 1).padStart(2, '0')})</h2><ul><li>Fixed ${i}</li></ul>`).join('')}</body></html>`
    assert.equal(readChangelog(log).entries.length, 20_000)
  })
})

function textOf (node: AnyNode): string {
  if (node.type === 'text') return node.data
  return 'children' in node ? node.children.map(textOf).join('') : ''
}
