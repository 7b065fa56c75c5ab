// What "not important" learns (detection/classify/learn.ts), on passages as real pages move them.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { learnedPattern } from '../../src/detection/classify/learn.js'
import { patternMasker } from '../../src/detection/text/noise-rules.js'

const masks = (pattern: string, line: string) => patternMasker({ ignorePatterns: [pattern] })!(line) !== line

describe('learned patterns', () => {
  it('a counter, a build id, a timestamp: the moving parts become their class, the rest stays as written', () => {
    const counter = learnedPattern(['Tickets answered this week: 1,204'], ['Tickets answered this week: 1,311'])!
    assert.equal(counter.shown, 'Tickets answered this week: …')
    assert.ok(masks(counter.pattern, 'Tickets answered this week: 98,000'))
    assert.ok(!masks(counter.pattern, 'Tickets opened this week: 98,000'))
    const build = learnedPattern(['Prices updated 2 minutes ago. Build 9a3f00a1b2c3'],
      ['Prices updated 3 minutes ago. Build 9a3f00a1b2c4'])!
    assert.equal(build.shown, 'Prices updated … minutes ago. Build …')
    assert.ok(masks(build.pattern, 'Prices updated 59 minutes ago. Build ffee0011'))
    const stamp = learnedPattern(['Généré le 26/11/2026 à 04:00'], ['Généré le 27/11/2026 à 05:10'])!
    assert.ok(masks(stamp.pattern, 'Généré le 01/12/2026 à 23:59'))
    // Several lines that move alike are one pattern; lines that move differently are none.
    assert.ok(learnedPattern(['Online now: 12', 'Online now: 30'], ['Online now: 14', 'Online now: 31']))
    assert.equal(learnedPattern(['Online now: 12', 'Queue: 3'], ['Online now: 14', 'Queue: 4']), undefined)
  })

  it('never a price, never a passage that changed its words, never an addition alone', () => {
    assert.equal(learnedPattern(['Pro $49 per month'], ['Pro $59 per month']), undefined)
    assert.equal(learnedPattern(['Pro: 49 EUR per seat'], ['Pro: 59 EUR per seat']), undefined)
    assert.equal(learnedPattern(['Pro 49 € / Monat'], ['Pro 59 € / Monat']), undefined)
    assert.equal(learnedPattern(['Ada, CTO: great tool'], ['Grace, engineer: fast support']), undefined)
    assert.equal(learnedPattern([], ['New: SSO for every plan']), undefined)
    assert.equal(learnedPattern(['Same line'], ['Same line']), undefined)
  })
})
