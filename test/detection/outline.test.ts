// A page's outline, read as pages are written: plans as cards whose classes a build
// renames, docs rendered from Markdown (sections as runs of siblings), legal pages whose
// numbered sections are renumbered, a long page. Each block's selector selects it alone,
// and still selects the same block once the page is re-ordered, renumbered or rebuilt.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { boxesOf, checkNoiseRules, movesOf, outlineOf, readPage } from '../../src/detection/detect.js'
import { headingKey } from '../../src/detection/text/selectors.js'

const page = (body: string) => `<!doctype html><html><head><title>t</title></head><body>
<nav><a href="/">Home</a></nav><div id="__next"><div class="layout-x9">${body}</div></div><footer>© Acme</footer></body></html>`
const watched = (html: string, selector: string) => readPage(html, { includeSelectors: [selector] }).lines
const shape = (html: string) => outlineOf(html).blocks.map(b => `${'  '.repeat(b.depth)}${b.kind} ${b.selector}`)

const cards = (build: string, plans: Array<[string, string]>) => page(`<main><h1>Pricing</h1><p>For every team.</p>
<div class="${build}-grid">${plans.map(([plan, price]) => `<div class="${build}-card"><div class="${build}-head"><h3>${plan}</h3>` +
  `<span class="${build}-badge">Popular</span></div><p class="${build}-price">${price}</p><ul><li>Support</li></ul></div>`).join('')}</div></main>`)

const markdown = (rows: string) => page(`<article class="md">
<h1 id="api-reference">API reference<a class="headerlink" href="#api-reference">¶</a></h1><p>Every call needs a key.</p>
<h2 id="authentication">Authentication<a class="headerlink" href="#authentication">¶</a></h2><p>Send a bearer token.</p>
<pre><code>curl -H "Authorization: Bearer $KEY"</code></pre>
<h2 id="limits">Limits<a class="headerlink" href="#limits">¶</a></h2><table><tr><th>Plan</th><th>Per minute</th></tr>${rows}</table>
<h3 id="bursts">Bursts</h3><p>Bursts of 20 are allowed.</p>
<h2 id="errors">Errors</h2><ul><li>401: no key</li><li>429: too many calls</li></ul></article>`)

const legal = (sections: Array<[string, string]>) => page(`<main><h1>Terms of Service</h1>${sections.map(([title, text], i) =>
  `<h2 id="s${i + 1}">${i + 1}. ${title}</h2><p>${text}</p>`).join('')}</main>`)

describe('a page\'s outline', () => {
  it('reads cards as cards, named by their heading, never by a build\'s classes', () => {
    const html = cards('x1', [['Free', '$0'], ['Pro', '$20'], ['Team', '$50']])
    assert.deepEqual(shape(html), [
      'section :section("Pricing")',
      '  paragraph :heading("Pricing") + p',
      '  block :heading("Pricing") + * + div',
      '    card div:has(> div > :heading("Free"))',
      '      heading :heading("Free")',
      '      paragraph div:has(> div > :heading("Free")) > p',
      '      list div:has(> div > :heading("Free")) > ul',
      '    card div:has(> div > :heading("Pro"))',
      '      heading :heading("Pro")',
      '      paragraph div:has(> div > :heading("Pro")) > p',
      '      list div:has(> div > :heading("Pro")) > ul',
      '    card div:has(> div > :heading("Team"))',
      '      heading :heading("Team")',
      '      paragraph div:has(> div > :heading("Team")) > p',
      '      list div:has(> div > :heading("Team")) > ul'
    ])
    const rebuilt = cards('q7', [['Team', '$50'], ['Pro', '$25'], ['Free', '$0']])
    assert.deepEqual(watched(rebuilt, 'div:has(> div > :heading("Pro"))'), ['### Pro', 'Popular', '$25', '- Support'])
  })

  it('reads a Markdown page\'s sections as the runs of siblings they are, in page order', () => {
    const html = markdown('<tr><td>Free</td><td>60</td></tr>')
    const blocks = outlineOf(html).blocks
    assert.deepEqual(blocks.map(b => [b.kind, b.depth, b.selector, b.lines]), [
      ['section', 0, ':section("API reference")', 13],
      ['paragraph', 1, ':heading("API reference") + p', 1],
      ['section', 1, ':section("Authentication")', 3],
      ['paragraph', 2, ':heading("Authentication") + p', 1],
      ['paragraph', 2, ':heading("Authentication") + * + pre', 1],
      ['section', 1, ':section("Limits")', 5],
      ['table', 2, ':heading("Limits") + table', 2],
      ['section', 2, ':section("Bursts")', 2],
      ['paragraph', 3, ':heading("Bursts") + p', 1],
      ['section', 1, ':section("Errors")', 3],
      ['list', 2, ':heading("Errors") + ul', 2]
    ])
    assert.equal(blocks[5].text, 'Limits Plan Per minute Free 60 Bursts Bursts of 20 are allowed.')
    // The section keeps its sub-sections and stops at the next heading of its level, wherever it moved.
    const moved = markdown('<tr><td>Free</td><td>100</td></tr>').replace(/(<h2 id="limits">[\s\S]*?)(<h2 id="errors">[\s\S]*?<\/ul>)/, '$2$1')
    assert.deepEqual(watched(moved, ':section("Limits")'), ['## Limits', '| Plan | Per minute |', '| Free | 100 |', '### Bursts', 'Bursts of 20 are allowed.'])
  })

  it('names a numbered section by its words: renumbered, it is still the same section', () => {
    const html = legal([['Scope', 'These terms cover acme.test.'], ['Liability', 'Limited to 12 months of fees.'], ['Law', 'French law.']])
    const liability = outlineOf(html).blocks.find(b => b.text.startsWith('2. Liability'))!
    assert.equal(liability.selector, ':section("Liability")', 'not #s2, which the next section takes when one is inserted')
    const renumbered = legal([['Scope', 'These terms cover acme.test.'], ['Fees', 'Monthly.'], ['Liability', 'Limited to 6 months of fees.'], ['Law', 'French law.']])
    assert.deepEqual(watched(renumbered, liability.selector), ['## 3. Liability', 'Limited to 6 months of fees.'])
    assert.equal(headingKey('§ 4.2 Data we collect ¶'), 'data we collect')
    assert.equal(headingKey('Article 7: Liability'), 'liability')
    assert.equal(headingKey('ii. Scope'), 'scope')
    assert.equal(headingKey('Civil law'), 'civil law', 'a word of roman letters is no number')
  })

  it('names a section whose heading\'s words come twice by its heading\'s id, and the whole section is watched', () => {
    // A plan's name is a card's heading above and a section's below (a real hosting provider's pricing page).
    const html = page(`<main><h1>Pricing</h1>
<div class="grid"><div class="card"><h3>Cloud VPS</h3><p>from 4.50 €</p></div><div class="card"><h3>Plan Types</h3><p>3 terms</p></div></div>
<h2 id="cloud-vps">Cloud VPS</h2><p>VPS 10: 4.50 € a month</p><table><tr><td>VPS 20</td><td>7 € a month</td></tr></table>
<h2 id="plan-types">Plan Types</h2><p>Monthly</p><div><p>Yearly, with two months free</p></div>
<h2 id="faq">FAQ</h2><p>Can I cancel?</p></main>`)
    const sections = outlineOf(html).blocks.filter(b => b.kind === 'section' && b.depth > 0)
    assert.deepEqual(sections.map(b => b.selector), [':section(#cloud-vps)', ':section(#plan-types)', ':section("FAQ")'])
    // Ticked, each watches its heading and what follows it: the preview's lines.
    assert.deepEqual(watched(html, ':section(#plan-types)'), ['## Plan Types', 'Monthly', 'Yearly, with two months free'])
    assert.deepEqual(watched(html, ':section(#cloud-vps)'), ['## Cloud VPS', 'VPS 10: 4.50 € a month', '| VPS 20 | 7 € a month |'])
    assert.deepEqual(checkNoiseRules({ includeSelectors: [':section(#plan-types)'] }), [])
  })

  it('marks where each block moved, looking only inside blocks that did', () => {
    const v = (counter: number, pro: string) => cards('x1', [['Free', '$0'], ['Pro', pro]]).replace('<p>For every team.</p>', `<p>${counter} teams online</p>`)
    const versions = [v(3, '$20'), v(9, '$20'), v(4, '$20'), v(4, '$25')]
    const { blocks } = outlineOf(versions.at(-1)!)
    // The change recorded with the last version was of the price alone (the counter held still there).
    const changes = [undefined, undefined, undefined, { removed: ['$20'], added: ['$25'] }]
    const { moves, reported } = movesOf(blocks, versions, changes)
    const at = (selector: string) => blocks.findIndex(b => b.selector === selector)
    const of = (selector: string) => moves[at(selector)]
    assert.deepEqual(of(':heading("Pricing") + p'), [1, 2])
    assert.deepEqual(of('div:has(> div > :heading("Pro"))'), [3])
    assert.deepEqual(of('div:has(> div > :heading("Pro")) > p'), [3])
    assert.deepEqual(of('div:has(> div > :heading("Free"))'), [])
    assert.deepEqual(of(':section("Pricing")'), [1, 2, 3])
    // Reported: the moves the change recorded with them was of.
    assert.deepEqual(reported[at('div:has(> div > :heading("Pro")) > p')], [3])
    assert.deepEqual(reported[at(':section("Pricing")')], [3])
    assert.deepEqual(reported[at(':heading("Pricing") + p')], [])
  })

  it("counts a block's move as reported only when the change recorded with it was of that block", () => {
    const v = (counter: number, pro: string) => cards('x1', [['Free', '$0'], ['Pro', pro]]).replace('<p>For every team.</p>', `<p>${counter} teams online</p>`)
    // The counter and the price move together; the change recorded is of the price (the counter was masked).
    const versions = [v(3, '$20'), v(9, '$25')]
    const { blocks } = outlineOf(versions.at(-1)!)
    const { moves, reported } = movesOf(blocks, versions, [undefined, { removed: ['$20'], added: ['$25'] }])
    const counter = blocks.findIndex(b => b.selector === ':heading("Pricing") + p')
    assert.deepEqual(moves[counter], [1])
    assert.deepEqual(reported[counter], [], 'the counter moved, but the change reported was of the price')
    // A row of a table is found by its cells.
    const table = (price: string) => `<html><body><main><h2>Plans</h2><table><tr><th>Plan</th><th>Price</th></tr><tr><td>VPS 20</td><td>${price}</td></tr></table></main></body></html>`
    const rows = outlineOf(table('8 €')).blocks
    const tableAt = rows.findIndex(b => b.kind === 'table')
    assert.ok(tableAt >= 0, JSON.stringify(rows))
    const read = movesOf(rows, [table('7 €'), table('8 €')], [undefined, { removed: ['| VPS 20 | 7 € |'], added: ['| VPS 20 | 8 € |'] }])
    assert.deepEqual(read.reported[tableAt], [1])
  })

  it('finds each block\'s box on a picture by the path the browser keyed it with', () => {
    const html = '<html><head></head><body><main><h1>Plans</h1><p>A</p><p>B</p></main></body></html>'
    const boxes = { '0.1.0.0': [10, 10, 200, 40], '0.1.0.1': [10, 60, 200, 20], '0.1.0.2': [10, 90, 100, 20] } as const
    assert.deepEqual(boxesOf([{ selector: ':section("Plans")' }, { selector: ':heading("Plans") + * + p' }, { selector: 'nav' }],
      html, boxes as any), [
      { x: 10, y: 10, width: 200, height: 100 },
      { x: 10, y: 90, width: 100, height: 20 },
      null
    ])
  })

  it('gives every block a selector the rules accept, on a long page, and stops at 400 blocks', () => {
    const long = page(`<main>${Array.from({ length: 300 }, (_, i) => `<h2>Clause ${i}</h2><p>Text ${i}.</p><p>More ${i}.</p>`).join('')}</main>`)
    const { blocks, truncated } = outlineOf(long)
    assert.equal(blocks.length, 400)
    assert.equal(truncated, true)
    assert.deepEqual(checkNoiseRules({ includeSelectors: blocks.slice(0, 20).map(b => b.selector) }), [])
    assert.ok(blocks.every(b => b.selector.length <= 200), 'each fits a rule')
  })

  it('refuses :section() inside :has(), and reads nothing of a page with no text', () => {
    assert.match(checkNoiseRules({ ignoreSelectors: ['div:has(:section("x"))'] })[0].message, /:section\(\) within :has\(\)/)
    assert.deepEqual(checkNoiseRules({ ignoreSelectors: [':section("Limits")', 'div:has(> :heading("Pro"))'] }), [])
    assert.deepEqual(outlineOf('<html><body><div id="app"></div><script>x()</script></body></html>').blocks, [])
  })
})
