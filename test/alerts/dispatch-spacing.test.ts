// A crawl that finds many changes, one after another, hands them to the alert dispatch a
// few times, not once per change: each dispatch job is a run of the queue and of the
// dispatch's reads, and a job per change was most of the queue's work in a noisy recrawl.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { DISPATCH_SPACING } from '../../src/alerts/subscribers.js'
import { QUEUE } from '../../src/queue/queues.js'
import { layout } from '../helpers/fixtures.js'
import { drainJobs, eventually, startTestService, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

const PAGES = 10
const plans = (price: number) => `<h1>Plan ${price}</h1><table><tr><th>Plan</th><th>Price</th></tr>
<tr><td>Team</td><td>$${price} per seat per month</td></tr><tr><td>Business</td><td>$${price * 2} per seat per month</td></tr></table>
<p>Every plan includes unlimited projects and email support.</p>`

describe('alerts: the dispatch of a crawl that finds many changes', () => {
  let site: TestSite
  let t: TestService
  let domainId = ''

  before(async () => {
    site = await new TestSite().start()
    site.set('/robots.txt', { body: 'User-agent: *\nAllow: /\n', headers: { 'content-type': 'text/plain' } })
    site.page('/', layout('Spaced', '<h1>Spaced</h1><p>Plans for every team.</p>'))
    for (let i = 0; i < PAGES; i++) site.page(`/plan/${i}`, layout(`Plan ${i}`, plans(10 + i)))
    // A host's turns 200 ms apart: the crawl's changes come one by one over about two seconds.
    t = await startTestService({ CRAWL_HOST_MAP: `spaced.test=${site.origin}`, CRAWL_PER_HOST_DELAY_MS: '200' })
    domainId = (await t.api.post('/api/domains', { domain: 'spaced.test' })).body.data.id
    for (let i = 0; i < PAGES; i++) {
      assert.equal((await t.api.post(`/api/domains/${domainId}/pages`, { url: `https://spaced.test/plan/${i}` })).status, 201)
    }
    await drainJobs(t.api)
  })
  after(async () => {
    await t.stop()
    await site.close()
  })

  it('gathers them: dispatch jobs at least a second apart, no change handed over twice', async () => {
    const db = t.service.store.db
    const since = (await sql<{ at: Date }>`SELECT now() AS at`.execute(db)).rows[0].at
    for (let i = 0; i < PAGES; i++) site.page(`/plan/${i}`, layout(`Plan ${i}`, plans(100 + i)))
    assert.equal((await t.api.post(`/api/domains/${domainId}/crawl`)).status, 200)
    await drainJobs(t.api)

    const changes = (await sql<{ id: string, at: Date }>`SELECT id, created_at AS at FROM changes
      WHERE domain_id = ${domainId}::uuid AND created_at >= ${since} ORDER BY created_at`.execute(db)).rows
    assert.ok(changes.length >= PAGES, `a change on every plan page (${changes.length})`)
    // The last changes wait for their spacing after the crawls are done.
    const undispatched = async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM changes
      WHERE domain_id = ${domainId}::uuid AND alerted_at IS NULL`.execute(db)).rows[0].n
    await eventually(async () => (await undispatched()) === 0 ? true : undefined, 20_000, 'every change dispatched')
    const jobs = (await sql<{ ids: string[] }>`SELECT data->'changeIds' AS ids FROM jobs
      WHERE lane = ${QUEUE.dispatch} AND data ? 'changeIds' AND created_at >= ${since}`.execute(db)).rows
    // A change is in one job at most; the outbox's sweep (each minute, or a page event's dispatch) may have sent
    // some before their job came, which is why the test counts jobs, not the changes in them.
    const handed = jobs.flatMap(j => j.ids)
    assert.equal(new Set(handed).size, handed.length, 'no change handed over twice')
    assert.ok(handed.every(id => changes.some(c => c.id === id)), 'only the crawl\'s changes')
    // Jobs queued at least `apartMs` apart: the first at once, then one per second of the
    // changes' span at most, one for those found after the last, and one more because the
    // span is read from the changes' rows, not from when each was told (a busy machine only
    // spreads the changes further, and allows more). At 50 ms a job per change or two was queued.
    const spanMs = changes[changes.length - 1].at.getTime() - changes[0].at.getTime()
    const most = 3 + Math.floor(spanMs / DISPATCH_SPACING.apartMs)
    assert.ok(spanMs >= 1000, `the changes came over ${spanMs} ms, not at once`)
    assert.ok(jobs.length <= most, `${jobs.length} dispatch jobs for ${changes.length} changes over ${spanMs} ms (at most ${most})`)
  })
})
