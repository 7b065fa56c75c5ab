// The audit log: every state-changing route of the API, the operator's API and the web app
// writes its event in the transaction of its change (this test walks the server's route
// table and fails on a route it has no walk for, or one that succeeds and writes none);
// a refused request writes none; events are never edited; owners and admins read the log
// through GET /api/audit-events and in the app, filtered, and as CSV.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createHash } from 'node:crypto'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { sql } from 'kysely'
import { unsubscribeToken } from '../../src/services/mail-alerts.js'
import { serviceSecret } from '../../src/store/secrets.js'
import { layout } from '../helpers/fixtures.js'
import { startDns } from '../helpers/dns.js'
import { drainJobs, startTestService, waitForJob, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'
import { FormClient } from '../helpers/web-client.js'

const ADMIN = 'a'.repeat(40)
const PASSWORD = 'correct horse battery staple'
const status = (n: number) => layout('Status — Acme', `<main><h1>Status</h1>
  <p>All systems operational.</p><p>Tickets answered this week: ${n} by our support team</p></main>`)
const UUID_IN = (prefix: string) => new RegExp(`${prefix}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`)

describe('the audit log', () => {
  let site: TestSite
  let hooks: TestSite
  let dns: Awaited<ReturnType<typeof startDns>>
  let idpKey: Awaited<ReturnType<typeof generateKeyPair>>
  let t: TestService
  let owner: FormClient
  let n = 0
  /** The routes walked, and the events each wrote. */
  const walked = new Map<string, number>()

  const unaudited = async () => {
    const text = await (await fetch(`${t.url}/metrics`)).text()
    return [...text.matchAll(/^sitewatch_unaudited_writes_total\{[^}]*\} (\d+)$/gm)].reduce((s, m) => s + Number(m[1]), 0)
  }
  const eventsOf = async (trace: string) => (await sql<{ action: string, org_id: string | null }>`
    SELECT action, org_id FROM audit_events WHERE trace_id = ${trace}`.execute(t.service.store.db)).rows

  /**
   * Walks `route` (as the route table names it): `call` sends it with the trace id given;
   * it must succeed and write its events (none for a route that changes nothing).
   */
  const walk = async <T extends { status: number }>(route: string, call: (trace: string) => Promise<T>,
    opts: { writes?: 'one or more' | 'none' } = {}): Promise<T> => {
    const trace = `walk-${++n}`
    const before = await unaudited()
    const res = await call(trace)
    assert.ok(res.status < 400, `${route} answered ${res.status}: ${JSON.stringify((res as any).body ?? (res as any).text)?.slice(0, 300)}`)
    assert.equal(await unaudited(), before, `${route} succeeded and wrote no audit event`)
    const events = await eventsOf(trace)
    const writes = opts.writes ?? 'one or more'
    if (writes === 'none') assert.equal(events.length, 0, `${route} changes nothing and wrote ${events.length}`)
    if (writes === 'one or more') assert.ok(events.length > 0, `${route} wrote no audit event`)
    walked.set(route, events.length)
    return res
  }
  const api = (method: string, path: string, body?: unknown, key?: string) => async (trace: string) =>
    await t.api.request(method, path, { body, headers: { 'x-trace-id': trace }, ...(key ? { key } : {}) })
  const admin = (method: string, path: string, body?: unknown) => api(method, path, body, ADMIN)
  /** A person's form: opened on `from`, sent to `action` with the page's CSRF token. */
  const form = (who: FormClient, from: string, action: string, fields: Record<string, string> = {}) =>
    async (trace: string) => {
      who.headers['x-trace-id'] = trace
      try {
        return await who.submit(from, action, fields)
      } finally {
        delete who.headers['x-trace-id']
      }
    }
  const crawl = async (domainId: string, pageId: string) => {
    const { jobId } = (await t.api.post(`/api/domains/${domainId}/pages/${pageId}/crawl`)).body.data
    assert.equal((await waitForJob(t.api, jobId)).state, 'completed')
  }

  before(async () => {
    site = await new TestSite().start()
    site.page('/', layout('Acme', '<main><h1>Acme</h1><p>We ship.</p></main>'))
    site.page('/status', status(1204))
    hooks = await new TestSite().start()
    hooks.set('/hook', { status: 200, body: 'ok' })
    // An identity provider's discovery document and keys: enough for single sign-on to be saved and
    // started, and for a back-channel logout token to be checked.
    idpKey = await generateKeyPair('RS256')
    hooks.set('/jwks', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ keys: [{ ...await exportJWK(idpKey.publicKey), kid: 'k1', alg: 'RS256', use: 'sig' }] })
    })
    dns = await startDns()
    hooks.set('/.well-known/openid-configuration', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        issuer: hooks.origin,
        authorization_endpoint: `${hooks.origin}/auth`,
        token_endpoint: `${hooks.origin}/token`,
        jwks_uri: `${hooks.origin}/jwks`,
        id_token_signing_alg_values_supported: ['RS256'],
        response_types_supported: ['code']
      })
    })
    t = await startTestService({
      ADMIN_TOKEN: ADMIN,
      CRAWL_HOST_MAP: `acme.test=${site.origin},beta.test=${site.origin}`,
      ALERT_HOST_MAP: `hooks.test=${hooks.origin}`,
      SSO_ALLOW_INSECURE_ISSUERS: 'true',
      SSO_DNS_SERVERS: dns.server,
      LOG_LEVEL: 'error'
    })
    owner = new FormClient(t.url)
  })
  after(async () => {
    await dns?.close()
    await t.stop()
    await site.close()
    await hooks.close()
  })

  it('every state-changing route of the API, the operator\'s API and the app writes its event, or says it changes nothing', async () => {
    const db = t.service.store.db
    const defaultOrg = (await t.api.get('/api/usage')).body.data
    assert.ok(defaultOrg)
    const orgs = (await t.api.request('GET', '/admin/orgs', { key: ADMIN })).body.data as any[]
    const orgId = orgs.find(o => o.name === 'default').id

    // The operator.
    const second = (await walk('POST /admin/orgs', admin('POST', '/admin/orgs', { name: 'Second', plan: 'enterprise' }))).body.data
    await walk('PATCH /admin/orgs/:id', admin('PATCH', `/admin/orgs/${orgId}`, { plan: 'enterprise' }))
    const key = (await walk('POST /admin/orgs/:id/keys', admin('POST', `/admin/orgs/${orgId}/keys`, { name: 'spare' }))).body.data
    await walk('DELETE /admin/keys/:id', admin('DELETE', `/admin/keys/${key.id}`))

    // The first owner, a member the operator adds, and a password reset.
    await walk('POST /app/setup/:token', form(owner, new URL(t.setupLink).pathname, new URL(t.setupLink).pathname,
      { email: 'owner@acme.test', name: 'Olive', password: PASSWORD }))
    await walk('POST /admin/orgs/:id/members', admin('POST', `/admin/orgs/${orgId}/members`,
      { email: 'ada@acme.test', role: 'admin', password: PASSWORD }))
    const invited = (await walk('POST /admin/orgs/:id/invitations', admin('POST', `/admin/orgs/${second.org.id}/invitations`,
      { email: 'owner@acme.test', role: 'owner' }))).body.data
    await walk('POST /app/invite/:token', form(owner, new URL(invited.link).pathname, new URL(invited.link).pathname,
      { email: 'owner@acme.test', password: PASSWORD }))
    await walk('POST /app/org', form(owner, '/app/domains', '/app/org', { orgId }))
    const reset = (await walk('POST /admin/password-resets', admin('POST', '/admin/password-resets', { email: 'ada@acme.test' }))).body.data
    const ada = new FormClient(t.url)
    await walk('POST /app/reset/:token', form(ada, new URL(reset.link).pathname, new URL(reset.link).pathname,
      { password: `${PASSWORD}!` }))
    await walk('POST /app/reset', form(new FormClient(t.url), '/app/reset', '/app/reset', { email: 'nobody@acme.test' }))
    await walk('POST /app/sign-in', form(ada, '/app/sign-in', '/app/sign-in', { email: 'ada@acme.test', password: `${PASSWORD}!` }))

    // Domains and pages, through the API.
    const domain = (await walk('POST /api/domains', api('POST', '/api/domains', { domain: 'acme.test' }))).body.data
    await drainJobs(t.api)
    await walk('PATCH /api/domains/:id', api('PATCH', `/api/domains/${domain.id}`, { displayName: 'Acme' }))
    await walk('POST /api/domains/:id/discover', api('POST', `/api/domains/${domain.id}/discover`))
    await walk('POST /api/domains/:id/crawl', api('POST', `/api/domains/${domain.id}/crawl`))
    await drainJobs(t.api)
    const listed = (await t.api.get(`/api/domains/${domain.id}/pages?pageSize=500`)).body.data as any[]
    const statusPage = listed.find(p => p.url === 'https://acme.test/status') ??
      (await walk('POST /api/domains/:id/pages', api('POST', `/api/domains/${domain.id}/pages`, { url: 'https://acme.test/status' }))).body.data
    const spare = (await walk('POST /api/domains/:id/pages', api('POST', `/api/domains/${domain.id}/pages`,
      { url: 'https://acme.test/walk' }))).body.data
    await drainJobs(t.api)
    await walk('PATCH /api/domains/:id/pages/:pageId', api('PATCH', `/api/domains/${domain.id}/pages/${statusPage.id}`, { priority: 4 }))
    // The page's write and its event are one statement: the event still names the page by its address.
    const patched = (await sql<{ object_id: string, object_label: string, details: unknown, actor_kind: string }>`
      SELECT object_id, object_label, details, actor_kind FROM audit_events WHERE trace_id = ${`walk-${n}`}`
      .execute(t.service.store.db)).rows
    assert.deepEqual(patched, [{ object_id: statusPage.id, object_label: statusPage.url, details: { priority: 4 }, actor_kind: 'api_key' }])
    await walk('POST /api/domains/:id/pages/:pageId/outline/preview', api('POST',
      `/api/domains/${domain.id}/pages/${statusPage.id}/outline/preview`, { noiseRules: { ignoreSelectors: ['footer'] } }),
    { writes: 'none' })
    await walk('POST /api/domains/:id/pages/:pageId/crawl', api('POST', `/api/domains/${domain.id}/pages/${spare.id}/crawl`))
    await walk('DELETE /api/domains/:id/pages/:pageId', api('DELETE', `/api/domains/${domain.id}/pages/${spare.id}`))
    await walk('POST /api/domains/:id/research', api('POST', `/api/domains/${domain.id}/research`))

    // Changes, and what is learned from them.
    const changes: any[] = []
    for (const count of [1311, 1402, 1533]) {
      site.page('/status', status(count))
      await crawl(domain.id, statusPage.id)
      changes.unshift((await t.api.get(`/api/changes?pageId=${statusPage.id}`)).body.data[0])
    }
    assert.equal(new Set(changes.map(c => c.id)).size, 3, 'three changes')
    const [a, b, c] = changes
    await walk('POST /api/changes/:id/acknowledge', api('POST', `/api/changes/${a.id}/acknowledge`))
    await walk('DELETE /api/changes/:id/acknowledge', api('DELETE', `/api/changes/${a.id}/acknowledge`))
    await walk('POST /api/changes/:id/feedback', api('POST', `/api/changes/${a.id}/feedback`, { verdict: 'not_important' }))
    const learned = (await walk('POST /api/changes/:id/learned-rules', api('POST', `/api/changes/${a.id}/learned-rules`,
      { kind: 'mute' }))).body.data
    await walk('DELETE /api/learned-rules/:id', api('DELETE', `/api/learned-rules/${learned.id}`))

    // Alerts, through the API.
    const hook = (await walk('POST /api/webhooks', api('POST', '/api/webhooks', { url: 'https://hooks.test/hook' }))).body.data
    await walk('PATCH /api/webhooks/:id', api('PATCH', `/api/webhooks/${hook.id}`, { description: 'the team' }))
    await walk('POST /api/webhooks/:id/test', api('POST', `/api/webhooks/${hook.id}/test`))
    await walk('DELETE /api/webhooks/:id', api('DELETE', `/api/webhooks/${hook.id}`))
    const ownerId = (await db.selectFrom('users').select('id').where('email', '=', 'owner@acme.test').executeTakeFirstOrThrow()).id
    await walk('PUT /api/alert-settings/:userId', api('PUT', `/api/alert-settings/${ownerId}`, { mode: 'daily' }))
    await walk('POST /api/feeds/rotate', api('POST', '/api/feeds/rotate'))
    const rule = { name: 'Quiet status', match: { pageTypes: ['other'] }, action: 'digest' }
    await walk('POST /api/alert-rules/try', api('POST', '/api/alert-rules/try', { rule }), { writes: 'none' })
    const saved = (await walk('POST /api/alert-rules', api('POST', '/api/alert-rules', rule))).body.data
    await walk('PATCH /api/alert-rules/:id', api('PATCH', `/api/alert-rules/${saved.id}`, { enabled: false }))
    await walk('DELETE /api/alert-rules/:id', api('DELETE', `/api/alert-rules/${saved.id}`))

    // The app: domains and pages.
    const added = await walk('POST /app/domains', form(owner, '/app/domains', '/app/domains', { domain: 'beta.test' }))
    const betaId = UUID_IN('/app/domains/').exec(added.location ?? '')?.[1]
    assert.ok(betaId, `the new domain's page: ${added.location}`)
    const beta = `/app/domains/${betaId}`
    await drainJobs(t.api)
    await walk('POST /app/domains/:id/crawl', form(owner, beta, `${beta}/crawl`))
    await walk('POST /app/domains/:id/tags', form(owner, beta, `${beta}/tags`, { tags: 'rival' }))
    await walk('POST /app/domains/:id/discover', form(owner, beta, `${beta}/discover`))
    await walk('POST /app/domains/:id/research', form(owner, beta, `${beta}/research`))
    await walk('POST /app/domains/:id/pages', form(owner, beta, `${beta}/pages`, { urls: 'https://beta.test/walk' }))
    await drainJobs(t.api)
    const betaPages = (await t.api.get(`/api/domains/${betaId}/pages?pageSize=500`)).body.data as any[]
    const walkPage = `${beta}/pages/${betaPages.find(p => p.url === 'https://beta.test/walk').id}`
    await walk('POST /app/domains/:id/pages/:pageId/crawl', form(owner, walkPage, `${walkPage}/crawl`))
    await walk('POST /app/domains/:id/pages/:pageId/type', form(owner, walkPage, `${walkPage}/type`, { pageType: 'pricing' }))
    await walk('POST /app/domains/:id/pages/:pageId', form(owner, walkPage, walkPage,
      { monitoringEnabled: 'on', priority: '3', render: 'auto', ignoreSelectors: 'footer' }))
    await walk('POST /app/domains/:id/pages/:pageId/delete', form(owner, walkPage, `${walkPage}/delete`))
    await walk('POST /app/domains/:id/delete', form(owner, beta, `${beta}/delete`))

    // The app: changes.
    await walk('POST /app/changes/acknowledge', form(owner, '/app/changes', '/app/changes/acknowledge', { ids: b.id }))
    await walk('POST /app/changes/:id/unacknowledge', form(owner, `/app/changes/${b.id}`, `/app/changes/${b.id}/unacknowledge`))
    await walk('POST /app/changes/:id/acknowledge', form(owner, `/app/changes/${b.id}`, `/app/changes/${b.id}/acknowledge`))
    await walk('POST /app/changes/:id/feedback', form(owner, `/app/changes/${c.id}`, `/app/changes/${c.id}/feedback`,
      { verdict: 'not_important' }))
    await walk('POST /app/changes/:id/learn', form(owner, `/app/changes/${c.id}`, `/app/changes/${c.id}/learn`, { kind: 'lower' }))
    const learnedId = (await t.api.get('/api/learned-rules')).body.data.find((r: any) => r.kind === 'lower').id
    await walk('POST /app/learned/:id/delete', form(owner, '/app/alerts', `/app/learned/${learnedId}/delete`))
    await walk('POST /app/org/share-links', form(owner, '/app/usage', '/app/org/share-links', { on: '1' }))
    const shared = await walk('POST /app/changes/:id/share', form(owner, `/app/changes/${c.id}`, `/app/changes/${c.id}/share`))
    const linkId = UUID_IN(`/app/changes/${c.id}/share/`).exec(shared.text)?.[1]
    assert.ok(linkId, 'the link made is listed with its revoke button')
    await walk('POST /app/changes/:id/share/:linkId/revoke', form(owner, `/app/changes/${c.id}`,
      `/app/changes/${c.id}/share/${linkId}/revoke`))

    // The app: alerts.
    await walk('POST /app/alerts/rules', form(owner, '/app/alerts', '/app/alerts/rules',
      { name: 'Quiet', action: 'digest', pageTypes: 'other', intent: 'try' }), { writes: 'none' })
    await walk('POST /app/alerts/rules', form(owner, '/app/alerts', '/app/alerts/rules', { name: 'Quiet', action: 'digest', pageTypes: 'other' }))
    const ruleId = (await t.api.get('/api/alert-rules')).body.data[0].id
    await walk('POST /app/alerts/rules/:id/delete', form(owner, '/app/alerts', `/app/alerts/rules/${ruleId}/delete`))
    await walk('POST /app/alerts', form(owner, '/app/alerts', '/app/alerts', { url: 'https://hooks.test/hook' }))
    const alertId = (await t.api.get('/api/webhooks')).body.data[0].id
    await walk('POST /app/alerts/:id/test', form(owner, `/app/alerts/${alertId}`, `/app/alerts/${alertId}/test`))
    await walk('POST /app/alerts/:id/enabled', form(owner, `/app/alerts/${alertId}`, `/app/alerts/${alertId}/enabled`, { enabled: '0' }))
    await walk('POST /app/alerts/:id/delete', form(owner, `/app/alerts/${alertId}`, `/app/alerts/${alertId}/delete`))
    await walk('POST /app/alerts/email', form(owner, '/app/alerts', '/app/alerts/email', { mode: 'weekly', minSeverity: 'low' }))
    await walk('POST /app/alerts/feeds/rotate', form(owner, '/app/alerts', '/app/alerts/feeds/rotate', { which: 'organisation' }))
    const secret = await serviceSecret(db, 'image-links')
    const unsubscribe = `/app/unsubscribe/${unsubscribeToken(secret, ownerId, orgId)}`
    await walk('POST /app/unsubscribe/:token', async trace => {
      const res = await fetch(`${t.url}${unsubscribe}`, {
        method: 'POST',
        headers: { 'x-trace-id': trace, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click'
      })
      return { status: res.status, text: await res.text() }
    })

    // The app: members, keys, the account, the plan.
    const invitedPage = await walk('POST /app/members/invite', form(owner, '/app/members', '/app/members/invite',
      { email: 'gone@acme.test', role: 'viewer' }))
    const invitationId = UUID_IN('/app/invitations/').exec(invitedPage.text)?.[1]
    assert.ok(invitationId, 'the invitation is listed with its cancel button')
    await walk('POST /app/invitations/:id/cancel', form(owner, '/app/members', `/app/invitations/${invitationId}/cancel`))
    const adaId = (await db.selectFrom('users').select('id').where('email', '=', 'ada@acme.test').executeTakeFirstOrThrow()).id
    await walk('POST /app/members/:userId', form(owner, '/app/members', `/app/members/${adaId}`, { role: 'editor' }))
    const keyPage = await walk('POST /app/keys', form(owner, '/app/keys', '/app/keys', { name: 'ci', scope: 'read' }))
    assert.match(keyPage.text, /Copy it now/)
    const keyId = UUID_IN('/app/keys/').exec((await owner.request('GET', '/app/keys')).text)?.[1]
    await walk('POST /app/keys/:id/revoke', form(owner, '/app/keys', `/app/keys/${keyId}/revoke`))
    await walk('POST /app/account/password', form(owner, '/app/account', '/app/account/password',
      { currentPassword: PASSWORD, password: `${PASSWORD}?` }))
    await walk('POST /app/account/sessions/end-others', form(owner, '/app/account', '/app/account/sessions/end-others'))
    // Single sign-on, on the enterprise plan.
    const sso = { issuer: hooks.origin, clientId: 'sitewatch', domains: ['corp.test'], defaultRole: 'viewer' }
    await walk('PUT /api/sso', api('PUT', '/api/sso', { ...sso, clientSecret: 'secret', required: false }))
    await walk('POST /app/sso', form(owner, '/app/sso', '/app/sso',
      { ...sso, domains: 'corp.test', clientSecret: '', required: '1' }))
    const proof = (await t.api.get('/api/sso')).body.data.domainProofs[0]
    dns.txt.set(proof.txtName, [proof.txtValue])
    await walk('POST /api/sso/domains/:domain/check', api('POST', '/api/sso/domains/corp.test/check', {}))
    await walk('POST /app/sso/domains/check', form(owner, '/app/sso', '/app/sso/domains/check', { domain: 'corp.test' }))
    const browser = new FormClient(t.url)
    const started = await walk('POST /app/sso/start', form(browser, '/app/sign-in', '/app/sso/start',
      { email: 'someone@corp.test' }), { writes: 'none' })
    assert.match(started.text, new RegExp(`url=${hooks.origin}/auth\\?`))
    // Links waiting for an account's proof, as the callback leaves them (its flow: test/web/sso.test.ts).
    const digest = (v: string) => createHash('sha256').update(v).digest('base64url')
    const [bindingCookie, binding] = [...browser.cookies].find(([name]) => name.endsWith('_sso'))!
    for (const [token, mailed] of [['by-password', null], ['by-mail', null], ['mailed', 'mailed-secret']]) {
      await db.insertInto('sso_links').values({
        token_hash: digest(token!),
        browser_hash: digest(binding),
        mail_hash: mailed && digest(mailed),
        org_id: orgId,
        user_id: adaId,
        issuer: hooks.origin,
        subject: `sub-${token}`,
        sid: null,
        next: null,
        expires_at: new Date(Date.now() + 600_000)
      }).execute()
    }
    await walk('POST /app/sso/link', form(browser, '/app/sign-in', '/app/sso/link', { token: 'by-password', password: `${PASSWORD}!` }))
    browser.cookies.set(bindingCookie, binding) // a session opened clears it: the same browser, another sign-in
    await walk('POST /app/sso/link/mail', form(browser, '/app/sign-in', '/app/sso/link/mail', { token: 'by-mail' }),
      { writes: 'none' })
    await walk('POST /app/sso/link/:secret', form(new FormClient(t.url), '/app/sso/link/mailed-secret', '/app/sso/link/mailed-secret'))
    const logoutToken = await new SignJWT({ events: { 'http://schemas.openid.net/event/backchannel-logout': {} }, sub: 'sub-by-password' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(hooks.origin).setAudience('sitewatch').setIssuedAt()
      .setJti('walk').sign(idpKey.privateKey)
    await walk('POST /app/sso/backchannel-logout', async trace => await fetch(`${t.url}/app/sso/backchannel-logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-trace-id': trace },
      body: new URLSearchParams({ logout_token: logoutToken })
    }))
    await walk('POST /app/sso/delete', form(owner, '/app/sso', '/app/sso/delete'))
    await walk('PUT /api/sso', api('PUT', '/api/sso', { ...sso, clientSecret: 'another', required: false }))
    await walk('DELETE /api/sso', api('DELETE', '/api/sso'))
    await walk('POST /app/plan', form(owner, '/app/usage', '/app/plan', { plan: 'pro' }))
    await walk('POST /app/members/transfer', form(owner, '/app/members', '/app/members/transfer', { userId: adaId }))
    await walk('POST /app/sign-out', form(ada, '/app/domains', '/app/sign-out'))
    // The second organisation goes, and its log with it; the event is kept in the operator's log.
    await walk('POST /app/org', form(owner, '/app/domains', '/app/org', { orgId: second.org.id }))
    await walk('POST /app/org/delete', form(owner, '/app/usage', '/app/org/delete', { name: 'Second' }))
    await walk('DELETE /api/domains/:id', api('DELETE', `/api/domains/${domain.id}`))

    // Every state-changing route of the server was walked.
    const routes = t.service.app!.routeTable
      .filter(r => !['GET', 'HEAD', 'OPTIONS'].includes(r.method))
      .map(r => `${r.method} ${r.url}`)
    const missing = routes.filter(r => !walked.has(r))
    assert.deepEqual(missing, [], 'a state-changing route this test does not walk: add it')
    assert.ok(routes.length >= 84, `${routes.length} routes`)
  })

  it('a refused request writes no event, and no event can be edited', async () => {
    const trace = 'refused-1'
    const res = await t.api.request('DELETE', '/api/domains/00000000-0000-4000-8000-000000000000',
      { headers: { 'x-trace-id': trace } })
    assert.equal(res.status, 404)
    assert.equal((await eventsOf(trace)).length, 0)
    const unknownPage = await t.api.request('PATCH',
      '/api/domains/00000000-0000-4000-8000-000000000000/pages/00000000-0000-4000-8000-000000000001',
      { body: { priority: 2 }, headers: { 'x-trace-id': 'refused-2' } })
    assert.equal(unknownPage.status, 404)
    assert.equal((await eventsOf('refused-2')).length, 0)
    // A form that changed nothing (no change ticked) writes none, and that is no defect.
    const before = await unaudited()
    const none = await form(owner, '/app/changes', '/app/changes/acknowledge')('nothing-1')
    assert.equal(none.status, 303)
    assert.equal((await eventsOf('nothing-1')).length, 0)
    assert.equal(await unaudited(), before)
    await assert.rejects(sql`UPDATE audit_events SET action = 'domain.created'`.execute(t.service.store.db),
      /audit events are never changed/)
  })

  it('owners and admins read the log in the API, filtered and paged, and a read-only key may not', async () => {
    const all = await t.api.get('/api/audit-events?pageSize=200')
    assert.equal(all.status, 200, JSON.stringify(all.body))
    const events = all.body.data as any[]
    assert.ok(events.length > 40, `${events.length} events`)
    const created = events.find(e => e.action === 'domain.created' && e.object.label === 'acme.test')
    assert.equal(created.actor.kind, 'api_key')
    assert.equal(created.ip, '127.0.0.1')
    const signIn = events.find(e => e.action === 'session.signed_in' && e.actor.label === 'ada@acme.test')
    assert.equal(signIn.actor.kind, 'user')
    const byOperator = events.find(e => e.action === 'key.revoked' && e.actor.kind !== 'user')
    assert.equal(byOperator.actor.kind, 'operator')
    const failed = await t.api.get('/api/audit-events?action=member.role_changed')
    assert.deepEqual(failed.body.data.map((e: any) => e.details), [{ from: 'admin', to: 'editor' }])
    const one = await t.api.get('/api/audit-events?pageSize=5')
    const next = await t.api.get(`/api/audit-events?pageSize=5&cursor=${one.body.meta.nextCursor}`)
    assert.deepEqual([...one.body.data, ...next.body.data].map((e: any) => e.id), events.slice(0, 10).map(e => e.id))
    const orgId = ((await t.api.request('GET', '/admin/orgs', { key: ADMIN })).body.data as any[]).find(o => o.name === 'default').id
    const readKey = (await t.api.request('POST', `/admin/orgs/${orgId}/keys`, { body: { scope: 'read' }, key: ADMIN })).body.data
    assert.equal((await t.api.withKey(readKey.apiKey).get('/api/audit-events')).status, 403)
  })

  it('a failed sign-in is in the log of each organisation of the address tried', async () => {
    const res = await new FormClient(t.url).signIn('ada@acme.test', 'not the password')
    assert.equal(res.status, 401)
    const failed = (await t.api.get('/api/audit-events?action=session.sign_in_failed')).body.data as any[]
    assert.equal(failed.length, 1)
    assert.equal(failed[0].actor.kind, 'anonymous')
    assert.equal(failed[0].object.label, 'ada@acme.test')
  })

  it('the app shows the log to admins, filtered by person, kind and date, and gives it as CSV', async () => {
    const adaId = (await t.service.store.db.selectFrom('users').select('id').where('email', '=', 'ada@acme.test')
      .executeTakeFirstOrThrow()).id
    const today = new Date().toISOString().slice(0, 10)
    const shown = await owner.request('GET', `/app/audit?userId=${adaId}&from=${today}&to=${today}`)
    assert.equal(shown.status, 200)
    const rows = (text: string) => /<tbody>(.*)<\/tbody>/s.exec(text)?.[1] ?? ''
    assert.match(rows(shown.text), /signed in/)
    assert.match(rows(shown.text), /ada@acme\.test/)
    assert.doesNotMatch(rows(shown.text), /owner@acme\.test|added a domain/, 'only what Ada did')
    const kind = await owner.request('GET', '/app/audit?action=domain.created')
    assert.match(rows(kind.text), /acme\.test/)
    assert.doesNotMatch(rows(kind.text), /revoked an API key/)
    const csv = await owner.request('GET', '/app/audit.csv?action=domain.created')
    assert.equal(csv.status, 200)
    const lines = csv.text.trim().split('\r\n')
    assert.equal(lines[0], 'at,actorKind,actor,actorId,ip,action,objectType,objectId,object,details,traceId')
    assert.ok(lines.slice(1).every(l => l.includes(',domain.created,domain,')), lines.join('\n'))
    // An export reveals the organisation: it is in the log too.
    const [exported] = (await t.api.get('/api/audit-events?action=data.exported')).body.data
    assert.deepEqual([exported.object.label, exported.details], ['audit events', {
      rows: lines.length - 1, filters: { actions: ['domain.created'] }
    }])
  })
})
