import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { readChangelog } from '../../src/detection/readers/changelog/read.js'
import { compareContent, readPage } from '../../src/detection/detect.js'

// Changelogs in four shapes and three languages (test/detection/fixtures/changelog): Keep a
// Changelog rendered to HTML (en), dated sections (fr), release cards (de), versioned
// sections (es). New entries are changes of their own; edits and re-renderings are not news.

const fixture = (name: string) => readFileSync(new URL(`fixtures/changelog/${name}.html`, import.meta.url), 'utf8')

/** The changes of a changelog page read as an intelligence page. */
function changelogChanges (before: string, after: string) {
  const a = readPage(before, undefined, undefined, 'changelog')
  const b = readPage(after, undefined, undefined, 'changelog')
  if (a.hash === b.hash) return []
  return compareContent(a.text, b, 'changelog', undefined, { before, after })
}

const insert = (html: string, at: string, what: string) => {
  assert.ok(html.includes(at), `the fixture holds ${at}`)
  return html.replace(at, what + at)
}

describe('changelogs read as entries', () => {
  it('Keep a Changelog: version, date, items with their section', () => {
    const { entries } = readChangelog(fixture('keep-a-changelog'))
    assert.deepEqual(entries.map(e => [e.version, e.date]), [['2.3.0', '2026-10-02'], ['2.2.1', '2026-09-12'], ['2.2.0', '2026-08-30']])
    assert.deepEqual(entries[0].items, [
      'Added: Webhook retries with exponential backoff.', 'Added: A region field on projects.',
      'Fixed: Exports no longer time out on large projects.'
    ])
    assert.equal(entries[0].title, '2.3.0')
  })

  it('dated sections in French, release cards in German, versioned sections in Spanish', () => {
    assert.deepEqual(readChangelog(fixture('headed-fr')).entries[0], {
      title: 'Export PDF des rapports',
      date: '2026-10-03',
      items: ['Vous pouvez maintenant exporter chaque rapport en PDF, avec votre logo.', "L'export est disponible sur toutes les formules."]
    })
    assert.deepEqual(readChangelog(fixture('cards-de')).entries.map(e => [e.date, e.title, e.items.length]),
      [['2026-10-15', 'Fristenkalender', 2], ['2026-09-20', 'Aktenexport', 1]])
    assert.deepEqual(readChangelog(fixture('versions-es')).entries.map(e => [e.version, e.date, e.items[0]]), [
      ['4.1', '2026-09-28', 'Facturas recurrentes con fecha de inicio.'], ['4.0', '2026-09-01', 'Nuevo panel de cobros.']
    ])
  })

  // One meaning of "skipped" (text/extract.ts isSkipped): what extraction never reads as the page (a cookie banner, the
  // site's frame by its role) no reader reads either. Before, the changelog reader dropped elements by their tag alone.
  it('a cookie banner or a dialog with a dated heading is no entry', () => {
    const page = readFileSync(new URL('fixtures/changelog/keep-a-changelog.html', import.meta.url), 'utf8')
    const framed = insert(page, '</body>',
      '<div id="cookie-consent"><h2>2.4.0 – 2026-10-20</h2><ul><li>We use cookies to improve the site.</li></ul></div>' +
      '<div role="dialog"><h2>2.5.0 – 2026-10-21</h2><ul><li>Subscribe to our newsletter.</li></ul></div>')
    assert.deepEqual(readChangelog(framed).entries.map(e => e.version), ['2.3.0', '2.2.1', '2.2.0'])
  })
})

describe('changelog changes', () => {
  it('a release as a repository writes it: what it brings leads, its pull requests and thanks do not', () => {
    const html = fixture('keep-a-changelog')
    const after = insert(html, '<h2>[2.3.0]', '<h2>[1.5.2] - 2026-11-24</h2><ul>' +
      '<li>PR #103: initiate cli release commit. Thanks to @sbansla!</li>' +
      '<li>chore(deps): bump undici from 7.1.0 to 7.2.0</li>' +
      '<li>Add support for the OAuth device flow to the CLI</li></ul>\n')
    const [c] = changelogChanges(html, after)
    assert.equal(c.summary, 'Changelog 1.5.2 (2026-11-24): Add support for the OAuth device flow to the CLI; PR #103: initiate ' +
      'cli release commit. Thanks to @sbansla!; and 1 more')
  })

  it('a new release is one change, weighed by what it says (a removal, a security fix: high)', () => {
    const html = fixture('keep-a-changelog')
    const after = insert(html, '<h2>[2.3.0]', '<h2>[2.4.0] - 2026-11-20</h2><h3>Removed</h3><ul><li>The v1 API is no longer available.</li></ul>' +
      '<h3>Security</h3><ul><li>Fixed an XSS in comments.</li></ul>\n')
    const changes = changelogChanges(html, after)
    assert.equal(changes.length, 1)
    const [c] = changes
    assert.deepEqual([c.changeType, c.severity], ['content_change', 'high'])
    assert.equal(c.summary, 'Changelog 2.4.0 (2026-11-20): Removed: The v1 API is no longer available.; Security: Fixed an XSS in comments.')
    assert.deepEqual(c.diffData.changelog, {
      version: '2.4.0',
      date: '2026-11-20',
      title: '2.4.0',
      items: ['Removed: The v1 API is no longer available.', 'Security: Fixed an XSS in comments.']
    })
    assert.ok(c.diffData.hunks.length > 0, 'with the text diff')
  })

  it('an entry that adds things is feature_added; two new entries are one change, led by the weightier', () => {
    const html = fixture('headed-fr')
    const after = insert(html, '<h2>3 octobre 2026</h2>',
      '<h2>5 novembre 2026</h2><h3>Nouvelle API de facturation</h3><p>Créez des factures depuis votre code.</p>\n' +
      '<h2>28 octobre 2026</h2><h3>Thème sombre</h3><p>Le thème suit votre système.</p>\n')
    const changes = changelogChanges(html, after)
    assert.deepEqual(changes.map(c => [c.changeType, c.severity, c.summary]), [
      ['feature_added', 'medium', 'Changelog 2026-11-05: Nouvelle API de facturation; Créez des factures depuis votre code; and 1 more release']
    ])
    assert.deepEqual(changes[0].diffData.facts!.map(f => [f.kind, f.subject, f.release, f.adds]),
      [['release_added', '2026-11-05', 'plain', true], ['release_added', '2026-10-28', 'plain', true]])
  })

  it('a release card in German about a security fix; a Spanish removal', () => {
    const cards = fixture('cards-de')
    const [de] = changelogChanges(cards, insert(cards, '  <article class="release-card">',
      '<article class="release-card"><time datetime="2026-11-02">2. November 2026</time><h3>Sicherheitsupdate</h3>' +
      '<ul><li>Eine Sicherheitslücke im Login wurde geschlossen.</li></ul></article>\n'))
    assert.deepEqual([de.severity, de.diffData.changelog?.title, de.diffData.changelog?.date], ['high', 'Sicherheitsupdate', '2026-11-02'])
    const es = fixture('versions-es')
    const [c] = changelogChanges(es, insert(es, '<section><h2>Versión 4.1',
      '<section><h2>Versión 4.2 — 10 de noviembre de 2026</h2><ul><li>Se eliminó la exportación CSV.</li></ul></section>\n'))
    assert.deepEqual([c.severity, c.diffData.changelog?.version, c.diffData.changelog?.date], ['high', '4.2', '2026-11-10'])
  })

  it('prices and plans, in the page\'s language, are high; billing words alone are not prices', () => {
    const cards = fixture('cards-de')
    const [prices] = changelogChanges(cards, insert(cards, '  <article class="release-card">',
      '<article class="release-card"><time datetime="2026-12-01">1. Dezember 2026</time><h3>Neue Preise</h3>' +
      '<ul><li>Die Pakete kosten ab Januar mehr.</li></ul></article>\n'))
    assert.equal(prices.severity, 'high')
    const [billing] = changelogChanges(cards, insert(cards, '  <article class="release-card">',
      '<article class="release-card"><time datetime="2026-12-01">1. Dezember 2026</time><h3>Rechnungsexport</h3>' +
      '<ul><li>Rechnungen als PDF herunterladen.</li></ul></article>\n'))
    // A feature named, as cards name them: it adds (medium), and is no price (high).
    assert.deepEqual([billing.changeType, billing.severity], ['feature_added', 'medium'])
    const [fixes] = changelogChanges(cards, insert(cards, '  <article class="release-card">',
      '<article class="release-card"><time datetime="2026-12-01">1. Dezember 2026</time><h3>Fehlerbehebungen</h3>' +
      '<ul><li>Der Export ist schneller.</li></ul></article>\n'))
    assert.deepEqual([fixes.changeType, fixes.severity], ['content_change', 'low'], 'fixes and tuning bring nothing new')
  })

  it('an old entry whose item breaks in two lines (<br>), edited: told once, by its entry', () => {
    const html = fixture('keep-a-changelog').replace('Login with SSO on Safari.', 'Login with SSO<br>on Safari.')
    const changes = changelogChanges(html, html.replace('on Safari.', 'on Safari and Firefox.'))
    assert.deepEqual(changes.map(c => [c.changeType, c.severity, c.summary]), [
      ['content_change', 'low', 'Changelog 2.2.1 (2026-09-12) edited: Fixed: Login with SSO on Safari and Firefox.']
    ])
    assert.deepEqual(changes[0].diffData.facts!.map(f => f.kind), ['release_edited'], 'the text does not tell it again')
  })

  it('an old entry edited is a low content_change', () => {
    const html = fixture('keep-a-changelog')
    const changes = changelogChanges(html, html.replace('Login with SSO on Safari.', 'Login with SSO on Safari and Firefox.'))
    assert.deepEqual(changes.map(c => [c.changeType, c.severity, c.summary]), [
      ['content_change', 'low', 'Changelog 2.2.1 (2026-09-12) edited: Fixed: Login with SSO on Safari and Firefox.']
    ])
  })

  it('the same entries re-ordered or re-rendered are nothing', () => {
    const html = fixture('keep-a-changelog')
    const rendered = html.replace('<h2>[2.3.0] - 2026-10-02</h2>', '<h2 id="v230"><a href="#v230">[2.3.0]</a> – <time>2026-10-02</time></h2>')
      .replace('<h3>Added</h3>', '<h3 class="added">Added</h3>')
    assert.deepEqual(changelogChanges(html, rendered), [])
    const cards = fixture('cards-de')
    const first = cards.indexOf('  <article class="release-card">')
    const second = cards.indexOf('  <article class="release-card">', first + 10)
    const end = cards.indexOf('</div>\n</main>')
    const swapped = cards.slice(0, first) + cards.slice(second, end) + cards.slice(first, second) + cards.slice(end)
    assert.notEqual(swapped, cards)
    assert.deepEqual(changelogChanges(cards, swapped), [])
  })

  it('a text edit beside the entries is still the text\'s change', () => {
    const html = fixture('keep-a-changelog')
    const changes = changelogChanges(html, html.replace('All notable changes to Relay', 'Every notable change to Relay'))
    assert.equal(changes.length, 1)
    assert.equal(changes[0].diffData.changelog, undefined)
  })
})
