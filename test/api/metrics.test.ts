import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { acmeHostMap, startAcmeSite } from '../helpers/fixtures.js'
import { drainJobs, onPostgres, startTestService, waitForJob, type TestService } from '../helpers/service.js'
import type { TestSite } from '../helpers/site.js'

// /metrics for Prometheus: behind METRICS_TOKEN when set, not part of /openapi.json, and
// fed by what really happened: requests, jobs, page checks, fetches, queue and database.

const TOKEN = 'metrics-s3cret'

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample (text: string, line: string): number | undefined {
  const found = text.split('\n').find(l => l.startsWith(`${line} `))
  return found === undefined ? undefined : Number(found.slice(line.length + 1))
}

describe('/metrics', () => {
  let site: TestSite
  let t: TestService
  before(async () => {
    site = await startAcmeSite()
    t = await startTestService({ CRAWL_HOST_MAP: acmeHostMap(site), METRICS_TOKEN: TOKEN })
  })
  after(async () => {
    await t.stop()
    await site.close()
  })

  const scrape = async (token?: string) =>
    await fetch(`${t.url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {})

  it('wants the bearer token when METRICS_TOKEN is set', async () => {
    for (const token of [undefined, 'wrong', `${TOKEN}x`]) {
      const res = await scrape(token)
      assert.equal(res.status, 401)
      assert.equal((await res.json()).error.code, 'UNAUTHORIZED')
    }
    assert.equal((await scrape(TOKEN)).status, 200)
  })

  it('counts requests by route and status, jobs by queue and outcome, checks, fetches, and reads the database', async () => {
    const created = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data
    await waitForJob(t.api, created.discoveryJobId)
    await drainJobs(t.api)
    await t.api.get('/api/domains/00000000-0000-4000-8000-000000000000')
    const res = await scrape(TOKEN)
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
    const text = await res.text()
    const pages = (await t.api.get(`/api/domains/${created.id}/pages`)).body.data.length
    assert.equal(sample(text, 'sitewatch_http_request_duration_seconds_count{method="POST",route="/api/domains",status="201"}'), 1)
    assert.equal(sample(text, 'sitewatch_http_request_duration_seconds_count{method="GET",route="/api/domains/:id",status="404"}'), 1)
    assert.equal(sample(text, 'sitewatch_job_duration_seconds_count{queue="discover.pages",outcome="completed"}'), 1)
    assert.equal(sample(text, 'sitewatch_job_duration_seconds_count{queue="crawl.page",outcome="completed"}'), pages)
    assert.equal(sample(text, 'sitewatch_page_checks_total{outcome="baseline"}'), pages)
    assert.ok((sample(text, 'sitewatch_fetch_duration_seconds_count{outcome="ok"}') ?? 0) >= pages)
    assert.equal(sample(text, 'sitewatch_database_up'), 1)
    assert.match(text, /^# HELP sitewatch_queue_jobs /m)
    // The crawls were taken by fetches that found some.
    assert.ok((sample(text, 'sitewatch_queue_fetches_total{queue="crawl.page",found="some"}') ?? 0) >= 1)
    assert.ok((sample(text, 'sitewatch_process_cpu_user_seconds_total') ?? 0) > 0)
    if (onPostgres) assert.ok((sample(text, 'sitewatch_db_pool_connections{pool="store",state="open"}') ?? 0) >= 1)
  })

  it('is not part of /openapi.json', async () => {
    const doc = await (await fetch(`${t.url}/openapi.json`)).json()
    assert.equal(Object.keys(doc.paths).some(p => p.includes('metrics')), false)
  })
})

describe('a worker process', () => {
  let t: TestService
  let metricsUrl: string
  before(async () => {
    t = await startTestService({ ROLE: 'worker', METRICS_PORT: '0' })
    metricsUrl = t.service.url!
  })
  after(async () => {
    await t.stop()
  })

  it('serves /healthz, /readyz and /metrics on METRICS_PORT, and no API', async () => {
    assert.equal((await fetch(`${metricsUrl}/healthz`)).status, 200)
    assert.equal((await fetch(`${metricsUrl}/readyz`)).status, 200)
    const metrics = await (await fetch(`${metricsUrl}/metrics`)).text()
    assert.match(metrics, /^sitewatch_database_up 1$/m)
    assert.equal((await fetch(`${metricsUrl}/api/domains`)).status, 404)
  })
})
