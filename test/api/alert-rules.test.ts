// Alert rules people write: tried on the last 30 days before saving, and the dispatch's
// decisions on the same changes match the try-out's counts: a muted change is stored and
// listed but sent nowhere, one kept for the digest is not sent now, a price rise is.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { dispatchChanges } from '../../src/alerts/dispatch.js'
import { runMailDigests } from '../../src/alerts/mail-outbox.js'
import { addUser } from '../../src/services/accounts.js'
import { createOrg } from '../../src/services/orgs.js'
import { decide, factsOf } from '../../src/vocabulary/alert-rules.js'
import { eventually, startTestService, type TestService } from '../helpers/service.js'
import type { ApiClient } from '../helpers/client.js'

const NO_DIFF = { before: '', after: '', stats: { additions: 0, deletions: 0, changes: 0 }, hunks: [] }
const lines = (removed: string, added: string) => ({
  ...NO_DIFF,
  hunks: [{
    oldStart: 1,
    oldLines: 1,
    newStart: 1,
    newLines: 1,
    lines: [
      { type: 'deletion', content: removed }, { type: 'addition', content: added }]
  }]
})
const priceUp = (plan: string, percent: number) => ({
  ...lines(`${plan} $49/month`, `${plan} $59/month`),
  pricing: {
    before: { plans: [], sources: [] },
    after: { plans: [], sources: [] },
    changes: [
      { kind: percent > 0 ? 'price_up' : 'price_down', summary: `${plan}: $49 → $59`, plan, percent }]
  }
})

describe('alert rules', () => {
  let t: TestService
  let api: ApiClient
  let orgId = ''
  let endpointId = ''

  before(async () => {
    t = await startTestService({ CRAWL_HOST_MAP: 'rival.test=http://127.0.0.1:9' })
    const made = await createOrg(t.service.store.db, 'Rules', 'enterprise')
    orgId = made.org.id
    api = t.api.withKey(made.apiKey)
    endpointId = (await api.post('/api/webhooks', { url: 'https://hooks.example.com/in', events: ['change.detected'] })).body.data.id
    const domainId = (await api.post('/api/domains', { domain: 'rival.test', tags: ['direct competitors'] })).body.data.id
    const db = t.service.store.db
    const page = await db.insertInto('pages').values({
      org_id: orgId, domain_id: domainId, url: 'https://rival.test/pricing', url_hash: 'p', page_type: 'pricing'
    }).returning('id').executeTakeFirstOrThrow()
    const snap = await db.insertInto('snapshots').values({
      org_id: orgId, page_id: page.id, content_hash: 'h', content: 'x', http_status: 200
    }).returning('id').executeTakeFirstOrThrow()
    // 57 changes of the last weeks: counters moving, price moves, terms edits. Stored as dispatched, so that the
    // service's own sweep leaves them be until the test hands them to the dispatch again.
    const changes = [
      ...Array.from({ length: 40 }, (_, i) => ['content_change', 'low', lines(`Visitors: ${i}`, `Visitors: ${i + 1}`)]),
      ...[20, 5, -10].map(p => ['price_change', 'high', priceUp('Pro', p)]),
      ...[30, 12].map(p => ['price_change', 'high', priceUp('Starter', p)]),
      ...Array.from({ length: 4 }, () => ['terms_update', 'medium', lines('Disputes go to court.', 'Disputes go to binding arbitration.')]),
      ...Array.from({ length: 8 }, () => ['terms_update', 'medium', lines('We may email you.', 'We may write to you.')])
    ] as const
    let i = 0
    for (const [type, severity, diff] of changes) {
      await sql`INSERT INTO changes (page_id, domain_id, org_id, change_type, severity, confidence, summary, diff_data,
          snapshot_before_id, snapshot_after_id, created_at, alerted_at)
        VALUES (${page.id}::uuid, ${domainId}::uuid, ${orgId}::uuid, ${type}, ${severity}, 0.8, ${`change ${i}`},
          ${JSON.stringify(diff)}::jsonb, ${snap.id}::uuid, ${snap.id}::uuid, now() - ${`${i++} hours`}::interval, now())`
        .execute(db)
    }
  })
  after(async () => await t.stop())

  it('rules are custom alerts: another plan is refused, a bad rule is a 400 that saves nothing', async () => {
    const small = await createOrg(t.service.store.db, 'Small', 'pro')
    const refused = await t.api.withKey(small.apiKey).post('/api/alert-rules', { name: 'x', match: {}, action: 'mute' })
    assert.equal(refused.status, 403)
    for (const bad of [
      { name: 'x', match: {}, action: 'shout' },
      { name: 'x', match: { minSeverity: 'huge' }, action: 'mute' },
      { name: 'x', match: { domainIds: ['00000000-0000-4000-8000-000000000000'] }, action: 'mute' },
      { name: 'x', match: { price: { direction: 'sideways' } }, action: 'alert' },
      { name: '', match: {}, action: 'mute' }
    ]) {
      assert.equal((await api.post('/api/alert-rules', bad)).status, 400, JSON.stringify(bad))
    }
    assert.deepEqual((await api.get('/api/alert-rules')).body.data, [])
  })

  it('a rule is tried on the last 30 days before it is saved', async () => {
    const rule = { name: 'Quiet counters', match: { changeTypes: ['content_change'], words: ['visitors'] }, action: 'mute' }
    const tried = await api.post('/api/alert-rules/try', { rule })
    assert.equal(tried.status, 200, JSON.stringify(tried.body))
    assert.equal(tried.body.data.total, 57)
    assert.deepEqual(tried.body.data.byAction, { alert: 17, digest: 0, mute: 40 })
    assert.deepEqual(tried.body.data.rules, [{ id: null, name: 'Quiet counters', action: 'mute', decided: 40 }])
    assert.deepEqual((await api.get('/api/alert-rules')).body.data, [], 'trying saves nothing')
  })

  it('the dispatch decides as the try-out counted: muted and digest changes are stored but not sent now', async () => {
    const rules = [
      { name: 'Pro rises of 10% or more', match: { price: { plan: 'pro', direction: 'up', minPercent: 10 } }, action: 'alert' },
      { name: 'Other price moves wait', match: { changeTypes: ['price_change'] }, action: 'digest' },
      { name: 'Arbitration', match: { words: ['arbitration'], tags: ['Direct Competitors'] }, action: 'alert' },
      { name: 'Quiet counters', match: { changeTypes: ['content_change'], words: ['visitors'] }, action: 'mute' },
      { name: 'Terms wording', match: { changeTypes: ['terms_update'], minSeverity: 'medium' }, action: 'digest' }
    ]
    for (const rule of rules) assert.equal((await api.post('/api/alert-rules', rule)).status, 201)
    const saved = (await api.get('/api/alert-rules')).body.data as any[]
    assert.deepEqual(saved.map(r => r.name), rules.map(r => r.name), 'in the order written')
    const tried = (await api.post('/api/alert-rules/try', {})).body.data
    assert.deepEqual(tried.byAction, { alert: 5, digest: 12, mute: 40 })
    assert.deepEqual(tried.rules.map((r: any) => r.decided), [1, 4, 4, 40, 8])

    // Not yet dispatched: the rules are saved (a sweep of the service's that takes them first decides alike).
    await sql`UPDATE changes SET alerted_at = NULL WHERE org_id = ${orgId}::uuid`.execute(t.service.store.db)
    await dispatchChanges(t.service.store.db, t.service.queue)
    await eventually(async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM changes
      WHERE org_id = ${orgId}::uuid AND alerted_at IS NULL`.execute(t.service.store.db)).rows[0].n === 0 || undefined,
    20_000, 'every change dispatched')
    const all = (await api.get('/api/changes?pageSize=100')).body.data as any[]
    assert.equal(all.length, 57, 'every change is stored and listed, muted ones too')
    const counted = { alert: 0, digest: 0, mute: 0 } as Record<string, number>
    for (const c of all) counted[c.alertRule?.action ?? 'alert']++
    assert.deepEqual(counted, tried.byAction, 'the dispatch decided as the try-out counted')
    const byRule = new Map<string, number>()
    for (const c of all) if (c.alertRule) byRule.set(c.alertRule.ruleId, (byRule.get(c.alertRule.ruleId) ?? 0) + 1)
    assert.deepEqual(saved.map(r => byRule.get(r.id) ?? 0), tried.rules.map((r: any) => r.decided))

    const sent = new Set(((await api.get(`/api/webhooks/${endpointId}/deliveries?pageSize=100`)).body.data as any[])
      .map(d => d.eventId))
    const sentOf = (action: string) => all.filter(c => (c.alertRule?.action ?? 'alert') === action && sent.has(c.id)).length
    assert.equal(sentOf('mute'), 0, 'a muted change is sent nowhere')
    assert.equal(sentOf('digest'), 0, 'a digest change is not sent now')
    assert.ok(sentOf('alert') > 0)

    // A member who gets each change as it comes gets, once a day, those the rules kept for the digest.
    const db = t.service.store.db
    const member = await addUser(db, orgId, { email: 'lead@rules.test', password: 'a long enough password' }, 'admin')
    const soon = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 300_000)
    const set = await api.request('PUT', `/api/alert-settings/${member.id}`,
      { body: { mode: 'realtime', hour: soon.getUTCHours(), timeZone: 'UTC' } })
    assert.equal(set.status, 200, JSON.stringify(set.body))
    // Within the day the digest covers (the changes were made over the last two days and a half).
    await sql`UPDATE changes SET created_at = now() - interval '1 hour' WHERE org_id = ${orgId}::uuid`.execute(db)
    await runMailDigests({ db, queue: t.service.queue, appBase: t.url }, soon)
    const mails = (await api.get('/api/email-deliveries?pageSize=100')).body.data as any[]
    const digests = mails.filter(m => m.kind === 'digest' && m.userId === member.id)
    assert.deepEqual(digests.map(m => m.subject), ['12 changes today on Sitewatch — Rules'])
  })

  it('two dispatches at once alert each change once: a change the other marked since it was read is left to it', async () => {
    const db = t.service.store.db
    await sql`UPDATE changes SET alerted_at = NULL WHERE org_id = ${orgId}::uuid`.execute(db)
    const handled = await Promise.all([dispatchChanges(db, t.service.queue), dispatchChanges(db, t.service.queue)])
    assert.equal(handled[0] + handled[1], 57, `each change handled by one dispatch (${handled.join(' + ')})`)
    assert.equal((await sql<{ n: number }>`SELECT count(*)::int AS n FROM changes
      WHERE org_id = ${orgId}::uuid AND alerted_at IS NULL`.execute(db)).rows[0].n, 0)
  })

  it('a disabled rule decides nothing; the first enabled rule that matches does', () => {
    const facts = factsOf({
      domainId: 'd',
      domainTags: ['suppliers'],
      pageType: 'pricing',
      changeType: 'price_change',
      severity: 'high',
      confidence: '0.90',
      diffData: priceUp('Team', 25) as any
    })
    const rule = (id: string, match: object, action: 'alert' | 'digest' | 'mute', enabled = true) =>
      ({ id, name: id, match, action, enabled })
    assert.deepEqual(decide([rule('a', {}, 'mute', false), rule('b', { tags: ['suppliers'] }, 'digest')], facts),
      { action: 'digest', ruleId: 'b' })
    assert.equal(decide([rule('c', { minConfidence: 0.95 }, 'mute')], facts), undefined)
    assert.equal(decide([rule('d', { price: { direction: 'down' } }, 'mute')], facts), undefined)
    assert.deepEqual(decide([rule('e', { price: { plan: 'tea', minPercent: 25 } }, 'mute')], facts), { action: 'mute', ruleId: 'e' })
  })
})
