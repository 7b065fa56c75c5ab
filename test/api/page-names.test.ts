// A watched page can carry a name people choose, as every monitor lets them: set and cleared
// through the API and the app, refused when empty or too long, and shown wherever the page
// is (its views, its domain's list, its changes, and the change.detected payload).
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { layout, pricingMain } from '../helpers/fixtures.js'
import { drainJobs, eventually, startTestService, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'
import { FormClient } from '../helpers/web-client.js'

const ADMIN = 'page-names-admin-token-0123456789'
const PASSWORD = 'a long enough password 42'

describe('page names', () => {
  let site: TestSite
  let t: TestService
  let receiver: Server
  const payloads: any[] = []
  let domainId = ''
  let pageId = ''

  before(async () => {
    site = await new TestSite().start()
    site.page('/', layout('Acme', '<h1>Acme</h1><p>We ship.</p>'))
    site.page('/cloud-vps', layout('Pricing', pricingMain('$49')))
    receiver = createServer((req, res) => {
      let body = ''
      req.on('data', c => { body += c })
      req.on('end', () => {
        payloads.push(JSON.parse(body))
        res.end('ok')
      })
    })
    await new Promise<void>(resolve => receiver.listen(0, '127.0.0.1', resolve))
    t = await startTestService({
      CRAWL_HOST_MAP: `names.test=${site.origin}`,
      ALERT_HOST_MAP: `hooks.test=http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
      ADMIN_TOKEN: ADMIN
    })
    domainId = (await t.api.post('/api/domains', { domain: 'names.test' })).body.data.id
    await drainJobs(t.api)
  })
  after(async () => {
    await t?.stop()
    await site?.close()
    receiver?.closeAllConnections()
    await new Promise(resolve => receiver?.close(resolve))
  })

  it('is set, trimmed, shown in the page and its domain, refused when empty or too long, and cleared with null', async () => {
    const added = await t.api.post(`/api/domains/${domainId}/pages`, { url: 'https://names.test/cloud-vps', name: '  Acme prices ' })
    assert.equal(added.status, 201, JSON.stringify(added.body))
    pageId = added.body.data.id
    assert.equal(added.body.data.name, 'Acme prices')
    const base = `/api/domains/${domainId}/pages/${pageId}`
    for (const name of ['', '   ', 'x'.repeat(121)]) {
      const refused = await t.api.request('PATCH', base, { body: { name } })
      assert.equal(refused.status, 400, name)
      assert.equal(refused.body.code, 'VALIDATION_ERROR')
    }
    assert.equal((await t.api.get(base)).body.data.name, 'Acme prices', 'a refused name changes nothing')
    const renamed = await t.api.request('PATCH', base, { body: { name: 'Cloud VPS prices' } })
    assert.equal(renamed.body.data.name, 'Cloud VPS prices')
    const listed = (await t.api.get(`/api/domains/${domainId}`)).body.data.pages.find((p: any) => p.id === pageId)
    assert.equal(listed.name, 'Cloud VPS prices')
    assert.equal((await t.api.get(`/api/domains/${domainId}/pages`)).body.data.find((p: any) => p.id === pageId).name,
      'Cloud VPS prices')
    const home = (await t.api.get(`/api/domains/${domainId}/pages`)).body.data.find((p: any) => p.id !== pageId)
    assert.equal(home.name, null, 'a page nobody named goes by its address')
  })

  it("is in the change.detected payload, and the app shows it in the page's place", async () => {
    await t.api.post('/api/webhooks', { url: 'https://hooks.test/in', events: ['change.detected'] })
    await drainJobs(t.api)
    site.page('/cloud-vps', layout('Pricing', pricingMain('$59')))
    await t.api.post(`/api/domains/${domainId}/pages/${pageId}/crawl`)
    await drainJobs(t.api)
    const sent = await eventually(async () => payloads.find(p => p.type === 'change.detected'), 20_000,
      'the change delivered')
    assert.equal(sent.data.page.name, 'Cloud VPS prices')

    const person = new FormClient(t.url)
    const org = await t.service.store.db.selectFrom('domains').select('org_id').where('id', '=', domainId)
      .executeTakeFirstOrThrow()
    const made = await fetch(`${t.url}/admin/orgs/${org.org_id}/members`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'namer@example.test', password: PASSWORD, role: 'owner' })
    })
    assert.equal(made.status, 201, await made.text())
    await person.signIn('namer@example.test', PASSWORD)
    const domainPage = await person.request('GET', `/app/domains/${domainId}`)
    assert.match(domainPage.text, />Cloud VPS prices</)
    const pagePath = `/app/domains/${domainId}/pages/${pageId}`
    assert.match((await person.request('GET', pagePath)).text, /<title>Cloud VPS prices — names\.test/)
    const changeId = sent.data.change.id
    assert.match((await person.request('GET', `/app/changes/${changeId}`)).text, /On <strong>Cloud VPS prices<\/strong>/)
    // Renamed and cleared in the app's settings form, as in the API; too long is refused there too.
    const long = await person.submit(pagePath, pagePath, { name: 'y'.repeat(121), back: 'page', priority: '5', render: '' })
    assert.notEqual(long.status, 500)
    assert.equal((await t.api.get(`/api/domains/${domainId}/pages/${pageId}`)).body.data.name, 'Cloud VPS prices')
    await person.submit(pagePath, pagePath, { name: ' ', monitoringEnabled: 'on', back: 'page', priority: '5', render: '' })
    assert.equal((await t.api.get(`/api/domains/${domainId}/pages/${pageId}`)).body.data.name, null)
  })
})
