import type { PageType } from '../../vocabulary/core.js'
import { fold } from '../words/lexicon.js'

// What a legal page is called where its changes are named: its own title when it is
// short ("Privacy Policy", "AGB"), else the kind its title says it is, in the seven
// languages ("Privacy policy", not "Terms", for a privacy policy with a long title). Pure.

const MAX_OWN_TITLE = 40

/** Kinds of legal page, by the words their titles use: the first that matches names the page. */
const LEGAL_KINDS: ReadonlyArray<readonly [RegExp, string]> = [
  [/cookie/i, 'Cookie policy'],
  [/privacy|datenschutz|confidentialit|donnees personnelles|privacidad|datos personales|riservatezza|privacidade|dados pessoais|privacybeleid|persoonsgegevens/i,
    'Privacy policy'],
  [/acceptable use|nutzungsrichtlinie|utilisation acceptable|uso aceptable|uso accettabile|aanvaardbaar gebruik/i,
    'Acceptable use policy'],
  [/guidelines|richtlinien|lignes directrices|directrices|linee guida|richtlijnen|diretrizes|community/i, 'Guidelines'],
  [/security|sicherheit|securite|seguridad|sicurezza|beveiliging|seguranca/i, 'Security'],
  [/terms|conditions|bedingungen|agb|conditions generales|terminos|condizioni|voorwaarden|termos/i, 'Terms']
]

/** A legal page's name in a summary: its own short title, else its kind from its title, else its type's. */
export function legalTitle (pageType: PageType, title: string | undefined): string {
  if (title && title.length <= MAX_OWN_TITLE) return title
  const words = fold(title ?? '')
  return LEGAL_KINDS.find(([re]) => re.test(words))?.[1] ?? (pageType === 'security' ? 'Security' : 'Terms')
}
