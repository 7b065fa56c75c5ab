import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createDatabase, drainJobs, eventually, onPostgres, startTestService, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

// The browser as a fleet resource: an API process, a plain-fetch worker without a browser
// (BROWSER_CONCURRENCY=0) and a renderer (ROLE=renderer) share one PostgreSQL. Crawls of
// pages that need the browser go to the renderer, those the worker finds need one move
// there under the same job id, and plain pages never wait behind a render.

const html = (body: string, script = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body>${body}${script}</body></html>`

/** Empty until its script has waited for a slow answer: each render takes over a second. */
const slowApp = (n: number) => html('<div id="root"></div>', `<script>
fetch('/slow').then(r => r.text()).then(() => {
  document.getElementById('root').innerHTML = '<h1>Plans ${n}</h1><p>Team plan $${20 + n}/month, billed yearly.</p>'
})</script>`)

describe('renderers on their own processes', { skip: !onPostgres && 'needs TEST_DATABASE_URL: PGlite serves one process' }, () => {
  const site = new TestSite()
  let api: TestService
  let worker: TestService
  let renderer: TestService
  let dropDatabase: (() => Promise<void>) | undefined
  const renders = { worker: 0, renderer: 0 }

  before(async () => {
    await site.start()
    site.page('/', html(`<h1>Shop</h1><p>${'A plain page with plenty of words on it. '.repeat(10)}</p>` +
      Array.from({ length: 6 }, (_, i) => `<a href="/plain/${i}">plain ${i}</a> <a href="/app/${i}">app ${i}</a>`).join(' ')))
    for (let i = 0; i < 6; i++) {
      site.page(`/plain/${i}`, html(`<h1>About ${i}</h1><p>${'Plain words, read without a browser. '.repeat(12)}</p>`))
      site.page(`/app/${i}`, slowApp(i))
    }
    site.set('/slow', (_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/plain' })
        res.end('ok')
      }, 1200)
    })
    const env = {
      CRAWL_HOST_MAP: `shop.test=${site.origin}`,
      CRAWL_PER_HOST_DELAY_MS: '0',
      CRAWL_PER_HOST_CONCURRENCY: '16',
      RENDER_TIMEOUT_MS: '8000',
      RENDER_QUIET_MS: '200',
      JOB_POLLING_SECONDS: '1'
    }
    const db = await createDatabase()
    dropDatabase = db.drop
    api = await startTestService({ ...env, ROLE: 'api' }, { databaseUrl: db.url })
    worker = await startTestService({ ...env, ROLE: 'worker', BROWSER_CONCURRENCY: '0' }, { databaseUrl: db.url })
    renderer = await startTestService({ ...env, ROLE: 'renderer', BROWSER_CONCURRENCY: '1' }, { databaseUrl: db.url })
    worker.service.crawler.events.on('rendered', () => { renders.worker++ })
    renderer.service.crawler.events.on('rendered', () => { renders.renderer++ })
  })
  after(async () => {
    await renderer?.stop()
    await worker?.stop()
    await api?.stop()
    await dropDatabase?.()
    await site.close()
  })

  it('the renderer reads the pages that need a browser; the worker never waits for one', async () => {
    const domain = (await api.api.post('/api/domains', { domain: 'shop.test' })).body.data
    await drainJobs(api.api, 90_000)
    const pages = (await api.api.get(`/api/domains/${domain.id}/pages?pageSize=100`)).body.data as any[]
    const apps = pages.filter(p => p.url.includes('/app/'))
    assert.equal(apps.length, 6)
    for (const p of apps) {
      assert.equal(p.renderedWith, 'browser', p.url)
      assert.ok(p.lastCheckAt, p.url)
    }
    assert.equal(renders.worker, 0, 'the worker has no browser')
    assert.ok(renders.renderer >= 6)

    // Known to need the browser, the apps now go straight to the renderer; the plain
    // pages are all done while the renderer works through the apps one at a time.
    const crawl = (await api.api.post(`/api/domains/${domain.id}/crawl`)).body.data
    const jobs = async () => await Promise.all((crawl.jobIds as string[]).map(async id => (await api.api.get(`/api/jobs/${id}`)).body.data))
    const finished = await eventually(async () => {
      const all = await jobs()
      return all.every(j => j.state === 'completed') ? all : undefined
    }, 60_000, 'the crawl')
    for (const j of finished) assert.equal(j.name, 'crawl.page')
    const doneAt = (kind: string) => finished.filter(j => j.url.includes(kind)).map(j => Date.parse(j.finishedAt))
    assert.ok(Math.max(...doneAt('/plain/')) < Math.max(...doneAt('/app/')) - 3000,
      'the plain pages were done seconds before the last render')
    const snapshot = await renderer.service.store.db.selectFrom('snapshots').innerJoin('pages', 'pages.id', 'snapshots.page_id')
      .select('snapshots.content').where('pages.url', 'like', '%/app/3').executeTakeFirstOrThrow()
    assert.match(snapshot.content, /Team plan \$23\/month/)
  })
})
