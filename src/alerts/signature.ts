import { createHmac, timingSafeEqual } from 'node:crypto'

// Deliveries carry `X-Sitewatch-Signature: t=<unix seconds>,v1=<hex>` where v1 is
// HMAC-SHA256 of `${t}.${raw body}` under the endpoint's secret. A receiver recomputes
// it over the raw bytes it got, compares in constant time, and refuses a t more than
// five minutes from its own clock (a replay).

export const SIGNATURE_HEADER = 'X-Sitewatch-Signature'
export const TOLERANCE_SECONDS = 300

export function sign (secret: string, body: string, at = Math.floor(Date.now() / 1000)): string {
  const mac = createHmac('sha256', secret).update(`${at}.${body}`).digest('hex')
  return `t=${at},v1=${mac}`
}

/** The receiver's side of the recipe. */
export function verify (
  secret: string,
  body: string,
  header: string | undefined,
  now = Math.floor(Date.now() / 1000)
): boolean {
  if (!header) return false
  const parts = Object.fromEntries(header.split(',').map(kv => kv.split('=', 2) as [string, string]))
  const at = Number(parts.t)
  if (!Number.isInteger(at) || Math.abs(now - at) > TOLERANCE_SECONDS || !parts.v1) return false
  const expected = Buffer.from(createHmac('sha256', secret).update(`${at}.${body}`).digest('hex'))
  const given = Buffer.from(parts.v1)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

// Links to a change's images in webhook and Slack payloads work without an API key
// until they expire: /public/changes/<id>/images/<which>?expires=<unix s>&signature=<hex>,
// the signature an HMAC-SHA256 of `<id>.<which>.<expires>` under the service's own secret.

/** How long an image link in a payload works. */
export const IMAGE_LINK_SECONDS = 7 * 86_400

const imageMac = (secret: string, changeId: string, which: string, expires: number) =>
  createHmac('sha256', secret).update(`${changeId}.${which}.${expires}`).digest('hex')

export function signedImageLinks (
  secret: string,
  publicBaseUrl: string,
  changeId: string,
  now = Math.floor(Date.now() / 1000)
): Record<'before' | 'after' | 'diff', string> {
  const expires = now + IMAGE_LINK_SECONDS
  const base = publicBaseUrl.replace(/\/$/, '')
  const link = (which: string) => {
    const signature = imageMac(secret, changeId, which, expires)
    return `${base}/public/changes/${changeId}/images/${which}?expires=${expires}&signature=${signature}`
  }
  return { before: link('before'), after: link('after'), diff: link('diff') }
}

export function verifyImageLink (
  secret: string,
  changeId: string,
  which: string,
  expires: number,
  signature: string,
  now = Math.floor(Date.now() / 1000)
): boolean {
  if (!Number.isInteger(expires) || expires < now) return false
  const expected = Buffer.from(imageMac(secret, changeId, which, expires))
  const given = Buffer.from(signature)
  return given.length === expected.length && timingSafeEqual(given, expected)
}
