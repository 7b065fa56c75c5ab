import assert from 'node:assert/strict'
import { gunzipSync, gzipSync } from 'node:zlib'
import { describe, it } from 'node:test'
import type { ResearchInputs } from '../../src/vocabulary/research.js'
import { buildBrief } from '../../src/research/brief.js'
import { findClaims } from '../../src/research/claims.js'
import { featureMoves, readFeatures } from '../../src/research/features.js'
import { briefMarkdown, mdText } from '../../src/research/markdown.js'

// The brief's pure parts, without I/O: claims in the lexicon's seven languages, a features
// page read into groups, and a brief built from inputs as the store gives them.

describe('security and compliance claims', () => {
  const claimsOf = (text: string, language?: any) =>
    findClaims([{ text, language, source: 'page' }]).map(c => [c.claim, c.sentence])

  it('are found in each of the seven languages, with the sentence that makes them', () => {
    const cases: Array<[any, string, Array<[string, string]>]> = [
      ['en', 'We are SOC 2 Type II certified. Data is stored in the EU.',
        [['SOC 2', 'We are SOC 2 Type II certified.'], ['Data residency', 'Data is stored in the EU.']]],
      ['fr', 'Nous sommes conformes au RGPD. Vos données sont hébergées en France.',
        [['GDPR', 'Nous sommes conformes au RGPD.'], ['Data residency', 'Vos données sont hébergées en France.']]],
      ['de', 'Wir sind DSGVO-konform und nach ISO 27001 zertifiziert.',
        [['ISO 27001', 'Wir sind DSGVO-konform und nach ISO 27001 zertifiziert.'],
          ['GDPR', 'Wir sind DSGVO-konform und nach ISO 27001 zertifiziert.']]],
      ['es', 'Ofrecemos inicio de sesión único con SAML.',
        [['SSO', 'Ofrecemos inicio de sesión único con SAML.'], ['SAML', 'Ofrecemos inicio de sesión único con SAML.']]],
      ['it', 'La residenza dei dati è in Europa.', [['Data residency', 'La residenza dei dati è in Europa.']]],
      ['nl', 'Wij voldoen aan de AVG. Jaarlijks een penetratietest.',
        [['GDPR', 'Wij voldoen aan de AVG.'], ['Penetration testing', 'Jaarlijks een penetratietest.']]],
      ['pt', 'Cumprimos o RGPD e a norma PCI DSS.',
        [['GDPR', 'Cumprimos o RGPD e a norma PCI DSS.'], ['PCI DSS', 'Cumprimos o RGPD e a norma PCI DSS.']]]
    ]
    for (const [language, text, expected] of cases) {
      assert.deepEqual(claimsOf(text, language).sort(), expected.sort(), language)
    }
  })

  it("a word of another language does not count: Dutch AVG is not an English page's average", () => {
    assert.deepEqual(claimsOf('The avg response time is 40 ms.', 'en'), [])
    assert.deepEqual(claimsOf('Text without any claim, about pricing and plans.'), [])
  })

  it('keep three sentences a claim at most, each once, pages in the order given', () => {
    const pages = ['GDPR one.', 'GDPR two.', 'GDPR one.', 'GDPR three.', 'GDPR four.']
      .map((text, i) => ({ text, language: 'en' as const, source: i }))
    assert.deepEqual(findClaims(pages).map(c => [c.sentence, c.source]), [['GDPR one.', 0], ['GDPR two.', 1], ['GDPR three.', 3]])
  })
})

describe('a features page', () => {
  it('is grouped under its own headings, its list items the features', () => {
    const text = '# Features\n## Delivery\n- Retries\n- Replay\n## Security\n- Signed payloads\nA paragraph.'
    assert.deepEqual(readFeatures(text), [
      { name: 'Delivery', features: ['Retries', 'Replay'] },
      { name: 'Security', features: ['Signed payloads'] }
    ])
  })

  it('with feature cards (a heading each) under groups, the cards are the features', () => {
    const text = '# Product\n## Build\n### Editor\nWrite fast.\n- a detail\n### Preview\nSee it.\n## Ship\n### Deploys\nOne click.'
    assert.deepEqual(readFeatures(text), [
      { name: 'Build', features: ['Editor', 'Preview'] },
      { name: 'Ship', features: ['Deploys'] }
    ])
  })

  it('with cards alone, the cards are one group named by the title; a page without either has none', () => {
    assert.deepEqual(readFeatures('# Why Acme\n## Fast\nIt is.\n## Safe\nIt is.'), [{ name: 'Why Acme', features: ['Fast', 'Safe'] }])
    assert.deepEqual(readFeatures('Just words.\nMore words.'), [])
  })

  it('moves: added and removed by their words, whatever group they moved to', () => {
    const before = [{ name: 'A', features: ['One', 'Two'] }]
    const after = [{ name: 'B', features: ['two', 'Three'] }]
    assert.deepEqual(featureMoves(before, after), {
      added: [{ feature: 'Three', group: 'B' }],
      removed: [{ feature: 'One', group: 'A' }]
    })
  })
})

describe('a brief built from what the store holds', () => {
  const at = new Date('2026-11-20T10:00:00Z')
  const now = new Date('2026-11-25T10:00:00Z')
  const stored = (html: string) => ({ gzip: gzipSync(html), contentType: 'text/html; charset=utf-8' })
  const inputs = (over: Partial<ResearchInputs> = {}): ResearchInputs => ({
    hostname: 'acme.test',
    now,
    retentionDays: 30,
    pages: [
      { id: 'home', url: 'https://acme.test/', pageType: 'other', monitored: true },
      { id: 'imprint', url: 'https://acme.test/impressum', pageType: 'other', monitored: true },
      { id: 'gone', url: 'https://acme.test/old', pageType: 'pricing', monitored: false }
    ],
    texts: [
      { pageId: 'home', snapshotId: 's1', at, text: '# Acme\nFree trial for 30 days.', declared: 'en' },
      { pageId: 'imprint', snapshotId: 's2', at, text: '# Impressum\nAcme Software GmbH\nMusterstraße 1, Berlin', declared: 'de' }
    ],
    raws: [{ pageId: 'home', snapshotId: 's1', at, page: stored('<html><head><title>Acme | Widgets</title></head></html>') }],
    features: [],
    activity: [{ changeType: 'content_change', severity: 'low', d7: 1, d30: 2, d90: 3 }],
    mostChanged: [{ pageId: 'home', changes: 3 }],
    legal: [],
    legalHigh: [],
    priceChanges: [],
    apiBreaking: [],
    changesInWindow: 2,
    ...over
  })
  const decode = (b: { gzip: Uint8Array }) => gunzipSync(b.gzip).toString()
  const readyMarkdown = (built: ReturnType<typeof buildBrief>) => briefMarkdown({
    id: 'b',
    domainId: 'd',
    domain: 'acme.test',
    status: 'ready',
    jobId: 'j',
    createdAt: now,
    completedAt: now,
    failedReason: null,
    creditRefunded: false,
    ...built
  })

  it("reads the company's name from the home page's title, its legal name from the imprint", () => {
    const { sections } = buildBrief(inputs(), decode)
    const c = sections!.company
    assert.deepEqual([c.name, c.nameFrom, c.legalName?.name, c.legalName?.source.url],
      ['Acme', 'title', 'Acme Software GmbH', 'https://acme.test/impressum'])
    assert.deepEqual(c.languages, [{ language: 'de', pages: 1 }, { language: 'en', pages: 1 }])
    assert.equal(c.monitoredPages, 2, 'a page not monitored is not counted')
  })

  it("a home page's title alone names the site by its first part, whichever part is shorter", () => {
    const raws = [{ pageId: 'home', snapshotId: 's1', at, page: stored('<title>Northwind Traders | Shop</title>') }]
    const c = buildBrief(inputs({ raws }), decode).sections!.company
    assert.deepEqual([c.name, c.nameFrom, c.sources[0].url], ['Northwind Traders', 'title', 'https://acme.test/'])
  })

  it('leaves out what nothing supports, each section with its reason, and says so in Markdown', () => {
    const built = buildBrief(inputs(), decode)
    const s = built.sections!
    assert.equal(s.pricing.included, true, 'the trial stated on the home page is a pricing fact')
    assert.deepEqual([s.pricing.trial?.days, s.pricing.plans], [30, []])
    assert.deepEqual(
      (['features', 'legal', 'api', 'releases'] as const).map(k => s[k].reason),
      [
        'no features page is among its 2 monitored pages',
        'no terms, privacy or security page is among its 2 monitored pages',
        'no API documentation page is among its 2 monitored pages',
        'no changelog page is among its 2 monitored pages'
      ]
    )
    assert.deepEqual(s.activity.windows.map(w => w.total), [1, 2, 3])
    const md = readyMarkdown(built)
    assert.ok(md.includes('## Legal\n\n_Left out: no terms, privacy or security page is among its 2 monitored pages._'))
    assert.ok(md.includes('“Free trial for 30 days.” (30 days)'))
  })

  it("reads a price change as its alert told it: the facts, not the pricing reader's vacuous pair", () => {
    const change = { changeId: 'c1', pageId: 'home', at, severity: 'high' as const, summary: 'Pricing: Egress -50%' }
    const built = buildBrief(inputs({
      priceChanges: [{
        ...change,
        facts: [
          { kind: 'price_down', subject: 'Egress', before: '$0.10/GB', after: '$0.05/GB', percent: -50 },
          { kind: 'price_down', subject: 'Volume Storage', before: '$0.25/GB-month', after: '$0.15/GB-month', percent: -40 },
          { kind: 'text_edit' }
        ],
        moves: [{ kind: 'price_up', plan: 'Pro', before: '$20', after: '$20/month', summary: 'Pro: $20 → $20/month' }]
      }, {
        ...change, changeId: 'c0', facts: null, moves: [{ kind: 'price_up', plan: 'Team', before: '$10', after: '$12', percent: 20, summary: 'Team: $10 → $12 (+20%)' }]
      }]
    }), decode)
    assert.deepEqual(built.sections!.pricing.priceChanges.map(c => [c.kind, c.plan, c.percent, c.summary]), [
      ['price_down', 'Egress', -50, 'Egress: $0.10/GB → $0.05/GB (-50%)'],
      ['price_down', 'Volume Storage', -40, 'Volume Storage: $0.25/GB-month → $0.15/GB-month (-40%)'],
      // A change kept before its facts were: the reader's moves.
      ['price_up', 'Team', 20, 'Team: $10 → $12 (+20%)']
    ])
  })

  it('finds a trial however the page words it, in the seven languages, with its days', () => {
    const cases: Array<[any, string, number | null]> = [
      ['en', 'Try Growth free for 30 days.', 30],
      ['en', 'Start your 14-day free trial.', 14],
      ['en', 'Try it free.', null],
      ['fr', 'Essayez Pro gratuitement pendant 14 jours.', 14],
      ['de', '30 Tage kostenlos, danach monatlich kündbar.', 30],
      ['es', 'Úsalo gratis durante 15 días.', 15],
      ['it', 'Prova gratuita di 30 giorni.', 30],
      ['nl', 'Probeer 14 dagen gratis.', 14],
      ['pt', 'Use grátis por 7 dias.', 7]
    ]
    for (const [declared, sentence, days] of cases) {
      const line = `${sentence} No card required.`
      const texts = [{ pageId: 'home', snapshotId: 's1', at, text: `# Acme\nOne API for payouts.\n${line}`, declared }]
      const trial = buildBrief(inputs({ texts }), decode).sections!.pricing.trial
      assert.deepEqual([trial?.text, trial?.days], [sentence, days], sentence)
    }
    const none = [{ pageId: 'home', snapshotId: 's1', at, text: '# Acme\nTry our free currency converter.', declared: 'en' }]
    assert.equal(buildBrief(inputs({ texts: none }), decode).sections!.pricing.trial, null,
      'a free tool is no trial')
  })

  it('writes one page and many, and limits by their name', () => {
    const pricing = stored('<html lang="en"><body><main><h1>Pricing</h1>' +
      '<div class="plan"><h2>Team</h2><p>$20/month</p><ul><li>5 users</li><li>Unlimited projects</li></ul></div>' +
      '<div class="plan"><h2>Business</h2><p>$50/month</p><ul><li>1 user</li><li>20 projects</li></ul></div></main></body></html>')
    const built = buildBrief(inputs({
      pages: [...inputs().pages, { id: 'pricing', url: 'https://acme.test/pricing', pageType: 'pricing', monitored: true }],
      raws: [...inputs().raws, { pageId: 'pricing', snapshotId: 's3', at, page: pricing }]
    }), decode)
    const md = readyMarkdown(built)
    assert.ok(md.includes('- **Languages:** German (1 page), English (1 page)'), md)
    assert.ok(md.includes('| Team | $20/month | user: 5, project: Unlimited |'), md)
  })

  it("names a plan's setup fee as a fee, and reads its price's cents however the markup raises them", () => {
    const card = (name: string, euros: string, cents: string) => `<div class="card"><h3>${name}</h3><ul><li>4 cores</li></ul>` +
      `<div class="price">€<strong>${euros}</strong><sup>${cents}</sup>/month</div><p>Setup fee €50</p></div>`
    const pricing = stored(`<html lang="en"><body><main><h1>Cloud VDS</h1>${card('Cloud VDS S', '34', '40')}` +
      `${card('Cloud VDS M', '44', '80')}</main></body></html>`)
    const built = buildBrief(inputs({
      pages: [...inputs().pages, { id: 'pricing', url: 'https://acme.test/vds', pageType: 'pricing', monitored: true }],
      raws: [...inputs().raws, { pageId: 'pricing', snapshotId: 's3', at, page: pricing }]
    }), decode)
    const md = readyMarkdown(built)
    assert.ok(md.includes('| Cloud VDS S | 34.40 €/month, 50 € (Setup fee) | core: 4 |'), md)
    assert.ok(md.includes('| Cloud VDS M | 44.80 €/month, 50 € (Setup fee) | core: 4 |'), md)
  })

  it("escapes a page's Markdown: a site's text cannot make links or tables", () => {
    assert.equal(mdText('[click](https://evil) | *x* <b>'), '\\[click\\](https://evil) \\| \\*x\\* \\<b\\>')
  })
})
