import type { ComplianceClaim } from '../../vocabulary/research.js'
import type { PageType } from '../../vocabulary/core.js'
import type { PRICE_CHARGES } from '../../vocabulary/diff-data.js'

// The words Sitewatch reads pages by, in English, French, German, Spanish, Italian,
// Dutch and Portuguese: what names each kind of page, what each kind's text talks
// about, the legal vocabulary that makes an edit of terms serious, and billing periods.
// Each entry is a regular expression's source; `*` in a stem is written `\p{L}*`.
// Words are kept by language, so that a page's own language counts for more and a
// word of another language (French "tiers", Spanish "vender") does not count against it.

type Typed = Exclude<PageType, 'other'>
type PriceCharge = typeof PRICE_CHARGES[number]

export const LANGUAGES = ['en', 'fr', 'de', 'es', 'it', 'nl', 'pt'] as const
export type Language = typeof LANGUAGES[number]
/** Words of each language. English is read on every page: URLs and product words are English everywhere. */
export type Words = Record<Language, readonly string[]>

const L = '\\p{L}*'
/** No words of a language's own (a name every language writes alike stands under English). */
const none: Words = { en: [], fr: [], de: [], es: [], it: [], nl: [], pt: [] }

/**
 * Text without its accents, which URLs and some writers drop ("securite", "preco"): the
 * lexicon's expressions are matched against folded text.
 */
export function fold (s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '')
}

/**
 * Matches any of `terms` as whole words in folded text. JavaScript's \b knows only ASCII
 * letters (it sees a boundary inside "sécurité"), so the boundaries are Unicode letter classes.
 */
export function anyWord (terms: readonly string[], flags = 'iu'): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${fold(terms.join('|'))})(?![\\p{L}\\p{N}])`, flags)
}

/** The languages whose words count fully on a page in `language`: its own and English; all when unknown. */
export function ownLanguages (language?: Language): readonly Language[] {
  if (language === undefined) return LANGUAGES
  return language === 'en' ? ['en'] : [language, 'en']
}

const matchers = new WeakMap<Words, Map<string, RegExp>>()

/** One expression for the words of `languages` (built once per list, languages and flags). */
export function matcher (words: Words, languages: readonly Language[], flags = 'iu'): RegExp {
  let byKey = matchers.get(words)
  if (!byKey) matchers.set(words, (byKey = new Map()))
  const key = `${languages.join()}/${flags}`
  let re = byKey.get(key)
  if (!re) byKey.set(key, (re = anyWord(languages.flatMap(l => words[l]), flags)))
  return re
}

/** Words that name each kind of page in a URL, a link, a title or a heading. */
export const PAGE_NAMES: Record<Typed, Words> = {
  pricing: {
    en: ['pricing', 'prices?', 'plans?', 'billing', 'subscriptions?', 'buy', 'upgrade', 'cost'],
    fr: ['tarifs?', 'prix', 'abonnements?', 'tarification'],
    de: ['preise?', 'preisliste', 'tarife?', 'pakete', 'kosten'],
    es: ['precios?', 'tarifas?', 'planes', 'suscripci(?:ón|ones)'],
    it: ['prezzi', 'prezzo', 'tariffe', 'piani', 'abbonament[oi]'],
    nl: ['prijzen', 'prijs', 'tarieven', 'abonnementen'],
    pt: ['preços', 'preço', 'planos', 'assinaturas?']
  },
  features: {
    en: [
      'features?', 'products?', 'platform', 'capabilities', 'solutions?', 'compare', 'comparison', 'tour', `why[- ]${L}`
    ],
    fr: ['fonctionnalités', 'fonctions', 'produits?', 'plateforme'],
    de: ['funktionen', 'produkte?', 'lösungen', 'plattform', 'funktionsumfang'],
    es: ['funciones', 'funcionalidades', 'características', 'productos?', 'soluciones', 'plataforma'],
    it: ['funzionalità', 'funzioni', 'caratteristiche', 'prodotti', 'soluzioni', 'piattaforma'],
    nl: ['functies', 'functionaliteiten', 'mogelijkheden', 'producten', 'oplossingen'],
    pt: ['recursos', 'funções', 'produtos?', 'soluções', 'funcionalidades', 'plataforma']
  },
  terms: {
    en: [
      'terms', 'tos', 'legal', 'privacy', `cookies?(?:[- ]${L})?`, 'eula', 'dpa', 'gdpr', 'ccpa',
      'acceptable[- ]use', 'aup', 'sla', 'policies', 'policy', 'agreement', 'conditions', 'guidelines',
      'code[- ]of[- ]conduct', 'community[- ]standards', 'addendum', 'data[- ]protection', 'disclaimers?', 'dmca',
      'copyright', 'refunds?', 'warrant(?:y|ies)', 'do[- ]not[- ]sell', 'contracts'
    ],
    fr: [
      'cgu', 'cgv', 'cgvu', 'confidentialité', 'vie[- ]privée', 'données[- ]personnelles', 'politique', 'traceurs',
      'charte', 'règles', 'conditions', 'rgpd', 'contrats'
    ],
    de: ['agb', `${L}bedingungen`, `datenschutz${L}`, `${L}richtlinien?`, 'nutzungsordnung', 'dsgvo', `widerruf${L}`],
    es: ['términos', 'condiciones', 'privacidad', 'política', 'normas', 'rgpd', 'contratos'],
    it: ['termini', 'condizioni', 'informativa', 'riservatezza', 'linee[- ]guida', 'regole', 'privacy', 'contratti'],
    nl: [`${L}voorwaarden`, `privacy${L}`, `cookie${L}`, `${L}richtlijnen`, 'gedragscode', 'avg', `${L}overeenkomst`],
    pt: ['termos', 'condições', 'privacidade', 'diretrizes', 'lgpd', 'política', 'contratos']
  },
  security: {
    en: [
      'security', 'trust', 'compliance', 'soc ?2', 'iso ?27001', `vulnerabilit${L}`, 'responsible[- ]disclosure',
      'bug[- ]bounty', 'security\\.txt', 'sub[- ]?processors?'
    ],
    fr: ['sécurité', 'conformité', 'confiance'],
    de: [`${L}sicherheit`, 'vertrauen', 'schwachstellen'],
    es: ['seguridad', 'cumplimiento', 'confianza', 'vulnerabilidad(?:es)?'],
    it: ['sicurezza', 'conformità', 'vulnerabilità'],
    nl: ['beveiliging', 'veiligheid', 'kwetsbaarheden'],
    pt: ['segurança', 'conformidade']
  },
  api_docs: {
    en: [
      'api', 'apis', 'docs', 'documentation', 'developers?', 'reference', 'sdks?', 'graphql', 'swagger', 'openapi',
      'webhooks?', 'guides?'
    ],
    fr: ['développeurs?', 'référence', 'documentation'],
    de: ['dokumentation', 'entwickler', 'referenz', 'schnittstellen?'],
    es: ['documentación', 'desarrolladores', 'referencia'],
    it: ['documentazione', 'sviluppatori', 'riferimento'],
    nl: ['documentatie', 'ontwikkelaars', 'referentie'],
    pt: ['documentação', 'desenvolvedores', 'referência']
  },
  changelog: {
    en: [
      'changelog', 'change[- ]log', 'releases?', 'release[- ]notes', "what'?s[- ]new", 'updates', 'product[- ]updates'
    ],
    fr: ['nouveautés', 'notes[- ]de[- ]versions?', 'journal[- ]des[- ]modifications', 'mises[- ]à[- ]jour'],
    de: ['änderungsprotokoll', 'neuigkeiten', 'versionshinweise', 'was[- ]ist[- ]neu', 'neuerungen'],
    es: ['novedades', 'notas[- ]de[- ](?:la[- ])?versión', 'registro[- ]de[- ]cambios', 'actualizaciones'],
    it: ['novità', 'note[- ]di[- ]rilascio', 'registro[- ]delle[- ]modifiche', 'aggiornamenti'],
    nl: ['wijzigingen', 'wijzigingslogboek', 'wat[- ]is[- ]er[- ]nieuw', 'nieuw'],
    pt: ['novidades', 'notas[- ]de[- ]versão', 'registro[- ]de[- ]alterações', 'atualizações']
  }
}

/**
 * The nouns that make a name a legal document's ("Billing terms", "Subscription agreement",
 * "Product-specific terms"): the words beside them say what the document is about, not that
 * the page is a pricing page or a product page.
 */
export const LEGAL_DOCUMENT_NAMES: Words = {
  en: ['terms', 'tos', 'agreement', 'conditions', 'policy', 'policies', 'addendum', 'eula', 'dpa', 'sla', 'aup'],
  fr: ['cgu', 'cgv', 'cgvu', 'conditions', 'politique', 'charte'],
  de: ['agb', `${L}bedingungen`, `${L}richtlinien?`],
  es: ['términos', 'condiciones', 'política'],
  it: ['termini', 'condizioni'],
  nl: [`${L}voorwaarden`, `${L}overeenkomst`],
  pt: ['termos', 'condições', 'política']
}

/** A legal document's generic noun, which yields to security's words: a "Security policy" is a security page. */
export const POLICY_NAMES: Words = {
  ...none,
  en: ['policy', 'policies'],
  fr: ['politique'],
  es: ['política'],
  pt: ['política']
}

/**
 * An imprint or legal notice: who runs the site, by law in much of Europe. Nobody is
 * bound by it, so it is `other`, whatever else its name shares with terms. These names
 * are not shared with anything else, so they count in any language.
 */
export const IMPRINT = anyWord([
  'imprint', 'impressum', 'legal[- ]notices?', 'mentions[- ]légales', 'aviso[- ]legal', 'note[- ]legali',
  'colofon', 'colophon', 'informações[- ]legais', 'nota[- ]legal', 'site[- ]notice', 'anbieterkennzeichnung'
])

/**
 * Legal pages' names in languages whose words the lexicon does not otherwise read (Swedish, Danish, Norwegian,
 * Finnish, Polish, Czech): a legal page's name is all that is read of them, and it counts in any language.
 */
export const TERMS_NAMES_ELSEWHERE = anyWord([
  '(?:allmänna |användar)?villkor', 'integritetspolicy', 'personuppgiftspolicy', 'dataskyddspolicy',
  'vilkår', 'handelsbetingelser', 'privatlivspolitik', 'persondatapolitik', 'personvern\\p{L}*',
  'käyttöehdot', 'tietosuoja\\p{L}*', 'sopimusehdot',
  'regulamin\\p{L}*', 'polityka prywatności', 'warunki (?:korzystania|świadczenia usług)',
  '(?:obchodní |všeobecné obchodní )?podmínky', 'ochrana osobních údajů', 'zásady ochrany osobních údajů'
])

/** What the text of each kind of page tends to say (counted, so each is global). */
export const PAGE_CONTENT: Record<Typed, Words> = {
  pricing: {
    en: [
      'per (?:user|seat|month)', 'billed (?:annually|monthly)', 'free trial', 'contact sales',
      '/\\s?(?:month|mo|year|yr)'
    ],
    fr: ['par (?:mois|an|utilisateur)', 'facturé', 'essai gratuit', 'ht', 'ttc', '/\\s?(?:mois|an)'],
    de: ['pro (?:monat|jahr|nutzer)', 'monatlich', 'jährlich', 'kostenlos testen', 'mwst\\.?', '/\\s?(?:monat|jahr)'],
    es: ['al (?:mes|año)', 'por (?:mes|usuario)', 'prueba gratuita', 'iva', '/\\s?(?:mes|año)'],
    it: ['al mese', "all'anno", 'per utente', 'prova gratuita', 'iva', '/\\s?(?:mese|anno)'],
    nl: ['per (?:maand|jaar|gebruiker)', 'gratis proberen', 'btw', '/\\s?(?:maand|jaar)'],
    pt: ['por (?:mês|usuário|ano)', 'teste grátis', 'mensal', 'anual', '/\\s?(?:mês|ano)']
  },
  features: {
    en: ['features?', 'integrations?', 'workflows?', `collaborat${L}`, `automat${L}`, 'dashboards?', 'analytics'],
    fr: ['intégrations?', 'tableaux? de bord', 'analyses?'],
    de: ['integrationen', `automatisier${L}`, 'zusammenarbeit', 'auswertungen'],
    es: ['integraciones', `automatiza${L}`, 'paneles?', 'análisis', 'colaboración'],
    it: ['integrazioni', `automatizz${L}`, 'analisi', 'collaborazione'],
    nl: ['integraties', `automatiser${L}`, 'samenwerking'],
    pt: ['integrações', 'painéis', 'análises', 'colaboração', `automatiza${L}`]
  },
  // A contract's words, and a privacy notice's: what it collects, on what basis, for how long, and your rights.
  terms: {
    en: [
      'agreement', `liabilit${L}`, `indemn${L}`, 'governing law', `warrant${L}`, `terminat${L}`, 'hereby', 'shall',
      'personal (?:data|information)', 'arbitration', 'we collect', 'your (?:privacy )?rights', 'data controller',
      'lawful basis', 'legitimate interests?', 'retention period', 'opt[- ]out', 'data protection'
    ],
    fr: [
      'responsabilité', `résili${L}`, 'données personnelles', 'droit applicable', 'juridictions?', 'tribunaux',
      'nous collectons', 'vos droits', 'responsable du traitement', 'base légale', 'durée de conservation'
    ],
    de: [
      'haftung', `kündig${L}`, 'personenbezogene(?:n)? daten', 'gerichtsstand', 'gewährleistung', 'vertrag(?:es)?',
      'wir erheben', 'ihre rechte', 'verantwortliche(?:r)?', 'rechtsgrundlage', 'speicherdauer'
    ],
    es: [
      'responsabilidad', 'rescisión', 'datos personales', 'jurisdicción', 'tribunales', 'garantía', 'recopilamos',
      'sus derechos', 'responsable del tratamiento', 'base (?:legal|jurídica)', 'plazo de conservación'
    ],
    it: [
      'responsabilità', 'recesso', 'dati personali', 'foro competente', 'garanzia', 'raccogliamo', 'i tuoi diritti',
      'titolare del trattamento', 'base giuridica', 'periodo di conservazione'
    ],
    nl: [
      'aansprakelijkheid', 'beëindiging', 'opzegging', 'persoonsgegevens', 'toepasselijk recht', 'wij verzamelen',
      'uw rechten', 'verwerkingsverantwoordelijke', 'rechtsgrond', 'bewaartermijn'
    ],
    pt: [
      'responsabilidade', 'rescisão', 'dados pessoais', 'foro', 'lei aplicável', 'coletamos', 'seus direitos',
      'controlador', 'base legal', 'período de retenção'
    ]
  },
  security: {
    en: [
      `encrypt${L}`, 'soc ?2', 'iso ?27001', 'penetration', `vulnerabilit${L}`, 'access control', 'audits?', 'tls',
      'aes-?256', 'incidents?'
    ],
    fr: [`chiffr${L}`, 'tests? d.intrusion'],
    de: [`verschlüssel${L}`, 'penetrationstests?', 'zugriffskontrollen?', 'vorfälle'],
    es: [`cifrad${L}`, 'auditorías?', 'incidentes?'],
    it: [`crittograf${L}`, 'cifratura'],
    nl: [`versleutel${L}`, 'encryptie'],
    pt: [`criptograf${L}`, 'auditorias?', 'incidentes?']
  },
  api_docs: {
    en: [
      'endpoints?', 'request', 'response', 'curl', 'json', 'authentication', 'bearer', 'parameters?', 'status code',
      'rate limit', 'GET /', 'POST /'
    ],
    fr: ['requête', 'réponse', 'paramètres'],
    de: ['anfrage', 'antwort', 'authentifizierung'],
    es: ['solicitud', 'respuesta', 'parámetros', 'autenticación'],
    it: ['richiesta', 'risposta', 'parametri', 'autenticazione'],
    nl: ['verzoek', 'antwoord', 'authenticatie'],
    pt: ['requisição', 'resposta', 'parâmetros', 'autenticação']
  },
  changelog: {
    en: ['v?\\d+\\.\\d+(?:\\.\\d+)?', 'released?', 'fixed', 'improved', 'added', 'deprecated', 'bug fixes?'],
    fr: ['corrigé', 'amélioré', 'ajouté', 'nouveau'],
    de: ['behoben', 'verbessert', 'hinzugefügt'],
    es: ['corregido', 'mejorado', 'añadido'],
    it: ['corretto', 'migliorato', 'aggiunto'],
    nl: ['opgelost', 'verbeterd', 'toegevoegd'],
    pt: ['corrigido', 'melhorado', 'adicionado']
  }
}

/** Words whose edit in a legal text is serious (a terms_update of high severity). */
export const LEGAL_WORDS: Words = {
  en: [
    `liabilit${L}`, `arbitrat${L}`, `indemn${L}`, `terminat${L}`, 'governing law', 'jurisdiction', `warrant${L}`,
    'personal (?:data|information)', 'data (?:processing|retention|protection)', `third[- ]part${L}`,
    `(?:re)?sell${L}`, 'shar(?:e|es|ed|ing)', `prohibit${L}`, `restrict${L}`, `sublicens${L}`, 'consent',
    `refund${L}`, 'fees?', 'auto-?renew(?:al|s)?', `cancel${L}`, `sub-?processor${L}`, 'service providers?', 'breach',
    'class action',
    `waive${L}`, 'collect(?:s|ed|ing|ion)?', '(?:precise )?(?:geo)?location', `track${L}`, `biometric${L}`
  ],
  fr: [
    'responsabilité', `résili${L}`, `arbitr${L}`, `indemni${L}`, 'juridictions?', 'tribunal', 'tribunaux',
    'données personnelles', `sous-traitan${L}`, `rembours${L}`, `renouvel${L}`, `annul${L}`, 'frais',
    'droit applicable', 'tiers', 'consentement', `partag${L}`, `vend${L}`, `collect${L}`, `g[ée]olocalis${L}`,
    `biom[ée]tri${L}`
  ],
  de: [
    'haftung', `haft${L}`, `kündig${L}`, 'gerichtsstand', `schieds${L}`, `personenbezogen${L}`,
    `auftragsverarbeit${L}`, `erstatt${L}`, `verlänger${L}`, `gebühr${L}`, `widerruf${L}`, 'gewährleistung',
    'dritten?', `einwillig${L}`, 'weitergeben', `übermitt${L}`, `verkauf${L}`, `erhebe${L}`, `erhob${L}`,
    `standort${L}`, `biometrisch${L}`
  ],
  es: [
    'responsabilidad', `rescisi${L}`, `resoluci${L}`, 'arbitraje', `jurisdicci${L}`, 'tribunales', 'datos personales',
    `reembols${L}`, `renovaci${L}`, `cancelaci${L}`, 'indemnización', 'ley aplicable', 'terceros', 'consentimiento',
    `compart${L}`, `vend${L}`, `recopil${L}`, 'ubicación', `biom[ée]tric${L}`
  ],
  it: [
    'responsabilità', 'recesso', `risoluzion${L}`, 'arbitrato', 'foro(?: competente)?', 'dati personali', `rimbors${L}`,
    'rinnovo', 'disdetta', 'legge applicabile', 'terzi', 'terze parti', 'consenso', `condivid${L}`, `vend${L}`,
    `raccol${L}`, `geolocalizzazion${L}`, `biometric${L}`
  ],
  nl: [
    `aansprakelijk${L}`, `beëindig${L}`, `opzeg${L}`, 'arbitrage', 'bevoegde rechter', 'persoonsgegevens',
    `terugbetal${L}`, `verleng${L}`, 'toepasselijk recht', 'schadevergoeding', 'derden', 'toestemming', 'delen',
    `verko${L}`, `verzamel${L}`, 'locatiegegevens', `biometrisch${L}`
  ],
  pt: [
    'responsabilidade', `rescis${L}`, 'arbitragem', 'foro', 'dados pessoais', 'reembolso', 'renovação',
    'cancelamento', 'lei aplicável', 'indenização', 'terceiros', 'consentimento', `compartilh${L}`, `vend${L}`,
    `colet${L}`, 'localização', `biom[ée]tric${L}`
  ]
}

/**
 * A comparison table's cell that says a plan includes the row's feature, or that it does
 * not (a dash, a cross, "no"), in the languages read: the marks alone, nothing around them.
 */
export const INCLUDED_MARK =
  /^(?:✓|✔|✔️|✅|☑|yes|included|oui|inclus|ja|inklusive|enthalten|sí|si|incluido|sì|incluso|sim|incluído|inbegrepen)$/i
export const NOT_INCLUDED_MARK =
  /^(?:[✗✕×✘❌—–-]|no|non|nein|nee|não|none|n\/a|not included|non inclus|nicht enthalten|no incluido|non incluso|niet inbegrepen|não incluído)$/i

/**
 * What a price is, besides a plan's price: a fee paid once to set up, a term's total, or
 * an add-on's (a licence, an option added to a plan). Each is compared only with its own
 * kind (a 2.25 € setup fee never "becomes" a 29.70 € total, nor a 6.85 € licence a plan's price).
 */
export const PRICE_KIND_WORDS: ReadonlyArray<[kind: PriceCharge, words: Words]> = [
  ['setup', {
    en: ['set-?up', 'set up', 'installation', 'activation', 'one-?time', 'onboarding'],
    fr: ['installation', 'mise en service', 'activation', 'frais uniques?', 'unique'],
    de: [`einrichtung${L}`, 'einmalig(?:e|er|es)?', 'installation', `bereitstellung${L}`],
    es: ['instalación', 'alta', 'activación', 'configuración', 'pago único'],
    it: ['attivazione', 'installazione', 'una tantum'],
    nl: ['installatie', 'eenmalig(?:e)?', 'opstart', 'activatie'],
    pt: ['instalação', 'ativação', 'configuração', 'taxa única', 'adesão']
  }],
  ['total', {
    en: ['total', 'in total', 'altogether'],
    fr: ['total', 'au total'],
    de: ['gesamt', 'insgesamt', 'gesamtpreis', 'summe'],
    es: ['total', 'en total'],
    it: ['totale', 'in totale'],
    nl: ['totaal', 'in totaal'],
    pt: ['total', 'no total']
  }],
  ['addon', {
    en: ['add-?ons?', 'licen[cs]es?', 'optional', 'extra'],
    fr: ['options?', 'suppléments?', 'licences?'],
    de: [`zusatz${L}`, 'aufpreis', `lizenz${L}`, 'optional'],
    es: ['adicional(?:es)?', 'complementos?', 'licencias?'],
    it: [`aggiuntiv${L}`, 'opzional[ei]', 'licenz[ae]'],
    nl: ['extra', `optie${L}`, `licentie${L}`],
    pt: ['adiciona(?:l|is)', 'complementos?', 'licenças?']
  }]
]

/** What a price is by the words beside it, or its column's name (PRICE_KIND_WORDS); none: the plan's own price. */
export function chargeIn (words: string, languages: readonly Language[] = LANGUAGES): PriceCharge | undefined {
  const folded = fold(words)
  return PRICE_KIND_WORDS.find(([, kind]) => matcher(kind, languages).test(folded))?.[0]
}

/** A header that names what a column holds (its price, its period, a resource), in the seven languages. */
export const TABLE_ATTRIBUTE = new RegExp(
  '^(?:' + [
    'price[s]?', 'pricing', 'cost[s]?', 'rate[s]?', 'fee[s]?', 'amount', 'total', 'monthly', 'yearly', 'annual(?:ly)?',
    'hourly', 'daily', 'per \\w+', 'included', 'includes', "what'?s included", 'features?', 'limits?', 'quota[s]?',
    'storage', 'users?', 'seats?', 'members?', 'requests?', 'memory', 'ram', 'v?cpus?', 'cores?', 'disk',
    'ssd', 'nvme', 'bandwidth', 'transfer', 'traffic', 'egress', 'projects?', 'description', 'details', 'notes?',
    'quantity', 'unit', 'units', 'region', 'support', 'sla', 'uptime', 'billing', 'billed', 'period', 'term',
    'prix', 'tarifs?', 'coût', 'mensuel(?:le)?', 'annuel(?:le)?', 'inclus', 'fonctionnalités', 'stockage',
    'utilisateurs', 'mémoire', 'trafic', 'preis(?:e)?', 'kosten', 'monatlich', 'jährlich', 'enthalten',
    'funktionen', 'speicher', 'nutzer', 'arbeitsspeicher', 'precio[s]?', 'coste', 'mensual', 'anual', 'incluido',
    'funciones', 'almacenamiento', 'usuarios', 'memoria', 'prezz[oi]', 'costo', 'mensile', 'annuale', 'incluso',
    'funzionalità', 'archiviazione', 'utenti', 'prijs', 'prijzen', 'maandelijks', 'jaarlijks', 'inbegrepen',
    'functies', 'opslag', 'gebruikers', 'geheugen', 'preço[s]?', 'custo', 'mensal', 'incluído', 'recursos',
    'armazenamento', 'usuários', 'memória'
  ].join('|') + ')\\b',
  'iu'
)
/** A row of plans as columns that says only that it holds the price: the plan's column names the price alone. */
export const PLAIN_PRICE_ROW = /^(?:prices?|pricing|cost|preis|prix|precio|prezzo|prijs|preço)$/iu
/** A header over the column of names: the table lists plans (or products, or items) as rows. */
// "Plan", and "Plan and term" or "Plan / region": a header that starts with a name word.
export const TABLE_NAME_HEADER = /^(?:plans?|tiers?|packages?|editions?|products?|instances?|types?|names?|services?|items?|resources?|offers?|options?|server|machine|formules?|offres?|produits?|pakete?|produkte?|planes|productos?|piani|prodott[oi]|pakket(?:ten)?|planos?|produtos?)(?:$|\s+(?:and|&|\/|et|und|y|e|en)\s|\s*[/(&])/iu
/** Billing periods, by what they are called: the value is the period's English name. */
export const PERIOD_WORDS: ReadonlyArray<[string, string]> = [
  ['month|mo|mois|monat|mes|mese|maand|mês|mensuel|monatlich|mensual|mensile|maandelijks|mensal', 'month'],
  ['year|yr|annum|an|année|jahr|año|anno|jaar|ano|annuel|jährlich|anual|annuale|jaarlijks', 'year'],
  ['user|seat|member|editor|utilisateur|nutzer|benutzer|usuario|utente|gebruiker|usuário', 'user'],
  ['week|semaine|woche|semana|settimana|week', 'week'],
  ['day|jour|tag|día|giorno|dag|dia', 'day'],
  ['hour|hr|h|heure|stunde|std|hora|ora|uur', 'hour'],
  ['host', 'host']
]

/**
 * Billing periods said after a price without "per" ("6,80 € mtl.", "$49 monthly", "120 € p.a."): the value is
 * the period's English name.
 */
export const PERIOD_ADVERBS: ReadonlyArray<[string, string]> = [
  ['monthly|mtl\\.?|monatl\\.?|monatlich|mensuel(?:le)?|mensual|mensile|maandelijks|mensal|p\\.\\s?m\\.', 'month'],
  ['yearly|annually|jährl\\.?|jährlich|annuel(?:le)?|anual|annuale|jaarlijks|p\\.\\s?a\\.', 'year'],
  ['hourly|stündl\\.?|stündlich', 'hour']
]

/**
 * Words that qualify a price and name nothing ("from $4", "ab 3,79 € mtl.", "max. 0,006 € / Std.", "à partir de
 * 5 €"): a line of nothing else beside its money has no name of its own. None is a plan's name ("Pro", "Max").
 */
export const PRICE_QUALIFIERS: Words = {
  en: [
    'from', 'starting(?: at| from)?', 'starts at', 'only', 'just', 'up to', 'max\\.', 'maximum', 'min\\.', 'minimum',
    'approx\\.?', 'excl\\.?', 'incl\\.?', 'vat', 'tax', 'billed(?: (?:annually|yearly|monthly))?(?: at)?', 'or',
    'then'
  ],
  fr: [
    'à partir de', 'dès', 'seulement', 'jusqu\'à', 'ht', 'ttc', 'facturé(?:e|s)?(?: (?:annuellement|mensuellement))?'
  ],
  de: ['ab', 'nur', 'bis zu', 'zzgl\\.?', 'inkl\\.?', 'mwst\\.?', '(?:jährlich|monatlich) abgerechnet'],
  es: [
    'desde', 'a partir de', 'solo', 'sólo', 'hasta', 'máx\\.', 'iva', 'facturado(?: (?:anualmente|mensualmente))?'
  ],
  it: ['a partire da', 'solo', 'fino a', 'iva', 'fatturat[oi](?: (?:annualmente|mensilmente))?'],
  nl: ['vanaf', 'slechts', 'btw', '(?:jaarlijks|maandelijks) gefactureerd'],
  pt: ['a partir de', 'desde', 'apenas', 'até', 'máx\\.', 'faturado(?: (?:anualmente|mensalmente))?']
}

/**
 * What a usage price is counted in (per GB, per 1,000 requests): the value is how
 * summaries write it. A count may lead ("1,000 requests", "1M requests").
 */
export const UNIT_WORDS: ReadonlyArray<[string, string]> = [
  ['gb|gib|go|gigabytes?|gigaoctets?', 'GB'],
  ['tb|tib|to|terabytes?|téraoctets?', 'TB'],
  ['mb|mib|megabytes?|mégaoctets?', 'MB'],
  ['requests?|reqs?|calls?|api calls?|requêtes?|anfragen|aufrufe|solicitudes|peticiones|richieste|chiamate|' +
    'verzoeken|aanroepen|requisições|chamadas', 'requests'],
  ['e-?mails?|messages?|sms|nachrichten|mensajes|messaggi|berichten|mensagens', 'messages'],
  ['minutes?|mins?|minuten|minutos|minuti', 'minutes'],
  ['vcpus?|cpus?|cores?', 'vCPU'],
  ['events?|événements?|ereignisse|eventos|eventi|gebeurtenissen', 'events'],
  ['tokens?', 'tokens'],
  ['credits?|crédits?|créditos?|crediti', 'credits'],
  ['invocations?|executions?|runs?|builds?', 'runs']
]

/** "per" in each language, and the slash. */
export const PER = '(?:/|per|a|an|par|pro|je|por|al|all\'|ao|por)'

/** Relative times in each language ("3 minutes ago"): noise, never news. */
export const RELATIVE_TIME = new RegExp(
  [
    // fr, es, pt: the phrase leads ("il y a 3 minutes", "hace 2 horas", "há 5 minutos")
    '(?<![\\p{L}])(?:il y a|hace|há)\\s+(?:\\d+|une?|quelques|unos|alguns|uns)\\s+' +
      '(?:secondes?|minutes?|heures?|jours?|semaines?|mois|ans?|segundos?|minutos?|horas?|días?|dias?|semanas?|meses|' +
      'mês|años?|anos?)(?![\\p{L}])',
    // de: "vor 3 Minuten", "vor einer Stunde"
    '(?<![\\p{L}])vor\\s+(?:\\d+|einer?|wenigen)\\s+(?:sekunden?|minuten?|stunden?|tagen?|wochen?|monaten?|jahren?)' +
      '(?![\\p{L}])',
    // it, nl: the number leads ("3 minuti fa", "5 minuten geleden")
    '(?<![\\p{L}])(?:\\d+|un|una|een|pochi)\\s+(?:secondi?|minut[oi]|ore|ora|giorn[oi]|settiman[ae]|mes[ei]|ann[oi]|' +
      'seconden|minuten|minuut|uur|uren|dagen|dag|weken|week|maanden|maand|jaar|jaren)\\s+(?:fa|geleden)(?![\\p{L}])'
  ].join('|'),
  'giu'
)

/** A sale's countdown in each language ("ends in 3 days", "endet in 3 Tagen", "2 days left"): noise, never news. */
const UNITS_TO_COME = [
  's|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?',
  'secondes?|minutes?|heures?|jours?', 'sekunden|minuten|stunden|tagen?', 'segundos?|minutos?|horas?|días?|dias?',
  'secondi|minuti|ore|giorni', 'seconden|minuten|uur|uren|dagen|dag'
].join('|')
// Only verbs of ending: a token that "expires in 60 minutes" is an API's term, and news when it moves.
const ENDS = ['ends?|ending', 'se termine|finit', 'endet', 'termina|acaba', 'termina|finisce', 'eindigt', 'termina']
/** "in" before a time to come, in each language: in, dans, in, en, tra, over, em. */
const IN_TIME = 'in|dans|en|tra|over|em'
const LEFT = 'left|remaining|restants?|übrig|restantes|rimanenti|resterend'
export const COUNTDOWN = new RegExp(
  `(?<![\\p{L}])(?:(?:${ENDS.join('|')}) (?:${IN_TIME}) \\d+\\s*(?:${UNITS_TO_COME})|\\d+\\s*(?:${UNITS_TO_COME}) ` +
    `(?:${LEFT}))(?![\\p{L}])`,
  'giu'
)
/** What every countdown holds: a cheap test before COUNTDOWN's. */
export const COUNTDOWN_GATE = new RegExp(`${ENDS.join('|')}|${LEFT}`, 'iu')

/** Words that make money a price: prices, plans, offers and what they cost. */
export const PRICE_WORDS: Words = {
  en: [`pric${L}`, 'plans?', 'tiers?', 'subscriptions?', 'per seat', 'billed', 'billing', 'offers?', 'cost', 'costs'],
  fr: ['prix', 'tarifs?', 'tarification', 'formules?', 'offres?', 'abonnements?', 'factur(?:é|ée|és|ation)'],
  de: [`preis${L}`, 'tarife?', 'pakete?', 'abonnements?', 'abo', `abrechnung${L}`, 'kosten'],
  es: ['precios?', 'tarifas?', 'planes', 'plan', 'suscripci(?:ón|ones)', 'facturad[oa]', 'ofertas?'],
  it: ['prezz[oi]', 'tariff[ae]', 'piani', 'piano', 'abbonament[oi]', 'fatturat[oa]', 'offert[ae]'],
  nl: ['prijs', 'prijzen', 'tarie(?:f|ven)', 'abonnement(?:en)?', 'pakket(?:ten)?', 'gefactureerd'],
  pt: ['preços?', 'planos?', 'tarifas?', 'assinaturas?', 'faturad[oa]', 'ofertas?']
}

/**
 * Words that make money something other than a price: a company's capital, a liability
 * cap, a fine, a threshold, revenue. Money beside them is part of the text's edit.
 */
export const CORPORATE_MONEY_WORDS: Words = {
  en: [
    `capital${L}`, `liabilit${L}`, 'liable', 'fines?', `penalt${L}`, 'thresholds?', 'revenues?', 'turnover',
    'damages', 'compensation', 'cap', 'capped', 'insured', 'insurance', 'registered', `shareholder${L}`
  ],
  fr: [
    'capital', 'responsabilité', 'amendes?', 'pénalités?', 'seuils?', 'chiffre d\'affaires', 'dommages', `indemnit${L}`
  ],
  de: [
    `\\p{L}*kapital${L}`, 'haftung', `haft${L}`, `bußgeld${L}`, `strafe${L}`, `schwellenwert${L}`, 'umsatz',
    `schadens${L}`, `vertragsstraf${L}`
  ],
  es: ['capital', 'responsabilidad', 'multas?', 'sanci(?:ón|ones)', 'umbral', 'facturación', 'daños'],
  it: ['capitale', 'responsabilità', 'multe?', 'sanzion[ei]', 'soglie?', 'fatturato', 'danni'],
  nl: ['kapitaal', `aansprakelijk${L}`, 'boetes?', 'drempel', 'omzet', 'schade'],
  pt: ['capital', 'responsabilidade', 'multas?', 'sanç(?:ão|ões)', 'limiar', 'faturamento', 'danos']
}

/**
 * What restricts a plan ("cannot", "only", "ne … pas"): a sentence of a plan's limits that
 * says one takes something away when added, and gives it back when removed.
 */
export const RESTRICTION_WORDS: Words = {
  en: ['cannot', 'can ?not', 'can\'t', 'may not', 'not', 'no longer', 'only', 'limited to', 'restricted', 'requires?'],
  fr: ['ne (?:peu|peuv|pourr)\\p{L}* pas', 'ne \\p{L}+ que', 'pas de', 'uniquement', 'seulement', 'limitée?s? à'],
  de: ['nicht', 'kein(?:e|en|er)?', 'nur', 'beschränkt auf', 'begrenzt auf'],
  es: ['no pueden?', 'no', 'solo', 'sólo', 'únicamente', 'limitad[oa]s? a'],
  it: ['non', 'solo', 'soltanto', 'limitat[oiae] a'],
  nl: ['niet', 'geen', 'alleen', 'slechts', 'beperkt tot'],
  pt: ['não', 'apenas', 'somente', 'limitad[oa]s? a']
}

/** A number a buyer must meet, not an allowance ("minimum 3 seats", a minimum term): more of it is less offered. */
export const MINIMUM_WORDS: Words = {
  en: [
    'minimum (?:of )?\\d[\\d,.]* (?:seats?|users?|licen[cs]es?|members?|months?)',
    'at least \\d[\\d,.]* (?:seats?|users?|licen[cs]es?|members?)', 'minimum (?:commitment|term|purchase|order|spend)'
  ],
  fr: [
    'minimum (?:de )?\\d+ (?:utilisateurs?|licences?|postes?|mois)', 'au moins \\d+ (?:utilisateurs?|licences?|postes?)'
  ],
  de: ['mindestens \\d+ (?:nutzer|benutzer|lizenzen|pl[aä]tze|monate)\\w*', 'mindestlaufzeit', 'mindestabnahme'],
  es: ['m[ií]nimo (?:de )?\\d+ (?:usuarios?|licencias?|meses)', 'al menos \\d+ (?:usuarios?|licencias?)'],
  it: ['minimo (?:di )?\\d+ (?:utenti|licenze|mesi)', 'almeno \\d+ (?:utenti|licenze)'],
  nl: ['minimaal \\d+ (?:gebruikers?|licenties?|maanden)', 'minimumlooptijd'],
  pt: [
    'm[ií]nimo (?:de )?\\d+ (?:usu[aá]rios?|utilizadores?|licen[cç]as?|meses)',
    'pelo menos \\d+ (?:usu[aá]rios?|licen[cç]as?)'
  ]
}

/** What a plan includes or allows: a sentence with one of these on a pricing page is about the plan. */
export const PLAN_LIMIT_WORDS: Words = {
  en: [
    'up to', 'unlimited', 'includes?', 'included', 'including', 'allows?', 'limited to', 'max(?:imum)?', 'free plan',
    'free tier', 'users?', 'seats?', 'projects?', 'members?', 'storage', 'GB', 'TB', 'minutes', 'requests',
    'credits?', 'no limits?'
  ],
  fr: ['jusqu\'à', 'illimité(?:e|s|es)?', 'inclus(?:e|es)?', 'comprend', 'permet', 'utilisateurs?', 'projets?',
    'gratuit(?:e|s|es)?', 'membres?'],
  de: ['bis zu', 'unbegrenzt(?:e|er|es)?', 'unbeschränkt', 'inklusive', 'enthält', 'enthalten', 'nutzer', 'projekte?',
    'kostenlos'],
  es: ['hasta', 'ilimitad[oa]s?', 'incluye', 'incluid[oa]s?', 'permite', 'usuarios?', 'proyectos?', 'gratis',
    'gratuito'],
  it: ['fino a', 'illimitat[oiae]', 'include', 'inclus[oiae]', 'consente', 'utenti', 'progetti', 'gratis', 'gratuito'],
  nl: ['tot', 'onbeperkt(?:e)?', 'inclusief', 'bevat', 'gebruikers?', 'projecten', 'gratis'],
  pt: ['até', 'ilimitad[oa]s?', 'inclui', 'incluíd[oa]s?', 'permite', 'usuários?', 'projetos?', 'grátis', 'gratuito']
}

/** Navigation links that come and go with a template ("back", "zurück", "top"): never an edit of the page. */
const BOILERPLATE_LINE = new RegExp(
  '^[\\s←→↑⇧«»‹›<>^·|-]*(?:' + [
    'back', 'go back', 'back to top', 'to top', 'top', 'menu', 'close', 'skip to (?:main )?content', 'scroll to top',
    'zurück', 'nach oben', 'menü', 'schließen', 'retour', 'haut de page', 'retour en haut', 'fermer',
    'volver', 'volver arriba', 'cerrar', 'menú', 'indietro', 'torna su', 'chiudi', 'terug', 'naar boven', 'sluiten',
    'voltar', 'voltar ao topo', 'fechar'
  ].join('|') + ')[\\s←→↑⇧«»‹›<>^·|.-]*$',
  'iu'
)

/** A short line of text that is only a template's navigation link. */
export const isBoilerplateLink = (text: string) => text.length <= 30 && BOILERPLATE_LINE.test(text)

/** What a changelog's entry may say, each raising its weight (see changelogChanges). */
type ReleaseWords = 'breaking' | 'removed' | 'deprecated' | 'security' | 'pricing' | 'added' | 'maintenance'
export const RELEASE_WORDS: Record<ReleaseWords, Words> = {
  breaking: {
    en: ['breaking', 'backwards?[- ]incompatible'],
    fr: ['rupture', 'incompatible'],
    de: ['breaking', 'inkompatibel'],
    es: ['incompatible', 'ruptura'],
    it: ['incompatibile'],
    nl: ['breaking', 'incompatibel'],
    pt: ['incompat[ií]vel']
  },
  removed: {
    en: ['removed?', 'removal', 'dropped', 'no longer', 'discontinued', 'sunset', 'end of life'],
    fr: ['supprim(?:[ée]e?s?|ons)', 'retir[ée]e?s?', 'n\'est plus', 'abandonn[ée]e?s?'],
    de: ['entfernt', 'nicht mehr', 'eingestellt', 'abgeschafft', 'entf[äa]llt'],
    es: ['elimin(?:ad[oa]s?|ó|amos|an?)', 'retirad[oa]s?', 'ya no', 'descontinuad[oa]s?'],
    it: ['rimoss[oaie]', 'rimuov(?:e|iamo)', 'non più', 'dismess[oaie]'],
    nl: ['verwijderd', 'niet meer', 'stopgezet'],
    pt: ['removid[oa]s?', 'remov(?:e|emos)', 'não mais', 'descontinuad[oa]s?']
  },
  deprecated: {
    en: ['deprecat\\w*'],
    fr: ['obsol[eè]te', 'd[ée]pr[ée]ci[ée]e?s?'],
    de: ['veraltet', 'abgekündigt', 'deprecated'],
    es: ['obsolet[oa]s?', 'en desuso'],
    it: ['deprecat[oaie]', 'obsolet[oaie]'],
    nl: ['verouderd', 'deprecated'],
    pt: ['obsolet[oa]s?', 'depreciad[oa]s?']
  },
  security: {
    en: ['security', 'vulnerabilit(?:y|ies)', 'CVE-\\d+-\\d+', 'XSS', 'CSRF'],
    fr: ['s[ée]curit[ée]', 'vuln[ée]rabilit[ée]s?'],
    de: ['sicherheit\\w*'],
    es: ['seguridad', 'vulnerabilidad(?:es)?'],
    it: ['sicurezza', 'vulnerabilit[àa]'],
    nl: ['beveiliging\\w*', 'kwetsba\\w*'],
    pt: ['seguran[çc]a', 'vulnerabilidades?']
  },
  pricing: {
    en: ['prices?', 'pricing', 'plans?'],
    fr: ['prix', 'tarifs?', 'formules?'],
    de: ['preis\\w*', 'tarife?', 'pakete?'],
    es: ['precios?', 'planes', 'tarifas?'],
    it: ['prezz[oi]', 'piani', 'tariff[ae]'],
    nl: ['prijs', 'prijzen', 'tarieven'],
    pt: ['preços?', 'planos?']
  },
  added: {
    en: ['added', 'adds?', 'new', 'introduc\\w*', 'launch\\w*', 'now supports?', 'released'],
    fr: ['ajout[ée]?e?s?', 'nouveau', 'nouvelles?', 'nouvel'],
    de: ['neu\\w*', 'hinzugefügt'],
    es: ['añadid[oa]s?', 'nuev[oa]s?', 'agregad[oa]s?'],
    it: ['aggiunt[oaie]', 'nuov[oaie]'],
    nl: ['toegevoegd', 'nieuwe?'],
    pt: ['adicionad[oa]s?', 'nov[oa]s?']
  },
  // Fixes and tuning: a release that only says these brings nothing new.
  maintenance: {
    en: ['fix(?:es|ed)?', 'bugs?', 'resolved', 'improv\\w*', 'faster', 'performance', 'stability'],
    fr: ['corrig[ée]e?s?', 'correctifs?', 'corrections?', 'bogues?', 'am[ée]lior\\w*', 'performances?', 'stabilit[ée]'],
    de: ['behoben', 'fehler\\w*', 'korrigiert', 'verbesser\\w*', 'schneller', 'leistung', 'stabilit[äa]t'],
    es: ['corregid[oa]s?', 'correcci(?:ón|ones)', 'errore?s?', 'mejoras?', 'rendimiento', 'estabilidad'],
    it: ['corrett[oaie]', 'correzion[ei]', 'bug', 'miglior\\w*', 'prestazioni', 'stabilit[àa]'],
    nl: ['opgelost', 'fout(?:en)?', 'bugs?', 'verbeter\\w*', 'sneller', 'prestaties', 'stabiliteit'],
    pt: ['corrigid[oa]s?', 'corre[çc](?:ão|ões)', 'erros?', 'melhori\\w*', 'desempenho', 'estabilidade']
  }
}

/** Month names of the lexicon's languages (and English abbreviations), folded, with their number. */
export const MONTHS: ReadonlyMap<string, number> = new Map([
  'january february march april may june july august september october november december',
  'janvier fevrier mars avril mai juin juillet aout septembre octobre novembre decembre',
  'januar februar marz april mai juni juli august september oktober november dezember',
  'enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre',
  'gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre',
  'januari februari maart april mei juni juli augustus september oktober november december',
  'janeiro fevereiro marco abril maio junho julho agosto setembro outubro novembro dezembro',
  'jan feb mar apr may jun jul aug sep oct nov dec'
].flatMap(names => names.split(' ').map((name, i) => [name, i + 1] as [string, number])).concat([['sept', 9]]))

/**
 * Security and compliance claims a site makes (research briefs). Names of standards are
 * the same in every language and stand in English; each language adds its own words.
 */
export const COMPLIANCE_WORDS: Record<ComplianceClaim, Words> = {
  'SOC 2': { ...none, en: ['SOC[- ]?(?:2|II)'] },
  'ISO 27001': { ...none, en: ['ISO(?:/IEC)?[- ]?27001'] },
  'ISO 27017': { ...none, en: ['ISO(?:/IEC)?[- ]?27017'] },
  'ISO 27018': { ...none, en: ['ISO(?:/IEC)?[- ]?27018'] },
  GDPR: {
    en: ['GDPR', 'General Data Protection Regulation'],
    fr: ['RGPD', 'règlement général sur la protection des données'],
    de: ['DSGVO', 'DS-GVO', 'Datenschutz-Grundverordnung'],
    es: ['RGPD', 'Reglamento General de Protección de Datos'],
    it: ['regolamento generale sulla protezione dei dati'],
    nl: ['AVG', 'Algemene verordening gegevensbescherming'],
    pt: ['RGPD', 'Regulamento Geral (?:sobre a|de) Proteção de Dados']
  },
  CCPA: { ...none, en: ['CCPA', 'CPRA', 'California Consumer Privacy Act'] },
  HIPAA: { ...none, en: ['HIPAA'] },
  'PCI DSS': { ...none, en: ['PCI[- ]?DSS', 'PCI[- ]compliant', 'PCI compliance'] },
  FedRAMP: { ...none, en: ['FedRAMP'] },
  SSO: {
    en: ['SSO', 'single sign[- ]on'],
    fr: ['authentification unique'],
    de: ['Einmalanmeldung'],
    es: ['inicio de sesión único'],
    it: ['accesso unico'],
    nl: ['eenmalige aanmelding'],
    pt: ['(?:logon|login|autenticação) único', 'autenticação única']
  },
  SAML: { ...none, en: ['SAML(?: ?2\\.0)?'] },
  SCIM: { ...none, en: ['SCIM'] },
  'Data residency': {
    en: ['data residency', 'data (?:is |are )?(?:stored|hosted) (?:exclusively |only )?in (?:the )?' +
      '(?:EU|European Union|Europe|US|United States|Germany|UK|Canada|Australia)', 'EU[- ]hosted',
    'EU data cent(?:er|re)s?'],
    fr: ['résidence des données', 'données (?:sont )?hébergées en (?:France|Europe|UE)',
      'hébergement (?:des données )?en (?:France|Europe)'],
    de: ['Datenresidenz', '(?:Datenspeicherung|Rechenzentren|Server|Hosting) in (?:der EU|Deutschland|Europa)'],
    es: ['residencia de (?:los )?datos', 'datos alojados en (?:la UE|Europa|España)'],
    it: ['residenza dei dati', 'dati ospitati in (?:Italia|Europa|UE)'],
    nl: ['dataresidentie', 'gegevens (?:worden )?opgeslagen in (?:de EU|Europa|Nederland)'],
    pt: ['residência (?:de|dos) dados', 'dados (?:armazenados|hospedados) (?:na UE|na Europa|no Brasil|em Portugal)']
  },
  Encryption: {
    en: ['encrypt(?:ed|ion) (?:at rest|in transit)', 'AES[- ]?256', 'end[- ]to[- ]end encrypt' + L, 'TLS ?1\\.[23]'],
    fr: ['chiffr' + L + ' (?:au repos|en transit|de bout en bout)'],
    de: ['verschlüssel' + L, 'Ende-zu-Ende-Verschlüsselung'],
    es: ['cifrad[oa]s? (?:en reposo|en tránsito)', 'cifrado de extremo a extremo'],
    it: ['crittograf' + L + ' (?:a riposo|in transito|end-to-end)'],
    nl: ['versleuteld (?:in rust|tijdens transport)', 'end-to-end versleutel' + L],
    pt: ['criptograf' + L + ' (?:em repouso|em trânsito|de ponta a ponta)']
  },
  'Penetration testing': {
    en: ['penetration test' + L, 'pen[- ]?tests?'],
    fr: ['tests? d\'intrusion'],
    de: ['Penetrationstest' + L],
    es: ['pruebas? de penetración'],
    it: ['test di penetrazione'],
    nl: ['penetratietest' + L],
    pt: ['testes? de (?:invasão|penetração)']
  },
  'Bug bounty': {
    en: ['bug bounty', 'responsible disclosure', 'vulnerability disclosure (?:program|policy)'],
    fr: ['divulgation responsable', 'prime aux bogues'],
    de: ['Bug-Bounty', 'verantwortungsvolle Offenlegung'],
    es: ['divulgación responsable', 'recompensas? por (?:errores|vulnerabilidades)'],
    it: ['divulgazione responsabile'],
    nl: ['verantwoorde openbaarmaking'],
    pt: ['divulgação responsável']
  }
}

/** Every compliance claim's words, by language: a legal page's edit that names one speaks of its terms. */
export const COMPLIANCE_ANY = Object.fromEntries(
  LANGUAGES.map(l => [l, Object.values(COMPLIANCE_WORDS).flatMap(w => w[l])])
) as unknown as Words

/** A free trial offered (research briefs: the pricing section). */
export const TRIAL_WORDS: Words = {
  en: ['free trial', '\\d+[- ]day (?:free )?trial', 'try (?:it )?(?:for )?free', 'trial period',
    'free for \\d+ days', '\\d+ days free'],
  fr: ['essai gratuit', 'période d\'essai', 'essayez gratuitement',
    'gratuit(?:ement)? pendant \\d+ jours', '\\d+ jours gratuits'],
  de: ['kostenlos testen', 'kostenlose Testphase', 'Testphase', 'Testzeitraum', 'gratis testen',
    '\\d+ Tage (?:lang )?(?:kostenlos|gratis)'],
  es: ['prueba gratuita', 'prueba gratis', 'período de prueba', 'gratis durante \\d+ días', '\\d+ días gratis'],
  it: ['prova gratuita', 'periodo di prova', 'prova gratis', 'gratis per \\d+ giorni', '\\d+ giorni gratis'],
  nl: ['gratis proefperiode', 'proefperiode', 'gratis uitproberen', 'probeer gratis',
    '\\d+ dagen gratis'],
  pt: ['teste grátis', 'teste gratuito', 'avaliação gratuita', 'período de (?:teste|avaliação)', 'experimente grátis',
    'grátis por \\d+ dias', '\\d+ dias grátis']
}

/** How long a trial lasts: its number of days (folded text). */
export const TRIAL_DAYS = /(\d{1,3})[\s-]*(?:days?|jours?|tagen?|dias|giorni|dagen)(?![\p{L}])/iu

/** A plan that costs nothing, by its name. */
/**
 * Words by which terms grant something (a plan includes it, a user may or can do it, has a right to it): an edit
 * that takes words away from such a sentence, or a free tier's name from it, takes away what was granted.
 */
export const GRANT_WORDS: Words = {
  en: ['includes?', 'included', 'including', 'can', 'may', 'entitled', 'allowed', 'access', 'rights?', 'free'],
  fr: ['inclut', 'incluent', 'comprend', 'comprennent', 'peut', 'peuvent', 'droits?', `gratuit${L}`, 'accès'],
  de: ['enthält', 'enthalten', 'umfasst', 'kann', 'können', 'darf', 'dürfen', `recht${L}`, 'kostenlos', 'zugang'],
  es: ['incluye', 'incluyen', 'puede', 'pueden', 'derechos?', 'gratuit[oa]s?', 'acceso'],
  it: ['include', 'includono', 'può', 'possono', 'diritt[oi]', 'gratuit[oa]', 'accesso'],
  nl: ['omvat', 'bevat', 'kan', 'kunnen', 'mag', 'mogen', `recht${L}`, 'gratis', 'toegang'],
  pt: ['inclui', 'incluem', 'pode', 'podem', 'direitos?', 'gratuit[oa]s?', 'acesso']
}

export const FREE_WORDS: Words = {
  en: ['free'],
  fr: ['gratuit' + L],
  de: ['kostenlos', 'gratis'],
  es: ['gratis', 'gratuit[oa]'],
  it: ['gratis', 'gratuit[oa]'],
  nl: ['gratis'],
  pt: ['grátis', 'gratuit[oa]']
}

/**
 * Words before a reference to a part of a document ("Section 5", "Art. 12", "Abschnitt 3"):
 * such a number changed with the parts around it is a renumbering, no edit of substance.
 */
export const REFERENCE_WORDS: Words = {
  en: ['sections?', 'clauses?', 'articles?', 'paragraphs?', 'paras?', 'art', 'sec', 'chapters?', 'schedules?',
    'annex(?:es)?', 'appendix', 'exhibits?', 'items?', 'points?', 'subsections?', 'parts?', 'rules?', 'no'],
  fr: ['sections?', 'clauses?', 'articles?', 'paragraphes?', 'alin[ée]as?', 'chapitres?', 'annexes?', 'points?',
    'parties?', 'art'],
  de: ['abschnitt(?:e|s|en)?', 'ziffer(?:n)?', 'absatz', 'abs[äa]tze', 'abs', 'artikel', 'art', 'kapitel', 'anhang',
    'punkt(?:e|s|en)?', 'nr', 'klausel(?:n)?', 'paragraph(?:en)?'],
  es: ['secci(?:ón|ones)', 'cl[áa]usulas?', 'art[íi]culos?', 'apartados?', 'p[áa]rrafos?', 'cap[íi]tulos?', 'anexos?',
    'puntos?', 'art'],
  it: ['sezion[ei]', 'clausol[ae]', 'articol[oi]', 'paragraf[oi]', 'capitol[oi]', 'allegat[oi]', 'punt[oi]', 'art'],
  nl: ['sectie(?:s)?', 'artikel(?:en)?', 'paragra(?:af|fen)', 'hoofdstuk(?:ken)?', 'bijlage(?:n)?', 'punt(?:en)?',
    'lid',
    'leden', 'clausule(?:s)?', 'art'],
  pt: ['se[çc](?:ão|ões|ao|oes)', 'cl[áa]usulas?', 'artigos?', 'par[áa]grafos?', 'cap[íi]tulos?', 'anexos?', 'itens',
    'item', 'pontos?', 'art']
}

/** What a document's date of last update is called: a new one is named, never news by itself. */
export const LAST_UPDATED_WORDS: Words = {
  en: ['last (?:updated|modified|revised|changed|amended)', 'updated(?: on| as of)?',
    'effective(?: date| as of| from| on)?',
    'revised(?: on)?', 'version date', 'date of last (?:update|revision)', 'as of'],
  fr: ['derni[èe]re mise [àa] jour', 'mise? [àa] jour(?: le)?', 'en vigueur (?:le|au|[àa] compter du|depuis le)',
    'date d\'effet', 'version du', 'modifi[ée]e? le'],
  de: ['zuletzt (?:aktualisiert|ge[äa]ndert|überarbeitet)', 'stand', 'g[üu]ltig ab',
    'letzte (?:aktualisierung|[äa]nderung)',
    'in kraft (?:seit|ab)', 'aktualisiert am'],
  es: ['[úu]ltima (?:actualizaci[óo]n|modificaci[óo]n)', 'actualizad[oa](?: el)?', 'vigente desde',
    'fecha de entrada en vigor', 'en vigor desde'],
  it: ['ultimo aggiornamento', 'ultima modifica', 'aggiornat[oa](?: il| al)?', 'in vigore dal', 'data di efficacia'],
  nl: ['laatst (?:bijgewerkt|gewijzigd)', 'bijgewerkt op', 'laatste wijziging', 'van kracht (?:vanaf|per|sinds)',
    'ingangsdatum'],
  pt: ['[úu]ltima atualiza[çc][ãa]o', 'atualizad[oa](?: em)?', 'em vigor (?:desde|a partir de)', 'data de vig[êe]ncia']
}

/**
 * Spellings of one word across English's variants (behaviour/behavior, organise/organize,
 * centre/center, cancelled/canceled, licence/license, catalogue/catalog, programme/program,
 * judgement/judgment): each pair of endings, or of middles, that one variant writes for the other.
 */
export const SPELLING_VARIANTS: ReadonlyArray<readonly [string, string]> = [
  ['our', 'or'], ['ise', 'ize'], ['ised', 'ized'], ['ises', 'izes'], ['ising', 'izing'], ['isation', 'ization'],
  ['isations', 'izations'], ['yse', 'yze'], ['ysed', 'yzed'], ['tre', 'ter'], ['tres', 'ters'], ['lled', 'led'],
  ['lling', 'ling'], ['ller', 'ler'], ['ence', 'ense'], ['ogue', 'og'], ['ogues', 'ogs'], ['mme', 'm'], ['mmes', 'ms'],
  ['gement', 'gment'], ['ae', 'e'], ['oe', 'e']
]
