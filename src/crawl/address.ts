import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

/**
 * True only for globally routable unicast addresses. Loopback, private, link-local
 * (cloud metadata at 169.254.169.254 included), CGNAT, multicast, reserved,
 * documentation, NAT64/6to4/Teredo wrappers and IPv4-mapped IPv6 forms of any of
 * these are all refused.
 */
export function isPublicAddress (ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false
  let addr = ipaddr.parse(ip)
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address()
  }
  if (addr.range() !== 'unicast') return false
  // Ranges ipaddr.js files under unicast that are not reachable on the public Internet.
  if (addr.kind() === 'ipv4') {
    const special = [
      '192.0.0.0/24',
      '192.0.2.0/24',
      '198.18.0.0/15',
      '198.51.100.0/24',
      '203.0.113.0/24',
      '0.0.0.0/8',
      '240.0.0.0/4'
    ]
    return !special.some(cidr => addr.match(ipaddr.parseCIDR(cidr) as [ipaddr.IPv4, number]))
  }
  return (
    (addr as ipaddr.IPv6).toNormalizedString().startsWith('2') ||
    (addr as ipaddr.IPv6).toNormalizedString().startsWith('3')
  )
}

// Names that mean this machine or the local network in every spelling (RFC 6761's
// localhost, mDNS's .local, .internal as clouds use it, home.arpa, a trailing dot).
const LOCAL_NAME = /(^|\.)(localhost|localdomain|local|internal|lan|home\.arpa)$/

/** A name that only a local resolver answers: a single label (`intranet`) or a local suffix. */
export function isLocalName (host: string): boolean {
  const name = host.toLowerCase().replace(/\.+$/, '')
  if (isIP(name)) return false
  return !name.includes('.') || LOCAL_NAME.test(name)
}

/**
 * Whether a URL's host resolves only to public addresses now, for refusing a private
 * destination when a client names it (the fetcher checks again at every connection).
 * Hosts in the crawl host map, and every host when private networks are allowed, pass.
 */
export async function pointsToPublicAddress (
  url: URL,
  opts: { hostMap: ReadonlyMap<string, URL>, allowPrivateNetworks: boolean }
): Promise<boolean> {
  if (opts.hostMap.has(url.hostname) || opts.allowPrivateNetworks) return true
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (isLocalName(host)) return false
  const addresses = isIP(host)
    ? [host]
    : await lookup(host, { all: true }).then(
      r => r.map(a => a.address),
      () => []
    )
  return !addresses.some(a => !isPublicAddress(a))
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * DNS resolution that refuses non-public answers, for a socket's `lookup`: the socket
 * connects to the very address checked here, so a second, different DNS answer (a
 * rebinding) cannot slip past, and a name that does not resolve connects nowhere.
 */
export function publicOnlyLookup (
  hostname: string, options: { all?: boolean, family?: number }, callback: LookupCallback
): void {
  dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (err, addresses) => {
    if (err) {
      callback(err, [])
      return
    }
    const refused = addresses.find(a => !isPublicAddress(a.address))
    if (refused || addresses.length === 0) {
      const e = new Error(
        `${hostname} resolves to ${refused?.address ?? 'nothing'}, which is not a public address`
      ) as NodeJS.ErrnoException
      e.code = 'EBLOCKEDADDRESS'
      callback(e, [])
      return
    }
    if (options.all) callback(null, addresses)
    else callback(null, addresses[0].address, addresses[0].family)
  })
}
