// Longer than 300 lines on purpose: the changes API (filters, search, counting, acknowledgement)
// over one recorded set of changes.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createOrg } from '../../src/services/orgs.js'
import { acmeHostMap, featuresMain, layout, pricingMain, startAcmeSite, termsMain } from '../helpers/fixtures.js'
import { drainJobs, startTestService, waitForJob, type TestService } from '../helpers/service.js'
import type { TestSite } from '../helpers/site.js'

async function crawlAndWait (t: TestService, domainId: string) {
  const crawl = (await t.api.post(`/api/domains/${domainId}/crawl`)).body.data
  for (const id of crawl.jobIds) await waitForJob(t.api, id)
}

const settle = async (t: TestService) => {
  await drainJobs(t.api)
}

describe('the changes API, acknowledgement and page controls', () => {
  let site: TestSite
  let t: TestService
  let domainId = ''
  let pages: any[] = []
  const page = (path: string) => pages.find(p => p.url === `https://acme.test${path}`)

  before(async () => {
    site = await startAcmeSite()
    t = await startTestService({ CRAWL_HOST_MAP: acmeHostMap(site) })
    domainId = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data.id
    await settle(t)
    pages = (await t.api.get(`/api/domains/${domainId}/pages`)).body.data
    // One crawl that changes three pages in three ways; the pricing page's price and a feature of the same plan are
    // one edit of that plan, one change.
    site.page('/pricing', layout('Pricing — Acme', pricingMain('$59', '$99', ['10 users', 'Priority support'])))
    site.page(
      '/legal/terms',
      layout('Terms of Service — Acme', termsMain('We are not liable for anything, and you waive any class action.'))
    )
    site.page(
      '/features',
      layout(
        'Features — Acme',
        featuresMain.replace('Everything you need to ship faster.', 'Everything you need to ship much faster.')
      )
    )
    await crawlAndWait(t, domainId)
  })
  after(async () => {
    await t.stop()
    await site.close()
  })

  it('GET /api/changes lists every change newest first with the full Change shape', async () => {
    const res = await t.api.get('/api/changes')
    assert.equal(res.status, 200)
    const types = res.body.data.map((c: any) => c.changeType).sort()
    assert.deepEqual(types, ['content_change', 'price_change', 'terms_update'])
    assert.deepEqual(res.body.meta, { total: 3, page: 1, pageSize: 20 })
    const price = res.body.data.find((c: any) => c.changeType === 'price_change')
    // An intelligence pricing page: its plans read as a table, the price and the feature of one plan one change.
    assert.equal(price.summary, 'Pro: $49/month → $59/month (+20%); Pro: feature "SSO" removed')
    assert.match(price.diffData.before, /- SSO/, 'the diff holds both parts of the edit')
    const changed = price.diffData.hunks.flatMap((h: any) => h.lines.filter((l: any) => l.type !== 'context'))
    assert.ok(changed.some((l: any) => l.type === 'deletion' && l.content === '- SSO'), 'the feature\'s line')
    assert.ok(changed.some((l: any) => l.type === 'addition' && /\$59/.test(l.content)), 'the price\'s line')
    const times = res.body.data.map((c: any) => c.createdAt)
    assert.deepEqual(times, [...times].sort().reverse())
  })

  it('filters: severity and changeType (several values, repeated or comma-separated), pageType, domainId, pageId, dates, acknowledged', async () => {
    const ids = async (qs: string) =>
      (await t.api.get(`/api/changes?${qs}`)).body.data.map((c: any) => c.changeType).sort()
    assert.deepEqual(await ids('severity=high'), ['price_change', 'terms_update'])
    assert.deepEqual(await ids('severity=low'), ['content_change'])
    assert.deepEqual(await ids('changeType=price_change&changeType=terms_update'), ['price_change', 'terms_update'])
    assert.deepEqual(await ids('changeType=price_change,content_change'), ['content_change', 'price_change'])
    assert.deepEqual(await ids('pageType=terms'), ['terms_update'])
    assert.deepEqual(await ids('pageType=pricing,features'), ['content_change', 'price_change'])
    assert.deepEqual(await ids(`pageId=${page('/pricing').id}`), ['price_change'])
    assert.equal((await ids(`domainId=${domainId}`)).length, 3)
    assert.deepEqual(await ids('domainId=00000000-0000-4000-8000-000000000000'), [])
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString()
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString()
    assert.equal((await ids(`since=${hourAgo}&until=${inAnHour}`)).length, 3)
    assert.equal((await ids(`since=${inAnHour}`)).length, 0)
    assert.equal((await ids(`until=${hourAgo}`)).length, 0)
    assert.equal((await ids('acknowledged=true')).length, 0)
    assert.equal((await ids('acknowledged=false')).length, 3)
    assert.deepEqual(await ids(`severity=high&pageType=pricing&pageId=${page('/pricing').id}&acknowledged=false`), [
      'price_change'
    ])
    for (const bad of [
      'severity=urgent',
      'changeType=rewrite',
      'pageType=blog',
      'since=yesterday',
      'domainId=x',
      'acknowledged=maybe',
      'pageSize=101',
      'q='
    ]) {
      const res = await t.api.get(`/api/changes?${bad}`)
      assert.equal(res.status, 400, bad)
      assert.equal(res.body.code, 'VALIDATION_ERROR')
    }
  })

  it('q: full-text search in summaries and in the changed text', async () => {
    const ids = async (q: string) =>
      (await t.api.get(`/api/changes?q=${encodeURIComponent(q)}`)).body.data.map((c: any) => c.changeType).sort()
    assert.deepEqual(await ids('$59'), ['price_change'])
    assert.deepEqual(await ids('59'), ['price_change'])
    assert.deepEqual(await ids('pro'), ['price_change'])
    assert.deepEqual(await ids('class action'), ['terms_update'], 'words of the changed text, stemmed')
    assert.deepEqual(await ids('"much faster"'), ['content_change'])
    assert.deepEqual(await ids('SSO'), ['price_change'], 'a word of the edit\'s other part')
    assert.deepEqual(await ids('SSO -pro'), [])
    assert.deepEqual(await ids('nothing-like-this'), [])
    assert.deepEqual(
      (await t.api.get('/api/changes?q=pro&severity=high&changeType=price_change')).body.data.map(
        (c: any) => c.changeType
      ),
      ['price_change']
    )
  })

  it('GET /api/changes/:id, and acknowledgement that is idempotent and can be undone', async () => {
    const change = (await t.api.get('/api/changes?changeType=price_change')).body.data[0]
    const one = await t.api.get(`/api/changes/${change.id}`)
    assert.deepEqual(one.body.data, change)
    const ack = await t.api.post(`/api/changes/${change.id}/acknowledge`)
    assert.equal(ack.status, 200)
    assert.ok(ack.body.data.acknowledgedAt)
    const keyId = (await t.service.store.db.selectFrom('api_keys').select('id').executeTakeFirstOrThrow()).id
    assert.equal(ack.body.data.acknowledgedBy, keyId)
    const again = await t.api.post(`/api/changes/${change.id}/acknowledge`)
    assert.equal(again.body.data.acknowledgedAt, ack.body.data.acknowledgedAt, 'idempotent')
    assert.deepEqual(
      (await t.api.get('/api/changes?acknowledged=true')).body.data.map((c: any) => c.id),
      [change.id]
    )
    const undo = await t.api.delete(`/api/changes/${change.id}/acknowledge`)
    assert.equal(undo.body.data.acknowledgedAt, null)
    assert.equal(undo.body.data.acknowledgedBy, null)
    assert.equal((await t.api.delete(`/api/changes/${change.id}/acknowledge`)).status, 200)
    for (const res of [
      await t.api.get('/api/changes/00000000-0000-4000-8000-000000000000'),
      await t.api.post('/api/changes/00000000-0000-4000-8000-000000000000/acknowledge')
    ]) {
      assert.equal(res.status, 404)
    }
    assert.equal((await t.api.get('/api/changes/nope')).status, 400)
  })

  it('another organisation sees none of it: lists are empty, ids are 404', async () => {
    const { apiKey } = await createOrg(t.service.store.db, 'Other', 'pro')
    const other = t.api.withKey(apiKey)
    const change = (await t.api.get('/api/changes')).body.data[0]
    assert.deepEqual((await other.get('/api/changes')).body.meta.total, 0)
    assert.equal((await other.get(`/api/changes?domainId=${domainId}`)).body.data.length, 0)
    assert.equal((await other.get(`/api/changes/${change.id}`)).status, 404)
    assert.equal((await other.post(`/api/changes/${change.id}/acknowledge`)).status, 404)
    assert.equal((await other.delete(`/api/changes/${change.id}/acknowledge`)).status, 404)
    assert.equal((await other.request('PATCH', `/api/domains/${domainId}`, { body: { paused: true } })).status, 404)
    assert.equal(
      (await other.request('PATCH', `/api/domains/${domainId}/pages/${page('/pricing').id}`, { body: { priority: 9 } }))
        .status,
      404
    )
    assert.equal((await other.delete(`/api/domains/${domainId}/pages/${page('/pricing').id}`)).status, 404)
    assert.equal((await t.api.get('/api/changes/' + change.id)).body.data.acknowledgedAt, null)
  })

  it("an ignore rule turns a page's noisy change into no change", async () => {
    const about = page('/about')
    const withBanner = (n: number) =>
      layout(
        'About — Acme',
        `<h1>About us</h1><p>We are a small team.</p><div class="visitors">${n} people are looking at this ` +
        `page</div><p class="stock">Seats left: ${n}</p>`
      )
    const count = async () => (await t.api.get(`/api/changes?pageId=${about.id}`)).body.meta.total
    site.page('/about', withBanner(3))
    await crawlAndWait(t, domainId)
    const start = await count()
    site.page('/about', withBanner(4))
    await crawlAndWait(t, domainId)
    assert.equal(await count(), start + 1, 'without rules the visitor count is a change')
    const res = await t.api.request('PATCH', `/api/domains/${domainId}/pages/${about.id}`, {
      body: { noiseRules: { ignoreSelectors: ['.visitors'], ignorePatterns: ['Seats left: \\d+'] } }
    })
    assert.equal(res.status, 200)
    assert.deepEqual(res.body.data.noiseRules, { ignoreSelectors: ['.visitors'], ignorePatterns: ['Seats left: \\d+'] })
    await crawlAndWait(t, domainId) // the new baseline, read under the rules
    site.page('/about', withBanner(9))
    await crawlAndWait(t, domainId)
    assert.equal(await count(), start + 1, 'with the rules, no new change')
    site.page('/about', withBanner(9).replace('small team', 'small, remote team'))
    await crawlAndWait(t, domainId)
    const changes = (await t.api.get(`/api/changes?pageId=${about.id}`)).body.data
    assert.equal(changes.length, start + 2, 'a real edit still counts')
    assert.match(changes[0].summary, /remote team/)
  })

  it('includeSelectors: watch only this part of a page', async () => {
    const pricing = page('/pricing')
    const set = await t.api.request('PATCH', `/api/domains/${domainId}/pages/${pricing.id}`, {
      body: { noiseRules: { includeSelectors: ['section.plan'] } }
    })
    assert.deepEqual(set.body.data.noiseRules, { includeSelectors: ['section.plan'] })
    const bad = await t.api.request('PATCH', `/api/domains/${domainId}/pages/${pricing.id}`, {
      body: { noiseRules: { includeSelectors: ['section[[plan'] } }
    })
    assert.equal(bad.status, 400)
    assert.equal(bad.body.details.field, 'noiseRules.includeSelectors')
    await crawlAndWait(t, domainId)
    const before = (await t.api.get(`/api/changes?pageId=${pricing.id}`)).body.meta.total
    site.page(
      '/pricing',
      layout(
        'Pricing — Acme',
        pricingMain('$59', '$99', ['10 users', 'Priority support']).replace(
          'Simple pricing that grows with your team.',
          'Pricing for teams of every size.'
        )
      )
    )
    await crawlAndWait(t, domainId)
    assert.equal(
      (await t.api.get(`/api/changes?pageId=${pricing.id}`)).body.meta.total,
      before,
      'text outside the plans is ignored'
    )
    site.page(
      '/pricing',
      layout(
        'Pricing — Acme',
        pricingMain('$69', '$99', ['10 users', 'Priority support']).replace(
          'Simple pricing that grows with your team.',
          'Pricing for teams of every size.'
        )
      )
    )
    await crawlAndWait(t, domainId)
    const latest = (await t.api.get(`/api/changes?pageId=${pricing.id}`)).body.data[0]
    assert.equal(latest.changeType, 'price_change')
    assert.equal(latest.summary, 'Pro: $59/month → $69/month (+17%)')
  })

  it("a page's snapshots: its latest on the page, the history newest first, each snapshot's full text", async () => {
    const pricing = page('/pricing')
    const path = `/api/domains/${domainId}/pages/${pricing.id}`
    const one = (await t.api.get(path)).body.data
    assert.equal(one.id, pricing.id)
    assert.equal(one.url, 'https://acme.test/pricing')
    assert.ok(one.latestSnapshot.id)
    assert.equal(one.latestSnapshot.screenshot, null, 'read without the browser: no picture')
    const history = await t.api.get(`${path}/snapshots?pageSize=2`)
    assert.equal(history.status, 200)
    assert.ok(history.body.meta.total >= 3, 'baseline and each change')
    assert.equal(history.body.data.length, 2)
    assert.equal(history.body.data[0].id, one.latestSnapshot.id, 'newest first')
    assert.ok(!('text' in history.body.data[0]), 'the list is light')
    const change = (await t.api.get(`/api/changes?pageId=${pricing.id}`)).body.data[0]
    const after = (await t.api.get(`${path}/snapshots/${change.snapshotAfterId}`)).body.data
    const before = (await t.api.get(`${path}/snapshots/${change.snapshotBeforeId}`)).body.data
    assert.match(after.text, /\$69\/month/)
    assert.match(before.text, /\$59\/month/)
    assert.equal(after.textLength, after.text.length)
    assert.deepEqual((await t.api.get(`${path}/snapshots/latest`)).body.data, after)
    const elsewhere = page('/features')
    const foreign = await t.api.get(`/api/domains/${domainId}/pages/${elsewhere.id}/snapshots/${after.id}`)
    assert.equal(foreign.status, 404, "another page's snapshot")
    assert.equal((await t.api.get(`${path}/snapshots/${after.id}/screenshot`)).status, 404)
    assert.equal((await t.api.get(`${path}/snapshots/not-an-id`)).status, 400)
    assert.equal((await t.api.get(`${path}/snapshots?pageSize=101`)).status, 400)
  })

  it("any two of a page's snapshots compared, the oldest against the latest", async () => {
    const pricing = page('/pricing')
    const path = `/api/domains/${domainId}/pages/${pricing.id}`
    const all = (await t.api.get(`${path}/snapshots?pageSize=100`)).body.data as any[]
    const oldest = all.at(-1)
    const compared = await t.api.get(`${path}/compare?from=${oldest.id}&to=latest`)
    assert.equal(compared.status, 200)
    assert.deepEqual(compared.body.data.from, { id: oldest.id, createdAt: oldest.createdAt })
    assert.equal(compared.body.data.to.id, all[0].id)
    const { diff } = compared.body.data
    assert.match(diff.before, /\$49\/month/)
    assert.match(diff.after, /\$69\/month/)
    assert.ok(diff.stats.changes >= 1, JSON.stringify(diff.stats))
    assert.ok(diff.hunks.some((h: any) => JSON.stringify(h).includes('$69/month')))
    // The same one twice: nothing differs.
    assert.deepEqual((await t.api.get(`${path}/compare?from=latest&to=latest`)).body.data.diff.hunks, [])
    const elsewhere = page('/features')
    assert.equal((await t.api.get(`${path}/compare?from=${oldest.id}&to=${page('/features').id}`)).status, 404)
    assert.equal((await t.api.get(`/api/domains/${domainId}/pages/${elsewhere.id}/compare?from=${oldest.id}&to=latest`)).status, 404)
    assert.equal((await t.api.get(`${path}/compare?from=${oldest.id}`)).status, 400)
  })

  it('noise rules are validated', async () => {
    const pricing = page('/pricing')
    for (const noiseRules of [
      { ignoreSelectors: ['div[[['] },
      { ignorePatterns: ['(unclosed'] },
      // Patterns run in linear time: no lookaround, no backreference.
      { ignorePatterns: ['(?<=Updated )\\d+'] },
      { ignorePatterns: ['(\\w)\\1'] }
    ]) {
      const res = await t.api.request('PATCH', `/api/domains/${domainId}/pages/${pricing.id}`, { body: { noiseRules } })
      assert.equal(res.status, 400, JSON.stringify(noiseRules))
      assert.equal(res.body.code, 'VALIDATION_ERROR')
    }
    assert.equal(
      (await t.api.request('PATCH', `/api/domains/${domainId}/pages/${pricing.id}`, { body: {} })).status,
      400
    )
    // Unknown fields are ignored, and then nothing is left to set.
    for (const path of [`/api/domains/${domainId}/pages/${pricing.id}`, `/api/domains/${domainId}`]) {
      const onlyUnknown = await t.api.request('PATCH', path, { body: { colour: 'blue' } })
      assert.equal(onlyUnknown.status, 400, path)
      assert.equal(onlyUnknown.body.details.field, 'body')
      assert.match(onlyUnknown.body.error, /at least one of/)
    }
  })

  it('pages: monitoring off skips the crawl endpoint; type and priority change; delete removes the page', async () => {
    const blog = page('/blog')
    const off = await t.api.request('PATCH', `/api/domains/${domainId}/pages/${blog.id}`, {
      body: { monitoringEnabled: false, pageType: 'changelog', priority: 9 }
    })
    assert.equal(off.status, 200)
    assert.equal(off.body.data.monitoringEnabled, false)
    assert.equal(off.body.data.pageType, 'changelog')
    assert.equal(off.body.data.priority, 9)
    assert.equal(off.body.data.pageTypeConfidence, '1.00')
    const crawl = (await t.api.post(`/api/domains/${domainId}/crawl`)).body.data
    assert.equal(crawl.queued, pages.length - 1)
    await settle(t)
    const del = await t.api.delete(`/api/domains/${domainId}/pages/${blog.id}`)
    assert.equal(del.status, 200)
    assert.equal(del.body.data.deleted, true)
    assert.equal((await t.api.delete(`/api/domains/${domainId}/pages/${blog.id}`)).status, 404)
    assert.equal((await t.api.get(`/api/domains/${domainId}/pages`)).body.meta.total, pages.length - 1)
  })

  it('domains: rename, pause (scheduler skips it) and resume', async () => {
    const { runSchedulerTick } = await import('../../src/pipeline/scheduler-tick.js')
    const renamed = await t.api.request('PATCH', `/api/domains/${domainId}`, { body: { displayName: 'Acme Corp' } })
    assert.equal(renamed.status, 200)
    assert.equal(renamed.body.data.displayName, 'Acme Corp')
    const paused = await t.api.request('PATCH', `/api/domains/${domainId}`, { body: { paused: true } })
    assert.equal(paused.body.data.status, 'paused')
    assert.equal(paused.body.data.nextCrawlAt, null)
    const later = new Date(Date.now() + 48 * 3_600_000)
    assert.equal((await runSchedulerTick(t.service.store.db, t.service.queue, later)).queued, 0)
    const resumed = await t.api.request('PATCH', `/api/domains/${domainId}`, { body: { paused: false } })
    assert.equal(resumed.body.data.status, 'active')
    assert.ok((await runSchedulerTick(t.service.store.db, t.service.queue, later)).queued > 0)
    const bad = await t.api.request('PATCH', `/api/domains/${domainId}`, { body: { paused: 'yes' } })
    assert.equal(bad.status, 400)
  })

  it('meta.total counts up to 1,000; past that totalCapped says it is a lower bound', async () => {
    const db = t.service.store.db
    const { sql } = await import('kysely')
    const pricing = page('/pricing')
    const snap = await db
      .selectFrom('snapshots')
      .select('id')
      .where('page_id', '=', pricing.id)
      .executeTakeFirstOrThrow()
    await sql`
      INSERT INTO changes (page_id, domain_id, org_id, change_type, severity, confidence, summary, diff_data, snapshot_before_id, snapshot_after_id, created_at, alerted_at)
      SELECT ${pricing.id}::uuid, ${domainId}::uuid, org_id, 'content_change', 'low', 0.70, 'Bulk edit ' || g, '{"before":"","after":"","stats":{"additions":0,"deletions":0,"changes":0},"hunks":[]}'::jsonb,
        ${snap.id}::uuid, ${snap.id}::uuid, now() - g * interval '1 second', now()
      FROM generate_series(1, 1005) AS g, (SELECT org_id FROM domains WHERE id = ${domainId}::uuid) d`.execute(db)
    const all = await t.api.get('/api/changes?pageSize=5')
    const { nextCursor, ...meta } = all.body.meta
    assert.deepEqual(meta, { total: 1000, page: 1, pageSize: 5, totalCapped: true })
    assert.equal(typeof nextCursor, 'string')
    const few = await t.api.get('/api/changes?changeType=price_change')
    assert.equal(few.body.meta.totalCapped, undefined)
    assert.equal(few.body.meta.total, few.body.data.length)
    const last = await t.api.get('/api/changes?pageSize=100&page=11')
    assert.ok(last.body.data.length > 0)
    assert.equal(last.body.meta.total, 1000 + last.body.data.length, 'on the last page the count is exact again')
    const farthest = await t.api.get('/api/changes?pageSize=100&page=1000000')
    assert.equal(farthest.status, 200)
    assert.deepEqual(farthest.body.data, [])
    assert.equal((await t.api.get('/api/changes?page=99999999999999999999')).status, 400)
  })

  it('a cursor walks the changes as the page numbers do, at any depth, filters kept; a forged one is a 400', async () => {
    // 1,005 bulk changes (the test above) share their seconds with no other; these 7 share one instant.
    const db = t.service.store.db
    const { sql } = await import('kysely')
    const pricing = page('/pricing')
    await sql`
      INSERT INTO changes (page_id, domain_id, org_id, change_type, severity, confidence, summary, diff_data,
        snapshot_before_id, snapshot_after_id, created_at, alerted_at)
      SELECT ${pricing.id}::uuid, ${domainId}::uuid, org_id, 'feature_removed', 'medium', 0.70, 'Twin ' || g,
        '{"before":"","after":"","stats":{"additions":0,"deletions":0,"changes":0},"hunks":[]}'::jsonb,
        c.snapshot_after_id, c.snapshot_after_id, timestamptz '2026-01-01 00:00:00.123456+00', now()
      FROM generate_series(1, 7) AS g,
        (SELECT org_id, snapshot_after_id FROM changes WHERE page_id = ${pricing.id}::uuid LIMIT 1) c`.execute(db)
    const byNumber: string[] = []
    for (let n = 1; ; n++) {
      const r = await t.api.get(`/api/changes?changeType=feature_removed,price_change&pageSize=3&page=${n}`)
      if (r.body.data.length === 0) break
      byNumber.push(...r.body.data.map((c: { id: string }) => c.id))
    }
    const byCursor: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const r = await t.api.get('/api/changes?changeType=feature_removed,price_change&pageSize=3' +
        (cursor ? `&cursor=${cursor}&page=99` : ''))
      assert.equal(r.status, 200)
      assert.equal(r.body.meta.total, byNumber.length, 'the total is the whole list, wherever the cursor stands')
      byCursor.push(...r.body.data.map((c: { id: string }) => c.id))
      cursor = r.body.meta.nextCursor
      pages++
    } while (cursor)
    assert.ok(byNumber.length >= 8)
    assert.equal(pages, Math.ceil(byNumber.length / 3), 'the last page says no more follow')
    assert.deepEqual(byCursor, byNumber)
    assert.equal(new Set(byCursor).size, byNumber.length)
    // Deep in 1,013 changes, a cursor page and a numbered page read the same rows.
    const deep = await t.api.get('/api/changes?pageSize=100&page=9')
    const next = await t.api.get(`/api/changes?pageSize=100&cursor=${deep.body.meta.nextCursor}`)
    const tenth = await t.api.get('/api/changes?pageSize=100&page=10')
    assert.deepEqual(next.body.data.map((c: { id: string }) => c.id), tenth.body.data.map((c: { id: string }) => c.id))
    for (const forged of ['x', Buffer.from('12|not-a-uuid').toString('base64url'), 'a'.repeat(201)]) {
      const bad = await t.api.get(`/api/changes?cursor=${forged}`)
      assert.equal(bad.status, 400, forged)
      assert.equal(bad.body.code, 'VALIDATION_ERROR')
      assert.equal(bad.body.details.field, 'cursor')
    }
  })
})
