import { readFileSync } from 'node:fs'
import { parse, stringify } from 'yaml'
import { apiChange, compareSpecs, parseSpec, specLinks } from '../../src/changes/api-spec.js'
import { readChangelog } from '../../src/changes/changelog.js'
import type { DetectedChange } from '../../src/changes/classify.js'
import { compareContent, readPage } from '../../src/changes/detect.js'
import { readPricing } from '../../src/changes/pricing.js'
import type { PageType } from '../../src/domain/vocabulary.js'

// The structured readers' labelled set (npm run quality prints it as figures): pricing pages
// in five shapes, the Petstore's description evolved, changelogs in four shapes and three
// languages; for each, what must be read, the moves that must be found and typed, and the
// noise that must stay silent. The fixtures are test/changes/fixtures/.

export type Reader = 'pricing' | 'api' | 'changelog'
export interface ReaderCase {
  reader: Reader
  kind: 'read' | 'move' | 'noise'
  id: string
  /** Whether the reader got it right, and what it saw. */
  run: () => { right: boolean, seen: string }
}

const fixture = (path: string) => readFileSync(new URL(`../changes/fixtures/${path}`, import.meta.url), 'utf8')
const swap = (html: string, from: string, to: string) => {
  if (!html.includes(from)) throw new Error(`the fixture holds no ${from}`)
  return html.replace(from, to)
}
const said = (changes: DetectedChange[]) => changes.map(c => `${c.changeType}/${c.severity}: ${c.summary}`).join(' | ') ||
  'nothing'

function changesOf (pageType: PageType, before: string, after: string): DetectedChange[] {
  const [a, b] = [readPage(before, undefined, undefined, pageType), readPage(after, undefined, undefined, pageType)]
  return a.hash === b.hash ? [] : compareContent(a.text, b, pageType, undefined, { before, after })
}

const read = (reader: Reader, id: string, got: () => string, expected: string): ReaderCase =>
  ({ reader, kind: 'read', id, run: () => { const seen = got(); return { right: seen === expected, seen } } })
const move = (reader: Reader, id: string, changes: () => DetectedChange[], expected: string): ReaderCase =>
  ({ reader, kind: 'move', id, run: () => { const c = changes(); return { right: c.length === 1 && `${c[0].changeType}/${c[0].severity}` === expected, seen: said(c) } } })
const noise = (reader: Reader, id: string, changes: () => DetectedChange[]): ReaderCase =>
  ({ reader, kind: 'noise', id, run: () => { const c = changes(); return { right: c.length === 0, seen: said(c) } } })

const plans = (html: string) => readPricing(html).table.plans.map(p => `${p.name} ${p.prices.map(x => x.text).join(',')}`).join('; ')
const entries = (html: string) => readChangelog(html).entries.map(e => [e.version, e.date, e.title].filter(Boolean).join(' ')).join('; ')

function pricingCases (): ReaderCase[] {
  const cards = fixture('pricing/cards.html')
  const table = fixture('pricing/table.html')
  const jsonld = fixture('pricing/jsonld.html')
  const toggle = fixture('pricing/toggle.html')
  const rendered = fixture('pricing/rendered-table.html')
  const p = (id: string, before: string, after: string, expected: string) => move('pricing', id, () => changesOf('pricing', before, after), expected)
  const cardsReordered = () => {
    const i = cards.indexOf('    <div class="plan-card">')
    const j = cards.indexOf('    <div class="plan-card featured">')
    const k = cards.indexOf('    <div class="plan-card">', j)
    return cards.slice(0, i) + cards.slice(j, k) + cards.slice(i, j) + cards.slice(k)
  }
  return [
    read('pricing', 'cards', () => plans(cards), 'Starter $19/month; Pro $49/month; Enterprise '),
    read('pricing', 'comparison table', () => plans(table), 'Free $0/month; Team $12/month; Business $24/month'),
    read('pricing', 'JSON-LD', () => plans(jsonld), 'Nimbus Basic 9 €/month; Nimbus Plus 29 €/month'),
    read('pricing', 'monthly/yearly toggle', () => plans(toggle),
      'Solo $10/month,$8/month (billed yearly); Studio $30/month,$24/month (billed yearly)'),
    read('pricing', 'client-rendered table', () => plans(rendered), 'Hobby $5/month; Growth $25/month; Scale $99/month'),
    p('cards: a rise of 20%', cards, swap(cards, '<span class="amount">49</span>', '<span class="amount">59</span>'), 'price_change/high'),
    p('cards: a cut of 8%', cards, swap(cards, '<span class="amount">49</span>', '<span class="amount">45</span>'), 'price_change/medium'),
    p('cards: a feature moved', cards, swap(swap(cards, '<li>SSO</li>', ''), '<li>Audit log</li>', '<li>Audit log</li><li>SSO</li>'), 'feature_removed/medium'),
    p('table: a rise of 21%', table, swap(table, '<td>$24</td>', '<td>$29</td>'), 'price_change/high'),
    p('JSON-LD: a rise of 21%', jsonld, jsonld.replaceAll('"29.00"', '"35.00"').replace('29,00 €', '35,00 €'), 'price_change/high'),
    p('toggle: the yearly price cut', toggle, swap(toggle, '$24 <small>per month</small>', '$20 <small>per month</small>'), 'price_change/medium'),
    p('rendered: a plan added', rendered, rendered.replace('<th>Scale</th>', '<th>Scale</th><th>Max</th>').replace('<td>$99/mo</td>', '<td>$99/mo</td><td>$299/mo</td>')
      .replace('<td>100</td>', '<td>100</td><td>1000</td>').replace(/(<td>SLA<\/td>.*?)<\/tr>/, '$1<td>✓</td></tr>')
      .replace(/(<td>Email support<\/td>.*?)<\/tr>/, '$1<td>✓</td></tr>').replace(/(<td>Analytics<\/td>.*?)<\/tr>/, '$1<td>✓</td></tr>'), 'price_change/medium'),
    noise('pricing', 'cards re-ordered', () => changesOf('pricing', cards, cardsReordered())),
    noise('pricing', 'a currency switcher', () => changesOf('pricing', cards, cards.replaceAll('<span class="currency">$</span>', '<span class="currency">€</span>'))),
    noise('pricing', 'a "save" badge flips', () => changesOf('pricing', toggle, swap(toggle, '<button aria-selected="true">Monthly</button><button>Yearly <span class="save">Save 20%</span></button>',
      '<button>Monthly</button><button aria-selected="true">Yearly</button><span class="save">Save 20%</span>'))),
    noise('pricing', 'a table re-rendered', () => changesOf('pricing', table, table.replace('<table class="comparison">', '<table class="comparison v2" data-sticky>').replaceAll('<td>✓</td>', '<td> ✓ </td>')))
  ]
}

function apiCases (): ReaderCase[] {
  const spec = () => parse(fixture('api/petstore.yaml'))
  const a = (id: string, edit: (s: any) => void, expected: string): ReaderCase => move('api', id, () => {
    const after = spec()
    edit(after)
    const c = apiChange(compareSpecs(parseSpec(fixture('api/petstore.yaml')), parseSpec(stringify(after))),
      { before: '', after: '', stats: { additions: 0, deletions: 0, changes: 0 }, hunks: [] })
    return c ? [c] : []
  }, expected)
  const found = (page: string) => () => specLinks(fixture(`api/${page}`), 'https://petstore.example.test/docs/api').join(' ')
  return [
    read('api', 'Swagger UI names its description', found('swagger-ui.html'), 'https://petstore.example.test/specs/petstore.json'),
    read('api', 'Redoc names its description', found('redoc.html'), 'https://petstore.example.test/openapi.yaml'),
    read('api', 'a plain link to YAML', found('link.html'), 'https://petstore.example.test/downloads/petstore-openapi.yaml'),
    read('api', 'the Petstore read', () => String(Object.keys(parseSpec(fixture('api/petstore.yaml')).paths).length), '2'),
    a('an operation added', s => { s.paths['/pets/{petId}/photos'] = { get: { responses: { 200: { description: 'ok' } } } } }, 'feature_added/medium'),
    a('a deprecation', s => { s.paths['/pets'].get.deprecated = true }, 'content_change/medium'),
    a('a required request field', s => { s.components.schemas.NewPet.required.push('tag') }, 'feature_removed/high'),
    a('a required parameter', s => { s.paths['/pets'].get.parameters[0].required = true }, 'feature_removed/high'),
    a('a response field removed', s => { delete s.components.schemas.Pet.properties.tag }, 'feature_removed/high'),
    a('a type narrowed', s => { s.components.schemas.Pet.properties.id = { type: 'string' } }, 'feature_removed/high'),
    a('an operation removed', s => { delete s.paths['/pets/{petId}'].delete }, 'feature_removed/critical'),
    a('descriptions only', s => { s.info.description = 'The pet store, now with more words.' }, 'content_change/low'),
    noise('api', 'the same description as JSON', () => {
      const c = apiChange(compareSpecs(parseSpec(fixture('api/petstore.yaml')), parseSpec(JSON.stringify(spec()))),
        { before: '', after: '', stats: { additions: 0, deletions: 0, changes: 0 }, hunks: [] })
      return c ? [c] : []
    })
  ]
}

function changelogCases (): ReaderCase[] {
  const kac = fixture('changelog/keep-a-changelog.html')
  const fr = fixture('changelog/headed-fr.html')
  const de = fixture('changelog/cards-de.html')
  const es = fixture('changelog/versions-es.html')
  const c = (id: string, before: string, after: string, expected: string) => move('changelog', id, () => changesOf('changelog', before, after), expected)
  return [
    read('changelog', 'Keep a Changelog (en)', () => entries(kac), '2.3.0 2026-10-02 2.3.0; 2.2.1 2026-09-12 2.2.1; 2.2.0 2026-08-30 2.2.0'),
    read('changelog', 'dated sections (fr)', () => entries(fr), '2026-10-03 Export PDF des rapports; 2026-09-12 Tableaux de bord partagés'),
    read('changelog', 'release cards (de)', () => entries(de), '2026-10-15 Fristenkalender; 2026-09-20 Aktenexport'),
    read('changelog', 'versioned sections (es)', () => entries(es), '4.1 2026-09-28 4.1; 4.0 2026-09-01 4.0'),
    c('en: a removal', kac, swap(kac, '<h2>[2.3.0]', '<h2>[2.4.0] - 2026-11-20</h2><h3>Removed</h3><ul><li>The v1 API.</li></ul>\n<h2>[2.3.0]'), 'content_change/high'),
    c('fr: something new', fr, swap(fr, '<h2>3 octobre 2026</h2>', '<h2>5 novembre 2026</h2><h3>Nouvelle API</h3><p>Créez des factures.</p>\n<h2>3 octobre 2026</h2>'), 'feature_added/medium'),
    c('de: a security fix', de, swap(de, '  <article class="release-card">', '<article class="release-card"><time datetime="2026-11-02">2. November 2026</time><h3>Sicherheitsupdate</h3><ul><li>Lücke geschlossen.</li></ul></article>\n  <article class="release-card">'), 'content_change/high'),
    c('es: a deprecation', es, swap(es, '<section><h2>Versión 4.1', '<section><h2>Versión 4.2 — 10 de noviembre de 2026</h2><ul><li>La API v1 queda obsoleta.</li></ul></section>\n<section><h2>Versión 4.1'), 'content_change/medium'),
    c('en: an old entry edited', kac, swap(kac, 'Login with SSO on Safari.', 'Login with SSO on Safari and Firefox.'), 'content_change/low'),
    noise('changelog', 'en: re-rendered', () => changesOf('changelog', kac, swap(kac, '<h2>[2.3.0] - 2026-10-02</h2>', '<h2 id="v230"><a href="#v230">[2.3.0]</a> – <time>2026-10-02</time></h2>'))),
    noise('changelog', 'de: cards re-ordered', () => {
      const first = de.indexOf('  <article class="release-card">')
      const second = de.indexOf('  <article class="release-card">', first + 10)
      const end = de.indexOf('</div>\n</main>')
      return changesOf('changelog', de, de.slice(0, first) + de.slice(second, end) + de.slice(first, second) + de.slice(end))
    })
  ]
}

export const readerCases = (): ReaderCase[] => [...pricingCases(), ...apiCases(), ...changelogCases()]
