import { readFileSync } from 'node:fs'
import { parse, stringify } from 'yaml'
import { apiChange, compareSpecs, parseSpec, specLinks } from '../../src/detection/readers/api/spec.js'
import { readChangelog } from '../../src/detection/readers/changelog/read.js'
import type { DetectedChange } from '../../src/vocabulary/core.js'
import { compareContent, readPage } from '../../src/detection/detect.js'
import { readPricing } from '../../src/detection/readers/pricing/read.js'
import type { PageType } from '../../src/vocabulary/core.js'

// The structured readers' labelled set (npm run quality prints it as figures): pricing pages
// in ten shapes (cards, tables with plans as columns and as rows, a provider's price list,
// a docs page's Markdown tables, a limits table, JSON-LD, a toggle, a French page), the
// Petstore's and an orders API's descriptions evolved, changelogs in four shapes and three
// languages; for each, what must be read, the moves that must be found and typed, the
// noise that must stay silent (or, for wording, a low text change at most), and how many
// changed lines of the text a reader hid (goal: none). The fixtures are test/detection/fixtures/.

export type Reader = 'pricing' | 'api' | 'changelog'
export interface ReaderCase {
  reader: Reader
  kind: 'read' | 'move' | 'noise'
  id: string
  /** Whether the reader got it right, what it saw, and how many changed lines of the text it hid. */
  run: () => { right: boolean, seen: string, hidden: number }
}

export const fixture = (path: string) => readFileSync(new URL(`../detection/fixtures/${path}`, import.meta.url), 'utf8')
/** `html` with each `[from, to]` replaced once; a `from` the page does not hold is a broken fixture. */
export const swap = (html: string, ...pairs: Array<[string, string]>) => pairs.reduce((h, [from, to]) => {
  if (!h.includes(from)) throw new Error(`the fixture holds no ${from}`)
  return h.replace(from, to)
}, html)
type Told = Pick<DetectedChange, 'changeType' | 'severity' | 'summary'>
interface Outcome { changes: Told[], hidden: number }
const said = (changes: Told[]) => changes.map(c => `${c.changeType}/${c.severity}: ${c.summary}`).join(' | ') ||
  'nothing'

/** The changed lines of some changes' diffs, counted. */
function changedLines (changes: readonly DetectedChange[]): Map<string, number> {
  const out = new Map<string, number>()
  for (const c of changes) {
    for (const h of c.diffData.hunks) {
      for (const l of h.lines) if (l.type !== 'context') out.set(`${l.type} ${l.content}`, (out.get(`${l.type} ${l.content}`) ?? 0) + 1)
    }
  }
  return out
}

/**
 * What a page's two versions report with its type's reader, and how many of the lines the
 * text comparison alone reports changed are in none of those changes (hidden by the reader).
 */
export function changesOf (
  pageType: PageType, before: string, after: string, documents: { beforeDocument?: string, afterDocument?: string } = {}
): { changes: DetectedChange[], hidden: number } {
  const [a, b] = [readPage(before, undefined, undefined, pageType), readPage(after, undefined, undefined, pageType)]
  if (a.hash === b.hash && !documents.beforeDocument) return { changes: [], hidden: 0 }
  const changes = compareContent(a.text, b, pageType, undefined, { before, after, ...documents })
  const [alone, told] = [changedLines(compareContent(a.text, b, pageType)), changedLines(changes)]
  let hidden = 0
  for (const [line, n] of alone) hidden += Math.max(0, n - (told.get(line) ?? 0))
  return { changes, hidden }
}
const only = (changes: Told[]): Outcome => ({ changes, hidden: 0 })

const read = (reader: Reader, id: string, got: () => string, expected: string): ReaderCase =>
  ({ reader, kind: 'read', id, run: () => { const seen = got(); return { right: seen === expected, seen, hidden: 0 } } })
/** One change of the expected type and severity (and summary, when given). */
const move = (reader: Reader, id: string, outcome: () => Outcome, expected: string, summary?: RegExp): ReaderCase =>
  ({
    reader,
    kind: 'move',
    id,
    run: () => {
      const { changes: c, hidden } = outcome()
      const right = c.length === 1 && `${c[0].changeType}/${c[0].severity}` === expected && (!summary || summary.test(c[0].summary))
      return { right, seen: said(c), hidden }
    }
  })
/** Nothing reported; `wording`: at most one low content_change (a link re-worded, a typo fixed). */
const noise = (reader: Reader, id: string, outcome: () => Outcome, wording = false): ReaderCase =>
  ({
    reader,
    kind: 'noise',
    id,
    run: () => {
      const { changes: c } = outcome()
      const right = c.length === 0 || (wording && c.length === 1 && c[0].changeType === 'content_change' && c[0].severity === 'low')
      return { right, seen: said(c), hidden: 0 }
    }
  })

const plans = (html: string) => readPricing(html).table.plans.map(p => `${p.name} ${p.prices.map(x => x.text).join(',')}`).join('; ')
const limitsOf = (html: string, plan: string) =>
  readPricing(html).table.plans.find(p => p.name === plan)?.limits.map(l => `${l.name}=${l.value}`).join(', ') ?? 'no such plan'
const entries = (html: string) => readChangelog(html).entries.map(e => [e.version, e.date, e.title].filter(Boolean).join(' ')).join('; ')

function pricingCases (): ReaderCase[] {
  const cards = fixture('pricing/cards.html')
  const table = fixture('pricing/table.html')
  const jsonld = fixture('pricing/jsonld.html')
  const toggle = fixture('pricing/toggle.html')
  const rendered = fixture('pricing/rendered-table.html')
  const rows = fixture('pricing/plans-rows.html')
  const list = fixture('pricing/price-list.html')
  const docs = fixture('pricing/docs-pricing.html')
  const limits = fixture('pricing/limits.html')
  const fr = fixture('pricing/tarifs-fr.html')
  const p = (id: string, before: string, after: string, expected: string, summary?: RegExp) =>
    move('pricing', id, () => changesOf('pricing', before, after), expected, summary)
  const quiet = (id: string, before: string, after: string, wording = false) =>
    noise('pricing', id, () => changesOf('pricing', before, after), wording)
  const cardsReordered = () => {
    const i = cards.indexOf('    <div class="plan-card">')
    const j = cards.indexOf('    <div class="plan-card featured">')
    const k = cards.indexOf('    <div class="plan-card">', j)
    return cards.slice(0, i) + cards.slice(j, k) + cards.slice(i, j) + cards.slice(k)
  }
  const card = (name: string, amount: number, items: string[]) =>
    `    <div class="plan-card">\n      <h3>${name}</h3>\n      <div class="price"><span class="currency">$</span><span class="amount">${amount}</span><span class="per">/month</span></div>\n` +
    `      <p class="fine">Billed monthly, excl. VAT</p>\n      <ul>\n${items.map(i => `        <li>${i}</li>`).join('\n')}\n      </ul>\n    </div>\n`
  const overhaul = () => {
    const start = cards.indexOf('    <div class="plan-card">')
    const pro = cards.indexOf('    <div class="plan-card featured">')
    const enterprise = cards.indexOf('    <div class="plan-card">', pro)
    return cards.slice(0, start) + card('Basic', 9, ['1 user', '3 projects']) +
      swap(cards.slice(pro, enterprise), ['<span class="amount">49</span>', '<span class="amount">59</span>']) +
      card('Business', 199, ['50 users', 'Unlimited projects', 'SSO']) + cards.slice(enterprise)
  }
  const overageFirst = () => {
    const plansAt = docs.indexOf('<h2 id="plans">')
    const overage = docs.indexOf('<h2 id="overage">')
    const rates = docs.indexOf('<h2 id="rate-limits">')
    return docs.slice(0, plansAt) + docs.slice(overage, rates) + docs.slice(plansAt, overage) + docs.slice(rates)
  }
  const freeRule = '<p>Les membres gratuits ne peuvent pas contacter un vendeur avant d\'avoir vérifié leur numéro de téléphone, et leurs annonces restent en ligne trente jours.</p>\n'
  return [
    read('pricing', 'cards', () => plans(cards), 'Starter $19/month; Pro $49/month; Enterprise '),
    read('pricing', 'comparison table', () => plans(table), 'Free $0/user/month; Team $12/user/month; Business $24/user/month'),
    read('pricing', 'JSON-LD', () => plans(jsonld), 'Nimbus Basic 9 €/month; Nimbus Plus 29 €/month'),
    read('pricing', 'monthly/yearly toggle', () => plans(toggle),
      'Solo $10/month,$8/month (billed yearly); Studio $30/month,$24/month (billed yearly)'),
    read('pricing', 'client-rendered table', () => plans(rendered), 'Hobby $5/month; Growth $25/month; Scale $99/month'),
    read('pricing', 'plans as rows', () => plans(rows), 'Starter $19/month; Pro $49/month; Team $99/month'),
    read('pricing', 'a price list: a table per product line, periods as columns', () => plans(list),
      'CX22 0.006 €/hour,3.79 €/month; CX32 0.011 €/hour,6.80 €/month; CX42 0.026 €/hour,16.40 €/month; ' +
      'Storage 0.0065 €/GB-month; Egress traffic 0.01 €/GB; Requests 0.40 €/1,000,000 requests; ' +
      'Basic 0 €/month,0 €/year; Business 100 €/month,1000 €/year; Premium 400 €/month,4000 €/year'),
    read('pricing', 'a docs page: Markdown tables, a price in prose', () => plans(docs), 'Free $0; Developer $29/month; Business $199/month'),
    read('pricing', 'cards and a limits table', () => limitsOf(limits, 'Pro'), 'memory per instance=2 GB, build minutes=3,000, concurrent builds=2'),
    read('pricing', 'French cards', () => plans(fr), 'Gratuit 0 €/month; Membre 4.90 €/month; Pro 19 €/month'),
    p('cards: a rise of 20%', cards, swap(cards, ['<span class="amount">49</span>', '<span class="amount">59</span>']), 'price_change/high'),
    p('cards: a cut of 8%', cards, swap(cards, ['<span class="amount">49</span>', '<span class="amount">45</span>']), 'price_change/medium'),
    p('cards: a feature moved', cards, swap(cards, ['<li>SSO</li>', ''], ['<li>Audit log</li>', '<li>Audit log</li><li>SSO</li>']), 'feature_removed/medium'),
    p('table: a rise of 21%', table, swap(table, ['<td>$24</td>', '<td>$29</td>']), 'price_change/high'),
    p('JSON-LD: a rise of 21%', jsonld, jsonld.replaceAll('"29.00"', '"35.00"').replace('29,00 €', '35,00 €'), 'price_change/high'),
    p('toggle: the yearly price cut', toggle, swap(toggle, ['$24 <small>per month</small>', '$20 <small>per month</small>']), 'price_change/medium'),
    p('rendered: a plan added', rendered, rendered.replace('<th>Scale</th>', '<th>Scale</th><th>Max</th>').replace('<td>$99/mo</td>', '<td>$99/mo</td><td>$299/mo</td>')
      .replace('<td>100</td>', '<td>100</td><td>1000</td>').replace(/(<td>SLA<\/td>.*?)<\/tr>/, '$1<td>✓</td></tr>')
      .replace(/(<td>Email support<\/td>.*?)<\/tr>/, '$1<td>✓</td></tr>').replace(/(<td>Analytics<\/td>.*?)<\/tr>/, '$1<td>✓</td></tr>'), 'price_change/medium'),
    p('plans as rows: Pro $49 → $59', rows, swap(rows, ['<td>$49/month</td>', '<td>$59/month</td>']), 'price_change/high',
      /^Pro: \$49\/month → \$59\/month \(\+20%\)$/),
    p('a plan overhaul: plans matched by name, never by place', cards, overhaul(), 'price_change/high',
      /^Pro: \$49\/month → \$59\/month \(\+20%\); Starter plan removed \(\$19\/month\); plans Basic \(\$9\/month\) and Business \(\$199\/month\) added$/),
    p('a price list: per-unit prices cut', list, swap(list, ['€0.01 per GB', '€0.008 per GB'], ['€0.0065 per GB-month', '€0.0059 per GB-month']),
      'price_change/high', /^Egress traffic: 0\.01 €\/GB → 0\.008 €\/GB \(-20%\); Storage: 0\.0065 €\/GB-month → 0\.0059 €\/GB-month \(-9%\)$/),
    p('a price list: a support plan\'s yearly price up', list, swap(list, ['<td>€1,000</td>', '<td>€1,200</td>']), 'price_change/high',
      /^Business: 1000 €\/year → 1200 €\/year \(\+20%\)$/),
    p('a limits table: a limit halved', limits, swap(limits, ['<td>2 GB</td>', '<td>1 GB</td>']), 'feature_removed/high',
      /^Pro: memory per instance 2 GB → 1 GB \(-50%\)$/),
    p('a limits table: a limit raised', limits, swap(limits, ['<td>3,000</td>', '<td>5,000</td>']), 'feature_added/medium',
      /^Pro: build minutes 3,000 → 5,000 \(\+67%\)$/),
    p('a docs page: a plan\'s allowance cut', docs, swap(docs, ['<td style="text-align: right;">100,000</td>', '<td style="text-align: right;">50,000</td>']),
      'feature_removed/high', /^Developer: requests per month 100,000 → 50,000 \(-50%\)$/),
    p('a docs page: a section heading is no plan (its removal is a section\'s)', docs, (() => {
      const at = docs.indexOf('<h2 id="overage">')
      return docs.slice(0, at) + docs.slice(docs.indexOf('<h2 id="rate-limits">'))
    })(), 'section_removed/high', /Overage/),
    p('French: a sentence limiting free members removed', fr, swap(fr, [freeRule, '']), 'feature_added/medium', /Les membres gratuits ne peuvent pas contacter/),
    quiet('cards re-ordered', cards, cardsReordered()),
    quiet('a currency switcher', cards, cards.replaceAll('<span class="currency">$</span>', '<span class="currency">€</span>')),
    quiet('a "save" badge flips', toggle, swap(toggle, ['<button aria-selected="true">Monthly</button><button>Yearly <span class="save">Save 20%</span></button>',
      '<button>Monthly</button><button aria-selected="true">Yearly</button><span class="save">Save 20%</span>'])),
    quiet('a table re-rendered', table, table.replace('<table class="comparison">', '<table class="comparison v2" data-sticky>').replaceAll('<td>✓</td>', '<td> ✓ </td>')),
    quiet('plans as rows re-rendered', rows, swap(rows, ['<table class="table table--striped">', '<table class="tbl">']).replaceAll('<strong>', '<b>').replaceAll('</strong>', '</b>')),
    quiet('a docs page: a section moved up', docs, overageFirst()),
    quiet('a docs page: a link re-worded', docs, swap(docs, ['See what\'s included in each plan on the', 'Compare what each plan includes on the']), true),
    quiet('rows: a link re-worded', rows, swap(rows, ['Compare every plan\'s features', 'See what every plan includes']), true),
    quiet('a price list: a year typo fixed in three notes', list, list.replaceAll('1 March 2205', '1 March 2025'), true)
  ]
}

function apiCases (): ReaderCase[] {
  const spec = () => parse(fixture('api/petstore.yaml'))
  const orders = () => parse(fixture('api/orders.yaml'))
  const page = fixture('api/swagger-ui.html')
  /** The API page (its HTML unchanged) with its description before and after `edit`. */
  const evolve = (base: () => any, edit: (s: any) => void) => () => {
    const after = base()
    edit(after)
    return changesOf('api_docs', page, page, { beforeDocument: stringify(base()), afterDocument: stringify(after) })
  }
  const a = (id: string, edit: (s: any) => void, expected: string, summary?: RegExp, base = spec): ReaderCase =>
    move('api', id, evolve(base, edit), expected, summary)
  const found = (html: string) => () => specLinks(fixture(`api/${html}`), 'https://petstore.example.test/docs/api').join(' ')
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
    a('a response become one object instead of an array', s => {
      s.paths['/orders'].get.responses['200'].content['application/json'].schema = {
        type: 'object', properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Order' } } }
      }
    }, 'feature_removed/high', /^API: GET \/orders response body type array → object$/, orders),
    a('a field required inside the items of an optional array', s => {
      s.components.schemas.NewOrder.properties.items.items.required = ['sku', 'quantity']
    }, 'feature_removed/high', /^API: POST \/orders required request field `items\[\]\.quantity` now required \(when `items` is sent\)$/, orders),
    a('a request enum value removed', s => {
      s.components.schemas.NewOrder.properties.shipping.properties.method.enum = ['standard', 'express']
    }, 'feature_removed/high', /no longer accepts `overnight`/, orders),
    noise('api', 'descriptions, examples, extensions and the version only', evolve(orders, s => {
      s.info.version = '2024-09-15'
      s.info.description = 'Create, track and cancel orders.'
      s.paths['/orders'].get.summary = 'List your orders'
      s.paths['/orders'].get['x-rate-limit'] = 200
      s.paths['/orders'].get.responses['200'].content['application/json'].examples.one.value[0].total = 1499
      s.components.schemas.NewOrder.properties.customer_id.description = 'Who orders.'
    })),
    noise('api', 'the same description as JSON', () => {
      const c = apiChange(compareSpecs(parseSpec(fixture('api/petstore.yaml')), parseSpec(JSON.stringify(spec()))))
      return only(c ? [c] : [])
    })
  ]
}

function changelogCases (): ReaderCase[] {
  const kac = fixture('changelog/keep-a-changelog.html')
  const fr = fixture('changelog/headed-fr.html')
  const de = fixture('changelog/cards-de.html')
  const es = fixture('changelog/versions-es.html')
  const c = (id: string, before: string, after: string, expected: string, summary?: RegExp) =>
    move('changelog', id, () => changesOf('changelog', before, after), expected, summary)
  const unreleased = swap(kac, ['<h2>[2.3.0]', '<h2>[Unreleased]</h2>\n<h3>Added</h3>\n<ul><li>Audit log export to S3.</li><li>Team-level API keys.</li></ul>\n<h2>[2.3.0]'])
  const released = swap(kac, ['<h2>[2.3.0]', '<h2>[Unreleased]</h2>\n<h2>[2.4.0] - 2026-11-20</h2>\n<h3>Added</h3>\n<ul><li>Audit log export to S3.</li><li>Team-level API keys.</li></ul>\n<h2>[2.3.0]'])
  return [
    read('changelog', 'Keep a Changelog (en)', () => entries(kac), '2.3.0 2026-10-02 2.3.0; 2.2.1 2026-09-12 2.2.1; 2.2.0 2026-08-30 2.2.0'),
    read('changelog', 'Keep a Changelog with [Unreleased]', () => entries(unreleased), 'Unreleased; 2.3.0 2026-10-02 2.3.0; 2.2.1 2026-09-12 2.2.1; 2.2.0 2026-08-30 2.2.0'),
    read('changelog', 'dated sections (fr)', () => entries(fr), '2026-10-03 Export PDF des rapports; 2026-09-12 Tableaux de bord partagés'),
    read('changelog', 'release cards (de)', () => entries(de), '2026-10-15 Fristenkalender; 2026-09-20 Aktenexport'),
    read('changelog', 'versioned sections (es)', () => entries(es), '4.1 2026-09-28 4.1; 4.0 2026-09-01 4.0'),
    c('en: a removal', kac, swap(kac, ['<h2>[2.3.0]', '<h2>[2.4.0] - 2026-11-20</h2><h3>Removed</h3><ul><li>The v1 API.</li></ul>\n<h2>[2.3.0]']), 'content_change/high'),
    c('en: an [Unreleased] entry on top', kac, unreleased, 'feature_added/medium', /^Changelog Unreleased: Added: Audit log export to S3\.; Added: Team-level API keys\.$/),
    c('en: the [Unreleased] entry released', unreleased, released, 'feature_added/medium', /^Changelog 2\.4\.0 \(2026-11-20\) released: /),
    c('fr: something new', fr, swap(fr, ['<h2>3 octobre 2026</h2>', '<h2>5 novembre 2026</h2><h3>Nouvelle API</h3><p>Créez des factures.</p>\n<h2>3 octobre 2026</h2>']), 'feature_added/medium'),
    c('de: a security fix', de, swap(de, ['  <article class="release-card">', '<article class="release-card"><time datetime="2026-11-02">2. November 2026</time><h3>Sicherheitsupdate</h3><ul><li>Lücke geschlossen.</li></ul></article>\n  <article class="release-card">']), 'content_change/high'),
    c('es: a deprecation', es, swap(es, ['<section><h2>Versión 4.1', '<section><h2>Versión 4.2 — 10 de noviembre de 2026</h2><ul><li>La API v1 queda obsoleta.</li></ul></section>\n<section><h2>Versión 4.1']), 'content_change/medium'),
    c('en: an old entry edited', kac, swap(kac, ['Login with SSO on Safari.', 'Login with SSO on Safari and Firefox.']), 'content_change/low'),
    noise('changelog', 'en: re-rendered', () => changesOf('changelog', kac, swap(kac, ['<h2>[2.3.0] - 2026-10-02</h2>', '<h2 id="v230"><a href="#v230">[2.3.0]</a> – <time>2026-10-02</time></h2>']))),
    noise('changelog', 'de: cards re-ordered', () => {
      const first = de.indexOf('  <article class="release-card">')
      const second = de.indexOf('  <article class="release-card">', first + 10)
      const end = de.indexOf('</div>\n</main>')
      return changesOf('changelog', de, de.slice(0, first) + de.slice(second, end) + de.slice(first, second) + de.slice(end))
    })
  ]
}

export const readerCases = (): ReaderCase[] => [...pricingCases(), ...apiCases(), ...changelogCases()]
