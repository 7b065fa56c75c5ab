import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { loadConfig } from '../../src/config.js'
import { Crawler } from '../../src/crawl/crawler.js'
import { FetchError } from '../../src/crawl/errors.js'
import { fleetPacer, fleetRobotsFiles } from '../../src/services/host-pacer.js'
import { paceRules } from '../../src/store/host-pace.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

// robots.txt is read once for the fleet: each worker process is a crawler of its own,
// and the second finds the first's copy in the database instead of asking the host again.
describe("a host's robots.txt, read once for every worker", () => {
  let t: TestService
  let site: TestSite
  const crawlers: Crawler[] = []
  before(async () => {
    t = await startTestService({ ROLE: 'api' })
    site = await new TestSite().start()
    site.set('/robots.txt', { body: 'User-agent: *\nDisallow: /private\n', headers: { 'content-type': 'text/plain' } })
    site.page('/a', '<h1>A</h1>')
    site.page('/b', '<h1>B</h1>')
    site.page('/private', '<h1>Private</h1>')
  })
  after(async () => {
    for (const c of crawlers) await c.close()
    await site.close()
    await t.stop()
  })

  const worker = () => {
    const config = loadConfig({ CRAWL_HOST_MAP: `robots.test=${site.origin}`, CRAWL_PER_HOST_DELAY_MS: '0' })
    const { db } = t.service.store
    const crawler = new Crawler(config, fleetPacer(db, paceRules(config)), fleetRobotsFiles(db))
    crawlers.push(crawler)
    return crawler
  }

  it('is fetched by the first worker, and read from the database by the others, its rules kept', async () => {
    const [first, second, third] = [worker(), worker(), worker()]
    assert.equal((await first.fetchPage('https://robots.test/a')).status, 200)
    assert.equal((await second.fetchPage('https://robots.test/b')).status, 200)
    await assert.rejects(third.fetchPage('https://robots.test/private'),
      (err: unknown) => err instanceof FetchError && err.code === 'ROBOTS_DISALLOWED')
    assert.equal(site.hitsOf('/robots.txt'), 1)
    assert.equal(site.hitsOf('/private'), 0)
  })

  it('is fetched again once the fleet\'s copy has expired', async () => {
    await t.service.store.db.updateTable('robots_files').set({ expires_at: new Date(Date.now() - 1000) }).execute()
    assert.equal((await worker().fetchPage('https://robots.test/a')).status, 200)
    assert.equal(site.hitsOf('/robots.txt'), 2)
  })
})
