import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { takeQuota } from '../../src/services/quota.js'
import { createOrg } from '../../src/services/orgs.js'
import { issueKey } from '../../src/store/orgs.js'
import { addUser } from '../../src/services/accounts.js'
import { FormClient } from '../helpers/web-client.js'
import { CONTRACT_RATE_LIMITS, onPostgres, onRedis, startTestService, type TestService } from '../helpers/service.js'

const HOSTS =
  Array.from({ length: 30 }, (_, i) => `site${i}.test=http://127.0.0.1:9`).join(',') + ',race.test=http://127.0.0.1:9'

describe('quotas', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ CRAWL_HOST_MAP: HOSTS })
  })
  after(async () => {
    await t.stop()
  })

  it("the domain after the plan's last is 402 QUOTA_EXCEEDED, and deleting a domain does not give the slot back", async () => {
    const ids: string[] = []
    for (let i = 0; i < 25; i++) {
      const res = await t.api.post('/api/domains', { domain: `site${i}.test` })
      assert.equal(res.status, 201, `domain ${i}`)
      ids.push(res.body.data.id)
    }
    const over = await t.api.post('/api/domains', { domain: 'site25.test' })
    assert.equal(over.status, 402)
    assert.equal(over.body.code, 'QUOTA_EXCEEDED')
    const trialEnds = (await t.api.get('/api/usage')).body.data.trial.expiresAt as string
    // What ran out, when it comes back (a trial's quota does not: the trial ends) and who can change it.
    assert.deepEqual(over.body.details, { resource: 'domains', used: 25, limit: 25, trialEndsAt: trialEnds, changedBy: 'owner' })
    assert.equal(over.body.error, `The trial allows 25 domains, and all 25 are used. The trial ends on ${trialEnds.slice(0, 10)}; ` +
      "the organisation's owner can change the plan under Usage and plan (/app/usage) to get more now.")
    assert.equal((await t.api.delete(`/api/domains/${ids[0]}`)).status, 200)
    const still = await t.api.post('/api/domains', { domain: 'site26.test' })
    assert.equal(still.status, 402)
    const usage = (await t.api.get('/api/usage')).body.data.limits.domains
    assert.deepEqual(usage, { used: 25, limit: 25, remaining: 0 })
    assert.equal((await t.api.get('/api/domains')).body.meta.total, 24)
  })

  it('the 11th manual recheck of a trial period is 402 with details', async () => {
    const domain = (await t.api.get('/api/domains')).body.data[0]
    for (let i = 0; i < 10; i++) assert.equal((await t.api.post(`/api/domains/${domain.id}/crawl`)).status, 200)
    const over = await t.api.post(`/api/domains/${domain.id}/crawl`)
    assert.equal(over.status, 402)
    assert.equal(over.body.details.resource, 'manualRechecks')
    assert.equal(over.body.details.used, 10)
    assert.equal(over.body.details.limit, 10)
    assert.match(over.body.error, /^The trial allows 10 manual rechecks, and all 10 are used\. The trial ends on \d{4}-\d\d-\d\d;/)
  })

  it('a plan limited to 5 domains refuses the 6th, saying when its count starts again (starter, through the quota the API uses)', async () => {
    const { org } = await createOrg(t.service.store.db, 'Starter Co', 'starter')
    for (let i = 0; i < 5; i++) await t.service.store.db.transaction().execute(tx => takeQuota(tx, org, 'domains'))
    await assert.rejects(
      t.service.store.db.transaction().execute(tx => takeQuota(tx, org, 'domains')),
      (err: any) =>
        err.code === 'QUOTA_EXCEEDED' && err.statusCode === 402 && err.details.used === 5 && err.details.limit === 5 &&
        typeof err.details.resetsAt === 'string' &&
        err.message === 'The starter plan allows 5 domains per billing period, and all 5 are used. The count starts again on ' +
          `${err.details.resetsAt.slice(0, 10)}, when this period ends; the organisation's owner can change the plan under Usage and plan (/app/usage).`
    )
  })
})

describe('concurrency', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ CRAWL_HOST_MAP: HOSTS })
  })
  after(async () => {
    await t.stop()
  })

  it('20 parallel POSTs of the same domain give one 201 and nineteen 409', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () => t.api.post('/api/domains', { domain: 'race.test' }))
    )
    const codes = results.map(r => r.status).sort()
    assert.deepEqual(codes, [201, ...Array(19).fill(409)])
    assert.equal((await t.api.get('/api/usage')).body.data.limits.domains.used, 1)
    const rows = await t.service.store.db
      .selectFrom('domains')
      .select('id')
      .where('hostname', '=', 'race.test')
      .execute()
    assert.equal(rows.length, 1)
    const jobs = (await t.api.get('/api/jobs?limit=100')).body.data.filter((j: any) => j.name === 'discover.pages')
    assert.equal(jobs.length, 1, 'the losers left no discovery job behind')
  })
})

describe('rate limits', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ CRAWL_HOST_MAP: HOSTS, ...CONTRACT_RATE_LIMITS })
  })
  after(async () => {
    await t.stop()
  })

  it('the 101st standard request in a minute is 429 RATE_LIMITED with Retry-After', async () => {
    for (let i = 0; i < 100; i++) {
      const res = await t.api.get('/api/usage')
      assert.equal(res.status, 200, `request ${i + 1}`)
      assert.equal(res.headers.get('x-ratelimit-remaining'), String(99 - i))
    }
    const limited = await t.api.get('/api/usage')
    assert.equal(limited.status, 429)
    assert.equal(limited.body.code, 'RATE_LIMITED')
    const retryAfter = Number(limited.headers.get('retry-after'))
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`)
    assert.equal(limited.headers.get('x-ratelimit-remaining'), '0')
    assert.equal(limited.headers.get('x-ratelimit-limit'), '100')
    // Another organisation has its own bucket; requests without a key count per address.
    const { apiKey } = await createOrg(t.service.store.db, 'Other', 'pro')
    assert.equal((await t.api.withKey(apiKey).get('/api/usage')).status, 200)
    assert.equal((await t.api.get('/api/usage', { key: null })).status, 401)
  })

  it('the 11th heavy request in an hour is 429, in a bucket of its own', async () => {
    const { apiKey } = await createOrg(t.service.store.db, 'Heavy', 'pro')
    const api = t.api.withKey(apiKey)
    const domain = (await api.post('/api/domains', { domain: 'site1.test' })).body.data
    for (let i = 0; i < 10; i++) {
      const res = await api.post(`/api/domains/${domain.id}/${i % 2 ? 'crawl' : 'discover'}`)
      assert.notEqual(res.status, 429, `heavy request ${i + 1}`)
      assert.equal(res.headers.get('x-ratelimit-limit'), '10')
    }
    const limited = await api.post(`/api/domains/${domain.id}/discover`)
    assert.equal(limited.status, 429)
    const retryAfter = Number(limited.headers.get('retry-after'))
    assert.ok(retryAfter > 60 && retryAfter <= 3600, `Retry-After ${retryAfter}`)
    const reset = Number(limited.headers.get('x-ratelimit-reset'))
    assert.ok(Math.abs(reset - (Date.now() / 1000 + retryAfter)) <= 2)
    assert.equal((await api.get('/api/domains')).status, 200, 'the standard bucket is untouched')
  })

  it("the app's heavy buttons say what is left of the hour, and are off, saying when it comes back, once it is spent", async () => {
    const { org, apiKey } = await createOrg(t.service.store.db, 'Buttons', 'enterprise')
    const api = t.api.withKey(apiKey)
    await addUser(t.service.store.db, org.id, { email: 'presser@example.test', password: 'a long enough password 42' }, 'owner')
    const person = new FormClient(t.url)
    await person.signIn('presser@example.test', 'a long enough password 42')
    const domain = (await api.post('/api/domains', { domain: 'site2.test' })).body.data
    await api.post(`/api/domains/${domain.id}/pages`, { url: 'https://site2.test/pricing' })
    const shown = async () => (await person.request('GET', `/app/domains/${domain.id}`)).text
    const crawlButton = (html: string) => /<button type="submit"( disabled(?:="")?)? aria-describedby="rechecks">Crawl now/.exec(html)
    const before = await shown()
    assert.match(before, /10 of the organisation's 10 discoveries, crawls, checks and briefs of this hour left/)
    assert.equal(crawlButton(before)?.[1], undefined, 'on while some are left')
    for (let i = 0; i < 10; i++) await api.post(`/api/domains/${domain.id}/discover`)
    const after = await shown()
    assert.match(crawlButton(after)?.[1] ?? '', /disabled/, 'off once the hour is spent (an enterprise plan has rechecks to spare)')
    assert.match(after, /has used its 10 discoveries, crawls, checks and briefs of the hour \(in the app and through the API together\); they come back at \d\d:\d\d UTC/)
  })

  it('a call its caller may not make (a read-only key writing) spends nothing of its tier; one without a valid key counts per address', async () => {
    const { org, apiKey } = await createOrg(t.service.store.db, 'Readers', 'pro')
    const writer = t.api.withKey(apiKey)
    const reader = t.api.withKey((await issueKey(t.service.store.db, org.id, { scope: 'read' })).apiKey)
    const domain = (await writer.post('/api/domains', { domain: 'site2.test' })).body.data
    const first = await writer.post(`/api/domains/${domain.id}/crawl`)
    assert.equal(first.headers.get('x-ratelimit-remaining'), '9')
    for (let i = 0; i < 3; i++) {
      const refused = await reader.post(`/api/domains/${domain.id}/crawl`)
      assert.equal(refused.status, 403)
      assert.match(refused.body.error, /read-only/)
      assert.equal(refused.headers.get('x-ratelimit-remaining'), '9', 'told what is left, nothing taken')
    }
    assert.equal((await writer.post(`/api/domains/${domain.id}/discover`)).headers.get('x-ratelimit-remaining'), '8')
    // Without a valid key, calls count per address (decisions.md), refused or not.
    const stranger = t.api.withKey('sw_not-a-key')
    const one = Number((await stranger.get('/api/usage')).headers.get('x-ratelimit-remaining'))
    const two = await stranger.get('/api/usage')
    assert.equal(two.status, 401)
    assert.equal(Number(two.headers.get('x-ratelimit-remaining')), one - 1)
  })

  it('a heavy call its route refuses (404) is given back to the heavy tier and counts in the standard one', async () => {
    const { apiKey } = await createOrg(t.service.store.db, 'Mistaken', 'pro')
    const api = t.api.withKey(apiKey)
    const domain = (await api.post('/api/domains', { domain: 'site3.test' })).body.data
    const standardLeft = async () => Number((await api.get('/api/usage')).headers.get('x-ratelimit-remaining'))
    const before = await standardLeft()
    for (let i = 0; i < 12; i++) {
      const refused = await api.post('/api/domains/00000000-0000-4000-8000-000000000000/crawl')
      assert.equal(refused.status, 404)
      assert.equal(refused.headers.get('x-ratelimit-remaining'), '10', 'nothing of the hour is spent')
    }
    // Twelve refused calls and the GET that reads the count: thirteen of the standard tier's.
    assert.equal(await standardLeft(), before - 13)
    for (let i = 0; i < 10; i++) {
      assert.notEqual((await api.post(`/api/domains/${domain.id}/${i % 2 ? 'crawl' : 'discover'}`)).status, 429, `heavy request ${i + 1}`)
    }
    assert.equal((await api.post(`/api/domains/${domain.id}/discover`)).status, 429)
  })

  it(
    'two API processes sharing Redis allow 100 per minute in total',
    { skip: !(onRedis && onPostgres) && 'needs TEST_REDIS_URL and TEST_DATABASE_URL' },
    async () => {
      const { apiKey } = await createOrg(t.service.store.db, 'Shared', 'pro')
      const second = await startTestService(
        { ROLE: 'api', CRAWL_HOST_MAP: HOSTS, ...CONTRACT_RATE_LIMITS, REDIS_KEY_PREFIX: t.service.config.redisKeyPrefix },
        { databaseUrl: t.service.config.databaseUrl }
      )
      try {
        const a = t.api.withKey(apiKey)
        const b = second.api.withKey(apiKey)
        const statuses: number[] = []
        for (let i = 0; i < 101; i++) statuses.push((await (i % 2 ? b : a).get('/api/usage')).status)
        assert.equal(statuses.filter(s => s === 200).length, 100)
        assert.equal(statuses[100], 429)
      } finally {
        await second.stop()
      }
    }
  )
})
