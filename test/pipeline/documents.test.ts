import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { parse, stringify } from 'yaml'
import { pageVersion, versionsCompared } from '../../src/services/page-history.js'
import { createShareLink } from '../../src/services/share.js'
import { setShareLinks } from '../../src/store/orgs.js'
import { drainJobs, eventually, startTestService, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

// Pages read with a document, end to end: an API page (Swagger UI) whose OpenAPI
// description is watched with it, a changelog read from the feed it links to, and
// hostile descriptions (50 MB, a YAML bomb) that end in a clear lastError, not a crash.

const file = (name: string) => readFileSync(new URL(`../detection/fixtures/${name}`, import.meta.url), 'utf8')
const json = (body: string) => ({ body, headers: { 'content-type': 'application/json' } })
const feed = (items: Array<{ title: string, date: string, body: string }>) => ({
  body: `<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>Relay releases</title>
<link>https://relay.test/changelog</link><description>Releases</description>
${items.map(i => `<item><title>${i.title}</title><pubDate>${i.date}</pubDate><link>https://relay.test/changelog#${i.title}</link>
<description><![CDATA[${i.body}]]></description></item>`).join('\n')}</channel></rss>`,
  headers: { 'content-type': 'application/rss+xml' }
})

describe('pages read with their documents', () => {
  let site: TestSite
  let t: TestService
  let domainId = ''
  const spec = parse(file('api/petstore.yaml'))
  const releases = [
    { title: 'v2.3.0', date: 'Fri, 02 Oct 2026 09:00:00 GMT', body: '<ul><li>Webhook retries.</li></ul>' },
    { title: 'v2.2.0', date: 'Sun, 30 Aug 2026 09:00:00 GMT', body: '<ul><li>Faster dashboards.</li></ul>' }
  ]

  before(async () => {
    site = await new TestSite().start()
    site.page('/', '<html><head><title>Relay</title></head><body><h1>Relay</h1><p>Relay moves your events.</p></body></html>')
    site.page('/docs/api', file('api/swagger-ui.html'))
    site.set('/specs/petstore.json', json(JSON.stringify(spec)))
    site.page('/changelog', '<html><head><title>Changelog</title>' +
      '<link rel="alternate" type="application/rss+xml" href="/changelog.xml"></head><body><h1>Changelog</h1>' +
      '<div id="app">Loading releases…</div><p>Follow our releases by RSS.</p></body></html>')
    site.set('/changelog.xml', feed(releases))
    // A Redoc shell: no text of its own but a line for browsers without script; its description is in its script.
    site.page('/docs/shell', '<!doctype html><html><head><title>Relay API reference</title></head><body>' +
      '<noscript>This page needs JavaScript.</noscript><div id="redoc-container"></div>' +
      '<script src="/assets/redoc.standalone.js"></script>' +
      '<script>Redoc.init("/specs/shell.yml", { hideDownloadButton: true }, document.getElementById("redoc-container"))' +
      '</script></body></html>')
    site.set('/specs/shell.yml', { body: file('api/petstore.yaml'), headers: { 'content-type': 'application/yaml' } })
    // Swagger UI as its dist ships: the page loads its bundle and its swagger-initializer.js, which names the
    // description.
    site.page('/docs/swagger/', '<!doctype html><html><head><title>Swagger UI</title></head><body>' +
      '<div id="swagger-ui"></div>' +
      '<script src="./swagger-ui-bundle.js" charset="UTF-8"></script>' +
      '<script src="./swagger-initializer.js" charset="UTF-8"></script></body></html>')
    site.set('/docs/swagger/swagger-initializer.js', {
      body: 'window.onload = function () {\n  window.ui = SwaggerUIBundle({\n    url: "/specs/initialized.json",\n' +
        '    dom_id: "#swagger-ui", deepLinking: true\n  })\n}\n',
      headers: { 'content-type': 'application/javascript' }
    })
    site.set('/specs/initialized.json', json(JSON.stringify(parse(file('api/petstore.yaml')))))
    site.page('/docs/huge', '<html><body><h1>Huge API</h1><p>Our whole API, in one document.</p>' +
      '<redoc spec-url="/specs/huge.json"></redoc></body></html>')
    site.set('/specs/huge.json', json(`{"openapi":"3.0.0","info":{"title":"x","version":"1"},"paths":{},"x":"${'a'.repeat(50 * 1024 * 1024)}"}`))
    site.page('/docs/bomb', '<html><body><h1>Bomb API</h1><p>Read with care.</p><a href="/specs/bomb-openapi.yaml">Spec</a></body></html>')
    const bomb = ['openapi: 3.0.0', 'a: &a ["x","x","x","x","x","x","x","x","x"]']
    for (let i = 1; i < 10; i++) bomb.push(`${'b'.repeat(i)}: &${'b'.repeat(i)} [${Array(9).fill(`*${i === 1 ? 'a' : 'b'.repeat(i - 1)}`).join(',')}]`)
    site.set('/specs/bomb-openapi.yaml', { body: `${bomb.join('\n')}\npaths: {}\n`, headers: { 'content-type': 'application/yaml' } })
    t = await startTestService({ CRAWL_HOST_MAP: `relay.test=${site.origin}` })
    domainId = (await t.api.post('/api/domains', { domain: 'relay.test' })).body.data.id
    await drainJobs(t.api)
    for (const [path, pageType] of [['/docs/api', 'api_docs'], ['/changelog', 'changelog'], ['/docs/huge', 'api_docs'],
      ['/docs/bomb', 'api_docs'], ['/docs/shell', 'api_docs'], ['/docs/swagger/', 'api_docs']]) {
      const res = await t.api.post(`/api/domains/${domainId}/pages`, { url: `https://relay.test${path}`, pageType })
      // Discovery may have found it already (its conventional address): then it is typed by hand.
      if (res.status === 409) {
        const found = await pageOf(path)
        const typed = await t.api.request('PATCH', `/api/domains/${domainId}/pages/${found.id}`, { body: { pageType } })
        assert.equal(typed.status, 200, JSON.stringify(typed.body))
      } else assert.equal(res.status, 201, JSON.stringify(res.body))
    }
    await drainJobs(t.api)
  })
  after(async () => {
    await t?.stop()
    await site?.close()
  })

  async function pageOf (path: string) {
    return ((await t.api.get(`/api/domains/${domainId}/pages?pageSize=100`)).body.data as any[])
      .find(p => new URL(p.url).pathname === path)
  }
  /** The change's page as its share link shows it (the app's own page, without a session). */
  const sharedPage = async (change: { id: string, orgId: string }) => {
    await setShareLinks(t.service.store.db, change.orgId, true)
    const link = await createShareLink(t.service.store.db, t.url, { orgId: change.orgId, userId: null }, change.id)
    const res = await fetch(link.url)
    assert.equal(res.status, 200)
    return await res.text()
  }
  const changesOf = async (path: string) =>
    (await t.api.get(`/api/changes?pageId=${(await pageOf(path)).id}`)).body.data as any[]

  it('the description and the feed are kept with the page\'s snapshot', async () => {
    const api = await pageOf('/docs/api')
    assert.equal(api.lastError, null)
    const row = await t.service.store.db.selectFrom('snapshots').select(['document_url', 'document_type'])
      .where('page_id', '=', api.id).executeTakeFirstOrThrow()
    assert.deepEqual(row, { document_url: `${site.origin}/specs/petstore.json`.replace(site.origin, 'https://relay.test'), document_type: 'application/json' })
    const log = await t.service.store.db.selectFrom('snapshots').select('document_url')
      .where('page_id', '=', (await pageOf('/changelog')).id).executeTakeFirstOrThrow()
    assert.equal(log.document_url, 'https://relay.test/changelog.xml')
  })

  it('hostile descriptions: a clear lastError, and the worker lives on', async () => {
    const huge = await pageOf('/docs/huge')
    assert.match(huge.lastError, /^API description https:\/\/relay\.test\/specs\/huge\.json: .*(larger|size|exceed)/i)
    const bomb = await pageOf('/docs/bomb')
    assert.match(bomb.lastError, /^API description https:\/\/relay\.test\/specs\/bomb-openapi\.yaml: not JSON or YAML we can read: .*alias/i)
  })

  it('an operation removed from the description (the page unchanged) is a critical feature_removed', async () => {
    const next = structuredClone(spec)
    delete next.paths['/pets/{petId}'].delete
    next.components.schemas.NewPet.required.push('tag')
    site.set('/specs/petstore.json', json(JSON.stringify(next)))
    await t.api.post(`/api/domains/${domainId}/crawl`)
    const [c] = await eventually(async () => { const c = await changesOf('/docs/api'); return c.length ? c : undefined }, 30_000, 'the API change')
    assert.deepEqual([c.changeType, c.severity], ['feature_removed', 'critical'])
    assert.equal(c.summary, 'API: DELETE /pets/{petId} removed; 1 more breaking change')
    assert.deepEqual(c.diffData.api.breaking, [
      { method: 'DELETE', path: '/pets/{petId}', change: 'removed' },
      { method: 'POST', path: '/pets', change: 'required request field `tag` now required' }
    ])
    // A person sees the list, by kind, on the change's page (here its share link's).
    const html = await sharedPage(c)
    assert.match(html, /<h2>API description<\/h2>/)
    assert.match(html, /Breaking \(2\)<\/h3><ul><li><code>DELETE \/pets\/\{petId\}<\/code> removed<\/li>/)
    assert.match(html, /<code>POST \/pets<\/code> required request field <code>tag<\/code> now required/)
    assert.doesNotMatch(html, /<h2>What changed<\/h2>/, 'no empty text diff')
  })

  /** The page at `path` was read, with no error, through the description at `documentUrl`. */
  const readThrough = async (path: string, documentUrl: string) => {
    const page = await pageOf(path)
    assert.equal(page.lastError, null, 'no "shows no text to read"')
    const row = await t.service.store.db.selectFrom('snapshots').select('document_url')
      .where('page_id', '=', page.id).executeTakeFirstOrThrow()
    assert.equal(row.document_url, documentUrl)
  }

  it('an API reference whose page is a Redoc shell is watched through its description, never failed as empty', async () => {
    await readThrough('/docs/shell', 'https://relay.test/specs/shell.yml')
    await drainJobs(t.api)
    const next = parse(file('api/petstore.yaml'))
    next.paths['/pets/{petId}/photos'] = { post: { operationId: 'addPhoto', summary: 'Adds a photo', responses: { 201: { description: 'added' } } } }
    delete next.paths['/pets/{petId}'].delete
    site.set('/specs/shell.yml', { body: stringify(next), headers: { 'content-type': 'application/yaml' } })
    await t.api.post(`/api/domains/${domainId}/crawl`)
    const [c] = await eventually(async () => { const c = await changesOf('/docs/shell'); return c.length ? c : undefined }, 30_000, 'the API change')
    assert.deepEqual([c.changeType, c.severity], ['feature_removed', 'critical'])
    assert.deepEqual(c.diffData.api.breaking, [{ method: 'DELETE', path: '/pets/{petId}', change: 'removed' }])
    assert.equal((await pageOf('/docs/shell')).lastError, null)
  })

  it('a Swagger UI whose description is named only in its swagger-initializer.js is read through that description', async () => {
    await readThrough('/docs/swagger/', 'https://relay.test/specs/initialized.json')
    assert.equal(site.hitsOf('/docs/swagger/swagger-ui-bundle.js'), 0, 'the viewer itself is never fetched')
  })

  it("the versions around an API change can be read and compared through their description, not only the shell's line", async () => {
    const shell = await pageOf('/docs/shell')
    const [c] = await changesOf('/docs/shell')
    const { db } = t.service.store
    const compared = await versionsCompared(db, shell.id, c.snapshotBeforeId, c.snapshotAfterId, 1)
    assert.equal(compared.view.total, 0, "the shell's own text did not move")
    assert.equal(compared.document?.url, 'https://relay.test/specs/shell.yml')
    assert.ok(compared.document!.view.total > 0, 'its description did')
    const said = JSON.stringify(compared.document!.view.passages)
    assert.match(said, /addPhoto/)
    const version = await pageVersion(db, shell.id, c.snapshotAfterId)
    assert.ok(version.document?.lines.some(l => /addPhoto/.test(l)), 'a version is shown with its description')
  })

  it('a new release in the feed is a change with its entry', async () => {
    // The last check's crawls settle first: a "Crawl now" while a crawl runs queues none (decisions.md).
    await drainJobs(t.api)
    site.set('/changelog.xml', feed([{ title: 'v2.4.0', date: 'Fri, 20 Nov 2026 09:00:00 GMT', body: '<ul><li>Removed the v1 API.</li><li>Added event replay.</li></ul>' }, ...releases]))
    await t.api.post(`/api/domains/${domainId}/crawl`)
    const [c] = await eventually(async () => { const c = await changesOf('/changelog'); return c.length ? c : undefined }, 30_000, 'the release')
    assert.deepEqual([c.changeType, c.severity], ['feature_added', 'high'])
    assert.deepEqual(c.diffData.changelog, { version: '2.4.0', date: '2026-11-20', title: '2.4.0', items: ['Removed the v1 API.', 'Added event replay.'] })
    assert.equal(c.summary, 'Changelog 2.4.0 (2026-11-20): Removed the v1 API.; Added event replay.')
    const html = await sharedPage(c)
    assert.match(html, /<h2>Changelog entry<\/h2>.*<h3>2\.4\.0 · 2026-11-20<\/h3><ul><li>Removed the v1 API\.<\/li><li>Added event replay\.<\/li><\/ul>/s)
  })
})
