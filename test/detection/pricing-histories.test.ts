import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { compareContent, readPage, readPricing } from '../../src/detection/detect.js'
import type { DetectedChange } from '../../src/vocabulary/core.js'

// Pricing pages through a real edit each, shaped as the sites that showed the faults write
// them (fixtures/histories): a provider's price list (plans as rows, hourly and monthly
// columns, a table of longer terms with a setup fee and a billed total, a plan inserted,
// a row re-ordered; a card's terms with a setup fee and a total, and a table whose setup
// fee column became a total), a plan overhaul (cards: three plans replaced by four), a switch
// from per-seat to flat pricing beside a usage price cut, cards with raised cents and a setup
// fee, German cards ("ab 6,80 € mtl."), a free tier losing a feature, and plans as columns.
// Each is read as the pricing reader reads an intelligence page, and as the text comparison
// reads any page: one edit is one change, no price pair says nothing happened, and no
// percentage is one no plan moved by.

const fixture = (name: string) => readFileSync(new URL(`fixtures/histories/${name}.html`, import.meta.url), 'utf8')

function read (name: string, mode: 'table' | 'text'): DetectedChange[] {
  const [before, after] = [fixture(`${name}-1`), fixture(`${name}-2`)]
  const [b, a] = [readPage(before, undefined, undefined, 'pricing'), readPage(after, undefined, undefined, 'pricing')]
  return compareContent(b.text, a, 'pricing', undefined, mode === 'table' ? { before, after } : undefined)
}

/** The percentages a summary gives. */
const percents = (summary: string) => [...summary.matchAll(/\(([+-]\d+(?:\.\d+)?)%\)/g)].map(m => Number(m[1]))

/** What no price pair may say: a price that did not move ("A → A"), or one that went and came back. */
function saysNothingHappened (c: DetectedChange): string[] {
  const facts = c.diffData.facts ?? []
  const same = facts.filter(f => f.before !== undefined && f.before === f.after).map(f => `${f.subject}: ${f.before} → ${f.after}`)
  const back = facts.filter(f => f.kind === 'price_removed' &&
    facts.some(g => g.kind === 'price_added' && g.after === f.before)).map(f => `${f.subject}: ${f.before} gone and back`)
  return [...same, ...back]
}

for (const mode of ['table', 'text'] as const) {
  describe(`real pricing edits, read as ${mode === 'table' ? 'a table of plans' : 'text'}`, () => {
    it('a price list: one change led by the monthly price that rose, every real move and no other', () => {
      const changes = read('price-list', mode)
      assert.equal(changes.length, 1)
      const [c] = changes
      assert.equal(c.changeType, 'price_change')
      assert.equal(c.severity, 'high')
      assert.match(c.summary, /Cloud VPS 10: (€4\.50\/month|4\.50 €\/month) → (€5\.50\/month|5\.50 €\/month) \(\+22%\)/)
      assert.match(c.summary, /Cloud VPS 15 plan added \(.*5\.99.*\)/, 'the new plan named with its prices')
      assert.deepEqual(saysNothingHappened(c), [])
      for (const p of percents(c.summary)) assert.ok([22, 4].includes(p), `a move of ${p}%`)
      for (const f of c.diffData.facts!) assert.ok(f.percent === undefined || [22, 4].includes(f.percent), `${f.subject} ${f.percent}%`)
      // The setup fee is never paired with the billed total.
      assert.ok(!c.diffData.facts!.some(f => f.before === '2.25 €' && f.after !== undefined), 'a fee is not a total')
    })

    it('a plan overhaul says which plans went and which came, with their prices, and no price cut', () => {
      const [c, ...more] = read('overhaul', mode)
      assert.equal(more.length, 0)
      assert.equal(c.changeType, 'price_change')
      assert.match(c.summary, /plans Free \(\$0.*?\), Premium \(\$10.*?\) and Team \(\$19.*?\) removed/)
      assert.match(c.summary, /plans Trial \(\$0\), Standard \(\$5[^)]*\), Professional \(\$10[^)]*\) and Ultimate \(\$25[^)]*\) added/)
      assert.ok(!c.diffData.facts!.some(f => f.kind === 'price_up' || f.kind === 'price_down'), 'no plan moved its price')
      assert.deepEqual(saysNothingHappened(c), [])
    })

    it('terms with a setup fee and a total: each compared with its own kind, term and plan, the monthly rise leading', () => {
      const [c, ...more] = read('terms', mode)
      assert.equal(more.length, 0)
      assert.equal(c.severity, 'high', 'no +1220%: a fee that went is no total that came')
      assert.match(c.summary, /^(Pricing, )?Cloud VPS 10: (4\.50 € \/ month|4\.50 €\/month) → (5\.50 € \/ month|5\.50 €\/month) \(\+22%\)/)
      const facts = c.diffData.facts!
      for (const f of facts) assert.ok(f.percent === undefined || [22, 13].includes(f.percent), `${f.subject}: ${f.before} → ${f.after} (${f.percent}%)`)
      // A setup fee is never paired with a total, nor one plan's term with another's.
      assert.ok(!facts.some(f => f.before === '2.25 €' && f.after !== undefined), 'a fee is not a total')
      assert.ok(!facts.some(f => /Cloud VPS 20/.test(f.subject ?? '') && f.kind !== 'price_added' && f.kind !== 'price_removed'),
        'Cloud VPS 20 moved no price')
      // The card's six-month total is named with its plan and compared with the old total.
      assert.ok(facts.some(f => f.subject === 'Cloud VPS 10 – 6 Months' && f.before === '29.25 €' && f.after === '33.00 €' && f.percent === 13),
        JSON.stringify(facts))
      assert.deepEqual(saysNothingHappened(c), [])
    })

    it('per seat to flat, beside a usage price cut: one change that says both, the seat named', () => {
      const [c, ...more] = read('flat', mode)
      assert.equal(more.length, 0)
      assert.equal(c.changeType, 'price_change')
      assert.match(c.summary, /Pro: \$20 ?(per |\/)user\/month → \$20\/month/)
      assert.match(c.summary, /\$0\.10 ?(per |\/)GB → \$0\.05 ?(per |\/)GB \(-50%\)|Egress -50%/)
      const kinds = c.diffData.facts!.map(f => f.kind)
      assert.ok(kinds.includes('price_changed') && kinds.includes('price_down'), kinds.join())
      assert.deepEqual(saysNothingHappened(c), [])
    })
  })
}

describe('cards with their cents raised and a setup fee beside the price', () => {
  for (const mode of ['table', 'text'] as const) {
    it(`the plan's price leads, the fee is named as a fee with its plan and weighs less (${mode})`, () => {
      const [c, ...more] = read('fees', mode)
      assert.equal(more.length, 0)
      assert.match(c.summary, /^(Pricing, )?Cloud VDS M: (€44\.80\/month|44\.80 €\/month) → (€49\.90\/month|49\.90 €\/month) \(\+11%\)/)
      const fee = c.diffData.facts!.find(f => f.before === '€50' || f.before === '50 €')
      assert.deepEqual([fee?.kind, fee?.subject, fee?.charge], ['price_down', 'Cloud VDS S – Setup fee', 'setup'], JSON.stringify(fee))
      assert.equal(c.severity, 'medium', 'a waived fee is no -100% cut of the plan')
      assert.deepEqual(saysNothingHappened(c), [])
    })
  }

  it('reads "€34<sup>40</sup>" and a span of cents as 34.40, and leaves a footnote and a square metre alone', () => {
    const page = readPage(fixture('fees-1'))
    assert.ok(page.lines.includes('€34.40/month') && page.lines.includes('€64.40/month'), page.lines.join('\n'))
    assert.ok(page.lines.some(l => l.includes('32 TB1, 100 m2 of rack space')), page.lines.join('\n'))
    // A text stored before cents were read so ("€3440/month") is no price move: the same digits, re-set.
    const stored = page.text.replace('€34.40/month', '€3440/month').replace('€64.40/month', '€6440/month')
    for (const pages of [undefined, { before: fixture('fees-1'), after: fixture('fees-1') }]) {
      const told = compareContent(stored, page, 'pricing', undefined, pages)
      assert.deepEqual(told.map(c => [c.severity, c.summary]), [['low', 'Pricing, Cloud VDS S: 2 typographic edits']])
    }
    // One amount written otherwise is typography; a version's number that reads the same is not money, and moved.
    const edit = (was: string, is: string) => {
      const [b, a] = [was, is].map(t => readPage(`<html lang="en"><body><main><h1>Pricing</h1><p>${t}</p></main></body></html>`))
      return compareContent(b.text, a, 'pricing').map(c => [c.severity, c.summary])
    }
    assert.deepEqual(edit('Enterprise $1,000/month', 'Enterprise $1,000.00/month'), [['low', 'Pricing: 1 typographic edit']])
    assert.deepEqual(edit('Version 1.10 is out', 'Version 1.1 is out'), [['low', 'Pricing: "Version 1.10 is out" → "Version 1.1 is out"']])
    const plans = readPricing(fixture('fees-1')).table.plans
    assert.deepEqual(plans.map(p => p.prices.map(x => `${x.text}${x.charge ? ` ${x.charge}: ${x.label}` : ''}`)), [
      ['34.40 €/month', '50 € setup: Setup fee'], ['44.80 €/month', '50 € setup: Setup fee'], ['64.40 €/month', '50 € setup: Setup fee']
    ])
  })
})

describe('German cards: "ab 6,80 € mtl.", an hourly cap and a setup fee under each plan', () => {
  for (const mode of ['table', 'text'] as const) {
    it(`each price is named by its plan, never by the words that qualify it, and read per month (${mode})`, () => {
      const [c, ...more] = read('cards-de', mode)
      assert.equal(more.length, 0)
      assert.match(c.summary, /^(Pricing, )?CX32: (6\.80 €\/month|6,80 € mtl\.) → (7\.49 €\/month|7,49 € mtl\.) \(\+10%\); /)
      const facts = c.diffData.facts!
      assert.deepEqual(facts.map(f => f.subject), ['CX32', 'CX32', 'CX22 – Einrichtungsgebühr'], JSON.stringify(facts))
      assert.equal(facts.at(-1)!.charge, 'setup')
      assert.deepEqual(saysNothingHappened(c), [])
    })
  }
})

describe('plans as columns: a price row, an annual row, an add-on row and a mark flipped', () => {
  for (const mode of ['table', 'text'] as const) {
    it(`every move is told with its plan, the mark's removal not hidden by the prices beside it (${mode})`, () => {
      const [c, ...more] = read('columns', mode)
      assert.equal(more.length, 0)
      assert.equal(c.severity, 'high')
      assert.match(c.summary, /Growth: feature "A\/B testing" removed/)
      assert.match(c.summary, /Growth( – Monthly price)?: \$79(\/month)? → \$89(\/month)? \(\+13%\)/)
      const facts = c.diffData.facts!
      const extra = facts.find(f => f.before === '$8')
      assert.deepEqual([extra?.subject, extra?.charge, extra?.percent], ['Growth – Extra contacts', 'addon', -12])
      assert.ok(!facts.some(f => /month\/year/.test(`${f.before} ${f.after}`)), 'an annual price per month is per month')
      assert.ok(facts.every(f => f.kind === 'feature_removed' || f.subject?.startsWith('Growth')), JSON.stringify(facts))
      assert.deepEqual(saysNothingHappened(c), [])
    })
  }
})

describe('a card\'s price per month over its yearly bill ("billed annually at $192")', () => {
  for (const mode of ['table', 'text'] as const) {
    it(`both moves are the plan's, never named by the billing's words (${mode})`, () => {
      const [c, ...more] = read('billed', mode)
      assert.equal(more.length, 0)
      assert.match(c.summary, /^(Pricing, )?Pro: \$16\/mo(nth)?( \(billed yearly\))? → \$18\/mo(nth)?( \(billed yearly\))? \(\+13%\); /)
      assert.deepEqual(c.diffData.facts!.map(f => f.subject), ['Pro', 'Pro'])
    })
  }
})

describe('a free tier losing a feature while the custom plan gets a price', () => {
  for (const mode of ['table', 'text'] as const) {
    it(`the feature removed leads, high, and the new price is named, not counted (${mode})`, () => {
      const [c, ...more] = read('tiers', mode)
      assert.equal(more.length, 0)
      assert.equal(c.severity, 'high')
      assert.match(c.summary, /^(Pricing, )?Free: feature "Custom domains" removed; Enterprise: \$49\/user\/month added$/)
    })
  }
})

describe('a sale: prices struck through beside the current ones', () => {
  it('the price the sale moved is told once, the struck price neither paired nor told again', () => {
    for (const mode of ['table', 'text'] as const) {
      const [c, ...more] = read('sale', mode)
      assert.equal(more.length, 0, mode)
      assert.equal(c.changeType, 'price_change', mode)
      assert.match(c.summary, /\$9\/month → \$10\/month \(\+11%\)/, mode)
      assert.doesNotMatch(c.summary, /\$12/, `${mode}: the struck price is no price`)
      assert.doesNotMatch(c.summary, /and \d+ more/, `${mode}: the line was not told a second time`)
      assert.deepEqual(c.diffData.facts!.map(f => f.kind), ['price_up'], mode)
    }
  })

  it('extraction and the readers split blocks with one table: the struck text is on the line people read', () => {
    const page = readPage(fixture('sale-1'))
    assert.ok(page.lines.includes('$12 $9/month'), page.lines.join('\n'))
    assert.ok(page.lines.includes('Do prices include VAT?') && page.lines.includes('Prices exclude VAT.'))
  })
})

describe('a reader claims the lines the text has, however the markup splits them', () => {
  /** The one change of a pricing page's edit, read with its reader. */
  const told = (before: string, after: string) => {
    const [b, a] = [readPage(before, undefined, undefined, 'pricing'), readPage(after, undefined, undefined, 'pricing')]
    return compareContent(b.text, a, 'pricing', undefined, { before, after })
  }
  const cards = (pro: string) => '<html><body><h1>Pricing</h1><div class="cards">' +
    '<div class="card"><h3>Basic</h3><div class="price"><span>$</span><span>10</span><span>/mo</span></div></div>' +
    `<div class="card"><h3>Pro</h3>${pro}<ul><li>SSO</li></ul></div></div></body></html>`
  const rows = (pro: string) => '<html><body><h1>Pricing</h1><table><thead><tr><th>Plan</th><th>Price</th><th>Notes</th></tr></thead>' +
    `<tbody><tr><td>Basic</td><td>$10/month</td><td>For one</td></tr><tr><td>Pro</td>${pro}<td>For teams</td></tr></tbody></table></body></html>`

  it('a card\'s price broken in two lines (<br>) is one move, not told again by the text', () => {
    const [c, ...more] = told(cards('<p>$49<br>per user / month</p>'), cards('<p>$59<br>per user / month</p>'))
    assert.equal(more.length, 0)
    assert.equal(c.summary, 'Pro: $49/user/month → $59/user/month (+20%)')
    assert.deepEqual(c.diffData.facts!.map(f => f.kind), ['price_up'])
  })

  it('a sale re-priced in a table row (its struck price moved with it) is one move', () => {
    const [c, ...more] = told(rows('<td><s>$59</s> $49/month</td>'), rows('<td><s>$69</s> $59/month</td>'))
    assert.equal(more.length, 0)
    assert.equal(c.summary, 'Pro: $49/month → $59/month (+20%)')
    assert.deepEqual(c.diffData.facts!.map(f => f.kind), ['price_up'])
  })

  it('a price marked by a footnote, repriced while the notes are renumbered: one move, named by its plan', () => {
    const noted = (price: string, n: string) => '<html lang="en"><body><main><h1>Pricing</h1><div class="plans">' +
      `<div class="plan"><h3>Pro</h3><p class="price">${price}/month<sup>${n}</sup></p></div></div>` +
      `<p><sup>${n}</sup> Excludes taxes.</p></main></body></html>`
    const [c, ...more] = told(noted('$30', '1'), noted('$35', '2'))
    assert.equal(more.length, 0)
    assert.equal(c.summary, 'Pro: $30/month → $35/month (+17%)')
    assert.deepEqual(c.diffData.facts!.map(f => `${f.kind} ${f.subject}`), ['price_up Pro'], 'the mark is no plan, the move told once')
  })

  it('a floor raised ("Minimum 3 seats" → 5) is a limit lowered: the buyer is offered less', () => {
    const team = (n: number) => '<html lang="en"><body><main><h1>Pricing</h1><div class="plans"><div class="plan"><h3>Team</h3>' +
      `<div class="price"><span class="amount">$8</span><span class="unit">per seat / month</span></div><p>Minimum ${n} seats</p>` +
      '</div></div></main></body></html>'
    const [c] = told(team(3), team(5))
    assert.deepEqual([c.changeType, c.diffData.facts!.map(f => f.kind)], ['feature_removed', ['limit_lowered']])
    const [back] = told(team(5), team(3))
    assert.deepEqual([back.changeType, back.diffData.facts!.map(f => f.kind)], ['feature_added', ['limit_raised']])
  })

  it('a struck price that moved alone is left to the text, not hidden', () => {
    const [c, ...more] = told(rows('<td><s>$59</s> $49/month</td>'), rows('<td><s>$69</s> $49/month</td>'))
    assert.equal(more.length, 0)
    assert.match(c.summary, /\$59 \$49\/month.*→.*\$69 \$49\/month|\$59 → \$69/)
  })
})

describe("an add-on's price beside a plan's", () => {
  const card = (line: string) => `<html lang="en"><body><main><h1>Cloud VPS</h1><div class="plan"><h3>Cloud VPS 10</h3><p>${line}</p>` +
    '<ul><li>4 vCPU cores</li></ul></div><div class="plan"><h3>Cloud VPS 20</h3><p>8.49 € / month</p></div></main></body></html>'
  for (const mode of ['table', 'text'] as const) {
    it(`a licence on the plan's line is the licence's, never the plan's price (${mode})`, () => {
      const [before, after] = [card('4.50 € / month, Windows licence 6.85 € / month'), card('5.50 € / month')]
      const [b, a] = [readPage(before, undefined, undefined, 'pricing'), readPage(after, undefined, undefined, 'pricing')]
      const [c, ...more] = compareContent(b.text, a, 'pricing', undefined, mode === 'table' ? { before, after } : undefined)
      assert.equal(more.length, 0)
      assert.match(c.summary, /^(Pricing, )?Cloud VPS 10: 4\.50 € ?\/ ?month → 5\.50 € ?\/ ?month \(\+22%\)/)
      assert.ok(!c.diffData.facts!.some(f => f.before?.startsWith('6.85') && f.after !== undefined), 'the licence is no plan price')
      assert.ok(!/\+22%.*\+22%/.test(c.summary), `one move told once: ${c.summary}`)
    })
  }
})

describe("an add-on's line of its own in each card, per month like the plan's price", () => {
  const cards = (a: string, licence: string, b: string) => '<html lang="en"><body><main><h1>Dedicated</h1><div class="grid">' +
    [['AX42', a], ['AX52', b]].map(([name, price]) => `<div class="card"><h3>${name}</h3><div class="price">€${price}/month</div>` +
      `<p>Setup fee: € 50.00</p><p>Windows license: + € ${licence} / month</p></div>`).join('') + '</div></main></body></html>'
  it('is kept as the add-on it is, named with its plan, and its move follows the plan\'s', () => {
    const [before, after] = [cards('99.99', '20.30', '64.00'), cards('99.99', '25.00', '67.00')]
    assert.deepEqual(readPricing(before).table.plans[0].prices.map(p => [p.text, p.charge, p.label]), [
      ['99.99 €/month', undefined, undefined], ['50 €', 'setup', 'Setup fee'], ['20.30 €/month', 'addon', 'Windows license']
    ])
    const [b, a] = [readPage(before, undefined, undefined, 'pricing'), readPage(after, undefined, undefined, 'pricing')]
    const [c, ...more] = compareContent(b.text, a, 'pricing', undefined, { before, after })
    assert.equal(more.length, 0)
    assert.match(c.summary, /^AX52: 64 €\/month → 67 €\/month \(\+5%\)/)
    assert.ok(c.diffData.facts!.some(f => f.subject === 'AX42 – Windows license' && f.charge === 'addon' && f.percent === 23),
      JSON.stringify(c.diffData.facts))
  })
})

describe('plan cards whose names are no headings, under one section', () => {
  const page = (cards: Array<[string, string[]]>) => `<html lang="en"><body><main><h1>Pricing</h1><h2>Plan Types</h2><div class="cards">${
    cards.map(([name, prices]) => `<div class="card"><div class="name">${name}</div>${prices.map(p => `<div class="price">${p}</div>`).join('')}` +
      '<ul><li>Unlimited searches</li></ul></div>').join('')}</div></main></body></html>`
  const before = page([['Starter', ['$5 per month', '$50 per year']], ['Professional', ['$10 per month', '$100 per year']], ['Team', ['$19 per month', '$120 per year']]])
  const after = page([['Trial', ['$0']], ['Starter', ['$5 per month']], ['Professional', ['$10 per month']], ['Ultimate', ['$25 per month']]])

  it('names each price by its card, pairs none across plans, and leads with the plans that went and came', () => {
    const [b, a] = [readPage(before, undefined, undefined, 'pricing'), readPage(after, undefined, undefined, 'pricing')]
    const [c, ...more] = compareContent(b.text, a, 'pricing')
    assert.equal(more.length, 0)
    const facts = c.diffData.facts!
    assert.ok(!facts.some(f => f.kind === 'price_up' || f.kind === 'price_down' || f.kind === 'price_changed'),
      `no plan moved its price: ${c.summary}`)
    assert.match(c.summary, /^Pricing: Team plan removed \(\$19 per month, \$120 per year\)/)
    assert.match(c.summary, /Ultimate plan added \(\$25 per month\)/)
    assert.ok(facts.some(f => f.kind === 'price_removed' && f.subject === 'Starter' && f.before === '$50 per year'), JSON.stringify(facts))
  })
})
