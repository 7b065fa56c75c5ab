// Longer than 300 lines on purpose: alerting end to end (webhooks, signatures, retries, Slack,
// plans, digest) against one local receiver.
import assert from 'node:assert/strict'
import { createHmac, timingSafeEqual } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { runDigest } from '../../src/alerts/webhook-digest.js'
import { createOrg } from '../../src/services/orgs.js'
import { acmeHostMap, layout, pricingMain, startAcmeSite } from '../helpers/fixtures.js'
import { drainJobs, eventually, onPostgres, startTestService, type TestService, queuesIdle, waitForJob } from '../helpers/service.js'
import type { TestSite } from '../helpers/site.js'

interface Received {
  path: string
  headers: IncomingMessage['headers']
  body: string
  answered: number
}

/** A real HTTP receiver whose answers the test scripts (500, 500, 200, …). */
class Receiver {
  readonly received: Received[] = []
  answers: number[] = []
  private server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', c => {
      body += c
    })
    req.on('end', () => {
      const status = this.answers.shift() ?? 200
      this.received.push({ path: req.url ?? '', headers: req.headers, body, answered: status })
      res.writeHead(status, { 'content-type': 'text/plain' })
      res.end(status === 200 ? 'ok' : 'try later')
    })
  })

  origin = ''
  async start (): Promise<this> {
    await new Promise<void>(resolve => this.server.listen(0, '127.0.0.1', resolve))
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  of (type: string) {
    return this.received.filter(r => r.headers['x-sitewatch-event'] === type)
  }

  async close () {
    this.server.closeAllConnections()
    await new Promise(resolve => this.server.close(resolve))
  }
}

/** The README's recipe, written out independently of the service's own code. */
function verifySignature (secret: string, rawBody: string, header: string | undefined, toleranceSeconds = 300):
boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '')
  if (!match) return false
  if (Math.abs(Date.now() / 1000 - Number(match[1])) > toleranceSeconds) return false
  const expected = createHmac('sha256', secret).update(`${match[1]}.${rawBody}`).digest()
  return timingSafeEqual(expected, Buffer.from(match[2], 'hex'))
}

const waitForCrawls = async (t: TestService, api = t.api) => {
  await drainJobs(api)
}

describe('alerts: signed webhooks, retries, restarts, Slack, plans', () => {
  let site: TestSite
  let receiver: Receiver
  let dataDir: string
  let t: TestService
  let env: Record<string, string>
  let domainId = ''

  before(async () => {
    site = await startAcmeSite()
    receiver = await new Receiver().start()
    dataDir = mkdtempSync(join(tmpdir(), 'sitewatch-alerts-'))
    env = {
      CRAWL_HOST_MAP: acmeHostMap(site),
      ALERT_HOST_MAP: `hooks.test=${receiver.origin},hooks.slack.com=${receiver.origin}`,
      ...(onPostgres ? {} : { DATA_DIR: dataDir })
    }
    t = await startTestService(env)
    domainId = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data.id
    await waitForCrawls(t)
  })
  after(async () => {
    await t.stop()
    await site.close()
    await receiver.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  let endpoint: any
  it('POST /api/webhooks creates a destination and shows its secret once', async () => {
    const res = await t.api.post('/api/webhooks', { url: 'https://hooks.test/sitewatch', description: 'ops' })
    assert.equal(res.status, 201)
    endpoint = res.body.data
    assert.match(endpoint.secret, /^whsec_/)
    assert.deepEqual(endpoint.events, ['change.detected', 'job.failed', 'page.discovered', 'page.removed'])
    assert.equal(endpoint.minSeverity, 'low')
    assert.equal(endpoint.kind, 'webhook')
    const got = await t.api.get(`/api/webhooks/${endpoint.id}`)
    assert.equal('secret' in got.body.data, false)
    assert.equal((await t.api.get('/api/webhooks')).body.meta.total, 1)
  })

  it('refuses private and malformed URLs, and custom rules or Slack beyond the plan (403 naming it)', async () => {
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://localhost/x',
      'http://localhost.:8080/x',
      'http://LOCALHOST../x',
      'http://api.localhost/x',
      'http://printer.local/x',
      'http://metadata.google.internal/x',
      'http://intranet/x',
      'http://169.254.169.254/latest',
      'http://[::1]/',
      'http://10.1.2.3/',
      'ftp://hooks.test/',
      'https://user:pw@hooks.test/'
    ]) {
      const res = await t.api.post('/api/webhooks', { url })
      assert.equal(res.status, 400, url)
      assert.equal(res.body.details.field, 'url')
    }
    const custom = await t.api.post('/api/webhooks', { url: 'https://hooks.test/x', minSeverity: 'high' })
    assert.equal(custom.status, 403)
    assert.equal(custom.body.code, 'FORBIDDEN')
    assert.match(custom.body.error, /trial plan/)
    assert.equal(
      (await t.api.post('/api/webhooks', { url: 'https://hooks.test/x', kind: 'slack' })).status,
      400,
      'Slack URLs are hooks.slack.com'
    )
  })

  it('a real detected change reaches the receiver, signed; the signature verifies with the documented recipe', async () => {
    site.page('/pricing', layout('Pricing — Acme', pricingMain('$59')))
    await t.api.post(`/api/domains/${domainId}/crawl`)
    const hit = await eventually(async () => receiver.of('change.detected')[0], 20_000, 'the webhook')
    assert.equal(hit.path, '/sitewatch')
    assert.equal(hit.headers['content-type'], 'application/json')
    assert.ok(
      verifySignature(endpoint.secret, hit.body, hit.headers['x-sitewatch-signature'] as string),
      'signature verifies'
    )
    assert.equal(
      verifySignature(endpoint.secret, hit.body.replace('59', '69'), hit.headers['x-sitewatch-signature'] as string),
      false,
      'a tampered body does not'
    )
    assert.equal(verifySignature('whsec_wrong', hit.body, hit.headers['x-sitewatch-signature'] as string), false)
    const stale = `t=${Math.floor(Date.now() / 1000) - 3600},v1=${createHmac('sha256', endpoint.secret)
      .update(`${Math.floor(Date.now() / 1000) - 3600}.${hit.body}`)
      .digest('hex')}`
    assert.equal(verifySignature(endpoint.secret, hit.body, stale), false, 'an old timestamp is a replay')
    const event = JSON.parse(hit.body)
    assert.equal(event.type, 'change.detected')
    assert.equal(event.id, hit.headers['x-sitewatch-delivery'])
    assert.equal(event.data.change.changeType, 'price_change')
    assert.equal(event.data.change.summary, 'Pro: $49/month → $59/month (+20%)')
    // The plans as a table travel with the change.
    assert.deepEqual(event.data.change.diffData.pricing.changes,
      [{ kind: 'price_up', plan: 'Pro', before: '$49/month', after: '$59/month', percent: 20, summary: 'Pro: $49/month → $59/month (+20%)' }])
    assert.deepEqual(event.data.change.diffData.pricing.after.plans.map((p: any) => p.name), ['Starter', 'Pro', 'Business'])
    assert.equal(event.data.page.url, 'https://acme.test/pricing')
    assert.equal(event.data.domain.domain, 'acme.test')
    const deliveries = (await t.api.get(`/api/webhooks/${endpoint.id}/deliveries`)).body.data
    const d = deliveries.find((x: any) => x.eventType === 'change.detected')
    assert.equal(d.status, 'delivered')
    assert.equal(d.attempts, 1)
    assert.equal(d.responseStatus, 200)
    assert.ok(Number.isInteger(d.durationMs))
  })

  it('a receiver that fails twice, across a restart of the service, gets the delivery in the end, exactly once', async () => {
    receiver.answers = [500, 503]
    const before = receiver.received.length
    site.page('/pricing', layout('Pricing — Acme', pricingMain('$69')))
    await t.api.post(`/api/domains/${domainId}/crawl`)
    await eventually(
      async () => (receiver.received.length >= before + 1 ? true : undefined),
      20_000,
      'the first failed attempt'
    )
    // Restart on the same data while the delivery waits for its retry.
    const first = t
    await first.service.stop()
    const second = await startTestService(env, { databaseUrl: first.service.config.databaseUrl })
    t = {
      ...second,
      key: first.key,
      api: second.api.withKey(first.key),
      stop: async () => {
        await second.service.stop()
        await first.stop()
      }
    }
    const attempts = await eventually(
      async () => {
        const hits = receiver.received.slice(before).filter(r => r.body.includes('$69'))
        return hits.some(h => h.answered === 200) ? hits : undefined
      },
      40_000,
      'the delivery to succeed after the restart'
    )
    assert.deepEqual(
      attempts.map(a => a.answered),
      [500, 503, 200]
    )
    assert.equal(
      new Set(attempts.map(a => a.headers['x-sitewatch-delivery'])).size,
      1,
      'one delivery id across retries'
    )
    // Every dispatch and delivery done: a duplicate would be in by now.
    await queuesIdle(t.url, ['alerts.dispatch', 'webhook.deliver'])
    assert.equal(
      receiver.received.slice(before).filter(r => r.body.includes('$69') && r.answered === 200).length,
      1,
      'delivered exactly once'
    )
    const row = await t.service.store.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', attempts[0].headers['x-sitewatch-delivery'] as string)
      .executeTakeFirstOrThrow()
    assert.equal(row.status, 'delivered')
    assert.equal(row.attempts, 3)
  })

  it('POST /api/webhooks/:id/test sends a signed test event', async () => {
    const api = t.api.withKey((await createOrg(t.service.store.db, 'Tester', 'pro')).apiKey)
    const ep = (await api.post('/api/webhooks', { url: 'https://hooks.test/test-only', events: ['change.detected'] }))
      .body.data
    const res = await api.post(`/api/webhooks/${ep.id}/test`)
    assert.equal(res.status, 200)
    assert.equal(res.body.data.eventType, 'webhook.test')
    const hit = await eventually(
      async () => receiver.received.find(r => r.path === '/test-only'),
      20_000,
      'the test event'
    )
    assert.ok(verifySignature(ep.secret, hit.body, hit.headers['x-sitewatch-signature'] as string))
    const listed = await eventually(
      async () => {
        const d = (await api.get(`/api/webhooks/${ep.id}/deliveries`)).body.data[0]
        return d.status === 'delivered' ? d : undefined
      },
      10_000,
      'the delivery record'
    )
    assert.equal(listed.attempts, 1)
    // Another organisation's destinations are 404 and invisible.
    assert.equal((await t.api.get(`/api/webhooks/${ep.id}`)).status, 404)
    assert.equal((await t.api.post(`/api/webhooks/${ep.id}/test`)).status, 404)
    assert.equal((await t.api.get(`/api/webhooks/${ep.id}/deliveries`)).status, 404)
    assert.equal((await t.api.request('PATCH', `/api/webhooks/${ep.id}`, { body: { enabled: false } })).status, 404)
    assert.equal((await t.api.delete(`/api/webhooks/${ep.id}`)).status, 404)
    assert.ok((await t.api.get('/api/webhooks')).body.data.every((e: any) => e.id !== ep.id))
    assert.equal((await api.delete(`/api/webhooks/${ep.id}`)).status, 200)
  })

  it('Slack: a readable message with domain, page, type, severity, summary and a link to the diff', async () => {
    const ep = await t.api.post('/api/webhooks', {
      url: 'https://hooks.slack.com/services/T000/B000/XXXX',
      kind: 'slack',
      events: ['change.detected']
    })
    assert.equal(ep.status, 201)
    site.page('/pricing', layout('Pricing — Acme', pricingMain('$79')))
    await t.api.post(`/api/domains/${domainId}/crawl`)
    const hit = await eventually(
      async () => receiver.received.find(r => r.path.startsWith('/services/') && r.body.includes('$79')),
      20_000,
      'the Slack message'
    )
    const msg = JSON.parse(hit.body)
    // An intelligence pricing page: its plans are read as a table, and a rise under 20% is medium.
    assert.equal(msg.text, ':large_orange_diamond: acme.test: Pro: $69/month → $79/month (+14%)')
    const blocks = JSON.stringify(msg.blocks)
    for (const part of ['https://acme.test/pricing', 'price_change', 'severity *medium*', '/app/changes/']) {
      assert.ok(blocks.includes(part), part)
    }
    assert.equal(hit.headers['x-sitewatch-signature'], undefined)
  })

  it('custom alert rules on enterprise: an endpoint filtered to critical pricing changes gets only those', async () => {
    const { apiKey } = await createOrg(t.service.store.db, 'Big', 'enterprise')
    const api = t.api.withKey(apiKey)
    const domain = (await api.post('/api/domains', { domain: 'acme.test' })).body.data
    await waitForCrawls(t, api)
    const ep = (
      await api.post('/api/webhooks', {
        url: 'https://hooks.test/critical',
        minSeverity: 'critical',
        pageTypes: ['pricing'],
        changeTypes: ['price_change'],
        domainIds: [domain.id]
      })
    ).body.data
    assert.equal(ep.minSeverity, 'critical')
    site.page(
      '/pricing',
      layout(
        'Pricing — Acme',
        pricingMain('$79', '$99', ['10 users', 'Priority support']).replace('$19/month', '$39/month')
      )
    )
    site.page('/about', layout('About — Acme', '<h1>About us</h1><p>We are a bigger team.</p>'))
    await api.post(`/api/domains/${domain.id}/crawl`)
    await waitForCrawls(t, api)
    const hit = await eventually(
      async () => receiver.received.find(r => r.path === '/critical'),
      20_000,
      'the critical alert'
    )
    // Every dispatch and delivery done: a duplicate would be in by now.
    await queuesIdle(t.url, ['alerts.dispatch', 'webhook.deliver'])
    const all = receiver.received.filter(r => r.path === '/critical').map(r => JSON.parse(r.body).data.change)
    assert.ok(all.length >= 1)
    assert.ok(
      all.every(c => c.severity === 'critical' && c.changeType === 'price_change'),
      JSON.stringify(all.map(c => c.summary))
    )
    assert.match(JSON.parse(hit.body).data.change.summary, /Starter: \$19\/month → \$39\/month/)
    const other = (await api.get('/api/changes?pageType=other')).body.data
    assert.ok(other.length >= 1, 'the other changes exist but were not sent')
  })

  it('one check of a page that finds several separate edits records one change and sends one alert', async () => {
    const before = receiver.of('change.detected').length
    site.page('/pricing', layout('Pricing — Acme', pricingMain('$89').replace(
      'Contact sales for volume discounts.', 'Volume discounts start at 50 seats.')))
    const crawl = (await t.api.post(`/api/domains/${domainId}/crawl`)).body.data
    await drainJobs(t.api)
    assert.ok(crawl.jobIds.length > 0)
    const pricingId = (await t.api.get(`/api/domains/${domainId}/pages`)).body.data
      .find((p: any) => p.url === 'https://acme.test/pricing').id
    const latest = (await t.api.get(`/api/changes?pageId=${pricingId}`)).body.data
    const recorded = latest.filter((c: any) => c.snapshotAfterId === latest[0].snapshotAfterId)
    assert.equal(recorded.length, 1, JSON.stringify(recorded.map((c: any) => c.summary)))
    assert.match(recorded[0].summary, /\$89\/month.*; and 1 more /, 'led by the price, the other edit counted')
    // This endpoint's alert (Slack's, sent beside it, may come first), then nothing more for the check.
    const path = new URL(endpoint.url).pathname
    const alerts = () => receiver.of('change.detected').slice(before).filter(h => h.path === path)
      .map(h => JSON.parse(h.body).data).filter(d => d.page.url === 'https://acme.test/pricing')
    await eventually(async () => alerts().length > 0 || undefined, 20_000, 'the alert')
    await drainJobs(t.api)
    const fresh = alerts()
    assert.equal(fresh.length, 1, 'one alert for the check')
    assert.equal(fresh[0].changes.length, 1)
    assert.equal(fresh[0].change.changeType, 'price_change', 'the most severe leads')
  })

  it('job.failed reaches endpoints that asked for it', async () => {
    site.set('/changelog', { status: 500, body: 'down' })
    await t.api.post(`/api/domains/${domainId}/crawl`)
    const hit = await eventually(async () => receiver.of('job.failed')[0], 40_000, 'the job.failed event')
    const event = JSON.parse(hit.body)
    assert.equal(event.data.job.name, 'crawl.page')
    assert.match(event.data.job.failedReason, /HTTP 500/)
    // Which page, and what its failure is: broken (not blocked), since when, what to do.
    assert.equal(event.data.page.url, 'https://acme.test/changelog')
    assert.equal(event.data.page.failure.kind, 'error')
    assert.match(event.data.page.failure.nextStep, /server fails/)
    assert.ok(!Number.isNaN(Date.parse(event.data.page.failure.since)))
    assert.ok(verifySignature(endpoint.secret, hit.body, hit.headers['x-sitewatch-signature'] as string))

    // The same page failing again is not news: no second alert. Its recovery is, once.
    const again = (await t.api.post(`/api/domains/${domainId}/crawl`)).body.data
    for (const id of again.jobIds) await waitForJob(t.api, id, 40_000)
    await drainJobs(t.api)
    assert.equal(receiver.of('job.failed').length, 1, 'a page known to fail alerts once')
    site.page('/changelog', layout('Changelog — Acme', '<h1>Changelog</h1><p>Back up.</p>'))
    await t.api.post(`/api/domains/${domainId}/crawl`)
    const back = await eventually(async () => receiver.of('page.recovered')[0], 40_000, 'the page.recovered event')
    assert.equal(JSON.parse(back.body).data.page.url, 'https://acme.test/changelog')
    await drainJobs(t.api)
    assert.equal(receiver.of('page.recovered').length, 1)
  })

  it('digest plans get one message a day with the changes since the last one', async () => {
    const db = t.service.store.db
    const { org } = await createOrg(db, 'Digesty', 'starter')
    await db
      .insertInto('webhook_endpoints')
      .values({
        org_id: org.id,
        kind: 'webhook',
        url: 'https://hooks.test/digest',
        secret: 'whsec_digest',
        events: ['change.detected']
      })
      .execute()
    const pro = await db.selectFrom('changes').selectAll().limit(2).execute()
    // Two of the starter organisation's own changes (copies of real ones).
    const domain = await db
      .insertInto('domains')
      .values({ org_id: org.id, hostname: 'acme.test', status: 'active' })
      .returning('id')
      .executeTakeFirstOrThrow()
    const page = await db
      .insertInto('pages')
      .values({
        org_id: org.id,
        domain_id: domain.id,
        url: 'https://acme.test/pricing',
        url_hash: 'x',
        page_type: 'pricing'
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    const snap = await db
      .insertInto('snapshots')
      .values({ org_id: org.id, page_id: page.id, content_hash: 'h', content: 'c', http_status: 200 })
      .returning('id')
      .executeTakeFirstOrThrow()
    for (const c of pro) {
      const { search: _search, id: _id, ...copy } = c as any
      await db
        .insertInto('changes')
        .values({
          ...copy,
          org_id: org.id,
          domain_id: domain.id,
          page_id: page.id,
          snapshot_before_id: snap.id,
          snapshot_after_id: snap.id,
          diff_data: JSON.stringify(c.diff_data),
          alerted_at: null,
          created_at: new Date()
        } as any)
        .execute()
    }
    assert.equal(await runDigest(db, t.service.queue, new Date(Date.now() + 1000)), 1)
    const hit = await eventually(async () => receiver.received.find(r => r.path === '/digest'), 20_000, 'the digest')
    const event = JSON.parse(hit.body)
    assert.equal(event.type, 'changes.digest')
    assert.equal(event.data.total, 2)
    assert.equal(await runDigest(db, t.service.queue, new Date(Date.now() + 2000)), 0, 'nothing new, nothing sent')
  })
})
