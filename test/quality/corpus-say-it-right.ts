import type { Lang, PageKind } from './corpus.js'
import type { ChangeType, Severity } from '../../src/vocabulary/core.js'

// The labelled pairs of "say it right", in each language: what a person reads of an
// edit. A long paragraph edited at its end and a sentence appended (the summary must
// show the difference); share capital, a liability cap and a fine in terms (no price);
// a privacy policy added by hand under an address that says nothing (typed from its
// text); a free plan's limit removed (a feature, not a low content change); two edits
// in one section (one change); features as list items with headings; boilerplate links
// (silent). Written for the project, not copied.

export interface SayItRightEdit {
  expect: ChangeType
  severity?: Severity
  from: string
  to: string
  /** What the summary must say (the page's own words). */
  summary?: RegExp
}

export interface SayItRightPage {
  name: string
  kind: PageKind
  path: string
  /** The link text discovery saw; empty for a page added by hand. */
  link: string
  title: string
  main: string
  changes: SayItRightEdit[]
  /** Template edits that must stay silent. */
  silent?: Array<{ from: string, to: string }>
}

interface Words {
  faq: {
    path: string
    link: string
    title: string
    heading: string
    paragraph: string
    end: [string, string]
    appended: string
  }
  terms: {
    path: string
    link: string
    title: string
    provider: string
    capital: [string, string]
    liability: string
    cap: [string, string]
    penalty: string
    fine: [string, string]
    /** Two paragraphs of one section, each edited. */
    section: string
    first: [string, string]
    between: string
    second: [string, string]
  }
  privacy: { title: string, intro: string, heading: string, retention: [string, string] }
  pricing: {
    path: string
    link: string
    title: string
    free: string
    freePrice: string
    limit: string
    pro: string
    proPrice: string
    proLine: string
    /** The same plan's price and its line, both edited: one edit of the plan. */
    proAfter: [string, string]
  }
  features: { path: string, link: string, title: string, items: Array<[string, string]> }
  back: string
}

const pages = (w: Words): SayItRightPage[] => {
  const faqMain = `<h1>${w.faq.title}</h1><h2>${w.faq.heading}</h2><p>${w.faq.paragraph}</p>`
  const terms = w.terms
  const termsMain = `<h1>${terms.title}</h1><h2>${terms.provider}</h2><p>${terms.capital[0]}</p>
<h2>${terms.liability}</h2><p>${terms.cap[0]}</p><h2>${terms.penalty}</h2><p>${terms.fine[0]}</p>
<h2>${terms.section}</h2><p>${terms.first[0]}</p><p>${terms.between}</p><p>${terms.second[0]}</p>`
  const pricing = w.pricing
  const pricingMain = `<h1>${pricing.title}</h1>
<section class="plan"><h2>${pricing.free}</h2><p class="price">${pricing.freePrice}</p><p>${pricing.limit}</p></section>
<section class="plan"><h2>${pricing.pro}</h2><p class="price">${pricing.proPrice}</p><p>${pricing.proLine}</p></section>`
  const items = (list: Array<[string, string]>) =>
    `<ul class="features">${list.map(([h, p]) => `<li><h3>${h}</h3><p>${p}</p></li>`).join('')}</ul>`
  const f = w.features
  return [
    {
      name: 'faq',
      kind: 'faq',
      path: w.faq.path,
      link: w.faq.link,
      title: w.faq.title,
      main: faqMain,
      changes: [
        { expect: 'content_change', from: w.faq.end[0], to: w.faq.end[1] },
        { expect: 'content_change', from: `${w.faq.paragraph}</p>`, to: `${w.faq.paragraph} ${w.faq.appended}</p>` }
      ],
      silent: [{ from: `<h1>${w.faq.title}</h1>`, to: `<p><a href="/">${w.back}</a></p><h1>${w.faq.title}</h1>` }]
    },
    {
      name: 'terms-money',
      kind: 'terms',
      path: terms.path,
      link: terms.link,
      title: terms.title,
      main: termsMain,
      changes: [
        { expect: 'terms_update', from: terms.capital[0], to: terms.capital[1] },
        { expect: 'terms_update', severity: 'high', from: terms.cap[0], to: terms.cap[1] },
        { expect: 'terms_update', from: terms.fine[0], to: terms.fine[1] },
        {
          expect: 'terms_update',
          from: `<p>${terms.first[0]}</p><p>${terms.between}</p><p>${terms.second[0]}</p>`,
          to: `<p>${terms.first[1]}</p><p>${terms.between}</p><p>${terms.second[1]}</p>`
        }
      ]
    },
    {
      name: 'privacy-by-hand',
      kind: 'privacy',
      path: '/p/4711',
      link: '',
      title: w.privacy.title,
      main: `<h1>${w.privacy.title}</h1><p>${w.privacy.intro}</p><h2>${w.privacy.heading}</h2><p>${w.privacy.retention[0]}</p>`,
      changes: [{ expect: 'terms_update', from: w.privacy.retention[0], to: w.privacy.retention[1] }]
    },
    {
      name: 'free-plan-limit',
      kind: 'pricing',
      path: pricing.path,
      link: pricing.link,
      title: pricing.title,
      main: pricingMain,
      changes: [
        { expect: 'feature_removed', from: `<p>${pricing.limit}</p>`, to: '' },
        {
          expect: 'price_change',
          from: `<p class="price">${pricing.proPrice}</p><p>${pricing.proLine}</p>`,
          // A price raised, and a line added to the plan below its unchanged line: one edit of the plan.
          to: `<p class="price">${pricing.proAfter[0]}</p><p>${pricing.proLine}</p><ul><li>${pricing.proAfter[1]}</li></ul>`
        }
      ]
    },
    {
      name: 'feature-items',
      kind: 'features',
      path: f.path,
      link: f.link,
      title: f.title,
      main: `<h1>${f.title}</h1>${items(f.items.slice(0, 3))}`,
      changes: [
        {
          expect: 'feature_removed',
          severity: 'high',
          from: `<li><h3>${f.items[1][0]}</h3><p>${f.items[1][1]}</p></li>`,
          to: '',
          summary: new RegExp(`"${f.items[1][0]}"`)
        },
        {
          expect: 'feature_added',
          from: `<li><h3>${f.items[2][0]}</h3>`,
          to: `<li><h3>${f.items[3][0]}</h3><p>${f.items[3][1]}</p></li><li><h3>${f.items[2][0]}</h3>`,
          summary: new RegExp(`"${f.items[3][0]}"`)
        }
      ]
    }
  ]
}

export const SAY_IT_RIGHT: Record<Lang, SayItRightPage[]> = {
  en: pages({
    faq: {
      path: '/help/faq',
      link: 'Help',
      title: 'Frequently asked questions',
      heading: 'Membership',
      paragraph: 'For the most common questions – for example about features, membership, invoices and cancelling – ' +
        'you will find answers here, and our team answers everything else by e-mail within one working day.',
      end: ['within one working day.', 'within two working days.'],
      appended: 'Members can now cancel every month from their account page.'
    },
    terms: {
      path: '/legal/terms-of-sale',
      link: 'Terms of sale',
      title: 'Terms of Sale',
      provider: '1. Provider',
      capital: ['The service is provided by Brightwave Ltd, with paid-in capital of £36,982.92.',
        'The service is provided by Brightwave Ltd, with paid-in capital of £40,436.30.'],
      liability: '2. Limitation of liability',
      cap: ['Our liability is capped at £5,000 per claim.', 'Our liability is capped at £1,000 per claim.'],
      penalty: '3. Misuse',
      fine: ['Misuse of the service may result in a fine of £500.', 'Misuse of the service may result in a fine of £2,500.'],
      section: '4. Payment',
      first: ['Invoices are payable within 30 days.', 'Invoices are payable within 14 days.'],
      between: 'We send invoices by e-mail.',
      second: ['Late payments bear interest at 3% per year.', 'Late payments bear interest at 8% per year.']
    },
    privacy: {
      title: 'Privacy Policy',
      intro: 'This policy explains how we process personal data and which rights you have.',
      heading: 'Data retention',
      retention: ['We keep personal data for 30 days after your account is closed.',
        'We keep personal data for 90 days after your account is closed.']
    },
    pricing: {
      path: '/plans',
      link: 'Plans',
      title: 'Plans and pricing',
      free: 'Free',
      freePrice: '£0 per month',
      limit: 'The free plan includes up to 3 projects and 2 users.',
      pro: 'Pro',
      proPrice: '£12 per user/month',
      proLine: 'Everything in Free, plus reports.',
      proAfter: ['£15 per user/month', 'Everything in Free, plus reports and single sign-on.']
    },
    features: {
      path: '/features',
      link: 'Features',
      title: 'Features',
      items: [
        ['Shared inbox', 'Answer customers together from one inbox.'],
        ['Automations', 'Route and tag conversations with rules.'],
        ['Reporting', 'See response times on live dashboards.'],
        ['AI replies', 'Draft answers in your tone.']
      ]
    },
    back: '← Back'
  }),
  fr: pages({
    faq: {
      path: '/fr/aide',
      link: 'Aide',
      title: 'Questions fréquentes',
      heading: 'Adhésion',
      paragraph: 'Pour les questions les plus fréquentes – par exemple sur les fonctionnalités, l\'adhésion, les ' +
        'factures et la résiliation – vous trouverez ici des réponses, et notre équipe répond au reste par e-mail sous ' +
        'un jour ouvré.',
      end: ['sous un jour ouvré.', 'sous deux jours ouvrés.'],
      appended: 'Les membres peuvent désormais résilier chaque mois depuis leur compte.'
    },
    terms: {
      path: '/fr/conditions-de-vente',
      link: 'Conditions de vente',
      title: 'Conditions générales de vente',
      provider: '1. Prestataire',
      capital: ['Le service est fourni par Nuvola SAS, au capital de 36 982,92 €.',
        'Le service est fourni par Nuvola SAS, au capital de 40 436,30 €.'],
      liability: '2. Limitation de responsabilité',
      cap: ['Notre responsabilité est limitée à 5 000 € par sinistre.',
        'Notre responsabilité est limitée à 1 000 € par sinistre.'],
      penalty: '3. Usage abusif',
      fine: ['Tout usage abusif du service peut entraîner une pénalité de 500 €.',
        'Tout usage abusif du service peut entraîner une pénalité de 2 500 €.'],
      section: '4. Paiement',
      first: ['Les factures sont payables sous 30 jours.', 'Les factures sont payables sous 14 jours.'],
      between: 'Nous envoyons les factures par e-mail.',
      second: ['Tout retard de paiement porte intérêt au taux de 3 % par an.',
        'Tout retard de paiement porte intérêt au taux de 8 % par an.']
    },
    privacy: {
      title: 'Politique de confidentialité',
      intro: 'Cette politique explique comment nous traitons les données personnelles et quels sont vos droits.',
      heading: 'Durée de conservation',
      retention: ['Nous conservons les données personnelles 30 jours après la clôture de votre compte.',
        'Nous conservons les données personnelles 90 jours après la clôture de votre compte.']
    },
    pricing: {
      path: '/fr/offres',
      link: 'Offres',
      title: 'Nos offres et tarifs',
      free: 'Gratuit',
      freePrice: '0 € / mois',
      limit: 'L\'offre gratuite comprend jusqu\'à 3 projets et 2 utilisateurs.',
      pro: 'Pro',
      proPrice: '12 € HT / mois',
      proLine: 'Tout le contenu de l\'offre gratuite, plus les rapports.',
      proAfter: ['15 € HT / mois', 'Tout le contenu de l\'offre gratuite, plus les rapports et l\'authentification unique.']
    },
    features: {
      path: '/fr/fonctionnalites',
      link: 'Fonctionnalités',
      title: 'Fonctionnalités',
      items: [
        ['Tableaux Kanban', 'Visualisez l\'avancement de chaque tâche.'],
        ['Suivi du temps', 'Chronométrez vos tâches et facturez au plus juste.'],
        ['Rapports', 'Analysez la charge de votre équipe.'],
        ['Signature électronique', 'Faites signer vos devis sans quitter Nuvola.']
      ]
    },
    back: 'Retour'
  }),
  de: pages({
    faq: {
      path: '/de/hilfe',
      link: 'Hilfe',
      title: 'Häufige Fragen',
      heading: 'Mitgliedschaft',
      paragraph: 'Zu den häufigsten Fragen – z. B. zu Features, zur Mitgliedschaft, zu Rechnungen und zur Kündigung – ' +
        'findest du hier Antworten, und alles Weitere beantwortet unser Team per E-Mail innerhalb eines Werktags.',
      end: ['innerhalb eines Werktags.', 'innerhalb von zwei Werktagen.'],
      appended: 'Mitglieder können jetzt jeden Monat in ihrem Konto kündigen.'
    },
    terms: {
      path: '/de/agb',
      link: 'AGB',
      title: 'Allgemeine Geschäftsbedingungen',
      provider: '§ 1 Anbieter',
      capital: ['Anbieter ist die Wolkig GmbH mit einem eingezahlten Stammkapital von 36.982,92 €.',
        'Anbieter ist die Wolkig GmbH mit einem eingezahlten Stammkapital von 40.436,30 €.'],
      liability: '§ 2 Haftung',
      cap: ['Unsere Haftung ist auf 5.000 € je Schadensfall begrenzt.',
        'Unsere Haftung ist auf 1.000 € je Schadensfall begrenzt.'],
      penalty: '§ 3 Missbrauch',
      fine: ['Bei Missbrauch wird eine Vertragsstrafe von 500 € fällig.',
        'Bei Missbrauch wird eine Vertragsstrafe von 2.500 € fällig.'],
      section: '§ 4 Zahlung',
      first: ['Rechnungen sind innerhalb von 30 Tagen zahlbar.', 'Rechnungen sind innerhalb von 14 Tagen zahlbar.'],
      between: 'Wir versenden Rechnungen per E-Mail.',
      second: ['Verzugszinsen betragen 3 % pro Jahr.', 'Verzugszinsen betragen 8 % pro Jahr.']
    },
    privacy: {
      title: 'Datenschutzerklärung',
      intro: 'Diese Erklärung beschreibt, wie wir personenbezogene Daten verarbeiten und welche Rechte Sie haben.',
      heading: 'Speicherdauer',
      retention: ['Wir speichern personenbezogene Daten 30 Tage nach Schließung Ihres Kontos.',
        'Wir speichern personenbezogene Daten 90 Tage nach Schließung Ihres Kontos.']
    },
    pricing: {
      path: '/de/preise',
      link: 'Preise',
      title: 'Preise und Pakete',
      free: 'Kostenlos',
      freePrice: '0 € pro Monat',
      limit: 'Der kostenlose Plan enthält bis zu 3 Projekte und 2 Nutzer.',
      pro: 'Pro',
      proPrice: '12 € pro Monat zzgl. MwSt.',
      proLine: 'Alles aus Kostenlos, dazu Berichte.',
      proAfter: ['15 € pro Monat zzgl. MwSt.', 'Alles aus Kostenlos, dazu Berichte und Single Sign-on.']
    },
    features: {
      path: '/de/funktionen',
      link: 'Funktionen',
      title: 'Funktionen',
      items: [
        ['Gemeinsames Postfach', 'Beantworten Sie Anfragen gemeinsam.'],
        ['Automatisierungen', 'Leiten Sie Anfragen mit Regeln weiter.'],
        ['Berichte', 'Sehen Sie Antwortzeiten in Echtzeit.'],
        ['KI-Antworten', 'Entwürfe in Ihrem Ton.']
      ]
    },
    back: 'Zurück'
  }),
  es: pages({
    faq: {
      path: '/es/ayuda',
      link: 'Ayuda',
      title: 'Preguntas frecuentes',
      heading: 'Membresía',
      paragraph: 'Para las preguntas más frecuentes – por ejemplo sobre funciones, membresía, facturas y cancelación – ' +
        'encontrarás aquí las respuestas, y nuestro equipo responde al resto por correo en un día laborable.',
      end: ['en un día laborable.', 'en dos días laborables.'],
      appended: 'Los miembros ya pueden cancelar cada mes desde su cuenta.'
    },
    terms: {
      path: '/es/condiciones-de-venta',
      link: 'Condiciones de venta',
      title: 'Condiciones generales de venta',
      provider: '1. Proveedor',
      capital: ['El servicio lo presta Nube S.L., con un capital desembolsado de 36.982,92 €.',
        'El servicio lo presta Nube S.L., con un capital desembolsado de 40.436,30 €.'],
      liability: '2. Limitación de responsabilidad',
      cap: ['Nuestra responsabilidad se limita a 5.000 € por siniestro.',
        'Nuestra responsabilidad se limita a 1.000 € por siniestro.'],
      penalty: '3. Uso indebido',
      fine: ['El uso indebido del servicio puede conllevar una multa de 500 €.',
        'El uso indebido del servicio puede conllevar una multa de 2.500 €.'],
      section: '4. Pago',
      first: ['Las facturas se pagan en 30 días.', 'Las facturas se pagan en 14 días.'],
      between: 'Enviamos las facturas por correo electrónico.',
      second: ['Los pagos atrasados devengan un interés del 3 % anual.',
        'Los pagos atrasados devengan un interés del 8 % anual.']
    },
    privacy: {
      title: 'Política de privacidad',
      intro: 'Esta política explica cómo tratamos los datos personales y qué derechos tiene usted.',
      heading: 'Conservación de datos',
      retention: ['Conservamos los datos personales 30 días después del cierre de su cuenta.',
        'Conservamos los datos personales 90 días después del cierre de su cuenta.']
    },
    pricing: {
      path: '/es/precios',
      link: 'Precios',
      title: 'Planes y precios',
      free: 'Gratis',
      freePrice: '0 € al mes',
      limit: 'El plan gratuito incluye hasta 3 proyectos y 2 usuarios.',
      pro: 'Pro',
      proPrice: '12 € al mes + IVA',
      proLine: 'Todo lo del plan Gratis, más informes.',
      proAfter: ['15 € al mes + IVA', 'Todo lo del plan Gratis, más informes e inicio de sesión único.']
    },
    features: {
      path: '/es/funciones',
      link: 'Funciones',
      title: 'Funciones',
      items: [
        ['Bandeja compartida', 'Responde a tus clientes en equipo.'],
        ['Automatizaciones', 'Asigna conversaciones con reglas.'],
        ['Informes', 'Consulta los tiempos de respuesta.'],
        ['Respuestas con IA', 'Borradores con tu tono.']
      ]
    },
    back: 'Volver'
  }),
  it: pages({
    faq: {
      path: '/it/aiuto',
      link: 'Aiuto',
      title: 'Domande frequenti',
      heading: 'Iscrizione',
      paragraph: 'Per le domande più frequenti – ad esempio su funzionalità, iscrizione, fatture e disdetta – trovi qui ' +
        'le risposte, e il nostro team risponde a tutto il resto via e-mail entro un giorno lavorativo.',
      end: ['entro un giorno lavorativo.', 'entro due giorni lavorativi.'],
      appended: 'Gli iscritti ora possono disdire ogni mese dal proprio account.'
    },
    terms: {
      path: '/it/condizioni-di-vendita',
      link: 'Condizioni di vendita',
      title: 'Condizioni generali di vendita',
      provider: '1. Fornitore',
      capital: ['Il servizio è fornito da Nuvoletta S.r.l., con capitale sociale versato di 36.982,92 €.',
        'Il servizio è fornito da Nuvoletta S.r.l., con capitale sociale versato di 40.436,30 €.'],
      liability: '2. Limitazione di responsabilità',
      cap: ['La nostra responsabilità è limitata a 5.000 € per sinistro.',
        'La nostra responsabilità è limitata a 1.000 € per sinistro.'],
      penalty: '3. Uso improprio',
      fine: ['L\'uso improprio del servizio comporta una sanzione di 500 €.',
        'L\'uso improprio del servizio comporta una sanzione di 2.500 €.'],
      section: '4. Pagamento',
      first: ['Le fatture sono pagabili entro 30 giorni.', 'Le fatture sono pagabili entro 14 giorni.'],
      between: 'Inviamo le fatture via e-mail.',
      second: ['I ritardi di pagamento maturano interessi del 3 % annuo.',
        'I ritardi di pagamento maturano interessi del 8 % annuo.']
    },
    privacy: {
      title: 'Informativa sulla privacy',
      intro: 'Questa informativa spiega come trattiamo i dati personali e quali diritti hai.',
      heading: 'Conservazione dei dati',
      retention: ['Conserviamo i dati personali per 30 giorni dopo la chiusura del tuo account.',
        'Conserviamo i dati personali per 90 giorni dopo la chiusura del tuo account.']
    },
    pricing: {
      path: '/it/prezzi',
      link: 'Prezzi',
      title: 'Piani e prezzi',
      free: 'Gratis',
      freePrice: '0 € al mese',
      limit: 'Il piano gratuito include fino a 3 progetti e 2 utenti.',
      pro: 'Pro',
      proPrice: '12 € al mese + IVA',
      proLine: 'Tutto il piano Gratis, più i report.',
      proAfter: ['15 € al mese + IVA', 'Tutto il piano Gratis, più i report e l\'accesso unico.']
    },
    features: {
      path: '/it/funzionalita',
      link: 'Funzionalità',
      title: 'Funzionalità',
      items: [
        ['Casella condivisa', 'Rispondi ai clienti insieme.'],
        ['Automazioni', 'Assegna le conversazioni con regole.'],
        ['Report', 'Guarda i tempi di risposta.'],
        ['Risposte con IA', 'Bozze nel tuo tono.']
      ]
    },
    back: 'Indietro'
  }),
  nl: pages({
    faq: {
      path: '/nl/hulp',
      link: 'Hulp',
      title: 'Veelgestelde vragen',
      heading: 'Lidmaatschap',
      paragraph: 'Voor de meest gestelde vragen – bijvoorbeeld over functies, lidmaatschap, facturen en opzeggen – ' +
        'vind je hier antwoorden, en ons team beantwoordt al het andere per e-mail binnen één werkdag.',
      end: ['binnen één werkdag.', 'binnen twee werkdagen.'],
      appended: 'Leden kunnen nu elke maand opzeggen vanuit hun account.'
    },
    terms: {
      path: '/nl/verkoopvoorwaarden',
      link: 'Verkoopvoorwaarden',
      title: 'Algemene verkoopvoorwaarden',
      provider: '1. Aanbieder',
      capital: ['De dienst wordt geleverd door Wolk B.V., met een gestort kapitaal van € 36.982,92.',
        'De dienst wordt geleverd door Wolk B.V., met een gestort kapitaal van € 40.436,30.'],
      liability: '2. Beperking van aansprakelijkheid',
      cap: ['Onze aansprakelijkheid is beperkt tot € 5.000 per schadegeval.',
        'Onze aansprakelijkheid is beperkt tot € 1.000 per schadegeval.'],
      penalty: '3. Misbruik',
      fine: ['Bij misbruik van de dienst kan een boete van € 500 worden opgelegd.',
        'Bij misbruik van de dienst kan een boete van € 2.500 worden opgelegd.'],
      section: '4. Betaling',
      first: ['Facturen moeten binnen 30 dagen worden betaald.', 'Facturen moeten binnen 14 dagen worden betaald.'],
      between: 'Wij versturen facturen per e-mail.',
      second: ['Over te late betalingen is 3 % rente per jaar verschuldigd.',
        'Over te late betalingen is 8 % rente per jaar verschuldigd.']
    },
    privacy: {
      title: 'Privacyverklaring',
      intro: 'Deze verklaring legt uit hoe wij persoonsgegevens verwerken en welke rechten u hebt.',
      heading: 'Bewaartermijn',
      retention: ['Wij bewaren persoonsgegevens 30 dagen na het sluiten van uw account.',
        'Wij bewaren persoonsgegevens 90 dagen na het sluiten van uw account.']
    },
    pricing: {
      path: '/nl/prijzen',
      link: 'Prijzen',
      title: 'Abonnementen en prijzen',
      free: 'Gratis',
      freePrice: '€ 0 per maand',
      limit: 'Het gratis abonnement bevat tot 3 projecten en 2 gebruikers.',
      pro: 'Pro',
      proPrice: '€ 12 per maand excl. btw',
      proLine: 'Alles van Gratis, plus rapporten.',
      proAfter: ['€ 15 per maand excl. btw', 'Alles van Gratis, plus rapporten en single sign-on.']
    },
    features: {
      path: '/nl/functies',
      link: 'Functies',
      title: 'Functies',
      items: [
        ['Gedeelde inbox', 'Beantwoord klanten samen.'],
        ['Automatiseringen', 'Wijs gesprekken toe met regels.'],
        ['Rapporten', 'Bekijk reactietijden live.'],
        ['AI-antwoorden', 'Concepten in jouw toon.']
      ]
    },
    back: 'Terug'
  }),
  pt: pages({
    faq: {
      path: '/pt/ajuda',
      link: 'Ajuda',
      title: 'Perguntas frequentes',
      heading: 'Assinatura',
      paragraph: 'Para as perguntas mais frequentes – por exemplo sobre recursos, assinatura, faturas e cancelamento – ' +
        'você encontra aqui as respostas, e nossa equipe responde o resto por e-mail em um dia útil.',
      end: ['em um dia útil.', 'em dois dias úteis.'],
      appended: 'Os assinantes agora podem cancelar todo mês pela sua conta.'
    },
    terms: {
      path: '/pt/condicoes-de-venda',
      link: 'Condições de venda',
      title: 'Condições gerais de venda',
      provider: '1. Fornecedor',
      capital: ['O serviço é prestado pela Nuvem Ltda., com capital social integralizado de R$ 36.982,92.',
        'O serviço é prestado pela Nuvem Ltda., com capital social integralizado de R$ 40.436,30.'],
      liability: '2. Limitação de responsabilidade',
      cap: ['Nossa responsabilidade é limitada a R$ 5.000 por sinistro.',
        'Nossa responsabilidade é limitada a R$ 1.000 por sinistro.'],
      penalty: '3. Uso indevido',
      fine: ['O uso indevido do serviço pode gerar uma multa de R$ 500.',
        'O uso indevido do serviço pode gerar uma multa de R$ 2.500.'],
      section: '4. Pagamento',
      first: ['As faturas vencem em 30 dias.', 'As faturas vencem em 14 dias.'],
      between: 'Enviamos as faturas por e-mail.',
      second: ['Pagamentos em atraso têm juros de 3 % ao ano.', 'Pagamentos em atraso têm juros de 8 % ao ano.']
    },
    privacy: {
      title: 'Política de privacidade',
      intro: 'Esta política explica como tratamos dados pessoais e quais são os seus direitos.',
      heading: 'Retenção de dados',
      retention: ['Guardamos os dados pessoais por 30 dias após o encerramento da sua conta.',
        'Guardamos os dados pessoais por 90 dias após o encerramento da sua conta.']
    },
    pricing: {
      path: '/pt/precos',
      link: 'Preços',
      title: 'Planos e preços',
      free: 'Grátis',
      freePrice: 'R$ 0 por mês',
      limit: 'O plano gratuito inclui até 3 projetos e 2 usuários.',
      pro: 'Pro',
      proPrice: 'R$ 49,90 por mês',
      proLine: 'Tudo do plano Grátis, mais relatórios.',
      proAfter: ['R$ 59,90 por mês', 'Tudo do plano Grátis, mais relatórios e login único.']
    },
    features: {
      path: '/pt/recursos',
      link: 'Recursos',
      title: 'Recursos',
      items: [
        ['Caixa compartilhada', 'Responda aos clientes em equipe.'],
        ['Automações', 'Distribua conversas com regras.'],
        ['Relatórios', 'Veja os tempos de resposta.'],
        ['Respostas com IA', 'Rascunhos no seu tom.']
      ]
    },
    back: 'Voltar'
  })
}
