import type { LanguageSet } from './corpus.js'

// The labelled set's Italian, Dutch and Portuguese sites: written for the project, not copied.

export const it: LanguageSet = {
  lang: 'it',
  company: 'Faro',
  updated: n => `Aggiornato ${n} minuti fa`,
  pages: {
    pricing: {
      path: '/it/prezzi',
      link: 'Prezzi',
      title: 'Prezzi',
      main: `<h1>Prezzi</h1><p>Prova gratuita di 14 giorni.</p>
<h2>Base</h2><p>12 € al mese + IVA</p><ul><li>2 utenti</li><li>Assistenza via e-mail</li></ul>
<h2>Avanzato</h2><p>29 € al mese + IVA</p><ul><li>Utenti illimitati</li><li>Assistenza prioritaria</li></ul>
<h2>Azienda</h2><p>Contattaci per un preventivo.</p>`,
      changes: [{ expect: 'price_change', from: '29 € al mese + IVA', to: '35 € al mese + IVA', summary: /29 € al mese \+ IVA → 35 € al mese \+ IVA/ }]
    },
    features: {
      path: '/it/funzionalita',
      link: 'Funzionalità',
      title: 'Funzionalità',
      main: `<h1>Tutto per il tuo ristorante</h1>
<h3>Prenotazioni online</h3><p>Ricevi prenotazioni dal sito e dai social, giorno e notte.</p>
<h3>Menu digitale</h3><p>Aggiorna piatti e prezzi in tempo reale.</p>
<h3>Statistiche</h3><p>Analisi dei coperti e degli incassi in un unico pannello.</p>`,
      changes: [
        { expect: 'feature_added', from: '<h3>Statistiche</h3>', to: '<h3>Ordini da asporto</h3><p>Gestisci ritiri e consegne dalla stessa app.</p><h3>Statistiche</h3>', summary: /"Ordini da asporto"/ },
        { expect: 'feature_removed', from: '<h3>Menu digitale</h3><p>Aggiorna piatti e prezzi in tempo reale.</p>', to: '', summary: /"Menu digitale"/ }
      ]
    },
    terms: {
      path: '/it/termini-e-condizioni',
      link: 'Termini e condizioni',
      title: 'Termini e condizioni',
      main: `<h1>Termini e condizioni</h1><p>Le presenti condizioni regolano l'uso di Faro.</p>
<h2>1. Account</h2><p>Sei responsabile della custodia della password.</p>
<h2>2. Responsabilità</h2><p>La nostra responsabilità è limitata agli importi pagati negli ultimi dodici mesi.</p>
<h2>3. Foro competente</h2><p>Per ogni controversia è competente il foro di Milano.</p>`,
      changes: [{ expect: 'terms_update', severity: 'high', from: 'è competente il foro di Milano', to: 'è competente il foro di Roma' }]
    },
    privacy: {
      path: '/it/informativa-privacy',
      link: 'Informativa sulla privacy',
      title: 'Informativa sulla privacy',
      main: `<h1>Informativa sulla privacy</h1><p>Trattiamo i tuoi dati personali secondo il GDPR.</p>
<h2>Dati raccolti</h2><p>Nome, e-mail e dati di utilizzo.</p>
<h2>Comunicazione a terzi</h2><p>Non vendiamo i tuoi dati a terzi.</p>
<h2>Conservazione</h2><p>Cancelliamo i dati trenta giorni dopo la chiusura dell'account.</p>`,
      changes: [{ expect: 'terms_update', severity: 'high', from: 'Non vendiamo i tuoi dati a terzi.', to: 'Possiamo condividere i tuoi dati personali con partner pubblicitari.' }]
    },
    cookies: {
      path: '/it/cookie-policy',
      link: 'Cookie policy',
      title: 'Informativa sui cookie',
      main: `<h1>Informativa sui cookie</h1><p>Questo sito utilizza cookie.</p>
<h2>Cookie necessari</h2><p>Mantengono attiva la sessione e non possono essere disattivati.</p>
<h2>Cookie analitici</h2><p>Con il tuo consenso misuriamo le visite.</p>`,
      changes: [{ expect: 'terms_update', from: 'Con il tuo consenso misuriamo le visite.', to: 'Misuriamo le visite e condividiamo i dati con terze parti.' }]
    },
    community: {
      path: '/it/linee-guida-della-community',
      link: 'Linee guida della community',
      title: 'Linee guida della community',
      main: `<h1>Linee guida della community</h1><p>Il nostro forum è un luogo di aiuto reciproco.</p>
<h2>Rispetto</h2><p>Molestie e incitamento all'odio sono vietati.</p>
<h2>Niente pubblicità</h2><p>Non pubblicare annunci o messaggi ripetuti.</p>`,
      changes: [{ expect: 'terms_update', from: 'Non pubblicare annunci o messaggi ripetuti.', to: 'Non pubblicare annunci, messaggi ripetuti o link a contenuti a pagamento.' }]
    },
    security: {
      path: '/it/sicurezza',
      link: 'Sicurezza',
      title: 'Sicurezza',
      main: `<h1>Sicurezza</h1><p>Cifriamo i dati a riposo (AES-256) e in transito (TLS 1.2 o superiore).</p>
<h2>Conformità</h2><p>Siamo certificati ISO 27001.</p>
<h2>Segnalare una vulnerabilità</h2><p>Scrivi a sicurezza@faro.test.</p>`,
      changes: [{ expect: 'terms_update', from: 'Siamo certificati ISO 27001.', to: 'Siamo certificati ISO 27001 e ISO 27701.' }]
    },
    api: {
      path: '/it/sviluppatori/api',
      link: 'Documentazione API',
      title: 'Documentazione API',
      main: `<h1>Documentazione API</h1><p>Ogni richiesta richiede l'autenticazione con un token bearer.</p>
<h2>GET /v1/prenotazioni</h2><p>Restituisce un elenco JSON di prenotazioni. Parametri: limit, cursor.</p>
<h2>POST /v1/ordini</h2><p>Crea un ordine. La risposta ha il codice 201.</p>`,
      changes: [{ expect: 'section_added', from: '<h2>POST /v1/ordini</h2>', to: '<h2>DELETE /v1/prenotazioni/{id}</h2><p>Elimina una prenotazione.</p><p>La risposta ha il codice 204.</p><h2>POST /v1/ordini</h2>' }]
    },
    changelog: {
      path: '/it/novita',
      link: 'Novità',
      title: 'Note di rilascio',
      main: `<h1>Note di rilascio</h1><h2>Versione 6.1</h2><ul><li>Aggiunto: buoni regalo</li><li>Corretto: ricerca lenta</li></ul>
<h2>Versione 6.0</h2><ul><li>Migliorato: app mobile</li></ul>`,
      changes: [{ expect: 'section_added', from: '<h2>Versione 6.1</h2>', to: '<h2>Versione 6.2</h2><ul><li>Aggiunto: tema scuro</li><li>Corretto: importazione CSV</li></ul><h2>Versione 6.1</h2>' }]
    },
    imprint: {
      path: '/it/note-legali',
      link: 'Note legali',
      title: 'Note legali',
      main: `<h1>Note legali</h1><p>Faro S.r.l., via Roma 5, 20121 Milano.</p>
<p>P. IVA 01234567890, REA MI-1234567.</p><p>Amministratore unico: Marco Rossi.</p>`,
      changes: [{ expect: 'content_change', from: 'Amministratore unico: Marco Rossi.', to: 'Amministratrice unica: Giulia Bianchi.' }]
    }
  }
}

export const nl: LanguageSet = {
  lang: 'nl',
  company: 'Dijkwerk',
  updated: n => `${n} minuten geleden bijgewerkt`,
  pages: {
    pricing: {
      path: '/nl/prijzen',
      link: 'Prijzen',
      title: 'Prijzen',
      main: `<h1>Prijzen</h1><p>30 dagen gratis proberen, maandelijks opzegbaar.</p>
<h2>Start</h2><p>€ 9 per maand excl. btw</p><ul><li>1 gebruiker</li><li>Support per e-mail</li></ul>
<h2>Groei</h2><p>€ 24,95 per maand excl. btw</p><ul><li>Onbeperkt gebruikers</li><li>Telefonische support</li></ul>
<h2>Zakelijk</h2><p>Neem contact op voor een offerte.</p>`,
      changes: [{ expect: 'price_change', from: '€ 24,95 per maand excl. btw', to: '€ 29,95 per maand excl. btw', summary: /€ 24,95 per maand excl\. btw → € 29,95 per maand excl\. btw/ }]
    },
    features: {
      path: '/nl/functies',
      link: 'Functies',
      title: 'Functies',
      main: `<h1>Alles voor je administratie</h1>
<h3>Facturen</h3><p>Maak en verstuur facturen in je eigen huisstijl.</p>
<h3>Bankkoppeling</h3><p>Transacties komen automatisch binnen en worden gematcht.</p>
<h3>Btw-aangifte</h3><p>Je aangifte staat klaar met één klik.</p>`,
      changes: [
        { expect: 'feature_added', from: '<h3>Btw-aangifte</h3>', to: '<h3>Urenregistratie</h3><p>Schrijf uren en zet ze direct op de factuur.</p><h3>Btw-aangifte</h3>', summary: /"Urenregistratie"/ },
        { expect: 'feature_removed', from: '<h3>Bankkoppeling</h3><p>Transacties komen automatisch binnen en worden gematcht.</p>', to: '', summary: /"Bankkoppeling"/ }
      ]
    },
    terms: {
      path: '/nl/algemene-voorwaarden',
      link: 'Algemene voorwaarden',
      title: 'Algemene voorwaarden',
      main: `<h1>Algemene voorwaarden</h1><p>Deze voorwaarden gelden voor het gebruik van Dijkwerk.</p>
<h2>Artikel 1 – Account</h2><p>Je bent zelf verantwoordelijk voor je wachtwoord.</p>
<h2>Artikel 2 – Aansprakelijkheid</h2><p>Onze aansprakelijkheid is beperkt tot het bedrag dat je in de laatste twaalf maanden betaalde.</p>
<h2>Artikel 3 – Opzegging</h2><p>Beide partijen kunnen de overeenkomst opzeggen met een termijn van een maand.</p>`,
      changes: [{ expect: 'terms_update', severity: 'high', from: 'met een termijn van een maand', to: 'met een termijn van drie maanden' }]
    },
    privacy: {
      path: '/nl/privacyverklaring',
      link: 'Privacyverklaring',
      title: 'Privacyverklaring',
      main: `<h1>Privacyverklaring</h1><p>Wij verwerken persoonsgegevens volgens de AVG.</p>
<h2>Welke gegevens</h2><p>Naam, e-mailadres en gebruiksgegevens.</p>
<h2>Delen</h2><p>Wij verkopen je gegevens nooit aan derden.</p>
<h2>Bewaartermijn</h2><p>Wij verwijderen je gegevens dertig dagen na opzegging.</p>`,
      changes: [{ expect: 'terms_update', severity: 'high', from: 'Wij verkopen je gegevens nooit aan derden.', to: 'Wij kunnen persoonsgegevens delen met advertentiepartners.' }]
    },
    cookies: {
      path: '/nl/cookiebeleid',
      link: 'Cookiebeleid',
      title: 'Cookiebeleid',
      main: `<h1>Cookiebeleid</h1><p>Deze website gebruikt cookies.</p>
<h2>Noodzakelijke cookies</h2><p>Ze houden je ingelogd en kunnen niet worden uitgezet.</p>
<h2>Analytische cookies</h2><p>Met je toestemming meten we het bezoek.</p>`,
      changes: [{ expect: 'terms_update', from: 'Met je toestemming meten we het bezoek.', to: 'We meten het bezoek en delen de gegevens met derden.' }]
    },
    community: {
      path: '/nl/communityrichtlijnen',
      link: 'Communityrichtlijnen',
      title: 'Communityrichtlijnen',
      main: `<h1>Communityrichtlijnen</h1><p>Ons forum is een plek om elkaar te helpen.</p>
<h2>Respect</h2><p>Intimidatie en haatzaaiende taal zijn verboden.</p>
<h2>Geen reclame</h2><p>Plaats geen advertenties of herhaalde berichten.</p>`,
      changes: [{ expect: 'terms_update', from: 'Plaats geen advertenties of herhaalde berichten.', to: 'Plaats geen advertenties, herhaalde berichten of links naar betaalde inhoud.' }]
    },
    security: {
      path: '/nl/beveiliging',
      link: 'Beveiliging',
      title: 'Beveiliging',
      main: `<h1>Beveiliging</h1><p>We versleutelen gegevens in rust (AES-256) en onderweg (TLS 1.2 of hoger).</p>
<h2>Certificering</h2><p>We zijn ISO 27001-gecertificeerd.</p>
<h2>Kwetsbaarheden melden</h2><p>Mail naar security@dijkwerk.test.</p>`,
      changes: [{ expect: 'terms_update', from: 'We zijn ISO 27001-gecertificeerd.', to: 'We zijn ISO 27001- en NEN 7510-gecertificeerd.' }]
    },
    api: {
      path: '/nl/ontwikkelaars/api',
      link: 'API-documentatie',
      title: 'API-documentatie',
      main: `<h1>API-documentatie</h1><p>Elk verzoek vereist authenticatie met een bearer-token.</p>
<h2>GET /v1/facturen</h2><p>Geeft een JSON-lijst van facturen. Parameters: limit, cursor.</p>
<h2>POST /v1/klanten</h2><p>Maakt een klant aan. Het antwoord heeft statuscode 201.</p>`,
      changes: [{ expect: 'section_added', from: '<h2>POST /v1/klanten</h2>', to: '<h2>DELETE /v1/facturen/{id}</h2><p>Verwijdert een factuur.</p><p>Het antwoord heeft statuscode 204.</p><h2>POST /v1/klanten</h2>' }]
    },
    changelog: {
      path: '/nl/wijzigingen',
      link: 'Wijzigingen',
      title: 'Wat is er nieuw',
      main: `<h1>Wat is er nieuw</h1><h2>Versie 7.3</h2><ul><li>Toegevoegd: iDEAL-betaallinks</li><li>Opgelost: trage zoekfunctie</li></ul>
<h2>Versie 7.2</h2><ul><li>Verbeterd: mobiele app</li></ul>`,
      changes: [{ expect: 'section_added', from: '<h2>Versie 7.3</h2>', to: '<h2>Versie 7.4</h2><ul><li>Toegevoegd: donkere modus</li><li>Opgelost: CSV-import</li></ul><h2>Versie 7.3</h2>' }]
    },
    imprint: {
      path: '/nl/colofon',
      link: 'Colofon',
      title: 'Colofon',
      main: `<h1>Colofon</h1><p>Dijkwerk B.V., Keizersgracht 100, 1015 AA Amsterdam.</p>
<p>KvK 12345678, btw NL123456789B01.</p><p>Directeur: Sanne de Vries.</p>`,
      changes: [{ expect: 'content_change', from: 'Directeur: Sanne de Vries.', to: 'Directeur: Pieter Bakker.' }]
    }
  }
}

export const pt: LanguageSet = {
  lang: 'pt',
  company: 'Ipê',
  updated: n => `Atualizado há ${n} minutos`,
  pages: {
    pricing: {
      path: '/pt/precos',
      link: 'Preços',
      title: 'Planos e preços',
      main: `<h1>Planos e preços</h1><p>Teste grátis por 14 dias.</p>
<h2>Essencial</h2><p>R$ 49,90 por mês</p><ul><li>3 usuários</li><li>Suporte por e-mail</li></ul>
<h2>Profissional</h2><p>R$ 99,90 por mês</p><ul><li>Usuários ilimitados</li><li>Suporte prioritário</li></ul>
<h2>Empresarial</h2><p>Fale com vendas.</p>`,
      changes: [{ expect: 'price_change', from: 'R$ 99,90 por mês', to: 'R$ 119,90 por mês', summary: /R\$ 99,90 por mês → R\$ 119,90 por mês/ }]
    },
    features: {
      path: '/pt/recursos',
      link: 'Recursos',
      title: 'Recursos',
      main: `<h1>Tudo para a sua clínica</h1>
<h3>Agenda online</h3><p>Pacientes marcam consultas pelo site a qualquer hora.</p>
<h3>Prontuário eletrônico</h3><p>Registre atendimentos com modelos prontos.</p>
<h3>Financeiro</h3><p>Acompanhe receitas e despesas em um painel único.</p>`,
      changes: [
        { expect: 'feature_added', from: '<h3>Financeiro</h3>', to: '<h3>Teleconsulta</h3><p>Atenda por vídeo sem instalar nada.</p><h3>Financeiro</h3>', summary: /"Teleconsulta"/ },
        { expect: 'feature_removed', from: '<h3>Prontuário eletrônico</h3><p>Registre atendimentos com modelos prontos.</p>', to: '', summary: /"Prontuário eletrônico"/ }
      ]
    },
    terms: {
      path: '/pt/termos-de-uso',
      link: 'Termos de uso',
      title: 'Termos de uso',
      main: `<h1>Termos de uso</h1><p>Estes termos regem o uso do Ipê.</p>
<h2>1. Conta</h2><p>Você é responsável por guardar sua senha.</p>
<h2>2. Responsabilidade</h2><p>Nossa responsabilidade limita-se aos valores pagos nos últimos doze meses.</p>
<h2>3. Rescisão</h2><p>Qualquer das partes pode rescindir o contrato com aviso prévio de trinta dias.</p>`,
      changes: [{ expect: 'terms_update', severity: 'high', from: 'aos valores pagos nos últimos doze meses', to: 'a cem reais' }]
    },
    privacy: {
      path: '/pt/privacidade',
      link: 'Política de privacidade',
      title: 'Política de privacidade',
      main: `<h1>Política de privacidade</h1><p>Tratamos seus dados pessoais de acordo com a LGPD.</p>
<h2>Dados coletados</h2><p>Nome, e-mail e dados de uso.</p>
<h2>Compartilhamento</h2><p>Não vendemos seus dados a terceiros.</p>
<h2>Retenção</h2><p>Excluímos seus dados trinta dias após o encerramento da conta.</p>`,
      changes: [{ expect: 'terms_update', severity: 'high', from: 'Não vendemos seus dados a terceiros.', to: 'Podemos compartilhar seus dados pessoais com parceiros de publicidade.' }]
    },
    cookies: {
      path: '/pt/politica-de-cookies',
      link: 'Política de cookies',
      title: 'Política de cookies',
      main: `<h1>Política de cookies</h1><p>Este site usa cookies.</p>
<h2>Cookies necessários</h2><p>Mantêm sua sessão ativa e não podem ser desligados.</p>
<h2>Cookies analíticos</h2><p>Com o seu consentimento medimos as visitas.</p>`,
      changes: [{ expect: 'terms_update', from: 'Com o seu consentimento medimos as visitas.', to: 'Medimos as visitas e compartilhamos os dados com terceiros.' }]
    },
    community: {
      path: '/pt/diretrizes-da-comunidade',
      link: 'Diretrizes da comunidade',
      title: 'Diretrizes da comunidade',
      main: `<h1>Diretrizes da comunidade</h1><p>Nosso fórum é um espaço de ajuda mútua.</p>
<h2>Respeito</h2><p>Assédio e discurso de ódio são proibidos.</p>
<h2>Sem publicidade</h2><p>Não publique anúncios nem mensagens repetidas.</p>`,
      changes: [{ expect: 'terms_update', from: 'Não publique anúncios nem mensagens repetidas.', to: 'Não publique anúncios, mensagens repetidas nem links para conteúdo pago.' }]
    },
    security: {
      path: '/pt/seguranca',
      link: 'Segurança',
      title: 'Segurança',
      main: `<h1>Segurança</h1><p>Criptografamos os dados em repouso (AES-256) e em trânsito (TLS 1.2 ou superior).</p>
<h2>Conformidade</h2><p>Somos certificados ISO 27001.</p>
<h2>Reportar vulnerabilidades</h2><p>Escreva para seguranca@ipe.test.</p>`,
      changes: [{ expect: 'terms_update', from: 'Somos certificados ISO 27001.', to: 'Somos certificados ISO 27001 e SOC 2.' }]
    },
    api: {
      path: '/pt/desenvolvedores/api',
      link: 'Documentação da API',
      title: 'Documentação da API',
      main: `<h1>Documentação da API</h1><p>Toda requisição exige autenticação com um token bearer.</p>
<h2>GET /v1/pacientes</h2><p>Retorna uma lista JSON de pacientes. Parâmetros: limit, cursor.</p>
<h2>POST /v1/consultas</h2><p>Cria uma consulta. A resposta tem o código 201.</p>`,
      changes: [{ expect: 'section_added', from: '<h2>POST /v1/consultas</h2>', to: '<h2>DELETE /v1/pacientes/{id}</h2><p>Remove um paciente.</p><p>A resposta tem o código 204.</p><h2>POST /v1/consultas</h2>' }]
    },
    changelog: {
      path: '/pt/novidades',
      link: 'Novidades',
      title: 'Notas de versão',
      main: `<h1>Notas de versão</h1><h2>Versão 3.6</h2><ul><li>Adicionado: lembretes por WhatsApp</li><li>Corrigido: busca lenta</li></ul>
<h2>Versão 3.5</h2><ul><li>Melhorado: aplicativo móvel</li></ul>`,
      changes: [{ expect: 'section_added', from: '<h2>Versão 3.6</h2>', to: '<h2>Versão 3.7</h2><ul><li>Adicionado: modo escuro</li><li>Corrigido: importação de CSV</li></ul><h2>Versão 3.6</h2>' }]
    },
    imprint: {
      path: '/pt/informacoes-legais',
      link: 'Informações legais',
      title: 'Informações legais',
      main: `<h1>Informações legais</h1><p>Ipê Tecnologia Ltda., Rua Augusta 200, São Paulo – SP.</p>
<p>CNPJ 12.345.678/0001-90.</p><p>Responsável: Ana Souza.</p>`,
      changes: [{ expect: 'content_change', from: 'Responsável: Ana Souza.', to: 'Responsável: Bruno Lima.' }]
    }
  }
}
