// Whether a page, as a plain HTTP client got it, needs a browser to be seen: pure,
// tested without I/O. Asked only in `auto` mode, and only of pages fetched plainly.

/** Words of the pages that bot walls answer a plain client with. */
const CHALLENGE =
  /(checking (?:if the site connection is secure|your browser)|just a moment\.\.\.|cf-chl|challenge-platform|__cf_chl|ddos-guard|please enable (?:javascript|js) and cookies|enable javascript to (?:continue|proceed)|are you a robot|verify you are human|captcha|px-captcha|_incapsula_|perimeterx)/i

const NOSCRIPT_ASKS = /<noscript[^>]*>[^<]{0,400}?(enable|activate|turn on|requires?|need|aktivieren|activer|activa|abilita|inschakelen|ative)[^<]{0,80}?javascript/i
const EMPTY_ROOT = /<(div|main|section)\b[^>]*\bid=["']?(root|app|__next|__nuxt|svelte|application|main-app)["']?[^>]*>\s*<\/\1>/i
const SCRIPT = /<script\b[^>]*>([\s\S]*?)<\/script>/gi
const EXTERNAL_SCRIPT = /<script\b[^>]*\bsrc=/gi

/** Why a page needs the browser, or undefined when a plain fetch shows it. */
export function needsBrowser (status: number, html: string): string | undefined {
  const head = html.slice(0, 200_000)
  if ((status === 403 || status === 429 || status === 503) && CHALLENGE.test(head)) {
    return `bot wall: HTTP ${status} with a challenge page`
  }
  if (status >= 400) return undefined
  if (EMPTY_ROOT.test(head)) return 'an empty application root'
  if (NOSCRIPT_ASKS.test(head)) return 'a noscript asking for JavaScript'
  const visible = visibleChars(head, MIN_VISIBLE)
  if (visible >= MIN_VISIBLE) return undefined
  const { scriptBytes, scripts } = scriptPayload(head)
  return scriptBytes > 20_000 || scripts >= 3
    ? `little visible text (${visible} characters) and a large script payload`
    : undefined
}

/** Below this many characters of visible text, a page may be only a shell for its scripts. */
const MIN_VISIBLE = 200

// A page's text one token at a time: a script or a style (shows nothing), a tag or an entity (a space between
// words), or text. Asked of every page fetched plainly, on the thread that serves the API: the count stops once
// it has enough, where a page's whole text, with its scripts and tags replaced out, made several copies of it.
const TOKEN = /(<script\b[^>]*>[\s\S]*?<\/script>|<style\b[\s\S]*?<\/style>)|(<[^>]+>|&[a-z#0-9]+;)|[^<&]+|[<&]/gi

/**
 * How many characters of text a page shows without its scripts and styles, its spaces collapsed and trimmed;
 * counted until there are `enough`.
 */
function visibleChars (head: string, enough: number): number {
  let visible = 0
  let gap = false
  const tokens = new RegExp(TOKEN)
  for (let m = tokens.exec(head); m !== null && visible < enough; m = tokens.exec(head)) {
    if (m[1] !== undefined) continue
    if (m[2] !== undefined) {
      gap = true
      continue
    }
    let text = m[0].replace(/\s+/g, ' ')
    if (text[0] === ' ') {
      gap = true
      text = text.slice(1)
    }
    if (text === '') continue
    if (gap && visible > 0) visible++
    gap = text.endsWith(' ')
    visible += gap ? text.length - 1 : text.length
  }
  return visible
}

/** How much inline script a page carries, and how many scripts (its external ones, and its inline ones as one). */
function scriptPayload (head: string): { scriptBytes: number, scripts: number } {
  let scriptBytes = 0
  for (const m of head.matchAll(SCRIPT)) scriptBytes += m[1].length
  return { scriptBytes, scripts: (head.match(EXTERNAL_SCRIPT)?.length ?? 0) + (scriptBytes > 0 ? 1 : 0) }
}

/**
 * Whether a plain answer can stand for the page when the browser fails on it (a script
 * that navigates to a missing page, a renderer crash): a success, no bot wall, and text
 * enough to read, even beside an application root its scripts would fill.
 */
export function readableWithoutBrowser (status: number, html: string): boolean {
  if (status >= 400 || isBotWall(status, html) || stillChallenged(html)) return false
  return visibleChars(html.slice(0, 200_000), MIN_VISIBLE) >= MIN_VISIBLE
}

/**
 * Whether an answer is a bot wall's (then an error status is not the page's last word):
 * the challenge a CDN says it sent (Cloudflare's `cf-mitigated: challenge`), or a refusal
 * (401, 403, 429, 503) whose page is a challenge or a captcha.
 */
export function isBotWall (status: number, html: string, challengeHeader = false): boolean {
  if (challengeHeader) return true
  return REFUSALS.has(status) && CHALLENGE.test(html.slice(0, 200_000))
}

const REFUSALS = new Set([401, 403, 429, 503])

/** Below this much visible text, a page that speaks of a challenge is the challenge, not a page about one. */
const CHALLENGE_PAGE_TEXT = 600

/**
 * Whether a page the browser rendered is still a bot wall's challenge (the browser did
 * not pass it): a short page in a challenge's words. Recorded as blocked, never as the
 * page's text.
 */
export function stillChallenged (html: string): boolean {
  const head = html.slice(0, 200_000)
  return CHALLENGE.test(head) && visibleChars(head, CHALLENGE_PAGE_TEXT) < CHALLENGE_PAGE_TEXT
}

/** Challenge pages are small; a larger page is read as a page (and never decoded here for this). */
const CHALLENGE_PAGE_BYTES = 64 * 1024

/** Whether a plain answer's bytes are a bot wall's challenge page, even with a 200 (see stillChallenged). */
export function isChallengePage (raw: Buffer): boolean {
  return raw.length <= CHALLENGE_PAGE_BYTES && stillChallenged(raw.toString('latin1'))
}
