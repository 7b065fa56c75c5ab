import type { LanguageSet } from './corpus.js'

// The labelled set's English and French sites: written for the project, not copied.

export const en: LanguageSet = {
  lang: 'en',
  company: 'Brightwave',
  updated: n => `Updated ${n} minutes ago`,
  pages: {
    pricing: {
      path: '/pricing',
      link: 'Pricing',
      title: 'Plans and pricing',
      main: `<h1>Plans and pricing</h1><p>Start free, upgrade when your team grows.</p>
<h2>Starter</h2><p class="price">£8.99 per user/month</p><ul><li>5 projects</li><li>Email support</li></ul>
<h2>Team</h2><p class="price">£19 per user/month</p><ul><li>Unlimited projects</li><li>Priority support</li></ul>
<h2>Enterprise</h2><p>Contact sales for a quote. All prices excl. VAT, billed monthly.</p>`,
      changes: [{ expect: 'price_change', from: '£19 per user/month', to: '£24 per user/month', summary: /£19 per user\/month → £24 per user\/month/ }]
    },
    features: {
      path: '/features',
      link: 'Features',
      title: 'Features',
      main: `<h1>Everything your team needs</h1>
<h3>Shared inbox</h3><p>Answer customers together without stepping on each other's toes.</p>
<h3>Automations</h3><p>Route, tag and assign conversations with rules you write once.</p>
<h3>Reporting</h3><p>See response times and workload per agent on live dashboards.</p>`,
      changes: [
        { expect: 'feature_added', from: '<h3>Reporting</h3>', to: '<h3>AI replies</h3><p>Draft answers in your tone from past conversations.</p><h3>Reporting</h3>', summary: /"AI replies"/ },
        { expect: 'feature_removed', from: '<h3>Automations</h3><p>Route, tag and assign conversations with rules you write once.</p>', to: '', summary: /"Automations"/ }
      ]
    },
    terms: {
      path: '/legal/terms',
      link: 'Terms of Service',
      title: 'Terms of Service',
      main: `<h1>Terms of Service</h1><p>These terms govern your use of Brightwave.</p>
<h2>1. Accounts</h2><p>You are responsible for keeping your password secret.</p>
<h2>2. Liability</h2><p>Our total liability shall not exceed the fees you paid in the last twelve months.</p>
<h2>3. Termination</h2><p>Either party may terminate this agreement with thirty days' written notice.</p>`,
      changes: [{ expect: 'terms_update', severity: 'high', from: 'the fees you paid in the last twelve months', to: 'one hundred pounds' }]
    },
    privacy: {
      path: '/privacy',
      link: 'Privacy',
      title: 'Privacy Policy',
      main: `<h1>Privacy Policy</h1><p>This policy explains how we process personal data.</p>
<h2>What we collect</h2><p>Account details, billing information and usage logs.</p>
<h2>Sharing</h2><p>We do not sell your personal data to third parties.</p>
<h2>Retention</h2><p>We delete your data within 30 days after your account is closed.</p>`,
      changes: [{ expect: 'terms_update', severity: 'high', from: 'We do not sell your personal data to third parties.', to: 'We may share personal data with advertising partners.' }]
    },
    cookies: {
      path: '/cookie-policy',
      link: 'Cookie Policy',
      title: 'Cookie Policy',
      main: `<h1>Cookie Policy</h1><p>We use cookies and similar trackers on our website.</p>
<h2>Necessary cookies</h2><p>These keep you signed in and cannot be switched off.</p>
<h2>Analytics cookies</h2><p>With your consent we measure visits to improve the site.</p>`,
      changes: [{ expect: 'terms_update', severity: 'high', from: 'With your consent we measure visits', to: 'We measure visits and share them with third parties' }]
    },
    community: {
      path: '/community-guidelines',
      link: 'Community Guidelines',
      title: 'Community Guidelines',
      main: `<h1>Community Guidelines</h1><p>Our forum is a place to help each other.</p>
<h2>Be respectful</h2><p>Harassment and hate speech are prohibited.</p>
<h2>No spam</h2><p>Do not post advertising or repeated messages.</p>`,
      changes: [{ expect: 'terms_update', from: 'Do not post advertising or repeated messages.', to: 'Do not post advertising, repeated messages or links to paid content.' }]
    },
    security: {
      path: '/security',
      link: 'Security',
      title: 'Security at Brightwave',
      main: `<h1>Security at Brightwave</h1><p>We encrypt data at rest with AES-256 and in transit with TLS 1.2 or later.</p>
<h2>Compliance</h2><p>We are audited for SOC 2 Type II every year.</p>
<h2>Vulnerability disclosure</h2><p>Report vulnerabilities to security@brightwave.test.</p>`,
      changes: [{ expect: 'terms_update', from: 'We are audited for SOC 2 Type II every year.', to: 'We are audited for SOC 2 Type II and ISO 27001 every year.' }]
    },
    api: {
      path: '/developers/api',
      link: 'API reference',
      title: 'API reference',
      main: `<h1>API reference</h1><p>Authenticate every request with a bearer token.</p>
<h2>GET /v1/conversations</h2><p>Returns a JSON list of conversations. Parameters: limit, cursor.</p>
<h2>POST /v1/messages</h2><p>Sends a message. The response has status code 201.</p>`,
      changes: [{ expect: 'section_added', from: '<h2>POST /v1/messages</h2>', to: '<h2>DELETE /v1/messages/{id}</h2><p>Deletes a message.</p><p>The response has status code 204.</p><h2>POST /v1/messages</h2>' }]
    },
    changelog: {
      path: '/changelog',
      link: 'Changelog',
      title: 'Changelog',
      main: `<h1>Changelog</h1><h2>Version 3.2</h2><ul><li>Added saved replies</li><li>Fixed slow search</li></ul>
<h2>Version 3.1</h2><ul><li>Improved mobile app</li></ul>`,
      changes: [{ expect: 'section_added', from: '<h2>Version 3.2</h2>', to: '<h2>Version 3.3</h2><ul><li>Added dark mode</li><li>Fixed export of tags</li></ul><h2>Version 3.2</h2>' }]
    },
    imprint: {
      path: '/imprint',
      link: 'Legal notice',
      title: 'Legal notice',
      main: `<h1>Legal notice</h1><p>Brightwave Ltd, 12 Harbour Street, Bristol BS1 4XX, United Kingdom.</p>
<p>Registered in England and Wales, company number 01234567.</p><p>Director: Jane Holt.</p>`,
      changes: [{ expect: 'content_change', from: 'Director: Jane Holt.', to: 'Directors: Jane Holt and Omar Reid.' }]
    }
  }
}

export const fr: LanguageSet = {
  lang: 'fr',
  company: 'Nuvola',
  updated: n => `Mis à jour il y a ${n} minutes`,
  pages: {
    pricing: {
      path: '/fr/tarifs',
      link: 'Tarifs',
      title: 'Prix et services',
      main: `<h1>Prix et services</h1><p>Sans engagement, résiliable à tout moment.</p>
<h2>Essentiel</h2><p class="prix">19 € HT / mois</p><ul><li>3 utilisateurs</li><li>Assistance par e-mail</li></ul>
<h2>Pro</h2><p class="prix">49,00 € HT / mois</p><ul><li>Utilisateurs illimités</li><li>Assistance prioritaire</li></ul>
<h2>Entreprise</h2><p class="prix">1.299,00 € HT par an</p><p>Tous nos prix s'entendent hors taxes (TVA 20 % en sus).</p>`,
      changes: [{ expect: 'price_change', from: '49,00 € HT / mois', to: '59,00 € HT / mois', summary: /49,00 € HT \/ mois → 59,00 € HT \/ mois/ }]
    },
    features: {
      path: '/fr/fonctionnalites',
      link: 'Fonctionnalités',
      title: 'Fonctionnalités',
      main: `<h1>Tout pour piloter vos projets</h1>
<h3>Tableaux Kanban</h3><p>Visualisez l'avancement de chaque tâche en un coup d'œil.</p>
<h3>Suivi du temps</h3><p>Chronométrez vos tâches et facturez au plus juste.</p>
<h3>Rapports</h3><p>Analysez la charge de votre équipe avec des tableaux de bord clairs.</p>`,
      changes: [
        { expect: 'feature_added', from: '<h3>Rapports</h3>', to: '<h3>Signature électronique</h3><p>Faites signer vos devis sans quitter Nuvola.</p><h3>Rapports</h3>', summary: /"Signature électronique"/ },
        { expect: 'feature_removed', from: '<h3>Suivi du temps</h3><p>Chronométrez vos tâches et facturez au plus juste.</p>', to: '', summary: /"Suivi du temps"/ }
      ]
    },
    terms: {
      path: '/fr/cgu',
      link: "Conditions générales d'utilisation",
      title: "Conditions générales d'utilisation",
      main: `<h1>Conditions générales d'utilisation</h1><p>Les présentes conditions régissent l'utilisation du service Nuvola.</p>
<h2>Article 1 – Compte</h2><p>Vous êtes responsable de la confidentialité de vos identifiants.</p>
<h2>Article 2 – Responsabilité</h2><p>La responsabilité de Nuvola est limitée aux sommes versées au cours des douze derniers mois.</p>
<h2>Article 3 – Résiliation</h2><p>Chaque partie peut résilier le contrat avec un préavis de trente jours.</p>`,
      changes: [{ expect: 'terms_update', severity: 'high', from: 'avec un préavis de trente jours', to: 'avec un préavis de quatre-vingt-dix jours' }]
    },
    privacy: {
      path: '/fr/confidentialite',
      link: 'Politique de confidentialité',
      title: 'Politique de confidentialité',
      main: `<h1>Politique de confidentialité</h1><p>Cette politique décrit comment nous traitons vos données personnelles.</p>
<h2>Données collectées</h2><p>Identité, coordonnées de facturation et journaux d'utilisation.</p>
<h2>Partage</h2><p>Nous ne vendons jamais vos données personnelles à des tiers.</p>
<h2>Durée de conservation</h2><p>Vos données sont supprimées trente jours après la clôture du compte.</p>`,
      changes: [{ expect: 'terms_update', severity: 'high', from: 'Nous ne vendons jamais vos données personnelles à des tiers.', to: 'Nous pouvons partager vos données personnelles avec nos partenaires publicitaires.' }]
    },
    cookies: {
      path: '/fr/politique-cookies',
      link: 'Cookies et traceurs',
      title: 'Politique relative aux cookies et autres traceurs',
      main: `<h1>Cookies et autres traceurs</h1><p>Nous utilisons des cookies sur notre site.</p>
<h2>Cookies nécessaires</h2><p>Ils maintiennent votre session et ne peuvent pas être désactivés.</p>
<h2>Mesure d'audience</h2><p>Avec votre consentement, nous mesurons la fréquentation du site.</p>`,
      changes: [{ expect: 'terms_update', from: 'Avec votre consentement, nous mesurons la fréquentation du site.', to: 'Nous mesurons la fréquentation du site et la transmettons à des sous-traitants.' }]
    },
    community: {
      path: '/fr/regles-de-la-communaute',
      link: 'Règles de la communauté',
      title: 'Règles de la communauté',
      main: `<h1>Règles de la communauté</h1><p>Notre forum est un lieu d'entraide.</p>
<h2>Restez courtois</h2><p>Le harcèlement et les propos haineux sont interdits.</p>
<h2>Pas de publicité</h2><p>Ne publiez ni annonces ni messages répétés.</p>`,
      changes: [{ expect: 'terms_update', from: 'Ne publiez ni annonces ni messages répétés.', to: 'Ne publiez ni annonces, ni messages répétés, ni liens vers des contenus payants.' }]
    },
    security: {
      path: '/fr/securite',
      link: 'Sécurité',
      title: 'Sécurité',
      main: `<h1>Sécurité</h1><p>Vos données sont chiffrées au repos (AES-256) et en transit (TLS 1.2 ou supérieur).</p>
<h2>Conformité</h2><p>Nous sommes certifiés ISO 27001 et audités chaque année.</p>
<h2>Signaler une vulnérabilité</h2><p>Écrivez à securite@nuvola.test.</p>`,
      changes: [{ expect: 'terms_update', from: 'Nous sommes certifiés ISO 27001 et audités chaque année.', to: 'Nous sommes certifiés ISO 27001 et SOC 2, et audités chaque année.' }]
    },
    api: {
      path: '/fr/developpeurs/api',
      link: "Référence de l'API",
      title: "Référence de l'API",
      main: `<h1>Référence de l'API</h1><p>Authentifiez chaque requête avec un jeton bearer.</p>
<h2>GET /v1/projets</h2><p>Renvoie la liste des projets en JSON. Paramètres : limit, cursor.</p>
<h2>POST /v1/taches</h2><p>Crée une tâche. La réponse a le code 201.</p>`,
      changes: [{ expect: 'section_added', from: '<h2>POST /v1/taches</h2>', to: '<h2>DELETE /v1/taches/{id}</h2><p>Supprime une tâche.</p><p>La réponse a le code 204.</p><h2>POST /v1/taches</h2>' }]
    },
    changelog: {
      path: '/fr/nouveautes',
      link: 'Nouveautés',
      title: 'Notes de version',
      main: `<h1>Notes de version</h1><h2>Version 4.2</h2><ul><li>Ajouté : export PDF</li><li>Corrigé : recherche lente</li></ul>
<h2>Version 4.1</h2><ul><li>Amélioré : application mobile</li></ul>`,
      changes: [{ expect: 'section_added', from: '<h2>Version 4.2</h2>', to: '<h2>Version 4.3</h2><ul><li>Ajouté : mode sombre</li><li>Corrigé : import CSV</li></ul><h2>Version 4.2</h2>' }]
    },
    imprint: {
      path: '/fr/mentions-legales',
      link: 'Mentions légales',
      title: 'Mentions légales',
      main: `<h1>Mentions légales</h1><p>Nuvola SAS, 8 rue des Lilas, 69003 Lyon, France.</p>
<p>RCS Lyon 123 456 789, capital social de 10 000 €.</p><p>Directeur de la publication : Claire Martin.</p>`,
      changes: [{ expect: 'content_change', from: 'Directeur de la publication : Claire Martin.', to: 'Directeur de la publication : Hugo Bernard.' }]
    }
  }
}
