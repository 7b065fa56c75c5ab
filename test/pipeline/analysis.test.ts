import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { readdirSync, readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { compareContent, readPage } from '../../src/detection/detect.js'
import { AnalysisTimeout, PageAnalysis } from '../../src/pipeline/analysis.js'
import { CRAWL_WORK_NICE } from '../../src/vocabulary/core.js'
import { layout, pricingMain } from '../helpers/fixtures.js'

// The pool runs the same pure functions as detect.ts on worker threads: what comes back
// across the thread boundary must equal what they give on the main thread.
describe('page analysis on worker threads', () => {
  const analysis = new PageAnalysis(2)
  after(async () => {
    await analysis.close()
  })

  const html = layout('Pricing — Acme', pricingMain('$49'))
  const raw = Buffer.from(html)

  it('reads a page as readPage does, with its text and compressed HTML for a new snapshot', async () => {
    const expected = readPage(html)
    const reading = await analysis.read({ raw, contentType: 'text/html; charset=utf-8' })
    assert.equal(reading.title, expected.title)
    assert.equal(reading.hash, expected.hash)
    assert.equal(reading.snapshot?.text, expected.text)
    assert.equal(gunzipSync(reading.snapshot.rawGzip).toString(), html)
  })

  it('reads on threads that yield the CPU to the main thread (a lower priority)', { skip: process.platform !== 'linux' }, async () => {
    await analysis.read({ raw, contentType: 'text/html' })
    // A thread's nice value is the 19th field of its stat, the 17th after its name's parenthesis.
    const niceOf = (stat: string) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
    const threads = readdirSync('/proc/self/task').map(tid => niceOf(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')))
    assert.equal(niceOf(readFileSync('/proc/self/stat', 'utf8')), 0)
    assert.ok(threads.includes(CRAWL_WORK_NICE), `nice values: ${threads.join(', ')}`)
  })

  it('sends no text back when the hash has not moved', async () => {
    const reading = await analysis.read({ raw, contentType: 'text/html', previousHash: readPage(html).hash })
    assert.equal(reading.snapshot, undefined)
    assert.equal(reading.hash, readPage(html).hash)
  })

  it('decodes the page in its real charset', async () => {
    const latin1 = Buffer.from(
      layout('Preise', '<h1>Preise</h1><p>Größe: 49 € pro Monat</p>').replace('utf-8', 'iso-8859-1'),
      'latin1'
    )
    const reading = await analysis.read({ raw: latin1, contentType: 'text/html' })
    assert.match(reading.snapshot!.text, /Größe/)
  })

  it('compares as compareContent does, noise rules included', async () => {
    const before = readPage(html)
    const after = readPage(layout('Pricing — Acme', pricingMain('$59')))
    const { changes } = await analysis.compare(before.text, after, 'pricing')
    assert.deepEqual(changes, compareContent(before.text, after, 'pricing'))
    assert.equal(changes[0].summary, 'Pricing, Pro: $49/month → $59/month (+20%)')
    const ignored = await analysis.compare(before.text, after, 'pricing', { ignorePatterns: ['\\$\\d+/month'] })
    assert.deepEqual(ignored, { changes: [] })
  })

  it('a page that fails to read rejects its own task, and the pool goes on', async () => {
    await assert.rejects(analysis.read({ raw: 'not bytes' as unknown as Uint8Array, contentType: 'text/html' }))
    assert.equal((await analysis.read({ raw, contentType: 'text/html' })).title, 'Pricing — Acme')
  })
})

describe('a deadline for every task', () => {
  it('a task that runs past its deadline fails with AnalysisTimeout; its thread is replaced and the next task runs', async () => {
    // One thread: the next task runs on the thread that replaces the stopped one.
    const analysis = new PageAnalysis(1, 300)
    try {
      const lines = (seed: string) => Array.from({ length: 5_000 }, (_, i) => `Line ${i} of ${seed}: ${seed}-${i * 7919 % 10007}`)
      const current = { text: lines('two').join('\n') }
      // Comparing 5,000 lines that all changed takes about a second.
      await assert.rejects(analysis.compare(lines('one').join('\n'), current, 'other'), (err: unknown) => {
        assert.ok(err instanceof AnalysisTimeout)
        assert.equal(err.task, 'compare')
        assert.match(err.message, /took longer than 0.3 s and was stopped/)
        return true
      })
      const html = layout('Pricing — Acme', pricingMain('$49'))
      assert.equal((await analysis.read({ raw: Buffer.from(html), contentType: 'text/html' })).title, 'Pricing — Acme')
    } finally {
      await analysis.close()
    }
  })
})

describe('the threads shared fairly between organisations', () => {
  const until = async (what: () => boolean) => {
    while (!what()) await new Promise(resolve => setTimeout(resolve, 20))
  }

  it("a tenant's slow task leaves the thread to the others, its own next task waits behind it, and its deadline frees the line", async () => {
    // One thread, as on a two-core machine; a selector that reads every paragraph's siblings' siblings.
    const analysis = new PageAnalysis(1, 6_000)
    try {
      const costly = {
        raw: Buffer.from(`<main>${'<p>x</p>'.repeat(3_000)}</main>`),
        contentType: 'text/html',
        rules: { ignoreSelectors: ['p:has(~ p ~ p)'] }
      }
      const cheap = { raw: Buffer.from(layout('Pricing — Acme', pricingMain('$49'))), contentType: 'text/html' }
      const slow = analysis.for('hostile').read(costly)
      slow.catch(() => {})
      await until(() => analysis.load().slow === 1)
      let behindDone = false
      const behind = analysis.for('hostile').read(cheap).then(r => { behindDone = true; return r })
      assert.equal((await analysis.for('other').read(cheap)).title, 'Pricing — Acme', 'another tenant is served')
      assert.deepEqual(analysis.load(), { running: 1, slow: 1, waiting: 1 }, 'the costly task runs on, its tenant\'s next waits')
      assert.equal(behindDone, false)
      await assert.rejects(slow, AnalysisTimeout)
      assert.equal((await behind).title, 'Pricing — Acme', 'a thread replaced after its deadline takes the next task at once')
    } finally {
      await analysis.close()
    }
  })
})
