import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { compareContent, readPage } from '../../src/detection/detect.js'
import { FACT_KINDS, PAGE_TYPES, type Fact } from '../../src/vocabulary/core.js'
import { factsOf, ruleMatches } from '../../src/vocabulary/alert-rules.js'
import { FACT_RULES, FACT_WORDS, judge } from '../../src/vocabulary/facts.js'
import { layout, pricingMain } from '../helpers/fixtures.js'

// The one table (vocabulary/facts.ts): every fact on every page type gets a type and a
// severity from it, and a price move gets the same whether the page was read as a table
// of plans or as text.

describe('facts, then one table', () => {
  it('names every fact on every page type, and counts every kind in words', () => {
    for (const kind of FACT_KINDS) {
      assert.ok(FACT_RULES.some(r => r.kind === kind && r.pages === undefined && r.when === undefined),
        `${kind} ends in a row for any page`)
      assert.ok(FACT_WORDS[kind], kind)
      for (const pageType of PAGE_TYPES) {
        for (const fact of variants(kind)) {
          const judged = judge(fact, pageType)
          assert.ok(judged.changeType && judged.severity, `${kind} on ${pageType}`)
        }
      }
    }
  })

  it('weighs a price by its move, on any page: half up is critical, a fifth either way high, less medium', () => {
    const sev = (percent: number) => judge({ kind: percent > 0 ? 'price_up' : 'price_down', percent }, 'pricing').severity
    assert.deepEqual([60, 30, 10, -10, -30].map(sev), ['critical', 'high', 'medium', 'medium', 'high'])
    for (const pageType of PAGE_TYPES) {
      assert.equal(judge({ kind: 'price_up', percent: 30 }, pageType).severity, 'high', pageType)
    }
  })

  it('a legal page\'s revision date alone is a low update of its terms; elsewhere a low content change', () => {
    assert.deepEqual(judge({ kind: 'revision_date_changed' }, 'terms'), { changeType: 'terms_update', severity: 'low' })
    assert.deepEqual(judge({ kind: 'revision_date_changed' }, 'features'), { changeType: 'content_change', severity: 'low' })
  })

  for (const [move, from, to] of [['+10%', '$50', '$55'], ['+30%', '$50', '$65'], ['-30%', '$50', '$35']] as const) {
    it(`the same price move (${move}) has the same severity read as a table and as text`, () => {
      const page = (pro: string) => layout('Pricing — Acme', pricingMain(pro))
      const [a, b] = [readPage(page(from), undefined, undefined, 'pricing'), readPage(page(to), undefined, undefined, 'pricing')]
      const [table] = compareContent(a.text, b, 'pricing', undefined, { before: page(from), after: page(to) })
      const [text] = compareContent(a.text, b, 'pricing')
      assert.ok(table.diffData.pricing, 'read as a table')
      assert.equal(text.diffData.pricing, undefined, 'read as text')
      assert.equal(table.severity, text.severity)
      assert.equal(table.changeType, 'price_change')
      assert.equal(text.changeType, 'price_change')
      assert.deepEqual([table.diffData.facts![0].kind, table.diffData.facts![0].percent],
        [text.diffData.facts![0].kind, text.diffData.facts![0].percent])
      // A rule about the price matches it either way.
      const rule = { price: { plan: 'pro', direction: move.startsWith('+') ? 'up' as const : 'down' as const, minPercent: 10 } }
      for (const c of [table, text]) {
        const f = factsOf({ domainId: 'd', domainTags: [], pageType: 'pricing', ...c })
        assert.ok(ruleMatches(rule, f), `${c.diffData.pricing ? 'table' : 'text'}: ${JSON.stringify(f.priceMoves)}`)
        assert.ok(!ruleMatches({ price: { plan: 'business' } }, f))
      }
    })
  }
})

/** A kind's facts as the readers make them: each condition of its rows met and not. */
function variants (kind: Fact['kind']): Fact[] {
  return [
    { kind },
    { kind, percent: 60 },
    { kind, percent: -60 },
    { kind, percent: 5 },
    { kind, priced: true },
    { kind, legalWords: true, lines: 10, words: 50 },
    ...(['breaking', 'removal', 'deprecation', 'plain'] as const).flatMap(release =>
      [{ kind, release, adds: true }, { kind, release, adds: false }])
  ]
}
