import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isBotWall, needsBrowser, readableWithoutBrowser } from '../../src/crawl/render-decision.js'

const doc = (body: string) => `<!doctype html><html><head><title>T</title></head><body>${body}</body></html>`
const prose = `<h1>Pricing</h1><p>${'Plans for teams of every size, billed monthly. '.repeat(10)}</p>`

describe('whether a page needs the browser (auto)', () => {
  it('a server-rendered page does not, scripts or not', () => {
    assert.equal(needsBrowser(200, doc(prose)), undefined)
    assert.equal(needsBrowser(200, doc(prose + `<script>${'x'.repeat(50_000)}</script>`)), undefined)
  })

  it('an empty application root does', () => {
    assert.match(needsBrowser(200, doc('<div id="root"></div><script src="/app.js"></script>'))!, /empty application root/)
    assert.match(needsBrowser(200, doc('<div id="__next">  </div>'))!, /empty application root/)
  })

  it('a noscript asking for JavaScript does, in several languages', () => {
    for (const ask of ['You need to enable JavaScript to run this app.', 'Bitte aktivieren Sie JavaScript.', 'Veuillez activer JavaScript.']) {
      assert.match(needsBrowser(200, doc(`<noscript>${ask}</noscript>${prose}`))!, /noscript/, ask)
    }
  })

  it('little visible text beside a large script payload does', () => {
    const bundle = `<script>${'var a=1;'.repeat(5000)}</script>`
    assert.match(needsBrowser(200, doc(`<p>Loading…</p>${bundle}`))!, /little visible text/)
  })

  it('counts the text a page shows: words apart once, scripts, styles and tags not at all', () => {
    const bundle = `<script>${'var a=1;'.repeat(5000)}</script>`
    // 199 characters shown: 40 words of four letters, one space apart (an entity, a tag and spaces are one).
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${String(i).padStart(3, '0')}`)
    const shown = words(40).map((w, i) => i % 3 === 0 ? `${w}&nbsp;` : i % 3 === 1 ? `<b>${w}</b>` : `${w} \n `).join('')
    const page = (extra: string) =>
      `<html><head><style>p { color: red }</style></head><body><p>${shown}${extra}</p>${bundle}</body></html>`
    assert.match(needsBrowser(200, page(''))!, /little visible text \(199 characters\)/)
    assert.match(needsBrowser(200, page('<script>var hidden = "text";</script>'))!, /\(199 characters\)/)
    assert.equal(needsBrowser(200, page('x')), undefined, 'one more character shown: 200')
  })

  it("a bot wall's challenge does; an ordinary error page does not", () => {
    const challenge = doc('<p>Checking your browser before accessing example.com. Just a moment...</p>')
    assert.equal(isBotWall(503, challenge), true)
    assert.match(needsBrowser(503, challenge)!, /bot wall/)
    assert.equal(isBotWall(404, challenge), false)
    assert.equal(needsBrowser(503, doc('<h1>Service unavailable</h1><p>Back soon.</p>')), undefined)
    assert.equal(needsBrowser(403, doc('<h1>Forbidden</h1>')), undefined)
  })
})

describe('whether a plain answer can stand for a page the browser failed on', () => {
  it('a page with text to read can, even beside the application root its scripts would fill', () => {
    assert.equal(readableWithoutBrowser(200, doc(`${prose}<div id="app"></div><script>location.href = '/gone'</script>`)), true)
  })

  it('a shell, an error or a bot wall cannot', () => {
    assert.equal(readableWithoutBrowser(200, doc('<div id="root"></div><script src="/app.js"></script>')), false)
    assert.equal(readableWithoutBrowser(404, doc(prose)), false)
    assert.equal(readableWithoutBrowser(503, doc(`<p>Checking your browser before accessing the site. Just a moment...</p>${prose}`)), false)
  })
})
