import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { checkNoiseRules, patternMasker } from '../../src/detection/text/noise-rules.js'
import { drainJobs, eventually, startTestService, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

// No tenant's input may slow another tenant: an editor's ignorePatterns run in linear time,
// and a page whose reading outlives its deadline fails alone while the others go on.

/** The patterns the security review found: catastrophic backtracking the nested-quantifier check missed. */
const CATASTROPHIC = ['(\\w+\\s?)+$', '((a+))+$', '(a+?)+$', '(a|a)+$']
const BAIT = `${'a'.repeat(31)}!`
const ADMIN = 'admin-secret-token'
const page = (body: string) => `<!doctype html><html lang="en"><head><title>T</title></head><body><main>${body}</main></body></html>`

describe('patterns run in linear time', () => {
  it('the catastrophic patterns are accepted and mask a bait line at once (exponential before)', () => {
    assert.deepEqual(checkNoiseRules({ ignorePatterns: CATASTROPHIC }), [])
    const mask = patternMasker({ ignorePatterns: CATASTROPHIC })!
    for (let n = 31; n <= 5000; n *= 4) assert.match(mask(`${'a'.repeat(n)}!`), /\{ignored\}|!$/)
    assert.equal(patternMasker({ ignorePatterns: ['(a+)+$'] })!(`${'a'.repeat(40)}`), '{ignored}')
  })

  it('a pattern the linear engine cannot run is refused, and says why; one stored before masks nothing', () => {
    const [problem] = checkNoiseRules({ ignorePatterns: ['(?<=Updated )\\d+', '(a)\\1'] })
    assert.equal(problem.field, 'noiseRules.ignorePatterns')
    assert.match(problem.message, /not a pattern we can run .*linear time, without lookarounds or backreferences/)
    assert.equal(checkNoiseRules({ ignorePatterns: ['(a)\\1'] }).length, 1)
    assert.equal(patternMasker({ ignorePatterns: ['(?<=x)y'] }), undefined)
  })
})

describe('no tenant can stall the others', () => {
  let site: TestSite
  let t: TestService
  let other: TestService['api']
  let acme = ''
  let globex = ''
  let proPrice = 49
  let huge = 'one'
  const hugePage = (seed: string) => page(Array.from({ length: 5_000 }, (_, i) => `<p>Line ${i} of ${seed}: ${seed}-${i * 7919 % 10007}</p>`).join(''))

  before(async () => {
    site = await new TestSite().start()
    site.page('/', page('<h1>Acme</h1><p>We make things.</p>'))
    site.set('/status', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(page(`<h1>Status</h1><p>${BAIT}</p><p>Checked ${proPrice} times.</p>`))
    })
    site.set('/huge', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(hugePage(huge))
    })
    site.set('/pricing', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(page(`<h1>Pricing</h1><h3>Pro</h3><p class="price">$${proPrice}/month</p>`))
    })
    t = await startTestService({
      ADMIN_TOKEN: ADMIN,
      ANALYSIS_THREADS: '2',
      // A check's reading takes a few milliseconds; comparing 5,000 lines that all changed takes about a second.
      ANALYSIS_DEADLINE_MS: '300',
      CRAWL_HOST_MAP: `acme.test=${site.origin},globex.test=${site.origin}`
    })
    const created = await fetch(`${t.url}/admin/orgs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Globex', plan: 'pro' })
    })
    other = t.api.withKey(((await created.json()) as any).data.apiKey)
    acme = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data.id
    globex = (await other.post('/api/domains', { domain: 'globex.test' })).body.data.id
    await drainJobs(t.api)
    await drainJobs(other)
  })
  after(async () => {
    await t?.stop()
    await site?.close()
  })

  const pageOf = async (api: TestService['api'], domainId: string, path: string) =>
    ((await api.get(`/api/domains/${domainId}/pages?pageSize=500`)).body.data as any[])
      .find(p => new URL(p.url).pathname === path)
  const added = async (api: TestService['api'], domainId: string, host: string, path: string, pageType = 'other') => {
    const existing = await pageOf(api, domainId, path)
    if (existing) return existing
    return (await api.post(`/api/domains/${domainId}/pages`, { url: `https://${host}${path}`, pageType })).body.data
  }
  const checked = async (api: TestService['api'], domainId: string, path: string, since: string | null) =>
    await eventually(async () => {
      const p = await pageOf(api, domainId, path)
      return p.lastCheckAt !== since || p.lastError ? p : undefined
    }, 60_000, `a check of ${path}`)

  it('an editor\'s catastrophic patterns do not delay another organisation\'s change', async () => {
    const status = await added(t.api, acme, 'acme.test', '/status')
    const patched = await t.api.request('PATCH', `/api/domains/${acme}/pages/${status.id}`,
      { body: { noiseRules: { ignorePatterns: CATASTROPHIC } } })
    assert.equal(patched.status, 200)
    const pricing = await added(other, globex, 'globex.test', '/pricing', 'pricing')
    await drainJobs(t.api)
    await drainJobs(other)
    proPrice = 59
    const since = (await pageOf(t.api, acme, '/status')).lastCheckAt
    await t.api.post(`/api/domains/${acme}/crawl`)
    await other.post(`/api/domains/${globex}/crawl`)
    const change = await eventually(async () => {
      const list = (await other.get(`/api/changes?pageId=${pricing.id}`)).body.data as any[]
      return list[0]
    }, 30_000, 'the other organisation\'s change')
    assert.equal(change.changeType, 'price_change')
    const mine = await checked(t.api, acme, '/status', since)
    assert.equal(mine.lastError, null)
  })

  it('a page whose reading outlives the deadline fails alone, says why, and is not retried; the others go on', async () => {
    const big = await added(t.api, acme, 'acme.test', '/huge')
    await eventually(async () => (await pageOf(t.api, acme, '/huge')).lastCheckAt ? true : undefined, 60_000, 'the baseline')
    // Every one of its 5,000 lines changes: comparing them takes longer than the deadline.
    huge = 'two'
    const since = (await pageOf(t.api, acme, '/huge')).lastCheckAt
    await t.api.post(`/api/domains/${acme}/crawl`)
    const failed = await eventually(async () => {
      const p = await pageOf(t.api, acme, '/huge')
      return p.lastError ? p : undefined
    }, 60_000, 'the failed check')
    assert.notEqual(failed.lastCheckAt, since)
    assert.match(failed.lastError, /^Reading and comparing the page took longer than 0.3 s and was stopped/)
    assert.equal(failed.status, 'error', 'stopped once: not retried')
    // The page's error is written before its job is settled: the job is waited for, not read at once.
    const job = await eventually(async () =>
      ((await t.api.get('/api/jobs?status=failed&type=crawl')).body.data as any[]).find(j => j.pageId === big.id),
    30_000, 'the failed job')
    assert.equal(job.attemptsMade, 1)
    // The thread was replaced: the other organisation's next change is read.
    proPrice = 69
    await other.post(`/api/domains/${globex}/crawl`)
    const next = await eventually(async () => {
      const list = (await other.get(`/api/changes?domainId=${globex}`)).body.data as any[]
      return list.find(c => /\$69/.test(c.summary))
    }, 30_000, 'the next change')
    assert.equal(next.changeType, 'price_change')
  })
})
