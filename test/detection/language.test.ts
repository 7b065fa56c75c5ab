import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { compareContent, readPage } from '../../src/detection/detect.js'
import { languageOfTag, pageLanguage } from '../../src/detection/words/language.js'
import { classifyFetchedPage } from '../../src/crawl/page-type.js'

const FRENCH = [
  'Nous collectons vos données personnelles afin de vous fournir le service que vous avez demandé.',
  'Vous pouvez résilier votre abonnement à tout moment depuis votre espace client, sans frais.',
  'Les présentes conditions sont régies par le droit français et tout litige relève des tribunaux de Paris.'
]
const GERMAN = [
  'Wir verarbeiten Ihre personenbezogenen Daten nur, soweit dies für die Bereitstellung des Dienstes nötig ist.',
  'Sie können Ihr Abonnement jederzeit zum Ende des laufenden Monats in Ihrem Kundenkonto kündigen.',
  'Für alle Streitigkeiten aus diesem Vertrag ist der Gerichtsstand München vereinbart worden.'
]

const html = (lang: string | null, title: string, body: string[]) =>
  `<!doctype html><html${lang ? ` lang="${lang}"` : ''}><head><title>${title}</title></head><body><main>` +
  `<h1>${title}</h1>${body.map(p => `<p>${p}</p>`).join('')}</main></body></html>`

describe('the language a page is written in', () => {
  it('is the primary subtag of a tag we have words for', () => {
    assert.equal(languageOfTag('fr-CH'), 'fr')
    assert.equal(languageOfTag('DE_de'), 'de')
    assert.equal(languageOfTag('pt-BR'), 'pt')
    assert.equal(languageOfTag('ja'), undefined)
    assert.equal(languageOfTag('en, fr'), undefined, 'a Content-Language naming two languages names neither')
    assert.equal(languageOfTag(''), undefined)
  })

  it('is what the page declares, <html lang> before Content-Language, when its text is too short to tell', () => {
    const lines = ['Tarifs', 'Contact']
    assert.equal(pageLanguage({ declared: 'it', contentLanguage: 'es', lines }), 'it')
    assert.equal(pageLanguage({ contentLanguage: 'es', lines }), 'es')
    assert.equal(pageLanguage({ lines }), undefined)
  })

  it('is what its running text reads as when the declaration is a template default, or missing', () => {
    assert.equal(pageLanguage({ declared: 'en', lines: FRENCH }), 'fr')
    assert.equal(pageLanguage({ lines: GERMAN }), 'de')
    assert.equal(pageLanguage({ declared: 'de-AT', lines: GERMAN }), 'de')
  })

  it('is read from the page itself by readPage', () => {
    assert.equal(readPage(html('en', 'Conditions', FRENCH)).language, 'fr')
    assert.equal(readPage(html(null, 'Kurz', ['Hallo']), undefined, 'de-CH').language, 'de')
  })
})

describe('words of the page\'s own language count', () => {
  const terms = (lang: string, before: string, after: string) => {
    const a = readPage(html(lang, 'Terms', [before]))
    const b = readPage(html(lang, 'Terms', [after]))
    return compareContent(a.text, b, 'terms')
  }

  it('a French legal word is serious on a French page, and not on an English one', () => {
    const fr = terms('fr', 'Nous ne communiquons pas vos données.', 'Nous communiquons vos coordonnées à des tiers.')
    assert.equal(fr[0].severity, 'high')
    const en = terms('en', 'Our plans come in two levels.', 'Our plans come in three tiers.')
    assert.equal(en[0].changeType, 'terms_update')
    assert.equal(en[0].severity, 'low', 'English "tiers" are plans, not third parties')
    const vendors = terms('en', 'Listings are reviewed weekly.', 'Vendors are reviewed weekly.')
    assert.equal(vendors[0].severity, 'low', '"vendors" is not Romance "vender" (to sell)')
  })

  it('a page\'s kind from a word of another language is a hint, not enough alone', () => {
    const aircraft = [
      'Our fleet of planes is maintained by certified engineers in our own hangars every season.',
      'Every aircraft we fly has been inspected and refitted with new seats over the last two years.'
    ]
    const english = classifyFetchedPage({ url: 'https://air.test/planes', html: html('en', 'Our fleet', aircraft) })
    assert.equal(english.pageType, 'other', 'Spanish "planes" (plans) on an English page about aircraft')
    const spanish = classifyFetchedPage({
      url: 'https://nube.test/planes',
      html: html('es', 'Nuestra oferta', [
        'Elige la opción que mejor se adapta a tu equipo y cambia cuando quieras sin ningún compromiso.',
        'Todas las opciones incluyen soporte por correo electrónico y copias de seguridad diarias.'
      ])
    })
    assert.equal(spanish.pageType, 'pricing')
  })
})
