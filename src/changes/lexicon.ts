import type { PageType } from '../domain/vocabulary.js'

// The words Sitewatch reads pages by, in English, French, German, Spanish, Italian,
// Dutch and Portuguese: what names each kind of page, what each kind's text talks
// about, the legal vocabulary that makes an edit of terms serious, and billing periods.
// Each entry is a regular expression's source; `*` in a stem is written `\p{L}*`.

type Typed = Exclude<PageType, 'other'>

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

const L = '\\p{L}*'

/** Words that name each kind of page in a URL, a link, a title or a heading. */
export const PAGE_NAMES: Record<Typed, readonly string[]> = {
  pricing: [
    'pricing', 'prices?', 'plans?', 'billing', 'subscriptions?', 'buy', 'upgrade', 'cost',
    'tarifs?', 'prix', 'abonnements?', 'tarification',
    'preise?', 'preisliste', 'tarife?', 'pakete', 'kosten',
    'precios?', 'tarifas?', 'planes', 'suscripci(?:ón|ones)',
    'prezzi', 'prezzo', 'tariffe', 'piani', 'abbonament[oi]',
    'prijzen', 'prijs', 'tarieven', 'abonnementen',
    'preços', 'preço', 'planos', 'assinaturas?'
  ],
  features: [
    'features?', 'products?', 'platform', 'capabilities', 'solutions?', 'compare', 'comparison', 'tour',
    `why[- ]${L}`,
    'fonctionnalités', 'fonctions', 'produits?', 'plateforme',
    'funktionen', 'produkte?', 'lösungen', 'plattform', 'funktionsumfang',
    'funciones', 'funcionalidades', 'características', 'productos?', 'soluciones', 'plataforma',
    'funzionalità', 'funzioni', 'caratteristiche', 'prodotti', 'soluzioni', 'piattaforma',
    'functies', 'functionaliteiten', 'mogelijkheden', 'producten', 'oplossingen',
    'recursos', 'funções', 'produtos?', 'soluções'
  ],
  terms: [
    'terms', 'tos', 'legal', 'privacy', `cookies?(?:[- ]${L})?`, 'eula', 'dpa', 'gdpr', 'ccpa',
    'acceptable[- ]use', 'aup', 'sla', 'policies', 'policy', 'agreement', 'conditions', 'guidelines',
    'code[- ]of[- ]conduct', 'community[- ]standards',
    'cgu', 'cgv', 'cgvu', 'confidentialité', 'vie[- ]privée', 'données[- ]personnelles', 'politique', 'traceurs',
    'charte', 'règles',
    'agb', `${L}bedingungen`, `datenschutz${L}`, `${L}richtlinien?`, 'nutzungsordnung', 'dsgvo',
    'términos', 'condiciones', 'privacidad', 'política', 'normas', 'rgpd',
    'termini', 'condizioni', 'informativa', 'riservatezza', 'linee[- ]guida', 'regole',
    `${L}voorwaarden`, `privacy${L}`, `cookie${L}`, `${L}richtlijnen`, 'gedragscode', 'avg',
    'termos', 'condições', 'privacidade', 'diretrizes', 'lgpd'
  ],
  security: [
    'security', 'trust', 'compliance', 'soc ?2', 'iso ?27001', `vulnerabilit${L}`, 'responsible[- ]disclosure',
    'bug[- ]bounty', 'security\\.txt', 'subprocessors?',
    'sécurité', 'conformité', 'confiance',
    `${L}sicherheit`, 'vertrauen', 'schwachstellen',
    'seguridad', 'cumplimiento', 'confianza', 'vulnerabilidad(?:es)?',
    'sicurezza', 'conformità', 'vulnerabilità',
    'beveiliging', 'veiligheid', 'kwetsbaarheden',
    'segurança', 'conformidade'
  ],
  api_docs: [
    'api', 'apis', 'docs', 'documentation', 'developers?', 'reference', 'sdks?', 'graphql', 'swagger', 'openapi',
    'webhooks?', 'guides?',
    'développeurs?', 'référence',
    'dokumentation', 'entwickler', 'referenz', 'schnittstellen?',
    'documentación', 'desarrolladores', 'referencia',
    'documentazione', 'sviluppatori', 'riferimento',
    'documentatie', 'ontwikkelaars', 'referentie',
    'documentação', 'desenvolvedores', 'referência'
  ],
  changelog: [
    'changelog', 'change[- ]log', 'releases?', 'release[- ]notes', "what'?s[- ]new", 'updates', 'product[- ]updates',
    'nouveautés', 'notes[- ]de[- ]versions?', 'journal[- ]des[- ]modifications', 'mises[- ]à[- ]jour',
    'änderungsprotokoll', 'neuigkeiten', 'versionshinweise', 'was[- ]ist[- ]neu', 'neuerungen',
    'novedades', 'notas[- ]de[- ](?:la[- ])?versión', 'registro[- ]de[- ]cambios', 'actualizaciones',
    'novità', 'note[- ]di[- ]rilascio', 'registro[- ]delle[- ]modifiche', 'aggiornamenti',
    'wijzigingen', 'wijzigingslogboek', 'wat[- ]is[- ]er[- ]nieuw', 'nieuw',
    'novidades', 'notas[- ]de[- ]versão', 'registro[- ]de[- ]alterações', 'atualizações'
  ]
}

/**
 * An imprint or legal notice: who runs the site, by law in much of Europe. Nobody is
 * bound by it, so it is `other`, whatever else its name shares with terms.
 */
export const IMPRINT = anyWord([
  'imprint', 'impressum', 'legal[- ]notices?', 'mentions[- ]légales', 'aviso[- ]legal', 'note[- ]legali',
  'colofon', 'colophon', 'informações[- ]legais', 'nota[- ]legal', 'site[- ]notice', 'anbieterkennzeichnung'
])

/** What the text of each kind of page tends to say (counted, so each is global). */
export const PAGE_CONTENT: Record<Typed, readonly string[]> = {
  pricing: [
    'per (?:user|seat|month)', 'billed (?:annually|monthly)', 'free trial', 'contact sales',
    'par (?:mois|an|utilisateur)', 'facturé', 'essai gratuit', 'ht', 'ttc',
    'pro (?:monat|jahr|nutzer)', 'monatlich', 'jährlich', 'kostenlos testen', 'mwst\\.?',
    'al (?:mes|año)', 'por (?:mes|usuario|mês|usuário|ano)', 'prueba gratuita', 'iva',
    'al mese', "all'anno", 'per utente', 'prova gratuita',
    'per (?:maand|jaar|gebruiker)', 'gratis proberen', 'btw',
    'teste grátis', 'mensal', 'anual',
    '/\\s?(?:month|mo|year|yr|mois|an|monat|jahr|mes|año|mese|anno|maand|jaar|mês|ano)'
  ],
  features: [
    'features?', 'integrations?', 'workflows?', `collaborat${L}`, `automat${L}`, 'dashboards?', 'analytics',
    'intégrations?', 'tableaux? de bord', 'analyses?',
    'integrationen', `automatisier${L}`, 'zusammenarbeit', 'auswertungen',
    'integraciones', `automatiza${L}`, 'paneles?', 'análisis', 'colaboración',
    'integrazioni', `automatizz${L}`, 'analisi', 'collaborazione',
    'integraties', `automatiser${L}`, 'samenwerking',
    'integrações', 'painéis', 'análises', 'colaboração'
  ],
  terms: [
    'agreement', `liabilit${L}`, `indemn${L}`, 'governing law', `warrant${L}`, `terminat${L}`, 'hereby', 'shall',
    'personal data', 'arbitration',
    'responsabilité', `résili${L}`, 'données personnelles', 'droit applicable', 'juridictions?', 'tribunaux',
    'haftung', `kündig${L}`, 'personenbezogene(?:n)? daten', 'gerichtsstand', 'gewährleistung', 'vertrag(?:es)?',
    'responsabilidad', 'rescisión', 'datos personales', 'jurisdicción', 'tribunales', 'garantía',
    'responsabilità', 'recesso', 'dati personali', 'foro competente', 'garanzia',
    'aansprakelijkheid', 'beëindiging', 'opzegging', 'persoonsgegevens', 'toepasselijk recht',
    'responsabilidade', 'rescisão', 'dados pessoais', 'foro', 'lei aplicável'
  ],
  security: [
    `encrypt${L}`, 'soc ?2', 'iso ?27001', 'penetration', `vulnerabilit${L}`, 'access control', 'audits?', 'tls',
    'aes-?256', 'incidents?',
    `chiffr${L}`, 'tests? d.intrusion',
    `verschlüssel${L}`, 'penetrationstests?', 'zugriffskontrollen?', 'vorfälle',
    `cifrad${L}`, 'auditorías?', 'incidentes?',
    `crittograf${L}`, 'cifratura',
    `versleutel${L}`, 'encryptie',
    `criptograf${L}`, 'auditorias?'
  ],
  api_docs: [
    'endpoints?', 'request', 'response', 'curl', 'json', 'authentication', 'bearer', 'parameters?', 'status code',
    'rate limit', 'GET /', 'POST /',
    'requête', 'réponse', 'paramètres',
    'anfrage', 'antwort', 'authentifizierung',
    'solicitud', 'respuesta', 'parámetros', 'autenticación',
    'richiesta', 'risposta', 'parametri', 'autenticazione',
    'verzoek', 'antwoord', 'authenticatie',
    'requisição', 'resposta', 'parâmetros', 'autenticação'
  ],
  changelog: [
    'v?\\d+\\.\\d+(?:\\.\\d+)?', 'released?', 'fixed', 'improved', 'added', 'deprecated', 'bug fixes?',
    'corrigé', 'amélioré', 'ajouté', 'nouveau',
    'behoben', 'verbessert', 'hinzugefügt',
    'corregido', 'mejorado', 'añadido',
    'corretto', 'migliorato', 'aggiunto',
    'opgelost', 'verbeterd', 'toegevoegd',
    'corrigido', 'melhorado', 'adicionado'
  ]
}

/** Words whose edit in a legal text is serious (a terms_update of high severity). */
export const LEGAL_WORDS = anyWord([
  `liabilit${L}`, `arbitrat${L}`, `indemn${L}`, `terminat${L}`, 'governing law', 'jurisdiction', `warrant${L}`,
  // third parties, consent, sharing and selling, in each language
  'tiers', 'dritten?', 'terceros', 'terzi', 'terze parti', 'derden', 'terceiros',
  'consentement', `einwillig${L}`, 'consentimiento', 'consenso', 'toestemming', 'consentimento',
  `partag${L}`, 'weitergeben', `übermitt${L}`, `compart${L}`, `condivid${L}`, 'delen', `compartilh${L}`,
  `vend${L}`, `verkauf${L}`, `verko${L}`,
  'personal (?:data|information)', 'data (?:processing|retention|protection)', `third[- ]part${L}`, `(?:re)?sell${L}`,
  'shar(?:e|es|ed|ing)', `prohibit${L}`, `restrict${L}`, `sublicens${L}`, 'consent', `refund${L}`, 'fees?',
  'auto-?renew(?:al|s)?', `cancel${L}`, `subprocessor${L}`, 'breach', 'class action', `waive${L}`,
  'responsabilité', `résili${L}`, `arbitr${L}`, `indemni${L}`, 'juridictions?', 'tribunal', 'tribunaux',
  'données personnelles', `sous-traitan${L}`, `rembours${L}`, `renouvel${L}`, `annul${L}`, 'frais', 'droit applicable',
  'haftung', `haft${L}`, `kündig${L}`, 'gerichtsstand', `schieds${L}`, `personenbezogen${L}`,
  `auftragsverarbeit${L}`, `erstatt${L}`, `verlänger${L}`, `gebühr${L}`, `widerruf${L}`, 'gewährleistung',
  'responsabilidad', `rescisi${L}`, `resoluci${L}`, 'arbitraje', `jurisdicci${L}`, 'tribunales', 'datos personales',
  `reembols${L}`, `renovaci${L}`, `cancelaci${L}`, 'indemnización', 'ley aplicable',
  'responsabilità', 'recesso', `risoluzion${L}`, 'arbitrato', 'foro competente', 'dati personali', `rimbors${L}`,
  'rinnovo', 'disdetta', 'legge applicabile',
  `aansprakelijk${L}`, `beëindig${L}`, `opzeg${L}`, 'arbitrage', 'bevoegde rechter', 'persoonsgegevens',
  `terugbetal${L}`, `verleng${L}`, 'toepasselijk recht', 'schadevergoeding',
  'responsabilidade', `rescis${L}`, 'arbitragem', 'foro', 'dados pessoais', 'reembolso', 'renovação',
  'cancelamento', 'lei aplicável', 'indenização'
])

/** Billing periods, by what they are called: the value is the period's English name. */
export const PERIOD_WORDS: ReadonlyArray<[string, string]> = [
  ['month|mo|mois|monat|mes|mese|maand|mês|mensuel|monatlich|mensual|mensile|maandelijks|mensal', 'month'],
  ['year|yr|annum|an|année|jahr|año|anno|jaar|ano|annuel|jährlich|anual|annuale|jaarlijks', 'year'],
  ['user|seat|member|editor|utilisateur|nutzer|benutzer|usuario|utente|gebruiker|usuário', 'user'],
  ['week|semaine|woche|semana|settimana|week', 'week'],
  ['day|jour|tag|día|giorno|dag|dia', 'day'],
  ['host', 'host']
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
