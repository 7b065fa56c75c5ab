// Documents watched like pages (detection/readers/documents.ts): a PDF of terms whose clause moves,
// a JSON price list watched in part, a plain-text changelog; and the PDFs a crawler must
// refuse (a scan, a password, a bomb) with a lastError that says why, not a crash.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { acmeHostMap, startAcmeSite } from '../helpers/fixtures.js'
import { bombPdf, encryptedPdf, scannedPdf, textPdf } from '../helpers/documents.js'
import { drainJobs, startTestService, waitForJob, type TestService } from '../helpers/service.js'
import type { TestSite } from '../helpers/site.js'

/** Terms of service over three pages, as a legal team's word processor would print them; `cap` moves one clause. */
const terms = async (cap: string) => await textPdf('Acme Terms of Service', [
  ['Acme Terms of Service', '1. Scope', 'These terms govern your use of the Acme service.',
    '2. Accounts', 'You are responsible for the security of your account.'],
  ['5. Payment', 'Fees are billed monthly in advance and are not refundable.',
    '7. Limitation of liability', `Our total liability is limited to ${cap}.`],
  ['9. Governing law', 'These terms are governed by the laws of Ireland.']
])

const prices = (pro: number, generatedAt: string) => JSON.stringify({
  generatedAt,
  currency: 'EUR',
  plans: [
    { name: 'Starter', monthly: 19, seats: 3 },
    { name: 'Pro', monthly: pro, seats: 10 }
  ]
}, null, 2)

const pdf = (body: Buffer, type = 'application/pdf') => ({ body, headers: { 'content-type': type } })
const json = (body: string) => ({ body, headers: { 'content-type': 'application/json' } })

describe('documents: PDF, JSON and plain text watched like pages', () => {
  let site: TestSite
  let t: TestService
  let domainId = ''
  const added = new Map<string, any>()

  const crawl = async (path: string) => {
    const page = added.get(path)
    const { jobId } = (await t.api.post(`/api/domains/${domainId}/pages/${page.id}/crawl`)).body.data
    return await waitForJob(t.api, jobId)
  }
  const pageOf = async (path: string) =>
    (await t.api.get(`/api/domains/${domainId}/pages?pageSize=500`)).body.data.find((p: any) => p.id === added.get(path).id)
  const changesOf = async (path: string) =>
    (await t.api.get(`/api/changes?pageId=${added.get(path).id}`)).body.data as any[]

  before(async () => {
    site = await startAcmeSite()
    site.set('/legal/terms.pdf', pdf(await terms('the fees paid in the last twelve months')))
    // Served as a download: the bytes say what it is.
    site.set('/legal/dpa', pdf(await textPdf('', [['Data Processing Addendum', 'We process data on your behalf.']]),
      'application/octet-stream'))
    site.set('/api/prices.json', json(prices(49, '2026-11-26T04:00:00Z')))
    site.set('/changelog.txt', { body: 'Changelog\n\n2026-11-01 Faster exports\n', headers: { 'content-type': 'text/plain' } })
    site.set('/legal/scan.pdf', pdf(await scannedPdf()))
    site.set('/legal/locked.pdf', pdf(encryptedPdf()))
    site.set('/legal/bomb.pdf', pdf(bombPdf()))
    t = await startTestService({ CRAWL_HOST_MAP: acmeHostMap(site) })
    domainId = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data.id
    await drainJobs(t.api)
    for (const path of ['/legal/terms.pdf', '/legal/dpa', '/api/prices.json', '/changelog.txt',
      '/legal/scan.pdf', '/legal/locked.pdf', '/legal/bomb.pdf']) {
      const res = await t.api.post(`/api/domains/${domainId}/pages`, { url: `https://acme.test${path}` })
      assert.equal(res.status, 201, `${path}: ${JSON.stringify(res.body)}`)
      added.set(path, res.body.data)
    }
    await drainJobs(t.api)
  })
  after(async () => {
    await t.stop()
    await site.close()
  })

  it('a PDF is read as text with its page numbers, whatever type it is served as', async () => {
    for (const path of ['/legal/terms.pdf', '/legal/dpa']) {
      const page = await pageOf(path)
      assert.equal(page.status, 'active', `${path}: ${page.lastError}`)
      assert.equal(page.lastError, null)
    }
    const terms = added.get('/legal/terms.pdf')
    const latest = (await t.api.get(`/api/domains/${domainId}/pages/${terms.id}/snapshots/latest`)).body.data
    assert.equal(latest.contentType, 'application/pdf')
    assert.match(latest.text, /## Page 2\n5\. Payment\n.+\n7\. Limitation of liability\nOur total liability is limited to the fees paid/)
    assert.equal((await pageOf('/legal/terms.pdf')).pageType, 'terms')
  })

  it('a scanned, an encrypted and a bombed PDF fail their page at once, saying why', async () => {
    for (const [path, why] of [
      ['/legal/scan.pdf', /holds no text, only images/],
      ['/legal/locked.pdf', /encrypted with a password/],
      ['/legal/bomb.pdf', /inflates to more than 64 MB \(a PDF bomb\)/]
    ] as const) {
      const page = await pageOf(path)
      assert.equal(page.status, 'error', path)
      assert.match(page.lastError, why)
      assert.match(page.failure.nextStep, /cannot be read as text/)
      const job = (await t.api.get('/api/jobs?status=failed&limit=100')).body.data.find((j: any) => j.pageId === page.id)
      assert.equal(job.attemptsMade, 1, `${path}: nothing to try again`)
    }
    // The service is whole after the bomb: another document still reads.
    assert.equal((await crawl('/legal/dpa')).state, 'completed')
  })

  it("a PDF's changed clause is reported with its page number and its words", async () => {
    site.set('/legal/terms.pdf', pdf(await terms('EUR 100')))
    const job = await crawl('/legal/terms.pdf')
    assert.equal(job.state, 'completed', job.failedReason)
    const [change, ...more] = await changesOf('/legal/terms.pdf')
    assert.equal(more.length, 0)
    assert.equal(change.changeType, 'terms_update')
    assert.match(change.summary, /Page 2/)
    assert.match(change.summary, /EUR 100|twelve months/)
    const lines = change.diffData.hunks.flatMap((h: any) => h.lines)
    assert.ok(lines.some((l: any) => l.type === 'addition' && /limited to EUR 100/.test(l.content)))
    assert.ok(lines.some((l: any) => l.type === 'deletion' && /fees paid in the last twelve months/.test(l.content)))
  })

  it('JSON is compared value by value; includePaths watches part of it, and the rest moving is silent', async () => {
    const path = `/api/domains/${domainId}/pages/${added.get('/api/prices.json').id}`
    for (const bad of [['plans'], ['$..plans'], ['$.plans[-1]'], ['$.a b']]) {
      const res = await t.api.request('PATCH', path, { body: { noiseRules: { includePaths: bad } } })
      assert.equal(res.status, 400, bad[0])
    }
    const set = await t.api.request('PATCH', path, { body: { noiseRules: { includePaths: ['$.plans[*].monthly', '$.currency'] } } })
    assert.equal(set.status, 200, JSON.stringify(set.body))
    assert.deepEqual(set.body.data.noiseRules, { includePaths: ['$.plans[*].monthly', '$.currency'] })
    await crawl('/api/prices.json') // the new rules' baseline
    const before = (await changesOf('/api/prices.json')).length

    site.set('/api/prices.json', json(prices(49, '2026-11-27T04:00:00Z')))
    await crawl('/api/prices.json')
    assert.equal((await changesOf('/api/prices.json')).length, before, 'a value outside includePaths moved: silent')

    site.set('/api/prices.json', json(prices(59, '2026-11-28T04:00:00Z')))
    await crawl('/api/prices.json')
    const changes = await changesOf('/api/prices.json')
    assert.equal(changes.length, before + 1)
    const lines = changes[0].diffData.hunks.flatMap((h: any) => h.lines)
    assert.deepEqual(lines.filter((l: any) => l.type !== 'context').map((l: any) => `${l.type} ${l.content}`),
      ['deletion $.plans[1].monthly: 49', 'addition $.plans[1].monthly: 59'])
    const latest = (await t.api.get(`${path}/snapshots/latest`)).body.data
    assert.equal(latest.text, '$.currency: "EUR"\n$.plans[0].monthly: 19\n$.plans[1].monthly: 59')
  })

  it('a plain-text file is read line by line', async () => {
    site.set('/changelog.txt', {
      body: 'Changelog\n\n2026-11-20 SAML single sign-on for <all> plans\n2026-11-01 Faster exports\n',
      headers: { 'content-type': 'text/plain; charset=utf-8' }
    })
    await crawl('/changelog.txt')
    const [change] = await changesOf('/changelog.txt')
    const added = change.diffData.hunks.flatMap((h: any) => h.lines).filter((l: any) => l.type === 'addition')
    assert.deepEqual(added.map((l: any) => l.content), ['2026-11-20 SAML single sign-on for <all> plans'])
  })
})

describe('an API description watched as a page', () => {
  let site: TestSite
  let t: TestService
  let domainId = ''
  const spec = readFileSync(new URL('../detection/fixtures/api/petstore.yaml', import.meta.url), 'utf8')
  const yaml = (body: string) => ({ body, headers: { 'content-type': 'application/yaml' } })

  before(async () => {
    site = await startAcmeSite()
    site.set('/openapi.yaml', yaml(spec))
    t = await startTestService({ CRAWL_HOST_MAP: acmeHostMap(site) })
    domainId = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data.id
    await drainJobs(t.api)
  })
  after(async () => {
    await t.stop()
    await site.close()
  })

  it('is read as its operations, typed an API page, and an operation removed is a critical change of its contract', async () => {
    const added = await t.api.post(`/api/domains/${domainId}/pages`, { url: 'https://acme.test/openapi.yaml' })
    assert.equal(added.status, 201, JSON.stringify(added.body))
    await drainJobs(t.api)
    const page = (await t.api.get(`/api/domains/${domainId}/pages/${added.body.data.id}`)).body.data
    assert.equal(page.lastError, null)
    assert.equal(page.pageType, 'api_docs', 'typed from what it says')
    const latest = (await t.api.get(`/api/domains/${domainId}/pages/${page.id}/snapshots/latest`)).body.data
    assert.match(latest.text, /^# Swagger Petstore 1\.0\.0\nGET \/pets: List all pets\nPOST \/pets/)
    site.set('/openapi.yaml', yaml(spec.replace(/ {4}delete:\n(?: {6}.*\n| {8}.*\n| {10}.*\n| {12}.*\n| {14}.*\n)+/, '')))
    const { jobId } = (await t.api.post(`/api/domains/${domainId}/pages/${page.id}/crawl`)).body.data
    assert.equal((await waitForJob(t.api, jobId)).state, 'completed')
    const [change, ...more] = (await t.api.get(`/api/changes?pageId=${page.id}`)).body.data
    assert.equal(more.length, 0)
    assert.equal(change.changeType, 'feature_removed')
    assert.equal(change.severity, 'critical')
    assert.match(change.summary, /DELETE \/pets\/\{petId\} removed/)
  })
})
