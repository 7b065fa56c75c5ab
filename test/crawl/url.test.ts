import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { classifyPageType } from '../../src/crawl/page-type.js'
import { belongsToDomain, normalizeUrl, parseDomainInput } from '../../src/crawl/url.js'
import { nextCrawlAt } from '../../src/pipeline/crawl-slots.js'

describe('URL normalisation', () => {
  const same = [
    ['HTTPS://Acme.TEST:443/Pricing/?utm_source=x&b=2&a=1#plans', 'https://acme.test/Pricing/?a=1&b=2'],
    ['https://acme.test/privacypolicy/', 'https://acme.test/privacypolicy/'],
    ['https://acme.test/privacypolicy', 'https://acme.test/privacypolicy'],
    ['http://acme.test:80/', 'http://acme.test/'],
    ['https://acme.test//docs//api/', 'https://acme.test/docs/api/'],
    ['https://acme.test/?gclid=1&fbclid=2', 'https://acme.test/'],
    ['https://acme.test./a', 'https://acme.test/a']
  ]
  for (const [input, expected] of same) {
    it(`${input} → ${expected}`, () => {
      assert.equal(normalizeUrl(input), expected)
    })
  }
  it('rejects what is not an http(s) URL', () => {
    for (const bad of [
      'javascript:alert(1)',
      'mailto:a@b.c',
      'ftp://acme.test/',
      'not a url',
      'https://user:pw@acme.test/'
    ]) {
      assert.equal(normalizeUrl(bad), null, bad)
    }
  })
  it('resolves relative links against a base', () => {
    assert.equal(normalizeUrl('../terms', 'https://acme.test/legal/privacy'), 'https://acme.test/terms')
  })
  it('subdomains belong to the domain, look-alikes do not', () => {
    assert.equal(belongsToDomain('docs.acme.test', 'acme.test'), true)
    assert.equal(belongsToDomain('ACME.test', 'acme.test'), true)
    assert.equal(belongsToDomain('notacme.test', 'acme.test'), false)
    assert.equal(belongsToDomain('acme.test.evil.com', 'acme.test'), false)
  })
  it('domain input: public suffix required unless mapped', () => {
    assert.deepEqual(parseDomainInput(' Example.COM ', new Set()), { hostname: 'example.com' })
    assert.deepEqual(parseDomainInput('shop.example.co.uk', new Set()), { hostname: 'shop.example.co.uk' })
    assert.ok('error' in parseDomainInput('acme.test', new Set()))
    assert.deepEqual(parseDomainInput('acme.test', new Set(['acme.test'])), { hostname: 'acme.test' })
    assert.ok('error' in parseDomainInput('co.uk', new Set()))
  })
  it('domain input: an internationalised name is kept in its ASCII form; a name no DNS could hold is refused', () => {
    assert.deepEqual(parseDomainInput('Bücher.de', new Set()), { hostname: 'xn--bcher-kva.de' })
    assert.deepEqual(parseDomainInput('例え.jp', new Set()), { hostname: 'xn--r8jz45g.jp' })
    assert.deepEqual(parseDomainInput('xn--bcher-kva.de', new Set()), { hostname: 'xn--bcher-kva.de' })
    for (const bad of [
      'a..b.com',
      'bü..cher.de',
      '-a.com',
      'a_b.com',
      'xn--zz.com',
      'bücher.de\u0000',
      `${'ü'.repeat(64)}.de`
    ]) {
      assert.ok('error' in parseDomainInput(bad, new Set()), bad)
    }
  })
})

describe('page types', () => {
  const cases: Array<[string, string, string?, string?]> = [
    ['https://acme.test/pricing', 'pricing'],
    ['https://acme.test/plans', 'pricing'],
    ['https://acme.test/features', 'features'],
    ['https://acme.test/legal/terms-of-service', 'terms'],
    ['https://acme.test/privacy', 'terms'],
    ['https://acme.test/trust', 'security'],
    ['https://docs.acme.test/reference', 'api_docs'],
    ['https://acme.test/developers/api', 'api_docs'],
    ['https://acme.test/changelog', 'changelog'],
    ['https://acme.test/release-notes', 'changelog'],
    ['https://acme.test/about', 'other'],
    ['https://acme.test/p/123', 'pricing', 'See our plans', 'Plans and pricing'],
    // Legal pages by the names sites give them, at the root as often as under /legal.
    ['https://acme.test/legal/sub-processors', 'security', undefined, 'Sub-processors'],
    ['https://acme.test/data-processing-addendum', 'terms', undefined, 'Data Processing Addendum'],
    ['https://acme.test/data-protection', 'terms', undefined, 'Data protection'],
    ['https://acme.test/disclaimer', 'terms', undefined, 'Disclaimer'],
    ['https://acme.test/dmca', 'terms', undefined, 'DMCA notices'],
    ['https://acme.test/refunds', 'terms', undefined, 'Refunds'],
    ['https://acme.test/warranty', 'terms', undefined, 'Limited warranty'],
    ['https://acme.test/do-not-sell', 'terms', 'Do Not Sell or Share My Personal Information'],
    ['https://acme.test/widerrufsbelehrung', 'terms', undefined, 'Widerrufsbelehrung'],
    ['https://acme.test/pricing', 'pricing', 'Pricing', 'Plans, billing and refunds'],
    // A legal document's noun names the page; the words beside it say what the document is about.
    ['https://acme.test/legal/billing-terms', 'terms', undefined, 'Billing Terms'],
    ['https://acme.test/legal/subscription-agreement', 'terms', undefined, 'Subscription Agreement'],
    ['https://acme.test/notion/Subscription-Terms', 'terms', undefined, 'Subscription Terms'],
    ['https://acme.test/legal/product-specific-terms', 'terms', undefined, 'Product Specific Terms'],
    ['https://acme.test/legal/upgrade-policy', 'terms', undefined, 'Upgrade Policy'],
    ['https://acme.test/agb-preise', 'terms', undefined, 'AGB für Preise und Leistungen'],
    ['https://acme.test/en/contracts/', 'terms', undefined, 'Contracts'],
    ['https://acme.test/contrato/', 'terms', undefined, 'Contratos'],
    // ... but a generic "policy" yields to security's words.
    ['https://acme.test/legal/security-policy', 'security', undefined, 'Security Policy'],
    ['https://acme.test/responsible-disclosure-policy', 'security', undefined, 'Responsible Disclosure Policy'],
    ['https://acme.test/pricing', 'pricing', undefined, 'Pricing – no contracts, cancel anytime'],
    // Legal pages named in languages the lexicon reads no other words of.
    ['https://acme.test/sv/villkor', 'terms', undefined, 'Användarvillkor'],
    ['https://acme.test/sv/integritetspolicy', 'terms', undefined, 'Integritetspolicy'],
    ['https://acme.test/da/handelsbetingelser', 'terms', undefined, 'Handelsbetingelser'],
    ['https://acme.test/no/personvern', 'terms', undefined, 'Personvernerklæring'],
    ['https://acme.test/fi/kayttoehdot', 'terms', undefined, 'Käyttöehdot'],
    ['https://acme.test/pl/regulamin', 'terms', undefined, 'Regulamin'],
    ['https://acme.test/pl/polityka-prywatnosci', 'terms', undefined, 'Polityka prywatności'],
    ['https://acme.test/cs/obchodni-podminky', 'terms', undefined, 'Obchodní podmínky']
  ]
  for (const [url, type, linkText, title] of cases) {
    it(`${url}${linkText ? ` ("${linkText}")` : ''} is ${type}`, () => {
      const r = classifyPageType({ url, linkText, title })
      assert.equal(r.pageType, type)
      assert.ok(r.confidence > 0 && r.confidence <= 0.99)
    })
  }
  // Privacy notices as SaaS companies write them: they say a lot of the product's features, dashboards and
  // integrations (what they collect data about), under a legal address or a plain title.
  const notices: Array<[string, string, string, string[], string]> = [
    ['en', 'https://acme.test/legal/privacy-notice', 'Acme', ['Privacy notice', 'What we collect', 'Your rights'],
      'We collect usage data about how you use our features, dashboards, integrations and analytics, to improve our ' +
      'features and automate workflows. Collaboration features share your personal information with your workspace.'],
    ['fr', 'https://acme.test/fr/legal/confidentialite', 'Acme', ['Politique de confidentialité', 'Données que nous collectons'],
      'Nous collectons des données sur l\'utilisation des fonctionnalités, des tableaux de bord et des intégrations. ' +
      'Le responsable du traitement est Acme SAS. Vos droits : accès, rectification, effacement.'],
    ['de', 'https://acme.test/de/rechtliches/datenschutzhinweise', 'Acme', ['Datenschutzhinweise', 'Welche Daten wir erheben'],
      'Wir erheben Daten zur Nutzung der Funktionen, Integrationen und Auswertungen. Verantwortlicher ist die Acme GmbH. ' +
      'Ihre Rechte: Auskunft, Berichtigung, Löschung. Rechtsgrundlage ist Art. 6 DSGVO.'],
    ['es', 'https://acme.test/es/legal/aviso-de-privacidad', 'Acme', ['Aviso de privacidad', 'Datos que recopilamos'],
      'Recopilamos datos sobre el uso de las funciones, integraciones y paneles. El responsable del tratamiento es Acme SL. ' +
      'Sus derechos: acceso, rectificación y supresión.'],
    ['it', 'https://acme.test/it/legale/informativa-privacy', 'Acme', ['Informativa sulla privacy', 'Dati che raccogliamo'],
      'Raccogliamo dati sull\'uso delle funzionalità, delle integrazioni e delle analisi. Il titolare del trattamento è ' +
      'Acme Srl. I tuoi diritti: accesso, rettifica, cancellazione.'],
    ['nl', 'https://acme.test/nl/juridisch/privacyverklaring', 'Acme', ['Privacyverklaring', 'Welke gegevens wij verzamelen'],
      'Wij verzamelen gegevens over het gebruik van functies, integraties en dashboards. Verwerkingsverantwoordelijke is ' +
      'Acme BV. Uw rechten: inzage, correctie en verwijdering.'],
    ['pt', 'https://acme.test/pt/legal/politica-de-privacidade', 'Acme', ['Política de privacidade', 'Dados que coletamos'],
      'Coletamos dados sobre o uso dos recursos, integrações e painéis. O controlador é a Acme Ltda. Seus direitos: ' +
      'acesso, correção e exclusão.']
  ]
  for (const [language, url, title, headings, paragraph] of notices) {
    it(`a privacy notice that speaks of features is a legal page (${language})`, () => {
      const text = [headings[0], ...headings.slice(1).flatMap(h => [h, paragraph, paragraph])].join('\n')
      const r = classifyPageType({ url, title, headings, text, language: language as any })
      assert.equal(r.pageType, 'terms', JSON.stringify(r))
    })
  }

  it('more agreeing evidence means more confidence', () => {
    const urlOnly = classifyPageType({ url: 'https://acme.test/pricing' }).confidence
    const all = classifyPageType({
      url: 'https://acme.test/pricing',
      linkText: 'Pricing',
      title: 'Pricing — Acme',
      headings: ['Plans and pricing'],
      text: '$19/month $49/month $99/month billed monthly per user'
    }).confidence
    assert.ok(all > urlOnly, `${all} > ${urlOnly}`)
  })
})

describe('crawl schedule', () => {
  it('spreads pages over the period and keeps each page on its slot', () => {
    const now = new Date('2026-01-01T00:00:00Z')
    const slots = new Set<number>()
    for (let i = 0; i < 200; i++) {
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`
      const next = nextCrawlAt(id, now, 24)
      const delta = next.getTime() - now.getTime()
      assert.ok(delta >= 12 * 3_600_000 && delta < 36 * 3_600_000)
      assert.equal(
        nextCrawlAt(id, next, 24).getTime() - next.getTime(),
        24 * 3_600_000,
        'then exactly one period apart'
      )
      slots.add(Math.floor((next.getTime() % 86_400_000) / 3_600_000))
    }
    assert.ok(slots.size >= 20, `200 pages fall in ${slots.size} of 24 hours`)
  })
})
