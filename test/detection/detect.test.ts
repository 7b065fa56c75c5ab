import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import { compareContent, readPage } from '../../src/detection/detect.js'
import { clean, extractPage } from '../../src/detection/text/extract.js'
import { contentHash } from '../../src/detection/text/noise.js'
import type { PageType } from '../../src/vocabulary/core.js'
import { featuresMain, layout, pricingMain, termsMain } from '../helpers/fixtures.js'

function changes (before: string, after: string, pageType: PageType) {
  const a = readPage(before)
  const b = readPage(after)
  return { sameHash: a.hash === b.hash, changes: compareContent(a.text, b, pageType) }
}

describe('change classification on realistic pages', () => {
  it('price_change: a price rise is high, with old and new price in the summary and the diff', () => {
    const {
      changes: [c],
      sameHash
    } = changes(layout('Pricing', pricingMain('$49')), layout('Pricing', pricingMain('$59')), 'pricing')
    assert.equal(sameHash, false)
    assert.equal(c.changeType, 'price_change')
    assert.equal(c.severity, 'high')
    assert.equal(c.summary, 'Pricing, Pro: $49/month → $59/month (+20%)')
    assert.deepEqual(c.diffData.facts, [{ kind: 'price_up', subject: 'Pro', before: '$49/month', after: '$59/month', percent: 20 }])
    assert.ok(c.confidence >= 0.9)
    // The changed passage with the lines around it, as a person reads it: not the whole page.
    assert.equal(c.diffData.before, '- Email support\n## Pro\n$49/month\n- 10 users\n- SSO')
    assert.equal(c.diffData.after, '- Email support\n## Pro\n$59/month\n- 10 users\n- SSO')
    assert.deepEqual(c.diffData.stats, { additions: 1, deletions: 1, changes: 1 })
    const lines = c.diffData.hunks[0].lines
    assert.deepEqual(
      lines.filter(l => l.type !== 'context'),
      [
        { type: 'deletion', content: '$49/month' },
        { type: 'addition', content: '$59/month' }
      ]
    )
    assert.ok(lines.some(l => l.type === 'context' && l.content === '## Pro'))
  })

  it('price_change: a rise of half or more is critical; a cut of a tenth is medium', () => {
    assert.equal(
      changes(layout('P', pricingMain('$49')), layout('P', pricingMain('$79')), 'pricing').changes[0].severity,
      'critical'
    )
    const cut = changes(layout('P', pricingMain('$49', '$99')), layout('P', pricingMain('$49', '$89')), 'pricing')
      .changes[0]
    assert.equal(cut.severity, 'medium')
    assert.equal(cut.summary, 'Pricing, Business: $99/month → $89/month (-10%)')
  })

  it('price_change: a price in a table row is labelled by its row', () => {
    const table = (p: string) =>
      layout(
        'Compare',
        `<h1>Compare plans</h1><table><tr><th>Plan</th><th>Price</th></tr><tr><td>Team</td><td>${p} per ` +
        'user/month</td></tr></table>'
      )
    const [c] = changes(table('€12'), table('€15'), 'pricing').changes
    assert.equal(c.changeType, 'price_change')
    assert.match(c.summary, /^Pricing, Team: €12 per user\/month → €15 per user\/month \(\+25%\)$/)
  })

  it("feature_added and feature_removed: an item of a plan's list appears or goes away", () => {
    const added = changes(
      layout('P', pricingMain()),
      layout('P', pricingMain('$49', '$99', ['10 users', 'SSO', 'Priority support', 'Audit logs'])),
      'pricing'
    ).changes
    assert.equal(added.length, 1)
    assert.equal(added[0].changeType, 'feature_added')
    assert.equal(added[0].severity, 'medium')
    assert.equal(added[0].summary, 'Pricing, Pro: feature "Audit logs" added')
    const removed = changes(
      layout('P', pricingMain()),
      layout('P', pricingMain('$49', '$99', ['10 users', 'Priority support'])),
      'pricing'
    ).changes
    assert.equal(removed[0].changeType, 'feature_removed')
    assert.equal(removed[0].severity, 'high')
    assert.equal(removed[0].summary, 'Pricing, Pro: feature "SSO" removed')
    assert.equal(removed[0].diffData.before, '$49/month\n- 10 users\n- SSO\n- Priority support\n## Business')
    assert.equal(removed[0].diffData.after, '$49/month\n- 10 users\n- Priority support\n## Business')
  })

  it('section_added and section_removed: a heading with its content', () => {
    const withIntegrations = featuresMain + '<h2>Integrations</h2><ul><li>Slack</li><li>GitHub</li></ul>'
    const [added] = changes(layout('F', featuresMain), layout('F', withIntegrations), 'features').changes
    assert.equal(added.changeType, 'section_added')
    assert.equal(added.summary, 'Features, Integrations: new section (2 paragraphs)')
    const withoutAnalytics = featuresMain.replace(
      '<h2>Analytics</h2><ul><li>Dashboards</li><li>Custom reports</li></ul>',
      ''
    )
    const [removed] = changes(layout('F', featuresMain), layout('F', withoutAnalytics), 'features').changes
    assert.equal(removed.changeType, 'section_removed')
    assert.equal(removed.severity, 'high')
    assert.equal(removed.summary, 'Features, Analytics: section removed (2 paragraphs)')
  })

  it('a section added or removed just after an edited line is still a section, and leads unless the edit weighs more', () => {
    const doc = (notice: string, extra: string) => layout('Terms', '<h1>Terms</h1>' +
      `<h2>1. Notices</h2><p>Notices are sent ${notice}.</p>${extra}<h2>${extra ? 3 : 2}. Accounts</h2><p>One account per person.</p>`)
    const section = '<h2>2. Safety policy</h2><p>Members verify their age.</p><p>Reports are read within a day.</p>'
    const [added] = changes(doc('by e-mail', ''), doc('by post', section), 'terms').changes
    assert.equal(added.summary, 'Terms, 2. Safety policy: new section (2 paragraphs), and 1 more passage; also 1 renumbered reference')
    assert.equal(added.severity, 'medium')
    const [removed] = changes(doc('by e-mail', section), doc('by post', ''), 'terms').changes
    assert.equal(removed.summary, 'Terms, 2. Safety policy: section removed (2 paragraphs), and 1 more passage; also 1 renumbered reference')
    // An edit of liability outweighs a new section of no legal weight: it leads.
    const [weightier] = changes(doc('by e-mail', ''), doc('by e-mail; our liability ends after 30 days', section), 'terms').changes
    assert.match(weightier.summary, /^Terms, 1\. Notices: .*liability.*, and 1 more passage \(2\. Safety policy\); also 1 renumbered reference$/)
    assert.equal(weightier.severity, 'high')
    // Apart, an edit and a new section of one weight: the section leads.
    const far = (v: number, extra: string) => layout('Terms', '<h1>Terms</h1><h2>Notices</h2>' +
      [1, 2, 3].map(n => `<p>Notice ${n} is sent within ${v} days.</p>`).join('') +
      '<h2>Accounts</h2><p>One account per person.</p><p>Accounts are personal.</p>' + extra + '<h2>Contact</h2><p>Write to us.</p>')
    const [both] = changes(far(10, ''), far(20, section.replace(/2\. /, '')), 'terms').changes
    assert.equal(both.severity, 'medium')
    assert.match(both.summary, /^Terms, Safety policy: new section \(2 paragraphs\), and 3 more passages \(Notices\)$/)
  })

  it('a legal page\'s edits about whom data goes to, what is collected and what is certified are high', () => {
    const page = (title: string, main: string) => `<html lang="en"><head><title>${title}</title></head><body><main>` +
      `<h1>${title}</h1>${main}</main></body></html>`
    const vendors = (rows: string[]) => page('Subprocessors', '<table><thead><tr><th>Entity</th><th>Purpose</th>' +
      `<th>Location</th></tr></thead><tbody>${rows.map(r => `<tr><td>${r.split(',').join('</td><td>')}</td></tr>`).join('')}</tbody></table>`)
    const aws = 'Amazon Web Services,Hosting,USA'
    const [vendor] = changes(vendors([aws]), vendors([aws, 'Snowflake,Analytics,USA']), 'security').changes
    assert.deepEqual([vendor.changeType, vendor.severity], ['terms_update', 'high'], 'a new subprocessor: the row is its section\'s')
    const collected = (what: string) => page('Privacy Policy', `<h2>Data we collect</h2><p>We collect your name, email and ${what}.</p>`)
    const [data] = changes(collected('billing address'), collected('billing address, and precise location data'), 'terms').changes
    assert.deepEqual([data.changeType, data.severity], ['terms_update', 'high'], 'a new kind of data collected')
    const certified = (items: string) => page('Security', `<h2>Compliance</h2><ul><li>SOC 2 Type II</li>${items}</ul>`)
    const [cert] = changes(certified('<li>ISO 27001</li>'), certified(''), 'security').changes
    assert.deepEqual([cert.changeType, cert.severity], ['terms_update', 'high'], 'a certification withdrawn')
  })

  it('API docs read as text: a deprecation notice added, a rate limit lowered, a DELETE documented', () => {
    const doc = (extra: string, limit = 100) => '<html lang="en"><head><title>Authentication | Acme API</title></head><body>' +
      '<main><article><h1>Authentication</h1><p>Send your key in the Authorization header.</p>' +
      `${extra}<h2>Rate limits</h2><p>Each key may make ${limit} requests per minute.</p></article></main></body></html>`
    const notice = '<div class="admonition warning"><p>API keys in query strings are deprecated and will stop working on 1 March 2027.</p></div>'
    const [deprecated] = changes(doc(''), doc(notice), 'api_docs').changes
    assert.deepEqual([deprecated.changeType, deprecated.severity], ['content_change', 'medium'])
    assert.deepEqual(deprecated.diffData.facts!.map(f => f.kind), ['api_deprecated'])
    const [limit] = changes(doc(''), doc('', 60), 'api_docs').changes
    assert.deepEqual([limit.changeType, limit.severity, limit.diffData.facts![0].percent], ['feature_removed', 'medium', -40])
    const [documented] = changes(doc(''), doc('<h2>DELETE /v1/keys/{id}</h2><p>Removes a key.</p>'), 'api_docs').changes
    assert.notEqual(documented.diffData.facts![0].kind, 'api_breaking', 'a DELETE documented is no removal')
  })

  it('terms_update: legal text changed on a terms page; liability or resale wording is high', () => {
    const [c] = changes(
      layout('Terms', termsMain()),
      layout('Terms', termsMain('Our total liability is limited to $100.')),
      'terms'
    ).changes
    assert.equal(c.changeType, 'terms_update')
    assert.equal(c.severity, 'high')
    assert.equal(c.summary, 'Terms of Service, 2. Liability: "Our total liability is limited to the fees paid in the ' +
      'last 12 months." → "Our total liability is limited to $100."')
    assert.match(c.diffData.after, /\$100/)
    const minor = changes(
      layout('Terms', termsMain()),
      layout('Terms', termsMain().replace('laws of Delaware', 'laws of the State of Delaware')),
      'terms'
    ).changes[0]
    assert.equal(minor.changeType, 'terms_update')
    assert.equal(minor.severity, 'low')
    const restriction = changes(
      layout('Terms', termsMain()),
      layout(
        'Terms',
        termsMain().replace('agree to these terms.', 'agree to these terms. You may not resell the service.')
      ),
      'terms'
    ).changes[0]
    assert.equal(restriction.changeType, 'terms_update')
    assert.equal(restriction.severity, 'high')
  })

  it('content_change: a reworded sentence is low', () => {
    const home = (tagline: string) => layout('Acme', `<h1>Acme</h1><p>${tagline}</p><p>Trusted by 2,000 teams.</p>`)
    const [c] = changes(
      home('The platform for modern teams.'),
      home('The platform for fast-moving teams.'),
      'other'
    ).changes
    assert.equal(c.changeType, 'content_change')
    assert.equal(c.severity, 'low')
    assert.equal(
      c.summary,
      'Acme: "The platform for modern teams." → "The platform for fast-moving teams."'
    )
  })

  it("price_change from markup: money in a price's element (class, schema.org itemprop) is a price on any page", () => {
    const product = (price: string, markup: (p: string) => string) => layout('Widget', '<h1>The Widget</h1>' +
      `<p>Our widget sorts every kind of screw, bolt and nut on your bench.</p>${markup(price)}<p>Ships worldwide.</p>`)
    const byClass = (p: string) => `<div class="product-price">${p}</div>`
    const inline = (p: string) => `<p>Now only <span itemprop="price">${p}</span> for everyone.</p>`
    const bare = (p: string) => `<div>${p}</div>`
    for (const markup of [byClass, inline]) {
      const [c, ...more] = changes(product('€19', markup), product('€25', markup), 'other').changes
      assert.equal(c.changeType, 'price_change', markup(''))
      assert.match(c.summary, /€19.*→.*€25/)
      assert.equal(more.length, 0)
    }
    const [plain] = changes(product('€19', bare), product('€25', bare), 'other').changes
    assert.equal(plain.changeType, 'content_change', 'bare money with no price context is not a price')
    // Markup does not make corporate money a price.
    const capital = (p: string) => `<p class="plan-note">Share capital of ${p}.</p>`
    const [corp] = changes(product('€36,982', capital), product('€40,436', capital), 'other').changes
    assert.notEqual(corp.changeType, 'price_change')
  })

  it('several edits in one crawl are one change, led by its weightiest price move, the other price moves named, the rest counted', () => {
    const before = layout(
      'P',
      pricingMain('$49', '$99') +
        '<h2>FAQ</h2><p>Can I cancel? Yes.</p><p>Refunds within 14 days.</p><p>a</p><p>b</p><p>c</p><p>Questions? ' +
        'Email us.</p>'
    )
    const after = layout(
      'P',
      pricingMain('$59', '$119') +
        '<h2>FAQ</h2><p>Can I cancel? Anytime.</p><p>Refunds within 14 ' +
        'days.</p><p>a</p><p>b</p><p>c</p><p>Questions? Chat with us.</p>'
    )
    const found = changes(before, after, 'pricing').changes
    assert.equal(found.length, 1)
    const [c] = found
    assert.equal(c.changeType, 'price_change')
    assert.equal(c.severity, 'high')
    assert.equal(c.summary, 'Pricing, Pro: $49/month → $59/month (+20%); Business +20%; and 2 more passages (FAQ)')
    assert.deepEqual(c.diffData.facts!.map(f => [f.kind, f.subject]),
      [['price_up', 'Pro'], ['price_up', 'Business'], ['text_edit', 'FAQ'], ['text_edit', 'FAQ']])
    assert.equal(c.diffData.hunks.length, 4, 'every changed line is in its diff')
  })
})

describe('a plan overhaul read as text', () => {
  it('a yearly price is never paired with a monthly one: each is a price of its own, gone or new', () => {
    const page = (body: string) => layout('Plans', `<h1>Pricing</h1><h2>Plan types</h2>${body}`)
    const before = page('<p>Basic: $19 per month</p><p>Annual: $120 per year</p>')
    const after = page('<p>Basic: $5 per month</p><p>Annual: $25 per month</p>')
    const [c] = changes(before, after, 'pricing').changes
    assert.doesNotMatch(c.summary, /\$120 per year → \$25 per month|\$120\/year → \$25\/month/, c.summary)
    const facts = c.diffData.facts!.map(f => [f.kind, f.before, f.after])
    assert.ok(facts.every(([, b, a]) => !(/year/.test(b ?? '') && /month/.test(a ?? ''))), JSON.stringify(facts))
  })
})

describe('noise gives no change at all', () => {
  it('the content hash is the SHA-256 of the lines joined by newlines, as stored hashes were made', () => {
    const sha = (s: string) => createHash('sha256').update(s).digest('hex')
    for (const lines of [[], [''], ['# Pricing', '', '- Pro: 49 €/mois', 'été']]) {
      assert.equal(contentHash(lines), sha(lines.join('\n')))
    }
  })

  const page = (v: {
    ago?: string
    year?: number
    build?: string
    nonce?: string
    request?: string
    clock?: string
    stamp?: string
    attrs?: boolean
    churn?: boolean
    cookie?: string
    hidden?: string
    script?: string
    utm?: string
  }) =>
    layout(
      'Pricing — Acme',
      `
<h1>Plans and pricing</h1>
<p>Prices updated ${v.ago ?? '3 minutes ago'}. Last refreshed ${v.stamp ?? '2025-03-01T10:00:00Z'} at ${v.clock ?? '10:04:12 UTC'}.</p>
${v.attrs ? '<section id="pro" class="plan card" data-x="1">' : '<section class="plan card" data-x="1" id="pro">'}
${v.churn ? '<div><div><h2><span>Pro</span></h2></div></div><p class="price big"><span>$49</span><span>/month</span></p>' : '<h2>Pro</h2><p class="price">$49/month</p>'}
<ul><li>10&nbsp;users</li><li>SSO</li></ul></section>
<p>© ${v.year ?? 2024} Acme Inc. Build ${v.build ?? '8f3a9c2d1e4b'} · request id: ${v.request ?? 'req_8KxQ2m9ZtLw4'}</p>
<div class="cookie-banner">${v.cookie ?? 'We use cookies.'}</div>
<div hidden>${v.hidden ?? 'token abc'}</div><div style="display: none">${v.hidden ?? 'x'}</div>
<script>window.csrf="${v.nonce ?? 'aaaa1111bbbb2222'}";${v.script ?? ''}</script>
<a href="/signup?utm_source=${v.utm ?? 'home'}&cb=${v.nonce ?? '1'}">Start free trial</a>`,
      { nonce: v.nonce }
    )

  const base = page({})
  const cases: Array<[string, string]> = [
    ['relative times ("updated 3 minutes ago")', page({ ago: '2 hours ago' })],
    ['clock times and ISO timestamps', page({ clock: '23:59:01 UTC', stamp: '2025-03-02T11:30:00Z' })],
    ['a copyright year rolling over', page({ year: 2025 })],
    ['build ids', page({ build: 'a1b2c3d4e5f6a7b8' })],
    ['request ids and session tokens', page({ request: 'req_Zq81LmP0xYt2' })],
    ['rotating nonces, CSRF tokens and cache-busters', page({ nonce: 'zzzz9999yyyy8888' })],
    ['script content', page({ script: 'track({id: 42})' })],
    ['tracking parameters in links', page({ utm: 'newsletter' })],
    ['reordered attributes', page({ attrs: true })],
    ['markup churn that leaves the text alone', page({ churn: true })],
    ['cookie banner text', page({ cookie: 'We and our 812 partners use cookies.' })],
    ['hidden elements', page({ hidden: 'another hidden value' })]
  ]
  for (const [what, after] of cases) {
    it(what, () => {
      const r = changes(base, after, 'pricing')
      assert.equal(r.sameHash, true, 'the content hash does not move')
      assert.deepEqual(r.changes, [])
    })
  }

  it('a sale\'s countdown ("ends in 3 days", "2 days left", "endet in 3 Tagen"), and not a term of days', () => {
    const sale = (when: string) => page({ ago: `3 minutes ago. The spring sale ${when}` })
    for (const [a, b] of [
      ['ends in 3 days', 'ends in 2 days'], ['has 3 days left', 'has 47 hours left'],
      ['(endet in 3 Tagen)', '(endet in 2 Tagen)'], ['(se termine dans 3 jours)', '(se termine dans 2 jours)']
    ]) {
      const r = changes(sale(a), sale(b), 'pricing')
      assert.equal(r.sameHash, true, `${a} → ${b}`)
      assert.deepEqual(r.changes, [])
    }
    const refunds = changes(sale('refunds within 14 days'), sale('refunds within 30 days'), 'pricing')
    assert.equal(refunds.changes.length, 1, 'a term of days is the page\'s')
    const tokens = changes(sale('tokens expire in 60 minutes'), sale('tokens expire in 30 minutes'), 'pricing')
    assert.equal(tokens.changes.length, 1, 'so is a lifetime that expires')
  })

  it('whitespace and entity differences', () => {
    const a = layout('T', '<p>Fast &amp; simple   pricing</p>')
    const b = layout('T', '<p>Fast &#38; simple\n\tpricing</p>')
    assert.equal(changes(a, b, 'other').sameHash, true)
  })

  it('but a real change next to noise is still reported, shown as the page reads', () => {
    const r = changes(base, page({ ago: '1 hour ago' }).replace('<li>SSO</li>', '<li>SSO</li><li>SCIM</li>'), 'pricing')
    assert.equal(r.changes.length, 1)
    assert.equal(r.changes[0].changeType, 'feature_added')
    const lines = r.changes[0].diffData.hunks[0].lines
    assert.ok(
      lines.some(l => l.type === 'context' && l.content.includes('Build 8f3a9c2d1e4b')),
      'context lines show the real text'
    )
    assert.ok(
      !lines.some(l => /\{(ago|hex|id|time|token|datetime|year)\}/.test(l.content)),
      'no mask placeholder leaks into the diff'
    )
  })
})

describe('extraction', () => {
  it('keeps headings, list items, table rows and paragraphs recognisable and drops chrome', () => {
    const page = extractPage(layout('Pricing', pricingMain()))
    assert.equal(page.title, 'Pricing')
    assert.deepEqual(page.lines.slice(0, 6), [
      '# Plans and pricing',
      'Simple pricing that grows with your team.',
      '## Starter',
      '$19/month',
      '- 1 user',
      '- Email support'
    ])
    assert.ok(
      !page.lines.some(l => /cookies|Terms of Service|Acme Inc/.test(l)),
      'nav, footer and cookie banner are gone'
    )
  })

  // A banner is skipped by its name (text/extract.ts isSkipped), a topic never: before, id="cookies" and
  // class="cookie-policy" hid a privacy policy's own sections, and every change of them.
  it("leaves out cookie banners by their names, and keeps a policy's sections about cookies, consent and GDPR", () => {
    const page = extractPage('<html><body><main><h1>Privacy</h1>' +
      '<h2 id="cookies">Cookies</h2><p>We use cookies to sign you in.</p>' +
      '<section class="cookie-policy"><h2>Cookie policy</h2><p>Each cookie we set.</p></section>' +
      '<section id="consent"><h2>Consent</h2><p>You may withdraw it.</p></section>' +
      '<section id="gdpr"><h2>Your GDPR rights</h2><p>Access, erasure.</p></section>' +
      '<div id="cookie-consent">Accept all</div><div class="cookies-banner">We and our partners</div>' +
      '<div id="onetrust-banner-sdk">OneTrust</div><div id="cookieConsent">Allow</div>' +
      '<div class="gdpr-notice">Notice</div></main></body></html>')
    assert.deepEqual(page.lines, [
      '# Privacy', '## Cookies', 'We use cookies to sign you in.', '## Cookie policy', 'Each cookie we set.',
      '## Consent', 'You may withdraw it.', '## Your GDPR rights', 'Access, erasure.'
    ])
  })

  it("marks the lines written in a price's or plan's markup, without splitting a sentence around an inline price", () => {
    const page = extractPage('<html><body><main><h1>Plans</h1><p>Intro text.</p>' +
      '<p>Only <span class="price">$9</span> a seat.</p><div class="plan-card"><h2>Pro</h2><p>$49</p></div>' +
      '<table><tr><td>Team</td><td itemprop="price">$99</td></tr><tr><td>Docs</td><td>Free</td></tr></table>' +
      '<p>Outro.</p></main></body></html>')
    assert.deepEqual(page.lines, ['# Plans', 'Intro text.', 'Only $9 a seat.', '## Pro', '$49', '| Team | $99 |', '| Docs | Free |', 'Outro.'])
    assert.deepEqual(page.priceLines, [2, 3, 4, 5])
  })

  it('never runs two blocks together: block elements of every kind, and inline elements laid out as blocks', () => {
    const page = extractPage('<html><body><main><address>Acme Inc.<br>1 Parkway<span style="display: block">Suite 398</span>' +
      '</address><center>Centred</center><hgroup><h2>Title</h2><p>Tagline</p></hgroup>' +
      '<p><span style="display:flex">Left</span><span>right</span> and <b>bold</b>text</p></main></body></html>')
    assert.deepEqual(page.lines, ['Acme Inc.', '1 Parkway', 'Suite 398', 'Centred', '## Title', 'Tagline', 'Left', 'right and boldtext'])
  })

  it('cleans white space and invisible characters the same whether or not the text needed it', () => {
    // The slow path, spelled out: clean() skips it for text that is already clean.
    const slow = (s: string) =>
      s
        // eslint-disable-next-line no-control-regex -- control characters are what it drops
        .replace(/[\x00-\x08\x0e-\x1f\x7f\u200B-\u200D\u2060\uFEFF\u00AD]/g, '')
        .replace(/[\s\u00A0\u2000-\u200A\u202F\u205F\u3000]+/g, ' ')
        .trim()
    const samples = [
      'Pro plan',
      '',
      ' ',
      'a',
      ' lead',
      'trail ',
      'two  spaces',
      'tab\there',
      'line\nbreak',
      'no\u00A0break',
      'thin\u2009space',
      'zero\u200Bwidth',
      'soft\u00ADhyphen',
      '\uFEFFbom',
      'ideo\u3000space',
      'para\u2029sep',
      'é ü — € 49',
      'x \u200B y',
      '\u200B',
      'nul\u0000byte',
      'bell\u0007',
      '\u007fdel',
      'x \u0000 y'
    ]
    for (const s of samples) {
      assert.equal(clean(s), slow(s), JSON.stringify(s))
      assert.equal(clean(clean(s)), clean(s), 'clean text stays as it is')
    }
    assert.equal(clean('Pri\u0000cing'), 'Pricing')
  })
})

describe("a change's passages, read once when it is found", () => {
  it('are recorded with the change, and its page shows what was recorded', async () => {
    const { passagesView } = await import('../../src/services/change-view.js')
    const before = readPage(layout('Terms', termsMain('30 days')))
    const after = readPage(layout('Terms', termsMain('60 days')))
    const [c] = compareContent(before.text, after, 'terms')
    const passages = c.diffData.passages!
    assert.equal(passages.length, 1)
    assert.equal(passages[0].kind, 'substantive')
    assert.match(passages[0].headline, /60 days/)
    // The page reads the record, not a second reading (here, one edited to tell them apart).
    const told = [{ ...passages[0], headline: 'as recorded' }]
    assert.equal(passagesView(c.diffData.hunks, after.lines, 1, undefined, told).all[0].headline, 'as recorded')
    // A change recorded before passages were kept is read when it is viewed.
    assert.equal(passagesView(c.diffData.hunks, after.lines, 1).all[0].headline, passages[0].headline)
  })
})

describe('trivia never leads a legal page\'s change', () => {
  const heads = ['Geltungsbereich', 'Vertragsschluss', 'Zahlung', 'Haftung']
  const agb = (intro: string, clauses: readonly string[], capitals = false) => {
    const up = (s: string) => capitals ? s.toLocaleUpperCase('de') : s
    return `<html lang="de"><body><main><h1>${up('Allgemeine Geschäftsbedingungen')}</h1><p>${intro}</p>` +
      clauses.map((c, i) => `<h2>§ ${i + 1} ${up(heads[i])}</h2><p>${up(c)}</p>`).join('') + '</main></body></html>'
  }
  const clauses = ['Diese Bedingungen gelten für alle Verträge mit der Acme GmbH.', 'Der Vertrag kommt mit unserer Bestätigung zustande.',
    'Die Zahlung ist innerhalb von 30 Tagen fällig.', 'Wir haften nur für Vorsatz und grobe Fahrlässigkeit.']
  const reworded = [clauses[0], clauses[1], 'Die Zahlung ist innerhalb von 14 Tagen fällig.', 'Wir haften nur für Vorsatz.']

  it('a re-quoted introduction („…“ for "…") is counted, the reworded clauses lead', () => {
    const before = readPage(agb('Die "Acme GmbH" (nachfolgend "Anbieter") bietet Dienste an.', clauses))
    const after = readPage(agb('Die „Acme GmbH“ (nachfolgend „Anbieter“) bietet Dienste an.', reworded))
    const [c, ...more] = compareContent(before.text, after, 'terms')
    assert.equal(more.length, 0)
    assert.equal(c.changeType, 'terms_update')
    assert.match(c.summary, /Vorsatz|14 Tagen/)
    assert.doesNotMatch(c.summary.split(';')[0], /Anbieter/)
    assert.match(c.summary, /also 1 typographic edit$/)
  })

  it('a page set from capitals in sentence case: the reworded clause leads, the case changes are counted', () => {
    const before = readPage(agb('Die Acme GmbH bietet Dienste an.', clauses, true))
    const after = readPage(agb('Die Acme GmbH bietet Dienste an.', reworded))
    const [c, ...more] = compareContent(before.text, after, 'terms')
    assert.equal(more.length, 0)
    assert.match(c.summary, /→ "Die Zahlung ist innerhalb von 14 Tagen fällig\."|→ "Wir haften nur für Vorsatz\."/)
    assert.doesNotMatch(c.summary.split(';')[0], /GESCHÄFTSBEDINGUNGEN|GELTUNGSBEREICH/)
    assert.match(c.summary, /also \d+ typographic edits$/)
  })
})

describe('a legal page weighed by what it says, not by where its edits stand', () => {
  const page = (lang: string, body: string) => `<html lang="${lang}"><body><main>${body}</main></body></html>`
  const compare = (lang: string, before: string, after: string) =>
    compareContent(readPage(page(lang, before)).text, readPage(page(lang, after)), 'terms')

  it('a sub-processor replaced in its table, or in a list of service providers, is high', () => {
    const table = (vendor: string) => `<h1>Sub-processors</h1><p>We use these sub-processors to provide the service.</p>
<table><tr><th>Sub-processor</th><th>Purpose</th><th>Location</th></tr><tr><td>Amazon Web Services</td><td>Hosting</td><td>USA</td></tr>
<tr><td>${vendor}</td><td>Error monitoring</td><td>USA</td></tr><tr><td>Stripe</td><td>Payments</td><td>USA</td></tr></table>`
    const [swapped, ...more] = compare('en', table('Rollbar'), table('Sentry'))
    assert.equal(more.length, 0)
    assert.deepEqual([swapped.changeType, swapped.severity], ['terms_update', 'high'])
    assert.match(swapped.summary, /Rollbar.*→.*Sentry/)
    const list = (vendor: string) => `<h1>Privacy Policy</h1><p>We explain here how we handle your data.</p><h2>Service providers</h2>
<ul><li>Amazon Web Services (hosting)</li><li>${vendor} (error monitoring)</li></ul><h2>Contact</h2><p>Write to us.</p>`
    assert.equal(compare('en', list('Rollbar'), list('Sentry'))[0].severity, 'high')
    // A sentence re-worded is still weighed by its own words, its section aside.
    const prose = (words: string) => `<h1>Privacy Policy</h1><h2>Service providers</h2><p>Our providers ${words} help us run the service.</p>`
    assert.equal(compare('en', prose('kindly'), prose('gladly'))[0].severity, 'low')
  })

  it('a new section whose title is a bold paragraph (as word processors export them) is named, and leads a re-wording', () => {
    const terms = (word: string, section: string) => `<h1>Terms of Service</h1><h2>Traffic</h2><p>${word} coming from partner ` +
      'sites are counted separately and may be excluded from the usage totals shown in your dashboard.</p>' + section +
      '<h2>Support</h2><p>We answer within two business days.</p>'
    const referral = '<p><strong>Referral program</strong></p><p>You may earn credits by referring new customers to the ' +
      'service. Credits expire after 12 months and have no cash value.</p><p>We may end the programme at any time.</p>'
    const [c] = compare('en', terms('Referrals', ''), terms('Users', referral))
    assert.equal(c.changeType, 'terms_update')
    assert.match(c.summary, /^Terms of Service, Referral program: new section \(2 paragraphs\)/)
    assert.equal(c.diffData.passages?.find(x => x.section === 'added')?.headline, 'Referral program: new section')
    // A short sentence over a paragraph is no title: it ends as a sentence does.
    const note = '<p>Read this first.</p><p>You may earn credits by referring new customers to the service. Credits ' +
      'expire after 12 months and have no cash value.</p>'
    assert.doesNotMatch(compare('en', terms('Referrals', ''), terms('Referrals', note))[0].summary, /new section/)
    // Docs write their sections as headings: there, a short line over prose is a sentence added ("Tokens expire…").
    const docs = (extra: string) => '<html lang="en"><body><article><h1>API reference</h1><h2>Authentication</h2>' +
      `<p>Send a bearer token in the Authorization header of every request you make to the API.</p>${extra}</article></body></html>`
    const added = '<p>Tokens expire after one hour</p><p>Refresh them with the refresh endpoint before they expire, or your ' +
      'calls will be refused with a 401 status code.</p>'
    const [d] = compareContent(readPage(docs('')).text, readPage(docs(added)), 'api_docs')
    assert.doesNotMatch(d.summary, /new section/)
    assert.match(d.summary, /Tokens expire after one hour/)
  })

  it('a clause inserted in terms whose paragraphs lead with their numbers: the new clause is named, the renumbering counted', () => {
    const topics = ['Scope', 'Accounts', 'Fees', 'Payment', 'Cancellation', 'Content', 'Privacy', 'Liability', 'Law', 'Notices']
    const referral = '<p>Customers who refer a new customer earn a credit of 10 % of its first year of fees.</p>' +
      '<p>Credits expire after 12 months and cannot be exchanged for cash.</p>'
    const terms = (insert: boolean) => {
      const clauses = topics.map(t => [t, `How ${t.toLowerCase()} works for every customer of Acme is set out here.`,
        `Where ${t.toLowerCase()} applies, the customer agrees to these rules.`])
      if (insert) clauses.splice(4, 0, ['Referral program', ...referral.split('</p>').filter(Boolean).map(p => p.slice(3))])
      return '<h1>Terms of service</h1>' + clauses.map(([title, ...paragraphs], i) =>
        `<h2>${i + 1}. ${title}</h2>` + paragraphs.map((p, k) => `<p>${i + 1}.${k + 1} ${p}</p>`).join('')).join('')
    }
    const [c, ...more] = compare('en', terms(false), terms(true))
    assert.equal(more.length, 0)
    assert.match(c.summary, /^Terms of service, 5\. Referral program: new section \(2 paragraphs\); also 18 renumbered references$/)
    // A paragraph that leads with a figure, not a clause's number: its figure is what the terms say.
    const cap = (times: string) => `<h1>Terms of service</h1><h2>Liability</h2><p>${times} times the fees paid in the last year is ` +
      'the most we owe you for any claim.</p><h2>Law</h2><p>French law applies.</p>'
    const [capped] = compare('en', cap('1.5'), cap('2.5'))
    assert.doesNotMatch(capped.summary, /renumbered/)
    assert.notEqual(capped.severity, 'low')
  })

  it('a duration or a share the terms state leads over a re-wording, in any language', () => {
    const privacy = (drink: string, days: number) => `<h1>Privacy Policy</h1><p>Before you start, ${drink}: this takes a few minutes.</p>` +
      `<h2>Logs</h2><p>We keep server logs for ${days} days, then delete them.</p><h2>Cookies</h2><p>One cookie keeps you signed in.</p>`
    const [c] = compare('en', privacy('grab your beverage of choice', 30), privacy('grab your favorite drink', 90))
    assert.equal(c.severity, 'medium')
    assert.match(c.summary.split(';')[0], /Logs: .*30 days.*→.*90 days/, 'the retention leads, not the drink')
    const fr = (days: number) => `<h1>Politique de confidentialité</h1><h2>Journaux</h2><p>Nous conservons les journaux ${days} jours.</p>`
    assert.equal(compare('fr', fr(30), fr(90))[0].severity, 'medium')
    const share = (pct: number) => `<h1>Affiliate terms</h1><h2>Commission</h2><p>Partners earn ${pct}% of the first year.</p>`
    assert.equal(compare('en', share(30), share(20))[0].severity, 'medium')
    // The same quantities re-worded are a re-wording.
    const same = (verb: string) => `<h1>Privacy Policy</h1><h2>Logs</h2><p>We ${verb} server logs for 30 days.</p>`
    assert.equal(compare('en', same('keep'), same('retain'))[0].severity, 'low')
  })
})

describe("a comparison table's marks, read as text", () => {
  const table = (rows: string) => `<html lang="en"><body><main><h1>Compare plans</h1><table>
<tr><th>Feature</th><th>Free</th><th>Team</th><th>Business</th></tr>${rows}</table></main></body></html>`
  const row = (name: string, ...cells: string[]) => `<tr><td>${name}</td>${cells.map(c => `<td>${c}</td>`).join('')}</tr>`
  const compare = (before: string, after: string, type: 'features' | 'other' = 'features') =>
    compareContent(readPage(table(before)).text, readPage(table(after)), type)

  it('a plan whose column loses its check lost the feature, named with its plan: high on a product page', () => {
    const [c, ...more] = compare(row('Projects', '3', '20', 'Unlimited') + row('Custom domains', '✓', '✓', '✓') + row('SSO', '—', '—', '✓'),
      row('Projects', '3', '20', 'Unlimited') + row('Custom domains', '—', '✓', '✓') + row('SSO', '—', '—', '✓'))
    assert.equal(more.length, 0)
    assert.deepEqual([c.changeType, c.severity], ['feature_removed', 'high'])
    assert.match(c.summary, /Free: feature "Custom domains" removed/)
  })

  it('losses lead gains; several plans are each named; elsewhere a loss is medium', () => {
    const [c] = compare(row('SSO', 'No', 'No', 'Yes') + row('Audit log', 'Yes', 'Yes', 'Yes'),
      row('SSO', 'No', 'Yes', 'Yes') + row('Audit log', 'No', 'Yes', 'Yes'), 'other')
    assert.equal(c.severity, 'medium')
    assert.match(c.summary, /Free: feature "Audit log" removed; Team: feature "SSO" added/)
  })

  it('a cell that is not a mark is left to the text comparison', () => {
    const [c] = compare(row('Storage', '✓', '✓', '✓'), row('Storage', '5 GB', '✓', '✓'))
    assert.notEqual(c.changeType, 'feature_removed')
    assert.match(c.summary, /5 GB/)
  })
})
