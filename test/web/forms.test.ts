import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { addUser } from '../../src/services/accounts.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { FormClient } from '../helpers/web-client.js'

// The app's forms are checked against the API's schema for the same input (web/form-check.ts):
// what the API refuses the app refuses, saying which field and why, and nothing is cut or
// clamped to fit. Before, the alert rule form clamped a confidence of 1.5 to 1 and cut a
// long name, which the API refuses, and the single sign-on form took a domain twice.

const PASSWORD = 'a long enough password'

describe("the app's forms, on the API's schemas", () => {
  let t: TestService
  let owner: FormClient
  before(async () => {
    t = await startTestService({ CRAWL_HOST_MAP: 'formed.test=http://127.0.0.1:9', ALERT_HOST_MAP: 'hooks.test=http://127.0.0.1:9' })
    const db = t.service.store.db
    const orgId = (await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()).id
    await db.updateTable('orgs').set({ plan: 'enterprise' }).execute()
    await addUser(db, orgId, { email: 'owner@example.test', password: PASSWORD }, 'owner')
    owner = new FormClient(t.url)
    assert.equal((await owner.signIn('owner@example.test', PASSWORD)).status, 303)
  })
  after(async () => {
    await t?.stop()
  })

  const rules = async () => (await t.api.get('/api/alert-rules')).body.data as Array<{ name: string, match: any }>

  it('an alert rule the API would refuse is refused by the form, field by field, and nothing is saved', async () => {
    const rule = { name: 'Quiet counters', action: 'mute', minConfidence: '0.5', intent: 'save' }
    const over = await owner.submit('/app/alerts', '/app/alerts/rules', { ...rule, minConfidence: '1.5' })
    assert.equal(over.status, 400)
    assert.match(over.text, /The least confidence is a number from 0 to 1/)
    const long = await owner.submit('/app/alerts', '/app/alerts/rules', { ...rule, name: 'n'.repeat(101) })
    assert.equal(long.status, 400)
    assert.match(long.text, /a name of 100 characters at most/)
    const words = await owner.submit('/app/alerts', '/app/alerts/rules',
      { ...rule, words: Array.from({ length: 21 }, (_, i) => `word${i}`).join(', ') })
    assert.equal(words.status, 400)
    assert.match(words.text, /at most 20 words or phrases/)
    assert.deepEqual(await rules(), [])
    const saved = await owner.submit('/app/alerts', '/app/alerts/rules', rule)
    assert.equal(saved.status, 303, saved.text.slice(0, 300))
    assert.deepEqual((await rules()).map(r => [r.name, r.match.minConfidence]), [['Quiet counters', 0.5]])
  })

  it('single sign-on settings the API would refuse are refused by the form before the provider is asked', async () => {
    const form = {
      issuer: 'https://login.example.test', clientId: 'sitewatch', clientSecret: 'secret', defaultRole: 'viewer'
    }
    const twice = await owner.submit('/app/sso', '/app/sso', { ...form, domains: 'corp.test, corp.test' })
    assert.equal(twice.status, 400)
    assert.match(twice.text, /one to twenty different e-mail domains/)
    const owners = await owner.submit('/app/sso', '/app/sso', { ...form, domains: 'corp.test', defaultRole: 'owner' })
    assert.equal(owners.status, 400)
    assert.match(owners.text, /Choose the role of a first sign-in/)
    const longId = await owner.submit('/app/sso', '/app/sso', { ...form, domains: 'corp.test', clientId: 'c'.repeat(301) })
    assert.equal(longId.status, 400)
    assert.match(longId.text, /client id/)
    assert.equal((await t.api.get('/api/sso')).body.data, null)
  })

  it("a page's settings the API would refuse are refused by the form, not ignored", async () => {
    const domain = (await t.api.post('/api/domains', { domain: 'formed.test' })).body.data
    const added = (await t.api.post(`/api/domains/${domain.id}/pages`, { url: 'https://formed.test/pricing' })).body.data
    const settings = { name: 'Prices', monitoringEnabled: 'on', priority: '3', render: '', ignoreSelectors: '' }
    const at = `/app/domains/${domain.id}`
    const action = `${at}/pages/${added.id}`
    // A refused action goes back to the page it came from, which says why (routes/common.ts formAction).
    const refused = async (form: Record<string, string>, why: RegExp) => {
      const answer = await owner.submit(at, action, form)
      assert.equal(answer.status, 303)
      assert.match((await owner.request('GET', answer.location!)).text, why)
    }
    await refused({ ...settings, priority: '11' }, /Choose a priority from 1 to 10/)
    await refused({ ...settings, render: 'sometimes' }, /Choose how the page is read/)
    await refused({ ...settings, ignoreSelectors: Array.from({ length: 21 }, (_, i) => `.ad-${i}`).join('\n') },
      /at most 20 selectors to ignore/)
    const page = async () => (await t.api.get(`/api/domains/${domain.id}/pages/${added.id}`)).body.data
    assert.deepEqual([(await page()).priority, (await page()).name ?? null], [5, null], 'nothing was saved')
    const saved = await owner.submit(at, action, settings)
    assert.equal(saved.status, 303, saved.text.slice(0, 300))
    assert.deepEqual([(await page()).priority, (await page()).name], [3, 'Prices'])
  })

  it('a destination the API would refuse is refused by the form; a long description is kept whole, not cut', async () => {
    const form = { kind: 'webhook', url: 'https://hooks.test/sitewatch', description: '', minSeverity: 'high' }
    const refused = [
      [{ ...form, kind: 'pager' }, /Choose a webhook or Slack/],
      [{ ...form, minSeverity: 'urgent' }, /Choose a severity: low, medium, high or critical/],
      [{ ...form, description: 'd'.repeat(501) }, /A description is 500 characters at most/]
    ] as const
    for (const [input, why] of refused) {
      const answer = await owner.submit('/app/alerts', '/app/alerts', input)
      assert.equal(answer.status, 400)
      assert.match(answer.text, why)
    }
    const hooks = async () => (await t.api.get('/api/webhooks')).body.data as Array<{ description: string | null, minSeverity: string }>
    assert.deepEqual(await hooks(), [], 'nothing was saved')
    // The API keeps 500 characters: before, the form cut them to 200.
    const saved = await owner.submit('/app/alerts', '/app/alerts', { ...form, description: 'd'.repeat(300) })
    assert.equal(saved.status, 200, saved.text.slice(0, 300))
    assert.deepEqual((await hooks()).map(h => [h.description?.length, h.minSeverity]), [[300, 'high']])
  })

  it('an invitation or a key the schema refuses is refused, not made with a default in its place', async () => {
    const invited = async (form: Record<string, string>) => await owner.submit('/app/members', '/app/members/invite', form)
    const badRole = await invited({ email: 'new@example.test', role: 'overlord' })
    assert.equal(badRole.status, 400)
    assert.match(badRole.text, /Choose a role\./)
    assert.match(badRole.text, /<input id="invite-email"[^>]*value="new@example.test"/, 'what was typed stays, to be corrected')
    const longMail = await invited({ email: `${'m'.repeat(250)}@example.test`, role: 'viewer' })
    assert.equal(longMail.status, 400)
    assert.match(longMail.text, /Give the e-mail address to invite/)
    assert.doesNotMatch((await owner.request('GET', '/app/members')).text, /new@example\.test/, 'no invitation made')
    const keys = async () =>
      await t.service.store.db.selectFrom('api_keys').select(['scope', 'name']).where('name', 'is not', null).execute()
    // Before, any scope but "read" made a write key.
    const badScope = await owner.submit('/app/keys', '/app/keys', { name: 'CI', scope: 'admin' })
    assert.equal(badScope.status, 400)
    assert.match(badScope.text, /Choose read or write/)
    assert.match(badScope.text, /<input id="key-name"[^>]*value="CI"/, 'the name typed stays, to be corrected')
    const longName = await owner.submit('/app/keys', '/app/keys', { name: 'n'.repeat(101), scope: 'read' })
    assert.equal(longName.status, 400)
    assert.match(longName.text, /100 characters at most/)
    assert.match(longName.text, /<option value="read" selected/, 'and the scope chosen')
    assert.deepEqual(await keys(), [])
    const made = await owner.submit('/app/keys', '/app/keys', { name: 'CI', scope: 'read' })
    assert.equal(made.status, 200, made.text.slice(0, 300))
    assert.deepEqual(await keys(), [{ scope: 'read', name: 'CI' }])
  })
})
