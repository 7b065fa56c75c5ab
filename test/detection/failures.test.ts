import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ANALYSIS_TIMEOUT, CRAWL_FAILED, explainFailure } from '../../src/vocabulary/failures.js'

// The failures table says what to do about a page, and about a site whose discovery read
// none of its pages: a site has no page to delete, and discovery reads without a browser.

const CODES = [
  'BOT_WALL', 'CHALLENGE_UNPASSED', 'ROBOTS_DISALLOWED', 'HTTP_STATUS:401', 'HTTP_STATUS:403', 'HTTP_STATUS:429',
  'HTTP_STATUS:404', 'HTTP_STATUS:410', 'HTTP_STATUS:503', 'DNS', 'TIMEOUT', 'NETWORK', 'NOT_HTML', 'TOO_LARGE',
  'EMPTY_PAGE', 'BAD_DOCUMENT', 'TOO_MANY_REDIRECTS', 'BAD_URL', 'RENDER_FAILED', 'BROWSER_UNAVAILABLE',
  'BLOCKED_ADDRESS', ANALYSIS_TIMEOUT, CRAWL_FAILED, 'SOMETHING_NEW'
]

describe('what to do about a failure', () => {
  it('a site\'s discovery is never told to act on "this page", nor to run the browser on discovery', () => {
    for (const code of CODES) {
      const { kind, nextStep } = explainFailure(code, 'site')
      assert.equal(kind, explainFailure(code).kind, code)
      assert.doesNotMatch(nextStep, /this (page|one)\b|the page's render|delete the page|check now/i, `${code}: ${nextStep}`)
      assert.doesNotMatch(nextStep, /render to "always"[^.]*run discovery again/, `${code}: discovery reads without a browser`)
    }
  })

  it('a page is told its own next step', () => {
    assert.match(explainFailure('HTTP_STATUS:404').nextStep, /^The page is gone; .*then delete this one\.$/)
    assert.match(explainFailure('HTTP_STATUS:404', 'site').nextStep, /^The site's home page and its usual pages answer "not found"/)
    assert.match(explainFailure(null, 'site').nextStep, /^Run discovery again/)
  })
})
