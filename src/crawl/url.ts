import { domainToASCII, domainToUnicode } from 'node:url'
import { parse as parseDomain } from 'tldts'

// Query parameters that identify a visit, not a page.
const TRACKING_PARAM =
  /^(utm_[a-z_]+|gclid|gbraid|wbraid|fbclid|msclkid|dclid|yclid|mc_cid|mc_eid|_ga|_gl|_hsenc|_hsmi|hsa_[a-z]+|mkt_tok|igshid|ref_src|oly_[a-z]+|vero_[a-z]+|trk|trkCampaign|sc_campaign|s_kwcid|cb|cachebuster|_)$/i

/**
 * The one form of a URL we compare and store: lower-case host, no default port, no
 * fragment, no tracking or cache-busting parameters, sorted query. A trailing slash is
 * kept: /a and /a/ are two resources to a server, which may answer one and not the
 * other (discovery takes them as one page when the server redirects one to the other).
 * Returns null for anything that is not an absolute http(s) URL.
 */
export function normalizeUrl (input: string, base?: string | URL): string | null {
  let url: URL
  try {
    url = new URL(input.trim(), base)
  } catch {
    return null
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
  if (url.username || url.password) return null
  url.hash = ''
  url.hostname = url.hostname.toLowerCase().replace(/\.$/, '')
  if ((url.protocol === 'http:' && url.port === '80') || (url.protocol === 'https:' && url.port === '443')) {
    url.port = ''
  }
  const kept = [...url.searchParams.entries()].filter(([k]) => !TRACKING_PARAM.test(k))
  kept.sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
  url.search = kept.length > 0 ? new URLSearchParams(kept).toString() : ''
  url.pathname = url.pathname.replace(/\/{2,}/g, '/')
  return url.toString()
}

/** True when `host` is `domain` itself or one of its subdomains (www, docs, …). */
export function belongsToDomain (host: string, domain: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '')
  return h === domain || h.endsWith(`.${domain}`)
}

const HOSTNAME = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*$/

/**
 * Whether an xn-- label of `hostname` is no encoded name: it does not decode, or its Unicode
 * does not encode back to it. Node.js 20's domainToASCII refuses such a label; Node.js 24's keeps it.
 */
function badPunycode (hostname: string): boolean {
  return hostname.split('.').some(label => {
    if (!label.startsWith('xn--')) return false
    const unicode = domainToUnicode(label)
    return unicode === '' || unicode === label || domainToASCII(unicode) !== label
  })
}

/**
 * Checks a domain as a client typed it. Returns the stored form or an error message.
 * We reject rather than strip schemes and paths, so a client learns what we watch.
 * An internationalised name is stored in its ASCII form (bücher.de → xn--bcher-kva.de),
 * the host that URLs, DNS and the crawler see.
 */
export function parseDomainInput (
  raw: string,
  mappedHosts: ReadonlySet<string>
): { hostname: string } | { error: string } {
  const typed = raw.trim().toLowerCase()
  if (typed === '') return { error: 'domain must not be empty' }
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(typed)) {
    return { error: 'domain must be a bare hostname, without a scheme such as https://' }
  }
  if (/[/?#@:\s]/.test(typed)) {
    return { error: 'domain must be a bare hostname, without a path, port, query or credentials' }
  }
  if (typed.endsWith('.')) return { error: 'domain must not end with a dot' }
  // '' when the name is not valid IDNA (an xn-- label that decodes to nothing, say).
  const hostname = domainToASCII(typed)
  if (!HOSTNAME.test(hostname) || badPunycode(hostname)) return { error: `"${raw.trim()}" is not a valid hostname` }
  if (mappedHosts.has(hostname)) return { hostname }
  const info = parseDomain(hostname)
  if (info.isIp) return { error: 'domain must be a hostname, not an IP address' }
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return { error: 'localhost cannot be monitored' }
  if (!info.domain || !info.publicSuffix || !info.isIcann) return { error: `"${hostname}" has no public suffix` }
  return { hostname }
}

/**
 * The host of what a person pasted where a domain is asked for: an address
 * ("https://www.example.com/pricing") gives its host, a host with a path its host; a bare
 * host stays as it is. The API asks for the bare host (parseDomainInput says why).
 */
/**
 * The page a pasted address names beyond its site's home ("https://docs.example.com/plans"),
 * normalised; undefined for a bare host or a home page.
 */
export function pastedPage (raw: string): string | undefined {
  const typed = raw.trim()
  const url = normalizeUrl(/^https?:\/\//i.test(typed) ? typed : `https://${typed}`)
  return url && new URL(url).pathname !== '/' ? url : undefined
}

export function pastedHost (raw: string): string {
  const typed = raw.trim()
  if (/^https?:\/\//i.test(typed)) {
    try {
      return new URL(typed).hostname
    } catch {
      return typed
    }
  }
  return typed.split(/[/?#]/)[0]
}
