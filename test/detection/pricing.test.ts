import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { compareContent, readPage } from '../../src/detection/detect.js'
import { findMoney } from '../../src/detection/words/money.js'
import { readPricing } from '../../src/detection/readers/pricing/read.js'
import { priceHistory } from '../../src/services/page-history.js'

// Pricing pages in five shapes (test/detection/fixtures/pricing), read as tables and
// compared after real-world-like edits; and the noise that must not move a table.

const fixture = (name: string) => readFileSync(new URL(`fixtures/pricing/${name}.html`, import.meta.url), 'utf8')

/** The changes of a pricing page read as an intelligence page (both versions' HTML given). */
export function pricingChanges (before: string, after: string) {
  const a = readPage(before, undefined, undefined, 'pricing')
  const b = readPage(after, undefined, undefined, 'pricing')
  if (a.hash === b.hash) return []
  return compareContent(a.text, b, 'pricing', undefined, { before, after })
}

const edit = (html: string, ...pairs: Array<[string, string]>) => pairs.reduce((h, [from, to]) => {
  assert.ok(h.includes(from), `the fixture holds ${from}`)
  return h.replace(from, to)
}, html)

/** The cards fixture with its Starter and Pro cards swapped. */
function reordered (html: string): string {
  const i = html.indexOf('    <div class="plan-card">')
  const j = html.indexOf('    <div class="plan-card featured">')
  const k = html.indexOf('    <div class="plan-card">', j)
  return html.slice(0, i) + html.slice(j, k) + html.slice(i, j) + html.slice(k)
}

describe('pricing pages read as tables', () => {
  it('plan cards: names, prices per period, billing notes, limits and features; a card without a price', () => {
    const { table } = readPricing(fixture('cards'))
    assert.deepEqual(table.sources, ['cards'])
    assert.deepEqual(table.plans.map(p => p.name), ['Starter', 'Pro', 'Enterprise'])
    const pro = table.plans[1]
    assert.deepEqual(pro.prices, [{ amount: 49, currency: '$', period: 'month', text: '$49/month' }])
    assert.equal(pro.note, 'Billed monthly, excl. VAT')
    assert.deepEqual(pro.limits, [{ name: 'user', value: '10' }, { name: 'project', value: 'Unlimited' }])
    assert.deepEqual(pro.features, ['Priority support', 'API access', 'SSO'])
    assert.deepEqual(table.plans[2].prices, [])
    assert.deepEqual(table.plans[2].features, ['Dedicated success manager', 'Audit log'])
  })

  it('a comparison table: plans as columns, a price row, check marks (text and icons) and limits', () => {
    const { table } = readPricing(fixture('table'))
    assert.deepEqual(table.sources, ['table'])
    assert.deepEqual(table.plans.map(p => [p.name, p.prices.map(x => x.text)]),
      [['Free', ['$0/user/month']], ['Team', ['$12/user/month']], ['Business', ['$24/user/month']]])
    const business = table.plans[2]
    assert.deepEqual(business.features, ['Two-factor authentication', 'SAML SSO', 'Audit log'])
    assert.deepEqual(business.limits, [{ name: 'members', value: 'Unlimited' }, { name: 'storage', value: '1 TB' }])
    assert.deepEqual(table.plans[1].features, ['Two-factor authentication', 'Audit log'])
  })

  it('JSON-LD Products and Offers first, merged with the cards that show them (French money)', () => {
    const { table } = readPricing(fixture('jsonld'))
    assert.deepEqual(table.sources, ['json-ld', 'cards'])
    assert.deepEqual(table.plans.map(p => [p.name, p.prices.map(x => x.text)]),
      [['Nimbus Basic', ['9 €/month']], ['Nimbus Plus', ['29 €/month']]])
    assert.deepEqual(table.plans[1].features, ['Hourly backups', 'Phone support'])
  })

  it('microdata Products', () => {
    const html = '<html><body><h1>Plans</h1>' +
      ['Lite:5', 'Max:15'].map(p => {
        const [name, amount] = p.split(':')
        return `<div itemscope itemtype="https://schema.org/Product"><h2 itemprop="name">${name}</h2>` +
          '<div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="priceCurrency" ' +
          `content="USD">$</span><span itemprop="price" content="${amount}.00">${amount}</span>/month</div></div>`
      }).join('') + '</body></html>'
    const { table } = readPricing(html)
    assert.equal(table.sources[0], 'microdata')
    assert.deepEqual(table.plans.map(p => [p.name, p.prices.map(x => x.text)]),
      [['Lite', ['$5/month']], ['Max', ['$15/month']]])
  })

  it('a monthly/yearly toggle: both states when both are in the page', () => {
    const { table } = readPricing(fixture('toggle'))
    assert.deepEqual(table.plans.map(p => [p.name, p.prices.map(x => x.text)]), [
      ['Solo', ['$10/month', '$8/month (billed yearly)']],
      ['Studio', ['$30/month', '$24/month (billed yearly)']]
    ])
    assert.deepEqual(table.plans[0].prices.map(p => p.billing), ['monthly', 'yearly'])
  })

  it('what a price is per, on a line of its own under it ("$10" over "per user / month")', () => {
    const { table } = readPricing('<html lang="en"><body><main><h1>Pricing</h1><div class="plans">' +
      ['Pro', 'Business'].map((name, i) => `<div class="plan"><h3>${name}</h3><p class="price"><span class="price-monthly">` +
        `$${10 * (i + 1)}</span><span class="price-annual" hidden>$${8 * (i + 1)}</span></p><p>per user / month</p>` +
        '<ul><li>Unlimited projects</li></ul></div>').join('') + '</div></main></body></html>')
    assert.deepEqual(table.plans.map(p => [p.name, p.prices.map(x => x.text)]), [
      ['Pro', ['$10/user/month', '$8/user/month (billed yearly)']],
      ['Business', ['$20/user/month', '$16/user/month (billed yearly)']]
    ])
  })
})

describe('pricing changes, plan by plan', () => {
  it('a price rise: "Pro: $49/month → $59/month (+20%)", high, with the table before and after', () => {
    const html = fixture('cards')
    const changes = pricingChanges(html, edit(html, ['<span class="amount">49</span>', '<span class="amount">59</span>']))
    assert.equal(changes.length, 1)
    const [c] = changes
    assert.equal(c.changeType, 'price_change')
    assert.equal(c.severity, 'high')
    assert.equal(c.summary, 'Pro: $49/month → $59/month (+20%)')
    assert.deepEqual(c.diffData.pricing!.changes, [{
      kind: 'price_up',
      plan: 'Pro',
      before: '$49/month',
      after: '$59/month',
      percent: 20,
      summary: 'Pro: $49/month → $59/month (+20%)'
    }])
    assert.equal(c.diffData.pricing!.before.plans[1].prices[0].amount, 49)
    assert.equal(c.diffData.pricing!.after.plans[1].prices[0].amount, 59)
    // The text's diff is kept with it.
    assert.ok(c.diffData.hunks.some(h => h.lines.some(l => l.type === 'addition' && l.content === '$59/month')))
  })

  it('a small cut is medium; a rise of half or more is critical', () => {
    const html = fixture('cards')
    const [cut] = pricingChanges(html, edit(html, ['<span class="amount">49</span>', '<span class="amount">45</span>']))
    assert.equal(cut.summary, 'Pro: $49/month → $45/month (-8%)')
    assert.equal(cut.severity, 'medium')
    const [rise] = pricingChanges(html, edit(html, ['<span class="amount">19</span>', '<span class="amount">29</span>']))
    assert.equal(rise.summary, 'Starter: $19/month → $29/month (+53%)')
    assert.equal(rise.severity, 'critical')
  })

  it('a plan removed is high; a limit changed is reported with it', () => {
    const html = fixture('cards')
    const start = html.indexOf('    <div class="plan-card">')
    const end = html.indexOf('    <div class="plan-card featured">')
    const after = edit(html.slice(0, start) + html.slice(end), ['<li>10 users</li>', '<li>5 users</li>'])
    const changes = pricingChanges(html, after)
    assert.deepEqual(changes.map(c => [c.changeType, c.severity, c.summary]), [
      ['price_change', 'high', 'Starter plan removed ($19/month); Pro: user 10 → 5 (-50%)']
    ])
  })

  it('a feature moved between plans, and one added, are one feature change', () => {
    const html = fixture('cards')
    const after = edit(html, ['<li>SSO</li>', ''], ['<li>Audit log</li>', '<li>Audit log</li><li>SSO</li>'],
      ['<li>Email support</li>', '<li>Email support</li><li>Webhooks</li>'])
    const changes = pricingChanges(html, after)
    assert.deepEqual(changes.map(c => [c.changeType, c.severity, c.summary]), [
      ['feature_removed', 'medium', 'feature "SSO" moved from Pro to Enterprise; Starter: feature "Webhooks" added']
    ])
    assert.deepEqual(changes[0].diffData.pricing!.changes[0],
      {
        kind: 'feature_moved',
        feature: 'SSO',
        fromPlans: ['Pro'],
        toPlans: ['Enterprise'],
        summary: 'feature "SSO" moved from Pro to Enterprise'
      })
  })

  it('a comparison table: a price and a check mark, one change', () => {
    const html = fixture('table')
    const after = edit(html, ['<td>$24</td>', '<td>$29</td>'],
      ['<td><span class="icon icon-check" title="Included"></span></td>', '<td>—</td>'])
    assert.deepEqual(pricingChanges(html, after).map(c => [c.changeType, c.summary]), [
      ['price_change', 'Business: $24/user/month → $29/user/month (+21%); Team: feature "Audit log" removed']
    ])
  })

  it('the yearly state of a toggle, and JSON-LD prices', () => {
    const toggle = fixture('toggle')
    const [yearly] = pricingChanges(toggle, edit(toggle, ['$24 <small>per month</small>', '$20 <small>per month</small>']))
    assert.equal(yearly.summary, 'Studio: $24/month (billed yearly) → $20/month (billed yearly) (-17%)')
    const jsonld = fixture('jsonld')
    const after = jsonld.replaceAll('"29.00"', '"35.00"').replace('29,00 €', '35,00 €')
    const [c] = pricingChanges(jsonld, after)
    assert.equal(c.summary, 'Nimbus Plus: 29 €/month → 35 €/month (+21%)')
  })

  it('a price whose term is now written out ("$19" → "$19/month") did not move: no move is said', () => {
    const html = fixture('cards')
    const bare = edit(html, ['<span class="amount">19</span><span class="per">/month</span>', '<span class="amount">19</span>'])
    const said = pricingChanges(bare, html)
    assert.ok(said.every(c => !/\$19 → \$19/.test(c.summary)), said.map(c => c.summary).join(' | '))
  })

  it('a price now per another period: the move, with no percentage between periods', () => {
    const html = fixture('table')
    const [c] = pricingChanges(html, edit(html, ['<td>$24</td>', '<td>$300/year</td>']))
    assert.equal(c.summary, 'Business: $24/user/month → $300/year')
  })
})

describe('noise does not move a table', () => {
  it('plans re-ordered in the page', () => {
    const html = fixture('cards')
    assert.deepEqual(pricingChanges(html, reordered(html)), [])
  })

  it('every price shown in another currency (a currency switcher)', () => {
    const html = fixture('cards')
    const after = html.replaceAll('<span class="currency">$</span>', '<span class="currency">€</span>')
      .replace('<option>USD</option><option>EUR</option>', '<option>EUR</option><option>USD</option>')
    assert.deepEqual(pricingChanges(html, after), [])
  })

  it('a "save" badge that flips with the toggle', () => {
    const html = fixture('toggle')
    const after = edit(html, ['<button aria-selected="true">Monthly</button><button>Yearly <span class="save">Save 20%</span></button>',
      '<button>Monthly</button><button aria-selected="true">Yearly</button><span class="save">Save 20%</span>'])
    assert.deepEqual(pricingChanges(html, after), [])
  })

  it('a text edit beside the plans is still the text\'s change', () => {
    const html = fixture('cards')
    const changes = pricingChanges(html, edit(html, ['Start free. Upgrade when you need to.', 'Start free. No card needed.']))
    assert.equal(changes.length, 1)
    assert.equal(changes[0].changeType, 'content_change')
    assert.equal(changes[0].diffData.pricing, undefined)
  })
})

describe('money as price lists write it', () => {
  it('per unit of usage, per hour and to six places', () => {
    const read = (s: string) => findMoney(s).map(m => `${m.currency} ${m.amount} /${m.period}`)
    assert.deepEqual(read('€0.0065 per GB-month'), ['€ 0.0065 /GB-month'])
    assert.deepEqual(read('0,01 € / Go'), ['€ 0.01 /GB'])
    assert.deepEqual(read('$0.50 per 1,000 requests'), ['$ 0.5 /1,000 requests'])
    assert.deepEqual(read('$0.20 per million requests'), ['$ 0.2 /million requests'])
    assert.deepEqual(read('€0.006/h, capped at €3.79/mo'), ['€ 0.006 /hour', '€ 3.79 /month'])
    assert.deepEqual(read('$12 per user/month'), ['$ 12 /user/month'])
    // A period said with no "per", as German cards abbreviate it and English ones write it out.
    assert.deepEqual(read('ab 6,80 € mtl.'), ['€ 6.8 /month'])
    assert.deepEqual(read('$49 monthly or $490 yearly'), ['$ 49 /month', '$ 490 /year'])
    assert.deepEqual(read('120 € p.a., 29 € jährlich'), ['€ 120 /year', '€ 29 /year'])
  })

  it('a table of plans as rows: its header names attributes, its rows are plans', () => {
    const html = '<table><tr><th>Plan</th><th>Price</th><th>Included</th></tr>' +
      '<tr><td>Starter</td><td>$19/month</td><td>3 projects</td></tr><tr><td>Pro</td><td>$49/month</td><td>20 projects</td></tr></table>'
    assert.deepEqual(readPricing(html).table.plans.map(p => [p.name, p.prices[0].text, p.limits]), [
      ['Starter', '$19/month', [{ name: 'project', value: '3' }]],
      ['Pro', '$49/month', [{ name: 'project', value: '20' }]]
    ])
  })

  // A cloud provider's resource prices, as three sites write them; storage cut from $0.10 to $0.08 per GB-month.
  const resources = [['Block storage', '$0.10', 'per GB per month'], ['Snapshots', '$0.06', 'per GB per month'],
    ['Load balancer', '$12', 'per month'], ['Egress', '$0.01', 'per GB']]
  const shapes: Record<string, string> = {
    'a definition list': `<dl>${resources.map(([n, a, u]) => `<dt>${n}</dt><dd>${a} ${u}</dd>`).join('')}</dl>`,
    '"name: price" list items': `<ul>${resources.map(([n, a, u]) => `<li>${n}: ${a} ${u}</li>`).join('')}</ul>`,
    'a table with a unit column': '<table><thead><tr><th>Resource</th><th>Price</th><th>Unit</th></tr></thead><tbody>' +
      resources.map(([n, a, u]) => `<tr><th>${n}</th><td>${a}</td><td>${u}</td></tr>`).join('') + '</tbody></table>'
  }
  for (const [shape, list] of Object.entries(shapes)) {
    it(`a resource price list as ${shape}: each resource a plan priced in its unit, charted by its name`, () => {
      const page = (body: string) =>
        `<html><body><main><h1>Pricing</h1><h2>Resource prices</h2>${body}</main></body></html>`
      const before = page(list)
      assert.deepEqual(readPricing(before).table.plans.map(p => [p.name, p.prices.map(x => x.text)]), [
        ['Block storage', ['$0.10/GB/month']], ['Snapshots', ['$0.06/GB/month']],
        ['Load balancer', ['$12/month']], ['Egress', ['$0.01/GB']]
      ])
      const changes = pricingChanges(before, edit(before, ['$0.10', '$0.08']))
      assert.equal(changes.length, 1)
      assert.equal(changes[0].summary, 'Block storage: $0.10/GB/month → $0.08/GB/month (-20%)')
      const chart = priceHistory([{ createdAt: new Date(), diffData: changes[0].diffData }])
      assert.deepEqual(chart.map(s => [s.name, s.unit, s.points.map(x => x.amount)]).sort(), [
        ['Block storage', '$/GB/month', [0.1, 0.08]], ['Egress', '$/GB', [0.01, 0.01]],
        ['Load balancer', '$/month', [12, 12]], ['Snapshots', '$/GB/month', [0.06, 0.06]]
      ])
    })
  }

  it('a heading over prices that each name what they are for is a price list, not a plan; a card\'s terms stay its own', () => {
    const page = (egress: string) => '<html><body><main><h1>Pricing</h1>' +
      '<div class="plans"><div><h3>Pro</h3><p>Monthly: $20/month</p><p>Yearly: $200/year</p></div><div><h3>Team</h3><p>Monthly: $40/month</p><p>Yearly: $400/year</p></div></div>' +
      `<h3>Resource Price</h3><p>Egress ${egress}/GB</p><p>Volume Storage $0.10/GB per month</p></main></body></html>`
    const plans = readPricing(page('$0.01')).table.plans
    assert.deepEqual(plans.map(p => [p.name, p.prices.length]), [['Pro', 2], ['Team', 2]], '"Resource Price" is no plan')
    const [c] = pricingChanges(page('$0.01'), page('$0.005'))
    assert.match(c.summary, /Egress: \$0\.01\/GB → \$0\.005\/GB \(-50%\)/)
    assert.ok(!c.diffData.facts!.some(f => f.subject === 'Resource Price'), JSON.stringify(c.diffData.facts))
    const chart = priceHistory([{ createdAt: new Date(), diffData: c.diffData }])
    assert.deepEqual(chart.find(s => s.name === 'Egress')?.points.map(x => x.amount), [0.01, 0.005])
  })

  it('the chart draws every move the alerts told, and a plan\'s setup fee apart from its total', () => {
    const plan = (fee: number, total: number) => ({
      plans: [{
        name: 'Cloud VPS 10',
        limits: [],
        features: [],
        prices: [
          { amount: fee, currency: '€', period: '', label: 'Setup fee', text: `${fee} €` },
          { amount: total, currency: '€', period: '', label: 'Total', text: `${total} €` }
        ]
      }],
      sources: ['table' as const]
    })
    const at = new Date('2026-11-01T10:00:00Z')
    const chart = priceHistory([{
      createdAt: at,
      diffData: {
        pricing: { before: plan(2.25, 29.25), after: plan(2.25, 33) },
        // Moves the text comparison found beside the table: usage prices the table did not hold.
        facts: [
          { kind: 'price_down', subject: 'Egress', before: '$0.10/GB', after: '$0.05/GB', percent: -50 },
          { kind: 'price_down', subject: 'Volume Storage', before: '$0.25 per GB-month', after: '$0.15 per GB-month', percent: -40 },
          { kind: 'price_up', subject: 'Cloud VPS 10 – Total', before: '29.25 €', after: '33.00 €', percent: 13 }
        ]
      }
    }])
    const lines = Object.fromEntries(chart.map(s => [`${s.name} ${s.unit}`, s.points.map(x => x.amount)]))
    assert.deepEqual(lines, {
      'Cloud VPS 10 – Setup fee €': [2.25, 2.25],
      'Cloud VPS 10 – Total €': [29.25, 33],
      'Egress $/GB': [0.1, 0.05],
      'Volume Storage $/GB-month': [0.25, 0.15]
    })
  })

  // One rule picks the lead for the table's reading and for the text comparison (classify/prices.ts leadOrder): both
  // used to lead with the larger percentage, a price per GB a month counting as a plan's monthly price.
  it('a plan\'s monthly price leads a usage price of the same severity, in the table and in the text alike', () => {
    const cards = (pro: string, storage: string) => '<html><body><main><h1>Pricing</h1>' +
      '<div class="plan-card"><h3>Starter</h3><p>$10/month</p><ul><li>3 projects</li></ul></div>' +
      `<div class="plan-card"><h3>Pro</h3><p>${pro}/month</p><ul><li>Unlimited projects</li></ul></div>` +
      '<h2>Add-ons</h2><table><tr><th>Resource</th><th>Price</th></tr>' +
      `<tr><th>Storage</th><td>${storage} per GB per month</td></tr></table></main></body></html>`
    const [table] = pricingChanges(cards('$30', '$0.10'), cards('$37', '$0.14'))
    assert.equal(table.severity, 'high')
    assert.equal(table.summary, 'Pro: $30/month → $37/month (+23%); Storage: $0.10/GB/month → $0.14/GB/month (+40%)')
    const prose = (pro: string, storage: string) => '<html lang="de"><body><main><h1>Preise</h1>' +
      `<p>Pro: ${pro} pro Monat</p><p>Speicher: ${storage} pro GB pro Monat</p></main></body></html>`
    const [text] = pricingChanges(prose('30 €', '0,10 €'), prose('37 €', '0,14 €'))
    assert.equal(text.severity, 'high')
    assert.match(text.summary, /^Pricing, Pro: 30 € pro Monat → 37 € pro Monat \(\+23%\); Speicher/)
  })

  // One meaning of "skipped" (text/extract.ts isSkipped): a promotion's dialog or a consent banner is no plan card,
  // though hidden toggle states are still read. Before, the pricing reader dropped elements by their tag alone.
  it('a promotion in a dialog or a banner adds no price to a plan', () => {
    const framed = fixture('cards').replace('</body>',
      '<div role="dialog" class="promo"><h3>Pro</h3><p>$8/month for your first year</p></div>' +
      '<div class="cookie-banner"><h3>Enterprise</h3><p>$1 per visit</p></div></body>')
    assert.deepEqual(readPricing(framed).table.plans.map(p => [p.name, p.prices.map(x => x.text)]),
      readPricing(fixture('cards')).table.plans.map(p => [p.name, p.prices.map(x => x.text)]))
    assert.ok(readPricing(fixture('toggle')).table.plans.some(p => p.prices.some(x => x.billing === 'yearly')))
  })

  it('a priced list inside a plan\'s card is that plan\'s add-ons, not plans of its own', () => {
    const card = (name: string, amount: string) => `<div class="plan-card"><h3>${name}</h3><p>${amount}/month</p>` +
      '<ul><li>Extra seat: $5/month</li><li>Extra storage: $2 per GB</li></ul></div>'
    const { table } = readPricing(`<main><h1>Pricing</h1>${card('Starter', '$10')}${card('Pro', '$30')}</main>`)
    assert.deepEqual(table.plans.map(p => p.name), ['Starter', 'Pro'])
    assert.ok(!table.sources.includes('list'))
  })

  it('periods as row labels or as columns are never plans; a table of parameters is no price list', () => {
    const periods = '<table><tr><th></th><th>Basic</th><th>Pro</th></tr><tr><td>Monthly</td><td>$10</td><td>$20</td></tr>' +
      '<tr><td>Yearly</td><td>$100</td><td>$200</td></tr></table>'
    assert.deepEqual(readPricing(periods).table.plans.map(p => [p.name, p.prices.map(x => x.text)]),
      [['Basic', ['$10/month', '$100/year']], ['Pro', ['$20/month', '$200/year']]])
    const params = '<h2>Parameters</h2><table><tr><th>Name</th><th>Type</th><th>Description</th></tr>' +
      '<tr><td>limit</td><td>integer</td><td>How many to return</td></tr><tr><td>cursor</td><td>string</td><td>Where to start</td></tr></table>'
    assert.deepEqual(readPricing(params).table.plans, [])
  })
})
