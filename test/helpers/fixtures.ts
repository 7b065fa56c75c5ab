import { gzipSync } from 'node:zlib'
import { TestSite } from './site.js'

// A small but realistic company site: every page type, robots.txt with a sitemap
// index, a gzip sitemap, a page robots.txt forbids, and the usual chrome (nav,
// footer, cookie banner, scripts) around the content.

export const layout = (
  title: string,
  main: string,
  extra: { footerYear?: number, nonce?: string } = {}
) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<link rel="stylesheet" href="/assets/app.css?v=${extra.nonce ?? 'a1'}">
<script nonce="${extra.nonce ?? 'n0nce1'}">window.__BUILD__="${extra.nonce ?? 'b1'}"</script></head>
<body>
<header><a href="/">Acme</a><nav><a href="/pricing">Pricing</a> <a href="/features">Features</a> <a href="https://docs.acme.test/api">API</a> <a href="/blog">Blog</a></nav></header>
<div id="cookie-consent" class="cookie-banner">We use cookies to improve your experience. <button>Accept</button></div>
<main>${main}</main>
<footer><a href="/legal/terms">Terms of Service</a> <a href="/privacy">Privacy</a> <a href="/security">Security</a> <a href="/changelog">Changelog</a>
<p>© ${extra.footerYear ?? 2025} Acme Inc.</p></footer>
</body></html>`

export const pricingMain = (pro = '$49', business = '$99', proFeatures = ['10 users', 'SSO', 'Priority support']) => `
<h1>Plans and pricing</h1><p>Simple pricing that grows with your team.</p>
<section class="plan"><h2>Starter</h2><p class="price">$19/month</p><ul><li>1 user</li><li>Email support</li></ul></section>
<section class="plan"><h2>Pro</h2><p class="price">${pro}/month</p><ul>${proFeatures.map(f => `<li>${f}</li>`).join('')}</ul></section>
<section class="plan"><h2>Business</h2><p class="price">${business}/month</p><ul><li>Unlimited users</li><li>Audit logs</li></ul></section>
<p>All prices in USD, billed monthly. Contact sales for volume discounts.</p>`

export const featuresMain = `<h1>Features</h1><p>Everything you need to ship faster.</p>
<h2>Automation</h2><ul><li>Workflow builder</li><li>Scheduled jobs</li></ul>
<h2>Analytics</h2><ul><li>Dashboards</li><li>Custom reports</li></ul>`

export const termsMain = (
  liability = 'Our total liability is limited to the fees paid in the last 12 months.'
) => `<h1>Terms of Service</h1>
<p>Effective date: January 1, 2025</p>
<h2>1. Agreement</h2><p>By using the service you agree to these terms. These terms shall govern your use.</p>
<h2>2. Liability</h2><p>${liability}</p>
<h2>3. Governing law</h2><p>These terms are governed by the laws of Delaware.</p>`

export const securityMain = `<h1>Security at Acme</h1><p>We encrypt all data at rest with AES-256 and in transit with TLS 1.2+.</p>
<h2>Compliance</h2><p>Acme is SOC 2 Type II audited every year.</p><h2>Vulnerability disclosure</h2><p>Report vulnerabilities to security@acme.test.</p>`

export const apiMain = `<h1>API reference</h1><p>Authenticate every request with a bearer token.</p>
<h2>GET /v1/projects</h2><p>Returns a JSON list of projects. Request parameters: limit, cursor. Response status code 200.</p>
<pre>curl -H "Authorization: Bearer $TOKEN" https://api.acme.test/v1/projects</pre>`

export const changelogMain = `<h1>Changelog</h1><h2>v2.4.0</h2><ul><li>Added dark mode</li><li>Fixed export bug</li></ul>
<h2>v2.3.1</h2><ul><li>Improved performance</li></ul>`

export const homeMain = `<h1>Acme helps teams ship</h1><p>The platform for modern teams.</p>
<p><a href="/pricing">See pricing</a> or <a href="/features">explore features</a>.</p>`

const sitemap = (urls: string[]) => `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.map(u => `<url><loc>${u}</loc></url>`).join('')}</urlset>`

export async function startAcmeSite (opts: { extraSitemapUrls?: string[] } = {}): Promise<TestSite> {
  const site = await new TestSite().start()
  site.page('/', layout('Acme — ship faster', homeMain))
  site.page('/pricing', layout('Pricing — Acme', pricingMain()))
  site.page('/features', layout('Features — Acme', featuresMain))
  site.page('/legal/terms', layout('Terms of Service — Acme', termsMain()))
  site.page(
    '/privacy',
    layout(
      'Privacy Policy — Acme',
      '<h1>Privacy Policy</h1><p>We process personal data as described here. You may request deletion of your ' +
      'personal data.</p>'
    )
  )
  site.page('/security', layout('Security — Acme', securityMain))
  site.page('/api', layout('API reference — Acme Docs', apiMain))
  site.page('/changelog', layout('Changelog — Acme', changelogMain))
  site.page('/blog', layout('Blog — Acme', '<h1>Blog</h1><p>Stories from the team.</p>'))
  site.page('/about', layout('About — Acme', '<h1>About us</h1><p>We are a small team.</p>'))
  site.page('/private/roadmap', layout('Internal roadmap', '<h1>Pricing roadmap</h1><p>Secret $1 plan.</p>'))
  site.set('/robots.txt', {
    body: 'User-agent: *\nDisallow: /private/\n\nSitemap: https://acme.test/sitemap_index.xml\n',
    headers: { 'content-type': 'text/plain' }
  })
  site.set('/sitemap_index.xml', {
    body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>https://acme.test/sitemap-pages.xml</loc></sitemap><sitemap><loc>https://acme.test/sitemap-more.xml.gz</loc></sitemap></sitemapindex>`,
    headers: { 'content-type': 'application/xml' }
  })
  site.set('/sitemap-pages.xml', {
    body: sitemap([
      'https://acme.test/',
      'https://acme.test/about',
      'https://acme.test/private/roadmap',
      'https://acme.test/pricing?utm_source=sitemap'
    ]),
    headers: { 'content-type': 'application/xml' }
  })
  site.set('/sitemap-more.xml.gz', {
    body: gzipSync(sitemap(['https://acme.test/changelog', ...(opts.extraSitemapUrls ?? [])])),
    headers: { 'content-type': 'application/gzip' }
  })
  return site
}

/** CRAWL_HOST_MAP routing acme.test and its subdomains to the local site. */
export const acmeHostMap = (site: TestSite) =>
  ['acme.test', 'www.acme.test', 'docs.acme.test'].map(h => `${h}=${site.origin}`).join(',')
