import type { LanguageSet } from './corpus.js'

// The labelled set's German and Spanish sites: written for the project, not copied.

export const de: LanguageSet = {
  lang: 'de',
  company: 'Wolkenwerk',
  updated: n => `Aktualisiert vor ${n} Minuten`,
  pages: {
    pricing: {
      path: '/de/preise',
      link: 'Preise',
      title: 'Preise und Pakete',
      main: `<h1>Preise und Pakete</h1><p>Monatlich kündbar, 14 Tage kostenlos testen.</p>
<h2>Basis</h2><p>CHF 19.– pro Monat</p><ul><li>3 Nutzer</li><li>Support per E-Mail</li></ul>
<h2>Business</h2><p>CHF 49.– pro Monat</p><ul><li>Unbegrenzte Nutzer</li><li>Telefon-Support</li></ul>
<h2>Konzern</h2><p>1.299,00 € pro Jahr zzgl. MwSt.</p><p>Alle Preise zzgl. gesetzlicher MwSt.</p>`,
      changes: [{ expect: 'price_change', from: 'CHF 49.– pro Monat', to: 'CHF 59.– pro Monat', summary: /CHF 49\.– pro Monat → CHF 59\.– pro Monat/ }]
    },
    features: {
      path: '/de/funktionen',
      link: 'Funktionen',
      title: 'Funktionen',
      main: `<h1>Alles für Ihre Buchhaltung</h1>
<h3>Belegerfassung</h3><p>Fotografieren Sie Belege und wir lesen sie automatisch aus.</p>
<h3>Bankabgleich</h3><p>Zahlungen werden Rechnungen automatisch zugeordnet.</p>
<h3>Auswertungen</h3><p>Sehen Sie Umsatz und Kosten jederzeit im Dashboard.</p>`,
      changes: [
        { expect: 'feature_added', from: '<h3>Auswertungen</h3>', to: '<h3>Lohnabrechnung</h3><p>Erstellen Sie Gehaltsabrechnungen mit wenigen Klicks.</p><h3>Auswertungen</h3>', summary: /"Lohnabrechnung"/ },
        { expect: 'feature_removed', from: '<h3>Bankabgleich</h3><p>Zahlungen werden Rechnungen automatisch zugeordnet.</p>', to: '', summary: /"Bankabgleich"/ }
      ]
    },
    terms: {
      path: '/de/agb',
      link: 'AGB',
      title: 'Allgemeine Geschäftsbedingungen',
      main: `<h1>Allgemeine Geschäftsbedingungen</h1><p>Diese Bedingungen gelten für alle Verträge mit der Wolkenwerk GmbH.</p>
<h2>§ 1 Vertragsschluss</h2><p>Der Vertrag kommt mit der Registrierung zustande.</p>
<h2>§ 2 Haftung</h2><p>Wir haften unbeschränkt für Vorsatz und grobe Fahrlässigkeit.</p>
<h2>§ 3 Gerichtsstand</h2><p>Gerichtsstand ist München.</p>`,
      changes: [{ expect: 'terms_update', severity: 'high', from: 'Gerichtsstand ist München.', to: 'Gerichtsstand ist Berlin.' }]
    },
    privacy: {
      path: '/de/datenschutz',
      link: 'Datenschutz',
      title: 'Datenschutzerklärung',
      main: `<h1>Datenschutzerklärung</h1><p>Wir verarbeiten personenbezogene Daten nach der DSGVO.</p>
<h2>Welche Daten wir erheben</h2><p>Name, E-Mail-Adresse und Nutzungsdaten.</p>
<h2>Weitergabe</h2><p>Wir geben Ihre Daten nicht an Dritte weiter.</p>
<h2>Speicherdauer</h2><p>Wir löschen Ihre Daten dreißig Tage nach Vertragsende.</p>`,
      changes: [{ expect: 'terms_update', severity: 'high', from: 'Wir geben Ihre Daten nicht an Dritte weiter.', to: 'Wir geben personenbezogene Daten an Werbepartner weiter.' }]
    },
    cookies: {
      path: '/de/cookie-richtlinie',
      link: 'Cookie-Richtlinie',
      title: 'Cookie-Richtlinie',
      main: `<h1>Cookie-Richtlinie</h1><p>Diese Website verwendet Cookies.</p>
<h2>Notwendige Cookies</h2><p>Sie halten Sie angemeldet und lassen sich nicht abschalten.</p>
<h2>Statistik</h2><p>Mit Ihrer Einwilligung messen wir die Nutzung der Website.</p>`,
      changes: [{ expect: 'terms_update', from: 'Mit Ihrer Einwilligung messen wir die Nutzung der Website.', to: 'Wir messen die Nutzung der Website und übermitteln sie an Auftragsverarbeiter.' }]
    },
    community: {
      path: '/de/community-richtlinien',
      link: 'Community-Richtlinien',
      title: 'Community-Richtlinien',
      main: `<h1>Community-Richtlinien</h1><p>Unser Forum lebt von gegenseitiger Hilfe.</p>
<h2>Respekt</h2><p>Beleidigungen und Hassrede sind verboten.</p>
<h2>Keine Werbung</h2><p>Veröffentlichen Sie keine Anzeigen oder Kettenbeiträge.</p>`,
      changes: [{ expect: 'terms_update', from: 'Veröffentlichen Sie keine Anzeigen oder Kettenbeiträge.', to: 'Veröffentlichen Sie keine Anzeigen, Kettenbeiträge oder Links zu Bezahlinhalten.' }]
    },
    security: {
      path: '/de/sicherheit',
      link: 'Sicherheit',
      title: 'Sicherheit',
      main: `<h1>Sicherheit</h1><p>Alle Daten werden verschlüsselt gespeichert (AES-256) und übertragen (TLS 1.2).</p>
<h2>Zertifizierungen</h2><p>Unsere Rechenzentren sind nach ISO 27001 zertifiziert.</p>
<h2>Schwachstellen melden</h2><p>Schreiben Sie an sicherheit@wolkenwerk.test.</p>`,
      changes: [{ expect: 'terms_update', from: 'Unsere Rechenzentren sind nach ISO 27001 zertifiziert.', to: 'Unsere Rechenzentren sind nach ISO 27001 und C5 zertifiziert.' }]
    },
    api: {
      path: '/de/entwickler/api',
      link: 'API-Referenz',
      title: 'API-Referenz',
      main: `<h1>API-Referenz</h1><p>Jede Anfrage braucht ein Bearer-Token zur Authentifizierung.</p>
<h2>GET /v1/belege</h2><p>Liefert eine JSON-Liste der Belege. Parameter: limit, cursor.</p>
<h2>POST /v1/rechnungen</h2><p>Legt eine Rechnung an. Die Antwort hat den Statuscode 201.</p>`,
      changes: [{ expect: 'section_added', from: '<h2>POST /v1/rechnungen</h2>', to: '<h2>DELETE /v1/belege/{id}</h2><p>Löscht einen Beleg.</p><p>Die Antwort hat den Statuscode 204.</p><h2>POST /v1/rechnungen</h2>' }]
    },
    changelog: {
      path: '/de/aenderungsprotokoll',
      link: 'Änderungsprotokoll',
      title: 'Änderungsprotokoll',
      main: `<h1>Änderungsprotokoll</h1><h2>Version 5.4</h2><ul><li>Hinzugefügt: DATEV-Export</li><li>Behoben: langsame Suche</li></ul>
<h2>Version 5.3</h2><ul><li>Verbessert: mobile App</li></ul>`,
      changes: [{ expect: 'section_added', from: '<h2>Version 5.4</h2>', to: '<h2>Version 5.5</h2><ul><li>Hinzugefügt: Dunkelmodus</li><li>Behoben: CSV-Import</li></ul><h2>Version 5.4</h2>' }]
    },
    imprint: {
      path: '/de/impressum',
      link: 'Impressum',
      title: 'Impressum',
      main: `<h1>Impressum</h1><p>Wolkenwerk GmbH, Lindenstraße 4, 80331 München.</p>
<p>Handelsregister: Amtsgericht München, HRB 123456.</p><p>Geschäftsführer: Jonas Weber.</p>`,
      changes: [{ expect: 'content_change', from: 'Geschäftsführer: Jonas Weber.', to: 'Geschäftsführerin: Lena Vogel.' }]
    }
  }
}

export const es: LanguageSet = {
  lang: 'es',
  company: 'Cometa',
  updated: n => `Actualizado hace ${n} minutos`,
  pages: {
    pricing: {
      path: '/es/precios',
      link: 'Precios',
      title: 'Precios',
      main: `<h1>Precios</h1><p>Prueba gratuita de 30 días, sin tarjeta.</p>
<h2>Básico</h2><p>15 € al mes + IVA</p><ul><li>2 usuarios</li><li>Soporte por correo</li></ul>
<h2>Profesional</h2><p>39 € al mes + IVA</p><ul><li>Usuarios ilimitados</li><li>Soporte prioritario</li></ul>
<h2>Empresa</h2><p>Contacta con ventas. Todos los precios sin IVA.</p>`,
      changes: [{ expect: 'price_change', from: '39 € al mes + IVA', to: '45 € al mes + IVA', summary: /39 € al mes \+ IVA → 45 € al mes \+ IVA/ }]
    },
    features: {
      path: '/es/funcionalidades',
      link: 'Funcionalidades',
      title: 'Funcionalidades',
      main: `<h1>Todo para tu tienda online</h1>
<h3>Catálogo</h3><p>Gestiona miles de productos con variantes y stock.</p>
<h3>Pagos</h3><p>Acepta tarjeta, Bizum y transferencia desde el primer día.</p>
<h3>Envíos</h3><p>Imprime etiquetas de las principales agencias de transporte.</p>`,
      changes: [
        { expect: 'feature_added', from: '<h3>Envíos</h3>', to: '<h3>Facturación electrónica</h3><p>Emite facturas conformes con la normativa vigente.</p><h3>Envíos</h3>', summary: /"Facturación electrónica"/ },
        { expect: 'feature_removed', from: '<h3>Pagos</h3><p>Acepta tarjeta, Bizum y transferencia desde el primer día.</p>', to: '', summary: /"Pagos"/ }
      ]
    },
    terms: {
      path: '/es/terminos',
      link: 'Términos y condiciones',
      title: 'Términos y condiciones',
      main: `<h1>Términos y condiciones</h1><p>Estas condiciones regulan el uso de Cometa.</p>
<h2>1. Cuenta</h2><p>Eres responsable de custodiar tu contraseña.</p>
<h2>2. Responsabilidad</h2><p>Nuestra responsabilidad se limita a las cantidades pagadas en los últimos doce meses.</p>
<h2>3. Rescisión</h2><p>Cualquiera de las partes puede rescindir el contrato con treinta días de preaviso.</p>`,
      changes: [{ expect: 'terms_update', severity: 'high', from: 'a las cantidades pagadas en los últimos doce meses', to: 'a cien euros' }]
    },
    privacy: {
      path: '/es/privacidad',
      link: 'Política de privacidad',
      title: 'Política de privacidad',
      main: `<h1>Política de privacidad</h1><p>Tratamos tus datos personales conforme al RGPD.</p>
<h2>Datos que recogemos</h2><p>Nombre, correo electrónico y datos de uso.</p>
<h2>Cesión</h2><p>No cedemos tus datos a terceros.</p>
<h2>Conservación</h2><p>Borramos tus datos treinta días después de cerrar la cuenta.</p>`,
      changes: [{ expect: 'terms_update', severity: 'high', from: 'No cedemos tus datos a terceros.', to: 'Podemos ceder tus datos personales a socios publicitarios.' }]
    },
    cookies: {
      path: '/es/politica-de-cookies',
      link: 'Política de cookies',
      title: 'Política de cookies',
      main: `<h1>Política de cookies</h1><p>Este sitio utiliza cookies.</p>
<h2>Cookies necesarias</h2><p>Mantienen tu sesión iniciada y no se pueden desactivar.</p>
<h2>Cookies analíticas</h2><p>Con tu consentimiento medimos las visitas.</p>`,
      changes: [{ expect: 'terms_update', from: 'Con tu consentimiento medimos las visitas.', to: 'Medimos las visitas y compartimos los datos con terceros.' }]
    },
    community: {
      path: '/es/normas-de-la-comunidad',
      link: 'Normas de la comunidad',
      title: 'Normas de la comunidad',
      main: `<h1>Normas de la comunidad</h1><p>Nuestro foro es un espacio de ayuda mutua.</p>
<h2>Respeto</h2><p>Se prohíben el acoso y el discurso de odio.</p>
<h2>Sin publicidad</h2><p>No publiques anuncios ni mensajes repetidos.</p>`,
      changes: [{ expect: 'terms_update', from: 'No publiques anuncios ni mensajes repetidos.', to: 'No publiques anuncios, mensajes repetidos ni enlaces a contenido de pago.' }]
    },
    security: {
      path: '/es/seguridad',
      link: 'Seguridad',
      title: 'Seguridad',
      main: `<h1>Seguridad</h1><p>Ciframos los datos en reposo (AES-256) y en tránsito (TLS 1.2 o superior).</p>
<h2>Cumplimiento</h2><p>Contamos con la certificación ISO 27001.</p>
<h2>Vulnerabilidades</h2><p>Escríbenos a seguridad@cometa.test.</p>`,
      changes: [{ expect: 'terms_update', from: 'Contamos con la certificación ISO 27001.', to: 'Contamos con las certificaciones ISO 27001 y ENS.' }]
    },
    api: {
      path: '/es/desarrolladores/api',
      link: 'Referencia de la API',
      title: 'Referencia de la API',
      main: `<h1>Referencia de la API</h1><p>Cada solicitud requiere autenticación con un token bearer.</p>
<h2>GET /v1/productos</h2><p>Devuelve una lista JSON de productos. Parámetros: limit, cursor.</p>
<h2>POST /v1/pedidos</h2><p>Crea un pedido. La respuesta tiene el código 201.</p>`,
      changes: [{ expect: 'section_added', from: '<h2>POST /v1/pedidos</h2>', to: '<h2>DELETE /v1/productos/{id}</h2><p>Elimina un producto.</p><p>La respuesta tiene el código 204.</p><h2>POST /v1/pedidos</h2>' }]
    },
    changelog: {
      path: '/es/novedades',
      link: 'Novedades',
      title: 'Novedades',
      main: `<h1>Novedades</h1><h2>Versión 2.8</h2><ul><li>Añadido: cupones de descuento</li><li>Corregido: búsqueda lenta</li></ul>
<h2>Versión 2.7</h2><ul><li>Mejorado: app móvil</li></ul>`,
      changes: [{ expect: 'section_added', from: '<h2>Versión 2.8</h2>', to: '<h2>Versión 2.9</h2><ul><li>Añadido: modo oscuro</li><li>Corregido: importación CSV</li></ul><h2>Versión 2.8</h2>' }]
    },
    imprint: {
      path: '/es/aviso-legal',
      link: 'Aviso legal',
      title: 'Aviso legal',
      main: `<h1>Aviso legal</h1><p>Cometa S.L., calle Mayor 10, 28013 Madrid.</p>
<p>Inscrita en el Registro Mercantil de Madrid, NIF B12345678.</p><p>Administrador: Javier Ruiz.</p>`,
      changes: [{ expect: 'content_change', from: 'Administrador: Javier Ruiz.', to: 'Administradora: Lucía Gómez.' }]
    }
  }
}
