import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { PriceSeries } from '../../src/services/page-history.js'
import { html } from '../../src/web/views/layout.js'
import { PriceCharts } from '../../src/web/views/page.js'

// A price list of plans per month and of usage per GB, over a quarter: amounts of two units
// are never drawn on one scale, and the time axis says when.

const DAY = 86_400_000
const at = (day: number) => new Date(Date.UTC(2026, 8, 1) + day * DAY)
const series = (name: string, unit: string, amounts: Array<[number, number]>): PriceSeries => ({
  name,
  unit,
  points: amounts.map(([day, amount]) => ({ at: at(day), amount, text: `$${amount}${unit.slice(1)}` }))
})

describe('prices over time, as charts', () => {
  const drawn = html(PriceCharts({
    series: [
      series('Pro', '$/month', [[0, 20], [45, 25], [90, 25]]),
      series('Team', '$/month', [[0, 50], [90, 60]]),
      series('Egress', '$/GB', [[0, 0.1], [60, 0.05]])
    ]
  }))

  it('draws one chart per unit, each line named by its plan', () => {
    const labels = [...drawn.matchAll(/<svg[^>]* aria-label="([^"]*)"/g)].map(m => m[1])
    assert.deepEqual(labels, [
      'Prices in $/month over time: Pro from $20/month to $25/month; Team from $50/month to $60/month',
      'Prices in $/GB over time: Egress from $0.1/GB to $0.05/GB'
    ])
    const [monthly, perGb] = drawn.split('<figure').slice(1)
    assert.match(monthly, /In \$\/month/)
    assert.doesNotMatch(monthly, /Egress/)
    assert.doesNotMatch(perGb, /Pro|Team/)
  })

  it('dates its time axis from the first price to the last', () => {
    const [monthly] = drawn.split('<figure').slice(1)
    const ticks = [...monthly.matchAll(/<text[^>]*class="tick"[^>]*>([^<]*)<\/text>/g)].map(m => m[1])
    assert.deepEqual(ticks.filter(t => /^\d{4}-/.test(t)), ['2026-09-01', '2026-10-01', '2026-10-31', '2026-11-30'])
  })

  it('never writes one time twice on its axis, and marks each tick for the reader\'s time zone', () => {
    const seconds = html(PriceCharts({
      series: [{
        name: 'Pro',
        unit: '$/month',
        points: [{ at: new Date(Date.UTC(2026, 11, 5, 9, 25, 36, 100)), amount: 20, text: '$20/month' },
          { at: new Date(Date.UTC(2026, 11, 5, 9, 25, 36, 900)), amount: 25, text: '$25/month' }]
      }]
    }))
    const ticks = [...seconds.matchAll(/<text[^>]*class="tick"[^>]*data-at="([^"]+)" data-show="(\w+)"[^>]*>([^<]*)<\/text>/g)]
    assert.deepEqual(ticks.map(m => [m[2], m[3]]), [['second', '09:25:36 UTC']], 'the same second, written once')
    const [monthly] = drawn.split('<figure').slice(1)
    assert.ok([...monthly.matchAll(/data-show="date"/g)].length === 4)
  })
})
