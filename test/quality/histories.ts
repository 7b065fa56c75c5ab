import { parse, stringify } from 'yaml'
import type { DetectedChange, PageType } from '../../src/vocabulary/core.js'
import { changesOf, fixture, swap } from './readers.js'

// Revision histories (npm run quality prints them as figures): a page through several
// revisions, each a real edit as sites make them, several things at once: a price rise
// with a new feature line and the footer's year, a plan renamed while another moves, an
// API release that adds, deprecates and re-words together, a changelog's entry released
// while an old one is corrected. Each revision is compared with the one before, as the
// crawler would, with the page type's reader. For each edit: told as one change, of the
// type and severity an analyst would give it, no price pair that says nothing happened
// ("A → A", a price gone and back), no percentage that no plan moved by, no changed line
// of the text that the reader's change does not carry. Goals: all.

export type HistoryReader = 'pricing' | 'api' | 'changelog'
export interface HistoryEdit {
  reader: HistoryReader
  history: string
  id: string
  /** `changeType/severity` an analyst gives this edit. */
  expected: string
  /** What the summary must show, when it matters most. */
  summary?: RegExp
  /** The percentages plans really moved by (a summary or fact giving another is wrong). */
  moved: number[]
  /** What the edit reports with its page type's reader, and how many changed lines of the text the reader hid. */
  compare: () => { changes: DetectedChange[], hidden: number }
}

export interface HistoryOutcome {
  oneChange: boolean
  typeRight: boolean
  /** Price pairs that say nothing happened. */
  nothing: string[]
  /** Percentages no plan moved by. */
  stray: number[]
  /** Changed lines of the text that the reader's change does not carry. */
  hidden: number
  seen: string
}

interface Step { id: string, expected: string, moved?: number[], summary?: RegExp }

/** A history's edits, each compared with the revision before it by `compare(i)`: revisions i and i + 1. */
function editsOf (
  reader: HistoryReader, name: string, steps: Step[], compare: (i: number) => ReturnType<typeof changesOf>
): HistoryEdit[] {
  return steps.map((s, i) => ({
    reader,
    history: name,
    id: s.id,
    expected: s.expected,
    summary: s.summary,
    moved: s.moved ?? [],
    compare: () => compare(i)
  }))
}

/** A page's history: each step edits the revision before it, and is compared with it. */
function history (
  reader: HistoryReader, name: string, pageType: PageType, first: string,
  steps: Array<Step & { edit: (page: string) => string }>
): HistoryEdit[] {
  const revisions = [first]
  for (const s of steps) revisions.push(s.edit(revisions.at(-1)!))
  return editsOf(reader, name, steps, i => changesOf(pageType, revisions[i], revisions[i + 1]))
}

/** An API description's history, its page (Swagger UI) unchanged: each step edits the description before it. */
function specHistory (name: string, first: string, steps: Array<Step & { edit: (spec: any) => void }>): HistoryEdit[] {
  const page = fixture('api/swagger-ui.html')
  const revisions = [stringify(parse(first))]
  for (const s of steps) {
    const next = parse(revisions.at(-1)!)
    s.edit(next)
    revisions.push(stringify(next))
  }
  return editsOf('api', name, steps,
    i => changesOf('api_docs', page, page, { beforeDocument: revisions[i], afterDocument: revisions[i + 1] }))
}

const year = (from: string, to: string): [string, string] => [`© ${from}`, `© ${to}`]

function pricingHistories (): HistoryEdit[] {
  const cards = fixture('pricing/cards.html')
  const table = fixture('pricing/table.html')
  const list = fixture('pricing/price-list.html')
  const docs = fixture('pricing/docs-pricing.html')
  const fr = fixture('pricing/tarifs-fr.html')
  return [
    ...history('pricing', 'cards', 'pricing', cards, [
      {
        id: 'Pro up 20 %, a feature line added to it, the FAQ grows',
        edit: p => swap(p, ['<span class="amount">49</span>', '<span class="amount">59</span>'], ['<li>SSO</li>', '<li>SSO</li>\n        <li>Audit log</li>'],
          ['</details>\n</main>', '</details>\n  <details><summary>Do you offer discounts?</summary><p>Yes, for non-profits.</p></details>\n</main>']),
        expected: 'price_change/high',
        moved: [20],
        summary: /^Pro: \$49\/month → \$59\/month \(\+20%\)/
      },
      {
        // Plans are matched by name: a plan renamed is one that went and one that came, with their prices.
        id: 'Starter renamed Basic at its price, with one user less',
        edit: p => swap(p, ['<h3>Starter</h3>', '<h3>Basic</h3>'], ['<li>3 users</li>', '<li>2 users</li>'], ['/signup?plan=starter', '/signup?plan=basic']),
        expected: 'price_change/high',
        summary: /^Starter plan removed \(\$19\/month\); Basic plan added \(\$19\/month\)$/
      },
      {
        id: 'Enterprise gets a price',
        edit: p => swap(p, ['<div class="price">Custom</div>', '<div class="price"><span class="currency">$</span><span class="amount">199</span><span class="per">/month</span></div>']),
        expected: 'price_change/medium',
        summary: /Enterprise.*\$199\/month/
      }
    ]),
    ...history('pricing', 'comparison table', 'pricing', table, [
      {
        id: 'Team and Business up together',
        edit: p => swap(p, ['<td>$12</td>', '<td>$15</td>'], ['<td>$24</td>', '<td>$29</td>']),
        expected: 'price_change/high',
        moved: [25, 21],
        summary: /^Team: \$12\/user\/month → \$15\/user\/month \(\+25%\); 1 more price up$|Business.*Team|Team.*Business/
      },
      {
        id: 'SAML SSO comes to Team, storage of Free halved',
        edit: p => swap(p, ['<tr><td>SAML SSO</td><td>—</td><td>—</td>', '<tr><td>SAML SSO</td><td>—</td><td>✓</td>'], ['<td>2 GB</td>', '<td>1 GB</td>']),
        expected: 'feature_removed/high',
        moved: [50],
        summary: /^Free: storage 2 GB → 1 GB \(-50%\); Team: feature "SAML SSO" added$/
      },
      {
        id: 'the Free plan withdrawn',
        edit: p => p.replace('<th><strong>Free</strong></th>', '').replace(/(<tr><td>[^<]*<\/td>)<td>[^<]*(?:<[^>]+>[^<]*)*?<\/td>/g, '$1')
          .replace('<td colspan="4">', '<td colspan="3">'),
        expected: 'price_change/high',
        summary: /Free plan removed/
      }
    ]),
    ...history('pricing', 'price list', 'pricing', list, [
      {
        id: 'servers up, the validity date moved',
        edit: p => swap(p, ['<td>€0.006</td><td>€3.79</td>', '<td>€0.007</td><td>€4.35</td>'], ['<td>€0.011</td><td>€6.80</td>', '<td>€0.012</td><td>€7.55</td>'])
          .replaceAll('1 March 2205', '1 April 2205'),
        expected: 'price_change/medium',
        summary: /^CX22: 3\.79 €\/month → 4\.35 €\/month \(\+15%\)/,
        moved: [15, 11, 17, 9]
      },
      {
        id: 'a larger server added below the others',
        edit: p => swap(p, ['<td>€16.40</td></tr>', '<td>€16.40</td></tr>\n    <tr><td>CX52</td><td>16</td><td>32 GB</td><td>320 GB</td><td>20 TB</td><td>€0.053</td><td>€32.90</td></tr>']),
        expected: 'price_change/medium',
        summary: /CX52 plan added/
      },
      {
        id: 'free egress cut from 1 TB to 500 GB',
        edit: p => swap(p, ['The first 1 TB of egress each month is free.', 'The first 500 GB of egress each month is free.']),
        expected: 'feature_removed/high',
        moved: [50],
        summary: /1 TB of egress.*→.*500 GB of egress/
      }
    ]),
    ...history('pricing', 'docs page', 'pricing', docs, [
      {
        id: 'Developer up, its allowance raised',
        edit: p => swap(p, ['<td style="text-align: right;">$29/month</td>', '<td style="text-align: right;">$39/month</td>'],
          ['<td style="text-align: right;">100,000</td>', '<td style="text-align: right;">150,000</td>']),
        expected: 'price_change/high',
        moved: [34, 50]
      },
      {
        id: 'overage cut in the prose',
        edit: p => swap(p, ['billed at $0.50 per 1,000 requests', 'billed at $0.40 per 1,000 requests']),
        expected: 'price_change/high',
        summary: /\$0\.50 per 1,000 requests → \$0\.40 per 1,000 requests \(-20%\)/,
        moved: [-20]
      }
    ]),
    ...history('pricing', 'plans as rows', 'pricing', fixture('pricing/plans-rows.html'), [
      {
        id: 'a plan inserted between two, the last one up, the footer\'s year',
        edit: p => swap(p, ['<td>$99/month</td>', '<td>$119/month</td>'],
          ['        <tr><td><strong>Team</strong>', '        <tr><td><strong>Growth</strong></td><td>$69/month</td><td>50 projects, 10 users</td></tr>\n        <tr><td><strong>Team</strong>'],
          year('2026', '2027')),
        expected: 'price_change/high',
        moved: [20],
        summary: /^Team: \$99\/month → \$119\/month \(\+20%\); Growth plan added \(\$69\/month\)$/
      }
    ]),
    ...history('pricing', 'monthly and yearly', 'pricing', fixture('pricing/toggle.html'), [
      {
        id: 'the yearly prices cut, the badge re-worded',
        edit: p => swap(p, ['$8 <small>per month</small> <small>billed yearly', '$7 <small>per month</small> <small>billed yearly'],
          ['$24 <small>per month</small> <small>billed yearly', '$21 <small>per month</small> <small>billed yearly'], ['Save 20%', 'Save up to 30%']),
        expected: 'price_change/medium',
        moved: [-12.5, -13]
      }
    ]),
    ...history('pricing', 'cards and a limits table', 'pricing', fixture('pricing/limits.html'), [
      {
        id: 'Pro\'s build minutes raised, its concurrent builds halved',
        edit: p => swap(p, ['<td>3,000</td>', '<td>5,000</td>'], ['<td>1</td><td>2</td><td>5</td>', '<td>1</td><td>1</td><td>5</td>']),
        expected: 'feature_removed/high',
        moved: [67, 50],
        summary: /^Pro: concurrent builds 2 → 1 \(-50%\)/
      }
    ]),
    ...history('pricing', 'French cards', 'pricing', fr, [
      {
        id: 'Membre up a euro, the footer\'s year',
        edit: p => swap(p, ['4,90 €<span> / mois</span>', '5,90 €<span> / mois</span>'], year('2026', '2027')),
        expected: 'price_change/high',
        moved: [20]
      }
    ])
  ]
}

function apiHistories (): HistoryEdit[] {
  return [
    ...specHistory('Petstore', fixture('api/petstore.yaml'), [
      {
        id: 'a release: photos added, the version and descriptions re-worded',
        edit: s => {
          s.info.version = '1.1.0'
          s.paths['/pets/{petId}/photos'] = { get: { summary: 'List a pet\'s photos', responses: { 200: { description: 'The photos' } } } }
          s.paths['/pets'].get.summary = 'List every pet'
        },
        expected: 'feature_added/medium',
        summary: /GET \/pets\/\{petId\}\/photos added/
      },
      {
        id: 'listing pets deprecated, an optional filter added',
        edit: s => {
          s.paths['/pets'].get.deprecated = true
          s.paths['/pets'].get.parameters.push({ name: 'species', in: 'query', required: false, schema: { type: 'string' } })
        },
        expected: 'content_change/medium'
      },
      {
        id: 'a breaking release: delete removed, tag required',
        edit: s => {
          s.info.version = '2.0.0'
          delete s.paths['/pets/{petId}'].delete
          s.components.schemas.NewPet.required.push('tag')
        },
        expected: 'feature_removed/critical',
        summary: /DELETE \/pets\/\{petId\} removed; 1 more breaking change/
      }
    ]),
    ...specHistory('Orders', fixture('api/orders.yaml'), [
      {
        id: 'a shipping method added and an example re-worded',
        edit: s => {
          s.components.schemas.NewOrder.properties.shipping.properties.method.enum.push('pickup')
          s.paths['/orders'].get.responses['200'].content['application/json'].examples.one.value[0].total = 2599
        },
        expected: 'content_change/low',
        summary: /^API: POST \/orders request field `shipping\.method` now also accepts `pickup`$/
      },
      {
        id: 'overnight shipping withdrawn',
        edit: s => {
          s.components.schemas.NewOrder.properties.shipping.properties.method.enum = s.components.schemas.NewOrder.properties.shipping.properties.method.enum.filter((m: string) => m !== 'overnight')
        },
        expected: 'feature_removed/high',
        summary: /no longer accepts `overnight`/
      }
    ])
  ]
}

/** A release as GitHub's releases page shows it: a box per release, its notes' "What's Changed" at its level. */
const ghRelease = (tag: string, date: string, items: string[]) =>
  `<section><h2>${tag}</h2><relative-time datetime="${date}T10:00:00Z">${date}</relative-time><div class="markdown-body">` +
  `<h2>What's Changed</h2><ul>${items.map(i => `<li>${i}</li>`).join('')}</ul>` +
  `<p><strong>Full Changelog</strong>: ${tag}</p></div></section>\n`
const githubReleases = '<html lang="en"><head><title>Releases · acme/cli</title></head><body><main><h1>Releases</h1>' +
  ghRelease('v1.4.0', '2026-10-01', ['Add a --json flag by @ann in #88', 'Fix a crash on start by @bob in #90']) + '</main></body></html>'

function changelogHistories (): HistoryEdit[] {
  const kac = fixture('changelog/keep-a-changelog.html')
  const fr = fixture('changelog/headed-fr.html')
  const de = fixture('changelog/cards-de.html')
  const es = fixture('changelog/versions-es.html')
  return [
    ...history('changelog', 'Keep a Changelog', 'changelog', kac, [
      {
        id: 'an [Unreleased] section opened',
        edit: p => swap(p, ['<h2>[2.3.0]', '<h2>[Unreleased]</h2>\n<h3>Added</h3>\n<ul><li>Audit log export to S3.</li></ul>\n<h2>[2.3.0]']),
        expected: 'feature_added/medium'
      },
      {
        id: 'released as 2.4.0 with one more line, an old entry corrected',
        edit: p => swap(p, ['<h2>[Unreleased]</h2>\n<h3>Added</h3>\n<ul><li>Audit log export to S3.</li></ul>',
          '<h2>[Unreleased]</h2>\n<h2>[2.4.0] - 2026-11-20</h2>\n<h3>Added</h3>\n<ul><li>Audit log export to S3.</li><li>Team-level API keys.</li></ul>'],
        ['Login with SSO on Safari.', 'Login with SSO on Safari 17.']),
        expected: 'feature_added/medium',
        summary: /^Changelog 2\.4\.0 \(2026-11-20\)/
      },
      {
        id: 'a release listed by pull request, what it brings among them',
        edit: p => swap(p, ['<h2>[2.4.0]', '<h2>[2.4.1] - 2026-11-27</h2>\n<ul><li>PR #412: bump undici from 6.19 to 7.0. Thanks to @mkl!</li><li>chore: release tooling</li><li>Dark mode for dashboards.</li></ul>\n<h2>[2.4.0]']),
        expected: 'feature_added/medium',
        summary: /^Changelog 2\.4\.1 \(2026-11-27\): Dark mode for dashboards\./
      },
      {
        id: 'a security release, the footer\'s year',
        edit: p => swap(p, ['<h2>[2.4.1]', '<h2>[2.4.2] - 2026-12-03</h2>\n<h3>Security</h3>\n<ul><li>Fixed a token leak in webhook logs.</li></ul>\n<h2>[2.4.1]'],
          year('2026', '2027')),
        expected: 'content_change/high',
        summary: /^Changelog 2\.4\.2/
      }
    ]),
    ...history('changelog', 'GitHub releases', 'changelog', githubReleases, [
      {
        id: 'a release with generated notes: a bump, a removal, a feature, each "by @someone in #n"',
        edit: p => swap(p, ['<main><h1>Releases</h1>', `<main><h1>Releases</h1>${ghRelease('v1.5.0', '2026-11-20', [
          'Bump lodash from 4.17.20 to 4.17.21 by @dependabot in #101', 'Remove the deprecated login command by @ann in #103',
          'Support proxies by @cy in #104'])}`]),
        expected: 'content_change/high',
        summary: /^Changelog 1\.5\.0: Remove the deprecated login command; Support proxies; and 1 more$/
      },
      {
        id: 'a patch release that only fixes',
        edit: p => swap(p, ['<main><h1>Releases</h1>', `<main><h1>Releases</h1>${ghRelease('v1.5.1', '2026-11-24', [
          'Fix a crash on Windows by @bob in #110'])}`]),
        expected: 'content_change/low',
        summary: /^Changelog 1\.5\.1: Fix a crash on Windows$/
      }
    ]),
    ...history('changelog', 'dated sections (fr)', 'changelog', fr, [
      {
        id: 'a new month\'s entry, a typo fixed in the last',
        edit: p => swap(p, ['<h2>3 octobre 2026</h2>', '<h2>5 novembre 2026</h2>\n<h3>Nouvelle API</h3>\n<p>Créez des factures par API.</p>\n<h2>3 octobre 2026</h2>'],
          ['avec votre logo.', 'avec votre logo et vos couleurs.']),
        expected: 'feature_added/medium',
        summary: /Nouvelle API/
      }
    ]),
    ...history('changelog', 'release cards (de)', 'changelog', de, [
      {
        id: 'a feature card on top',
        edit: p => swap(p, ['  <article class="release-card">', '  <article class="release-card">\n    <time datetime="2026-11-12">12. November 2026</time>\n    <h3>Mandantenportal</h3>\n    <ul><li>Mandanten sehen ihre Akten online.</li></ul>\n  </article>\n  <article class="release-card">']),
        expected: 'feature_added/medium',
        summary: /Mandantenportal/
      }
    ]),
    ...history('changelog', 'versioned sections (es)', 'changelog', es, [
      {
        id: 'a version that withdraws a feature',
        edit: p => swap(p, ['<section><h2>Versión 4.1', '<section><h2>Versión 4.2 — 10 de noviembre de 2026</h2>\n<ul><li>Se elimina la exportación a Excel 2003.</li><li>Nuevos informes de morosidad.</li></ul></section>\n<section><h2>Versión 4.1']),
        expected: 'feature_added/high',
        summary: /^Changelog 4\.2 \(2026-11-10\): Se elimina la exportación/
      }
    ])
  ]
}

export const historyEdits = (): HistoryEdit[] => [...pricingHistories(), ...apiHistories(), ...changelogHistories()]

/** The percentages a summary gives, and its facts. */
const percents = (c: DetectedChange) => [
  ...[...c.summary.matchAll(/\(([+-]\d+(?:\.\d+)?)%\)/g)].map(m => Number(m[1])),
  ...(c.diffData.facts ?? []).flatMap(f => f.percent === undefined ? [] : [f.percent])
]

/** Price pairs that say nothing happened: a price that did not move, or one that went and came back. */
function saysNothing (c: DetectedChange): string[] {
  const facts = (c.diffData.facts ?? []).filter(f => f.kind.startsWith('price'))
  const same = facts.filter(f => f.before !== undefined && f.before === f.after).map(f => `${f.subject}: ${f.before} → ${f.after}`)
  const back = facts.filter(f => f.kind === 'price_removed' &&
    facts.some(g => g.kind === 'price_added' && g.subject === f.subject && g.after === f.before)).map(f => `${f.subject}: ${f.before} gone and back`)
  return [...same, ...back]
}

export function evaluateHistory (edit: HistoryEdit): HistoryOutcome {
  const { changes, hidden } = edit.compare()
  const [c] = changes
  const seen = changes.map(x => `${x.changeType}/${x.severity}: ${x.summary}`).join(' | ') || 'nothing'
  return {
    oneChange: changes.length === 1,
    typeRight: changes.length === 1 && `${c.changeType}/${c.severity}` === edit.expected && (!edit.summary || edit.summary.test(c.summary)),
    nothing: changes.flatMap(saysNothing),
    stray: changes.flatMap(percents).filter(p => !edit.moved.some(m => Math.abs(Math.abs(m) - Math.abs(p)) <= 1)),
    hidden,
    seen
  }
}
