import type { DetectedChange } from '../../src/vocabulary/core.js'
import { compareContent, readPage } from '../../src/detection/detect.js'
import type { Lang } from './corpus.js'

// Long legal documents, the way terms and privacy policies are written (dozens of
// numbered sections that refer to one another, a date of last update, quoted defined
// terms), in the seven languages; each edited the way real revisions edit them: a new
// section that renumbers every reference after it, a typography-only rewrite of the
// quotes, a spelling variant beside a real change of a clause, a heading in capitals made
// sentence case, a new date of last update beside a substantive edit. For each: what must
// lead the summary, and whether the edit is trivial (then nothing above low).

interface Words {
  lang: Lang
  title: string
  section: string
  updated: string
  dates: [string, string]
  /** Opening and closing quotes before and after the typography rewrite. */
  quotes: [[string, string], [string, string]]
  topics: string[]
  /** A sentence of the section on `topic` that refers to section n. */
  refer: (n: number, topic: string) => string
  body: (topic: string) => string
  defined: (term: string, q: [string, string]) => string
  /** A clause and its substantive change. */
  clause: [string, string]
  /** A word and its variant spelling (or a typo fixed), in a sentence. */
  spelling: [string, string]
  newSection: { title: string, paragraphs: string[] }
}

const LANGS: Words[] = [
  {
    lang: 'en',
    title: 'Terms of Service',
    section: 'Section',
    updated: 'Last updated',
    dates: ['12 March 2024', '1 March 2025'],
    quotes: [['"', '"'], ['“', '”']],
    topics: ['Definitions', 'Your account', 'Use of the service', 'Content you post', 'Fees and payment', 'Cancellation',
      'Privacy', 'Intellectual property', 'Third-party services', 'Warranties', 'Limitation of liability',
      'Indemnification', 'Termination', 'Governing law', 'Dispute resolution', 'Changes to these terms'],
    refer: (n, t) => `Except as set out in Section ${n} below, nothing about ${t.toLowerCase()} limits your rights.`,
    body: t => `This section explains ${t.toLowerCase()} and how it applies to every plan. We may update it as the service grows.`,
    defined: (term, q) => `In these terms, ${q[0]}${term}${q[1]} means the Sitewatch service and its websites.`,
    clause: ['We keep your personal data for 30 days after your account is closed.', 'We keep your personal data for 90 days after your account is closed.'],
    spelling: ['Your behaviour on the service must follow these terms.', 'Your behavior on the service must follow these terms.'],
    newSection: {
      title: 'Safety policy for users in Texas',
      paragraphs: ['Users in Texas must confirm their age before using messaging.', 'We review reports of unsafe behavior within 24 hours.',
        'Accounts that break this policy may be suspended without notice.']
    }
  },
  {
    lang: 'fr',
    title: 'Conditions générales',
    section: 'Article',
    updated: 'Dernière mise à jour',
    dates: ['12 mars 2024', '1 mars 2025'],
    quotes: [['"', '"'], ['« ', ' »']],
    topics: ['Définitions', 'Votre compte', 'Utilisation du service', 'Contenus publiés', 'Prix et paiement', 'Résiliation',
      'Données personnelles', 'Propriété intellectuelle', 'Services tiers', 'Garanties', 'Limitation de responsabilité',
      'Indemnisation', 'Suspension', 'Droit applicable', 'Règlement des litiges', 'Modification des conditions'],
    refer: (n, t) => `Sous réserve de l'Article ${n} ci-dessous, rien en matière de ${t.toLowerCase()} ne limite vos droits.`,
    body: t => `Cet article décrit ${t.toLowerCase()} et son application à chaque formule. Nous pouvons le mettre à jour.`,
    defined: (term, q) => `Dans les présentes, ${q[0]}${term}${q[1]} désigne le service Sitewatch et ses sites.`,
    clause: ['Nous conservons vos données personnelles 30 jours après la clôture du compte.', 'Nous conservons vos données personnelles 90 jours après la clôture du compte.'],
    spelling: ['Toute correspondance doit être adressée au service client.', 'Toute corespondance doit être adressée au service client.'],
    newSection: {
      title: 'Sécurité des mineurs',
      paragraphs: ['Les utilisateurs de moins de 15 ans doivent obtenir l\'accord d\'un parent.', 'Nous examinons les signalements sous 24 heures.',
        'Un compte qui enfreint cette règle peut être suspendu.']
    }
  },
  {
    lang: 'de',
    title: 'Allgemeine Geschäftsbedingungen',
    section: 'Abschnitt',
    updated: 'Zuletzt aktualisiert',
    dates: ['12. März 2024', '1. März 2025'],
    quotes: [['"', '"'], ['„', '“']],
    topics: ['Begriffe', 'Ihr Konto', 'Nutzung des Dienstes', 'Inhalte', 'Preise und Zahlung', 'Kündigung', 'Datenschutz',
      'Geistiges Eigentum', 'Dienste Dritter', 'Gewährleistung', 'Haftungsbeschränkung', 'Freistellung', 'Sperrung',
      'Anwendbares Recht', 'Streitbeilegung', 'Änderungen dieser Bedingungen'],
    refer: (n, t) => `Vorbehaltlich Abschnitt ${n} unten bleiben Ihre Rechte zu ${t} unberührt.`,
    body: t => `Dieser Abschnitt regelt ${t} und gilt für jeden Tarif. Wir können ihn anpassen.`,
    defined: (term, q) => `In diesen Bedingungen bezeichnet ${q[0]}${term}${q[1]} den Dienst Sitewatch und seine Websites.`,
    clause: ['Wir speichern Ihre personenbezogenen Daten 30 Tage nach Schließung des Kontos.', 'Wir speichern Ihre personenbezogenen Daten 90 Tage nach Schließung des Kontos.'],
    spelling: ['Bitte richten Sie jede Korrespondenz an den Kundendienst.', 'Bitte richten Sie jede Korespondenz an den Kundendienst.'],
    newSection: {
      title: 'Jugendschutz',
      paragraphs: ['Nutzer unter 16 Jahren benötigen die Zustimmung eines Elternteils.', 'Wir prüfen Meldungen innerhalb von 24 Stunden.',
        'Konten, die gegen diese Regel verstoßen, können gesperrt werden.']
    }
  },
  {
    lang: 'es',
    title: 'Términos del servicio',
    section: 'Cláusula',
    updated: 'Última actualización',
    dates: ['12 de marzo de 2024', '1 de marzo de 2025'],
    quotes: [['"', '"'], ['«', '»']],
    topics: ['Definiciones', 'Su cuenta', 'Uso del servicio', 'Contenidos', 'Precios y pago', 'Cancelación', 'Privacidad',
      'Propiedad intelectual', 'Servicios de terceros', 'Garantías', 'Limitación de responsabilidad', 'Indemnización',
      'Suspensión', 'Ley aplicable', 'Resolución de disputas', 'Cambios en estos términos'],
    refer: (n, t) => `Salvo lo dispuesto en la Cláusula ${n} siguiente, nada sobre ${t.toLowerCase()} limita sus derechos.`,
    body: t => `Esta cláusula explica ${t.toLowerCase()} y se aplica a todos los planes. Podemos actualizarla.`,
    defined: (term, q) => `En estos términos, ${q[0]}${term}${q[1]} significa el servicio Sitewatch y sus sitios.`,
    clause: ['Conservamos sus datos personales durante 30 días tras el cierre de la cuenta.', 'Conservamos sus datos personales durante 90 días tras el cierre de la cuenta.'],
    spelling: ['Toda correspondencia debe dirigirse al servicio de atención.', 'Toda corespondencia debe dirigirse al servicio de atención.'],
    newSection: {
      title: 'Seguridad de los menores',
      paragraphs: ['Los usuarios menores de 14 años necesitan el permiso de un progenitor.', 'Revisamos las denuncias en 24 horas.',
        'Las cuentas que incumplan esta norma pueden ser suspendidas.']
    }
  },
  {
    lang: 'it',
    title: 'Termini di servizio',
    section: 'Articolo',
    updated: 'Ultimo aggiornamento',
    dates: ['12 marzo 2024', '1 marzo 2025'],
    quotes: [['"', '"'], ['«', '»']],
    topics: ['Definizioni', 'Il tuo account', 'Uso del servizio', 'Contenuti', 'Prezzi e pagamento', 'Recesso', 'Privacy',
      'Proprietà intellettuale', 'Servizi di terzi', 'Garanzie', 'Limitazione di responsabilità', 'Manleva', 'Sospensione',
      'Legge applicabile', 'Risoluzione delle controversie', 'Modifiche ai termini'],
    refer: (n, t) => `Salvo quanto previsto dall'Articolo ${n} seguente, nulla in materia di ${t.toLowerCase()} limita i tuoi diritti.`,
    body: t => `Questo articolo descrive ${t.toLowerCase()} e vale per ogni piano. Possiamo aggiornarlo.`,
    defined: (term, q) => `In questi termini, ${q[0]}${term}${q[1]} indica il servizio Sitewatch e i suoi siti.`,
    clause: ['Conserviamo i tuoi dati personali per 30 giorni dopo la chiusura dell\'account.', 'Conserviamo i tuoi dati personali per 90 giorni dopo la chiusura dell\'account.'],
    spelling: ['Ogni corrispondenza va indirizzata al servizio clienti.', 'Ogni corispondenza va indirizzata al servizio clienti.'],
    newSection: {
      title: 'Sicurezza dei minori',
      paragraphs: ['Gli utenti sotto i 14 anni devono avere il consenso di un genitore.', 'Esaminiamo le segnalazioni entro 24 ore.',
        'Gli account che violano questa regola possono essere sospesi.']
    }
  },
  {
    lang: 'nl',
    title: 'Algemene voorwaarden',
    section: 'Artikel',
    updated: 'Laatst bijgewerkt',
    dates: ['12 maart 2024', '1 maart 2025'],
    quotes: [['"', '"'], ['‘', '’']],
    topics: ['Definities', 'Uw account', 'Gebruik van de dienst', 'Inhoud', 'Prijzen en betaling', 'Opzegging', 'Privacy',
      'Intellectueel eigendom', 'Diensten van derden', 'Garanties', 'Beperking van aansprakelijkheid', 'Vrijwaring',
      'Opschorting', 'Toepasselijk recht', 'Geschillen', 'Wijzigingen van deze voorwaarden'],
    refer: (n, t) => `Behoudens Artikel ${n} hieronder beperkt niets over ${t.toLowerCase()} uw rechten.`,
    body: t => `Dit artikel beschrijft ${t.toLowerCase()} en geldt voor elk abonnement. Wij kunnen het bijwerken.`,
    defined: (term, q) => `In deze voorwaarden betekent ${q[0]}${term}${q[1]} de dienst Sitewatch en zijn websites.`,
    clause: ['Wij bewaren uw persoonsgegevens 30 dagen na het sluiten van uw account.', 'Wij bewaren uw persoonsgegevens 90 dagen na het sluiten van uw account.'],
    spelling: ['Alle correspondentie gaat naar de klantenservice.', 'Alle corespondentie gaat naar de klantenservice.'],
    newSection: {
      title: 'Veiligheid van minderjarigen',
      paragraphs: ['Gebruikers jonger dan 16 jaar hebben toestemming van een ouder nodig.', 'Wij beoordelen meldingen binnen 24 uur.',
        'Accounts die deze regel overtreden, kunnen worden opgeschort.']
    }
  },
  {
    lang: 'pt',
    title: 'Termos de serviço',
    section: 'Cláusula',
    updated: 'Última atualização',
    dates: ['12 de março de 2024', '1 de março de 2025'],
    quotes: [['"', '"'], ['“', '”']],
    topics: ['Definições', 'Sua conta', 'Uso do serviço', 'Conteúdos', 'Preços e pagamento', 'Cancelamento', 'Privacidade',
      'Propriedade intelectual', 'Serviços de terceiros', 'Garantias', 'Limitação de responsabilidade', 'Indenização',
      'Suspensão', 'Lei aplicável', 'Resolução de disputas', 'Alterações destes termos'],
    refer: (n, t) => `Salvo o disposto na Cláusula ${n} abaixo, nada sobre ${t.toLowerCase()} limita os seus direitos.`,
    body: t => `Esta cláusula explica ${t.toLowerCase()} e aplica-se a todos os planos. Podemos atualizá-la.`,
    defined: (term, q) => `Nestes termos, ${q[0]}${term}${q[1]} significa o serviço Sitewatch e os seus sites.`,
    clause: ['Guardamos os seus dados pessoais por 30 dias após o encerramento da conta.', 'Guardamos os seus dados pessoais por 90 dias após o encerramento da conta.'],
    spelling: ['Toda a correspondência deve ser enviada ao apoio ao cliente.', 'Toda a corespondência deve ser enviada ao apoio ao cliente.'],
    newSection: {
      title: 'Segurança dos menores',
      paragraphs: ['Utilizadores com menos de 16 anos precisam do consentimento de um dos pais.', 'Analisamos as denúncias em 24 horas.',
        'Contas que violem esta regra podem ser suspensas.']
    }
  }
]

/** What to change in a document: which state of each of its parts. */
interface DocState {
  date: 0 | 1
  quotes: 0 | 1
  clause: 0 | 1
  spelling: 0 | 1
  upper: boolean
  /** Insert the new section after this (1-based) section, renumbering the rest. */
  newAfter?: number
}

const BASE: DocState = { date: 0, quotes: 0, clause: 0, spelling: 0, upper: true }

/** A long legal document as a site renders it from its source: numbered sections, references, a date. */
function documentOf (w: Words, s: DocState): string {
  const sections: Array<{ title: string, paragraphs: string[] }> = w.topics.map((topic, i) => ({
    title: i === 10 && s.upper ? topic.toUpperCase() : topic,
    paragraphs: [
      w.body(topic),
      ...(i === 0 ? [w.defined('Service', w.quotes[s.quotes]), w.defined('Content', w.quotes[s.quotes])] : []),
      ...(i === 6 ? [w.clause[s.clause]] : []),
      ...(i === 3 ? [w.spelling[s.spelling]] : []),
      // Every section from the fourth refers to a later one, as real terms do.
      ...(i >= 3 && i < w.topics.length - 2 ? [w.refer(i + 3, topic)] : [])
    ]
  }))
  if (s.newAfter !== undefined) sections.splice(s.newAfter, 0, w.newSection)
  // References follow the renumbering: section k (old numbering) is now k + 1 after the insertion.
  const renumber = (text: string) => s.newAfter === undefined
    ? text
    : text.replace(new RegExp(`(${w.section}) (\\d+)`, 'g'), (_m, word, n) => `${word} ${Number(n) > s.newAfter! ? Number(n) + 1 : n}`)
  const body = sections.map((sec, i) =>
    `<h2 id="s${i + 1}">${i + 1}. ${sec.title}</h2>\n${sec.paragraphs.map(p => `<p>${renumber(p)}</p>`).join('\n')}`
  ).join('\n')
  return `<!doctype html><html lang="${w.lang}"><head><meta charset="utf-8"><title>${w.title}</title></head><body>
<header><nav><a href="/">Sitewatch</a></nav></header>
<main><article><h1>${w.title}</h1>
<p><em>${w.updated}: ${w.dates[s.date]}</em></p>
${body}
</article></main>
<footer><p>© 2026 Sitewatch</p></footer></body></html>`
}

export interface LongCase {
  id: string
  lang: Lang
  /** The edit only rewrites, renumbers or respells: it must stay low. */
  trivial: boolean
  before: string
  after: string
  /** What the summary must lead with: a pattern matched from the start of the summary's first change. */
  leads: RegExp
}

export function longCases (): LongCase[] {
  return LANGS.flatMap(w => {
    const pair = (id: string, after: Partial<DocState>, trivial: boolean, leads: RegExp): LongCase => ({
      id: `${w.lang}/${id}`, lang: w.lang, trivial, before: documentOf(w, BASE), after: documentOf(w, { ...BASE, ...after }), leads
    })
    return [
      pair('a new section among renumbered references', { newAfter: 8 }, false,
        new RegExp(`^${w.title}, 9\\. ${w.newSection.title}: new section \\(3 paragraphs\\); also \\d+ renumbered references`)),
      pair('a typography-only rewrite of the quotes', { quotes: 1 }, true, new RegExp(`^${w.title}(, [^:]+)?: \\d+ typographic edits?$`)),
      pair('a spelling variant beside a real clause change', { spelling: 1, clause: 1 }, false,
        new RegExp(`^${w.title}, 7\\. ${w.topics[6]}: .*90.*; also 1 spelling change$`)),
      pair('a heading in capitals made sentence case', { upper: false }, true, new RegExp(`^${w.title}(, [^:]+)?: 1 typographic edit$`)),
      pair('a date of last update beside a substantive edit', { date: 1, clause: 1 }, false,
        new RegExp(`^${w.title}, 7\\. ${w.topics[6]}: .*90.*; also updated 2025-03-01$`))
    ]
  })
}

export interface LongOutcome {
  changes: DetectedChange[]
  /** One change, whose summary leads with the most significant edit. */
  ledRight: boolean
  /** A trivial edit rated above low, or typed other than content_change. */
  trivialTooHigh: boolean
}

export function evaluateLong (c: LongCase): LongOutcome {
  const [a, b] = [readPage(c.before), readPage(c.after)]
  const changes = a.hash === b.hash ? [] : compareContent(a.text, b, 'terms')
  return {
    changes,
    ledRight: changes.length === 1 && c.leads.test(changes[0].summary),
    trivialTooHigh: c.trivial && changes.some(ch => ch.severity !== 'low' || ch.changeType !== 'content_change')
  }
}
