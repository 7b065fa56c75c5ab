// Why a page could not be checked, in the words a person acts on: whether the site blocks
// Sitewatch (a bot wall, a refusal, its robots.txt) or the page or site is broken, and
// what to do next. One ordered table (FAILURE_RULES): the first rule that matches a
// failure's code names it. A failure's code is its FetchError's code, with the HTTP
// status for HTTP_STATUS ("HTTP_STATUS:404"), or one of the pipeline's own. A rule says
// what to do about a page, and, where that differs, about a site whose discovery failed
// (no page of it could be read: a site has no render setting, and nothing to delete but itself).

/** Blocked: the site keeps Sitewatch out. Error: the page or the site is broken, or too much to read. */
export type FailureKind = 'blocked' | 'error'

export interface FailureExplained {
  kind: FailureKind
  /** What a person can do, in a sentence. */
  nextStep: string
}

interface FailureRule extends FailureExplained {
  /** What to do when it is the site's discovery that failed so, where that differs. */
  siteStep?: string
}

/** Whether the failure is a page's check or a site's discovery. */
export type FailureOf = 'page' | 'site'

const ADD_BY_ADDRESS = 'or add the pages you want watched by their address (Add pages)'
// Discovery reads without a browser; the pages added by hand are read with the domain's render.
const THEN_ADD = 'and add the pages you want watched by their address: each is read in the browser'

/** The pipeline's own failures, beside the fetch's codes. */
export const ANALYSIS_TIMEOUT = 'ANALYSIS_TIMEOUT'
export const CRAWL_FAILED = 'CRAWL_FAILED'

const status = (code: string) => Number(/^HTTP_STATUS:(\d{3})$/.exec(code)?.[1] ?? 0)

const FAILURE_RULES: ReadonlyArray<readonly [test: (code: string) => boolean, explained: FailureRule]> = [
  [c => c === 'BOT_WALL', {
    kind: 'blocked',
    nextStep: "The site answers automated visitors with a challenge. Set the page's render to \"always\" (a real " +
      'browser), check it less often, or ask the site to allow SitewatchBot.',
    siteStep: 'The site answers automated visitors with a challenge. Ask the site to allow SitewatchBot, or set ' +
      `the domain's render to "always" (a real browser) ${THEN_ADD}.`
  }],
  [c => c === 'CHALLENGE_UNPASSED', {
    kind: 'blocked',
    nextStep: "Even Sitewatch's browser is shown the site's challenge. Check the page less often, or ask the site " +
      'to allow SitewatchBot.'
  }],
  [c => c === 'ROBOTS_DISALLOWED', {
    kind: 'blocked',
    nextStep: "The site's robots.txt asks crawlers not to read this page, and Sitewatch obeys it. Ask the site to " +
      'allow SitewatchBot, or delete the page.',
    siteStep: "The site's robots.txt asks crawlers to keep out, and Sitewatch obeys it. Ask the site to allow " +
      'SitewatchBot, or delete the domain.'
  }],
  [c => [401, 403].includes(status(c)), {
    kind: 'blocked',
    nextStep: 'The site refuses Sitewatch. If the page is public in a browser, set its render to "always", or ask ' +
      'the site to allow SitewatchBot; a page behind a sign-in cannot be watched.',
    siteStep: 'The site refuses Sitewatch. If it is public in a browser, ask the site to allow SitewatchBot, or set ' +
      `the domain's render to "always" ${THEN_ADD}; pages behind a sign-in cannot be watched.`
  }],
  [c => status(c) === 429, {
    kind: 'blocked',
    nextStep: 'The site says Sitewatch asks too often. Sitewatch waits as long as the site asks; check this domain ' +
      'less often, or watch fewer of its pages.'
  }],
  [c => [404, 410].includes(status(c)), {
    kind: 'error',
    nextStep: 'The page is gone; it may have moved. Run discovery again to find its new address, then delete this one.',
    siteStep: 'The site\'s home page and its usual pages answer "not found". Check that the domain is spelled right, ' +
      `${ADD_BY_ADDRESS}, or run discovery again later.`
  }],
  [c => status(c) >= 500, {
    kind: 'error',
    nextStep: "The site's server fails. Sitewatch tries again at every check; nothing to do unless it lasts.",
    siteStep: "The site's server fails. Run discovery again once the site answers."
  }],
  [c => c === 'DNS', {
    kind: 'error',
    nextStep: "The site's name does not resolve: check that the domain is spelled right and still in use."
  }],
  [c => c === 'TIMEOUT' || c === 'NETWORK', {
    kind: 'error',
    nextStep: 'The site did not answer in time. Sitewatch tries again at every check; check now to try at once.',
    siteStep: 'The site did not answer in time. Run discovery again later, or now to try at once.'
  }],
  [c => c === 'NOT_HTML', {
    kind: 'error',
    nextStep: 'The address is neither a web page nor a document Sitewatch reads (PDF, JSON, plain text). Delete ' +
      'it, or add the page that links to it.',
    siteStep: `The site's home page is no web page Sitewatch reads: ${ADD_BY_ADDRESS}.`
  }],
  [c => c === 'TOO_LARGE', {
    kind: 'error',
    nextStep: 'The page is larger than Sitewatch reads. Watch a smaller page of the site.'
  }],
  [c => c === 'EMPTY_PAGE', {
    kind: 'error',
    nextStep: 'Sitewatch read no text on this page: it is built by script, or shows nothing without signing in. ' +
      'Set its render to "always" so that a browser builds it; if it loads a document (an API description, a ' +
      'feed), watch that address instead.',
    siteStep: 'Sitewatch read no text on the site\'s pages: they are built by script, or show nothing without ' +
      `signing in. Set the domain's render to "always" ${THEN_ADD}.`
  }],
  [c => c === 'BAD_DOCUMENT', {
    kind: 'error',
    nextStep: 'The document cannot be read as text (the error says why: a password, a scan, its size). Watch the ' +
      'page that links to it, or a text version of it.'
  }],
  [c => c === 'TOO_MANY_REDIRECTS' || c === 'BAD_URL', {
    kind: 'error',
    nextStep: 'The page redirects in a loop or to a bad address. Open it in a browser; add the address it ends at.'
  }],
  [c => c === 'RENDER_FAILED' || c === 'BROWSER_UNAVAILABLE', {
    kind: 'error',
    nextStep: 'The browser could not show the page. Set its render to "never" if the page reads without one.'
  }],
  [c => c === 'BLOCKED_ADDRESS', {
    kind: 'error',
    nextStep: 'The site resolves to a private network address, which Sitewatch never reads.'
  }],
  [c => c === ANALYSIS_TIMEOUT, {
    kind: 'error',
    nextStep: 'Reading the page took too long. Narrow it with "Watch only" selectors, or remove an ignore pattern.'
  }]
]

const OTHERWISE: FailureExplained = {
  kind: 'error',
  nextStep: 'Sitewatch tries again at every check; check now to try at once.'
}

/** What a failure with this code is, and what to do about it: about a page, or a site whose discovery failed. */
export function explainFailure (code: string | null, of: FailureOf = 'page'): FailureExplained {
  const rule = FAILURE_RULES.find(([test]) => code !== null && test(code))?.[1]
  if (!rule) return of === 'site' ? { kind: 'error', nextStep: 'Run discovery again to try at once.' } : OTHERWISE
  return { kind: rule.kind, nextStep: of === 'site' ? rule.siteStep ?? rule.nextStep : rule.nextStep }
}

/** A FetchError's code and status as a failure's code. */
export const failureCode = (code: string, httpStatus?: number) =>
  code === 'HTTP_STATUS' && httpStatus ? `HTTP_STATUS:${httpStatus}` : code
