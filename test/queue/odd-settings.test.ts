// Every setting a documented range accepts works: the queue, discovery and crawls run at
// values that are not round (a lease of 20 s made discovery's deadline 13,333.3 ms, which a
// timer refuses, and every discovery failed all its attempts).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { layout } from '../helpers/fixtures.js'
import { eventually, startTestService, waitForJob, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

describe('odd settings', () => {
  let site: TestSite
  let t: TestService
  before(async () => {
    site = await new TestSite().start()
    site.page('/', layout('Odd', '<h1>Odd</h1><a href="/pricing">Pricing</a>'))
    site.page('/pricing', layout('Pricing', '<h1>Pricing</h1><p>Pro: $20 per month.</p>'))
    t = await startTestService({
      CRAWL_HOST_MAP: `odd.test=${site.origin}`,
      JOB_EXPIRE_SECONDS: '20',
      JOB_POLLING_SECONDS: '0.7',
      JOB_MAINTENANCE_SECONDS: '7',
      JOB_RETRY_DELAY_SECONDS: '1.5',
      DISCOVERY_DEADLINE_SECONDS: '31',
      CRAWL_TIMEOUT_MS: '1501.5',
      CRAWL_PER_HOST_DELAY_MS: '33'
    })
  })
  after(async () => {
    await t.stop()
    await site.close()
  })

  it('discovers and crawls with a lease of 20 s and other values that are not round', async () => {
    const created = (await t.api.post('/api/domains', { domain: 'odd.test' })).body.data
    const discovery = await waitForJob(t.api, created.discoveryJobId)
    assert.equal(discovery.state, 'completed', JSON.stringify(discovery))
    const domain = (await t.api.get(`/api/domains/${created.id}`)).body.data
    assert.ok(domain.pages.some((p: any) => p.url === 'https://odd.test/pricing'), JSON.stringify(domain.pages))
    // Discovery queued the pages' first crawls: each completes.
    const crawls = await eventually(async () => {
      const jobs = (await t.api.get(`/api/jobs?domainId=${created.id}&type=crawl`)).body.data as any[]
      return jobs.length > 0 && jobs.every(j => ['completed', 'failed'].includes(j.state)) ? jobs : undefined
    })
    assert.deepEqual(crawls.map(j => j.state), crawls.map(() => 'completed'), JSON.stringify(crawls))
  })
})
