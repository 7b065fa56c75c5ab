import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { findMoney } from '../../src/detection/words/money.js'
import { evaluate, qualityCases, showsDifference } from './corpus.js'
import { evaluateHistory, historyEdits } from './histories.js'
import { evaluateLong, longCases } from './long-documents.js'
import { readerCases } from './readers.js'

// Every pair of the labelled set is a test (npm run quality prints the same as figures).

describe('the labelled set, pair by pair', () => {
  for (const c of qualityCases()) {
    it(c.id, () => {
      const o = evaluate(c)
      const seen = o.changes.map(ch => `${ch.changeType}/${ch.severity}: ${ch.summary}`)
      assert.equal(o.pageTypeGot, c.pageType, 'page type')
      if (!c.edit) assert.deepEqual(seen, [], 'a noise pair stays silent')
      else {
        assert.ok(o.found, 'the change is found')
        assert.ok(o.typeRight, `expected ${c.edit.expect}${c.edit.severity ? `/${c.edit.severity}` : ''}; got ${seen.join(' | ')}`)
        assert.ok(o.showsDifference, `the summary shows what changed: ${seen.join(' | ')}`)
        assert.ok(o.oneChange, `one edit, one change: ${seen.join(' | ')}`)
        assert.ok(!o.priceWithoutPrice, `no price moved: ${seen.join(' | ')}`)
      }
    })
  }
})

describe('money in every common convention', () => {
  const cases: Array<[string, string, number, string]> = [
    ['49 €', '€', 49, ''],
    ['49,00 € HT / mois', '€', 49, 'month'],
    ['1.299,00 € pro Jahr', '€', 1299, 'year'],
    ['CHF 49.– pro Monat', 'CHF', 49, 'month'],
    ['R$ 49,90 por mês', 'R$', 49.9, 'month'],
    ['¥4,980', '¥', 4980, ''],
    ['£8.99 per user/month', '£', 8.99, 'user/month'],
    ['29 € al mese + IVA', '€', 29, 'month'],
    ['€ 24,95 per maand excl. btw', '€', 24.95, 'month'],
    ['15 € /mes', '€', 15, 'month'],
    ['1 299 € par an', '€', 1299, 'year'],
    ['$1,299/yr', '$', 1299, 'year']
  ]
  for (const [written, currency, amount, period] of cases) {
    it(written, () => {
      const [m] = findMoney(`Plan: ${written}`)
      assert.deepEqual({ currency: m.currency, amount: m.amount, period: m.period }, { currency, amount, period })
      assert.equal(m.raw, written, 'the tax note and the period stay in the quoted price')
    })
  }
})

describe('what counts as a summary that shows the difference', () => {
  const edit = { from: 'within one working day.', to: 'within two working days.' }
  it('quotes of the edit\'s own words', () => {
    assert.ok(showsDifference('FAQ: "…within one working day." → "…within two working days."', edit))
  })
  it('not two identical quotes, as cut before the edit', () => {
    assert.ok(!showsDifference('"Zu den häufigsten Fragen…" → "Zu den häufigsten Fragen…" (two days)', edit))
  })
  it('not a summary without a word of the edit', () => {
    assert.ok(!showsDifference('Terms updated in 11 places', edit))
  })
})

describe('the structured readers\' labelled set, case by case', () => {
  for (const c of readerCases()) {
    it(`${c.reader}, ${c.kind}: ${c.id}`, () => {
      const { right, seen } = c.run()
      assert.ok(right, seen)
    })
  }
})

describe('long documents: the edit that matters leads, trivial edits stay low', () => {
  for (const c of longCases()) {
    it(c.id, () => {
      const o = evaluateLong(c)
      const seen = o.changes.map(ch => `${ch.changeType}/${ch.severity}: ${ch.summary}`).join(' | ')
      assert.ok(o.ledRight, seen)
      assert.ok(!o.trivialTooHigh, seen)
    })
  }
})

describe('revision histories: each real edit one change, typed right, no price that did not move', () => {
  for (const e of historyEdits()) {
    it(`${e.reader}, ${e.history}: ${e.id}`, () => {
      const o = evaluateHistory(e)
      assert.ok(o.oneChange && o.typeRight, `expected ${e.expected}${e.summary ? ` (${String(e.summary)})` : ''}; got ${o.seen}`)
      assert.deepEqual(o.nothing, [], 'no price pair that says nothing happened')
      assert.deepEqual(o.stray, [], 'no percentage no plan moved by')
      assert.equal(o.hidden, 0, 'no changed line of the text left out of the change')
    })
  }
})
