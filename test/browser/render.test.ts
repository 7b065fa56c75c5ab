import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { eventually, freePort, startTestService, type TestService } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'
import { createShareLink } from '../../src/services/share.js'
import { setShareLinks } from '../../src/store/orgs.js'

// The real browser (playwright-core and the Chromium in @sparticuz/chromium, nothing
// installed on the system) against a local site: pages that exist only after their
// script runs, a bot wall's challenge, scripts that reach for private addresses, and
// pages built to hang, loop, pop up and download.

/** A page; `script` runs after the body it works on. */
const html = (body: string, script = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Spa</title></head><body>${body}${script}</body></html>`

/** A pricing page whose comparison table is written by its script from /plans.json. */
const SPA = html('<div id="root"></div>', `<script>
fetch('/plans.json').then(r => r.json()).then(plans => {
  const row = (label, cell) => '<tr><td>' + label + '</td>' + plans.map(p => '<td>' + cell(p) + '</td>').join('') + '</tr>'
  document.getElementById('root').innerHTML = '<h1>Pricing</h1><table>' +
    '<tr><th>Plan</th>' + plans.map(p => '<th>' + p.name + '</th>').join('') + '</tr>' +
    row('Price', p => '$' + p.price + '/month') + row('Projects', p => p.projects) + row('SSO', p => p.sso ? '✓' : '—') +
    '</table>'
})</script>`)

/** A pricing page whose script writes one plan per row (`Plan | Price | Included`) from /rows.json. */
const ROWS_SPA = html('<div id="app"></div>', `<script>
fetch('/rows.json').then(r => r.json()).then(plans => {
  document.getElementById('app').innerHTML = '<h1>Pricing</h1><table><thead><tr><th>Plan</th><th>Price</th><th>Included</th></tr></thead><tbody>' +
    plans.map(p => '<tr><td><strong>' + p.name + '</strong></td><td>$' + p.price + '/month</td><td>' + p.included + '</td></tr>').join('') +
    '</tbody></table><p>Prices in USD, excl. taxes.</p>'
})</script>`)

/**
 * Browser processes this test started that are still running: Chromium processes whose
 * parent chain leads to this process (a Sitewatch running beside the suite has its own).
 */
function browserProcesses (): number {
  return browserPids().length
}

function browserPids (): number[] {
  const parent = new Map<number, number>()
  const browsers: number[] = []
  for (const pid of readdirSync('/proc').filter(p => /^\d+$/.test(p))) {
    try {
      // The command's name is in parentheses and may hold spaces: the parent's pid is the 2nd field after it.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      parent.set(Number(pid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      if (/\/tmp\/chromium|chrome-headless|\/chromium /.test(cmd) && !cmd.includes('node')) browsers.push(Number(pid))
    } catch { /* gone */ }
  }
  const ours = (pid: number) => {
    for (let p: number | undefined = pid, hops = 0; p && hops < 64; p = parent.get(p), hops++) {
      if (p === process.pid) return true
    }
    return false
  }
  return browsers.filter(ours)
}

describe('pages seen as a browser sees them', () => {
  let site: TestSite
  let bait: TestSite
  let t: TestService
  let domainId: string
  let proPrice = 49
  let rowsProPrice = 49
  let boxColour = '#06c'
  let navigatesHits = 0

  const deliveries: any[] = []
  let hooks: TestSite

  before(async () => {
    site = await new TestSite().start()
    bait = await new TestSite().start()
    hooks = await new TestSite().start()
    hooks.receive('/hook', deliveries)
    bait.fallback = () => 'stolen'
    site.page('/', html('<h1>Spa Co</h1><p>We make single-page apps and we are proud of it, a plain page here.</p>'))
    site.page('/plain', html(`<h1>About</h1><p>${'A plain page with plenty of text. '.repeat(20)}</p>`))
    site.page('/pricing', SPA)
    site.page('/plans', ROWS_SPA)
    site.set('/rows.json', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify([
        { name: 'Starter', price: 19, included: '3 projects, 1 user' },
        { name: 'Pro', price: rowsProPrice, included: '20 projects, 5 users' },
        { name: 'Team', price: 99, included: 'Unlimited projects, 20 users' }
      ]))
    })
    // Text to read, beside an application root whose script sends the browser to a page that does not exist.
    site.page('/app-navigates', html(`<h1>Release notes</h1><p>${'Version 3 adds audit logs and faster exports. '.repeat(8)}</p>` +
      '<div id="app"></div>', "<script>setTimeout(() => { location.href = '/gone-away' }, 50)</script>"))
    // The same, its script sending the browser to another host.
    site.page('/app-leaves', html(`<h1>Accessibility statement</h1><p>${'We aim for WCAG 2.2 AA on every page. '.repeat(8)}</p>` +
      '<div id="app"></div>',
    "<script>setTimeout(() => { location.href = 'https://bait.test/elsewhere' }, 50)</script>"))
    site.set('/status', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(html(`<h1>Status</h1><p>${'All systems normal. '.repeat(15)}</p>` +
        `<div style="position:absolute;left:100px;top:300px;width:200px;height:100px;background:${boxColour}"></div>`))
    })
    // An application whose data request takes the browser down, the first time it is asked.
    let crashes = 1
    site.page('/crash-once', html('<div id="root"></div>', `<script>
fetch('/crash.json').then(r => r.json()).then(d => { document.getElementById('root').innerHTML = '<h1>' + d.title + '</h1>' })
</script>`))
    site.set('/crash.json', (_req, res) => {
      if (crashes-- > 0) {
        for (const pid of browserPids()) {
          try { process.kill(pid, 'SIGKILL') } catch { /* gone */ }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ title: 'Rendered after the browser came back' }))
    })
    site.set('/plans.json', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify([
        { name: 'Starter', price: 19, projects: 3, sso: false }, { name: 'Pro', price: proPrice, projects: 20, sso: true }
      ]))
    })
    site.set('/walled', (req, res) => {
      if ((req.headers.cookie ?? '').includes('passed=1')) {
        res.writeHead(200, { 'content-type': 'text/html' })
        res.end(html('<h1>Members pricing</h1><p>Team plan $99/month.</p>'))
        return
      }
      res.writeHead(503, { 'content-type': 'text/html' })
      res.end(html('<p>Checking your browser before accessing the site. Just a moment...</p>' +
        '<script>setTimeout(() => { document.cookie = "passed=1; path=/"; location.reload() }, 100)</script>'))
    })
    const baitOrigin = bait.origin
    site.page('/reach', html('<div id="app"></div>', `<script>
for (const u of ['${baitOrigin}/steal', 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/', 'http://192.168.1.1/']) {
  fetch(u).catch(() => {}); const i = new Image(); i.src = u + '?img'
}
try { new WebSocket('${baitOrigin.replace('http', 'ws')}/ws') } catch {}
document.getElementById('app').innerHTML = '<h1>Reach</h1><p>Tried to reach private addresses.</p>'
</script>`))
    // Never quiet: it polls for ever, and its last request never gets an answer.
    site.page('/never', html('<h1>Live</h1><p id="status">Waiting.</p>', `<script>
document.getElementById('status').textContent = 'Partly there.'
setInterval(() => fetch('/poll').catch(() => {}), 100); fetch('/hang').catch(() => {})
</script>`))
    site.set('/poll', { body: '{}', headers: { 'content-type': 'application/json' } })
    site.set('/hang', () => { /* never answered */ })
    site.page('/popups', html('<div id="root"></div>', `<script>
window.open('/plain'); window.open('about:blank')
const a = document.createElement('a'); a.href = '/file.bin'; a.download = 'x.bin'; document.body.appendChild(a); a.click()
document.getElementById('root').innerHTML = '<h1>Popups</h1><p>Opened windows and a download.</p>'
</script>`))
    site.set('/file.bin', { body: Buffer.alloc(1024, 1), headers: { 'content-type': 'application/octet-stream' } })
    site.page('/endless', html('<div id="feed"><h1>Feed</h1><p>Newest stories first.</p></div>', `<script>
const feed = document.getElementById('feed')
setInterval(() => { const d = document.createElement('div'); d.style.height = '400px'; d.textContent = 'More'; feed.appendChild(d) }, 10)
</script>`))
    // Its script sends the browser to a page that does not exist; a plain client reads it well.
    // A page the browser is refused (its second request answers 500), read plainly before and after.
    site.set('/navigates', (_req, res) => {
      const refused = ++navigatesHits === 2
      res.writeHead(refused ? 500 : 200, { 'content-type': 'text/html' })
      res.end(refused ? 'Internal error' : html(`<h1>Changelog</h1><p>${'Version 2 ships faster checks. '.repeat(12)}</p>`))
    })
    site.page('/busy', html('<div id="root"></div>', '<script>for (;;) {}</script>'))
    site.page('/carousel', html('<div id="root"></div>', `<script>
document.getElementById('root').innerHTML = '<h1>Home</h1><div class="slides"><p class="on">Fast</p><p>Safe</p><p>Cheap</p></div>' +
  '<p class="banner">Spring sale</p>'
let i = 0; setInterval(() => { const s = document.querySelectorAll('.slides p'); s.forEach(x => x.className = ''); s[++i % 3].className = 'on' }, 50)
</script><style>.banner { animation: pulse 0.2s infinite } @keyframes pulse { to { opacity: 0.2 } }</style>`))
    const port = await freePort()
    t = await startTestService({
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      CRAWL_HOST_MAP: `spa.test=${site.origin}`,
      ALERT_HOST_MAP: `hooks.test=${hooks.origin}`,
      RENDER_TIMEOUT_MS: '6000',
      RENDER_QUIET_MS: '300',
      BROWSER_CONCURRENCY: '2'
    })
    assert.equal((await t.api.post('/api/webhooks', { url: 'https://hooks.test/hook' })).status, 201)
    const created = (await t.api.post('/api/domains', { domain: 'spa.test' })).body.data
    domainId = created.id
    await eventually(async () => {
      const job = (await t.api.get(`/api/jobs/${created.discoveryJobId}`)).body.data
      return job.state === 'completed' ? true : undefined
    }, 30_000, 'discovery')
  })
  after(async () => {
    await t?.stop()
    await site?.close()
    await bait?.close()
    await hooks?.close()
  })

  const pageOf = async (path: string) =>
    ((await t.api.get(`/api/domains/${domainId}/pages?pageSize=500`)).body.data as any[])
      .find(p => new URL(p.url).pathname === path)

  /** Adds a page by hand and waits for its first crawl to record a check or an error. */
  const addAndCrawl = async (path: string, ms = 30_000) => {
    const existing = await pageOf(path)
    if (!existing) await t.api.post(`/api/domains/${domainId}/pages`, { url: `https://spa.test${path}` })
    return await eventually(async () => {
      const p = await pageOf(path)
      return p && (p.lastCheckAt || p.lastError) && p.renderedWith !== undefined ? p : undefined
    }, ms, `the first crawl of ${path}`)
  }
  // A test's pages are left out of later tests' crawls (each crawl of the domain would render them all again,
  // two at a time, and a page that waits behind them can run out of its test's time).
  const retire = async (pageId: string) => {
    await t.api.request('PATCH', `/api/domains/${domainId}/pages/${pageId}`, { body: { monitoringEnabled: false } })
  }
  const snapshotText = async (pageId: string) =>
    (await t.service.store.db.selectFrom('snapshots').select('content').where('page_id', '=', pageId)
      .orderBy('created_at', 'desc').executeTakeFirst())?.content ?? ''

  it('a plain page goes the plain way', async () => {
    const page = await addAndCrawl('/plain')
    assert.equal(page.renderedWith, 'http')
    assert.equal(page.renderReason, null)
    await retire(page.id)
  })

  it('a pricing page built by its script is rendered (auto), and a price change in its table is a price_change', async () => {
    const page = await addAndCrawl('/pricing')
    assert.equal(page.renderedWith, 'browser')
    assert.match(page.renderReason, /empty application root/)
    assert.match(await snapshotText(page.id), /Pro[\s\S]*\$49\/month/)
    // The picture is taken where it is used: a check whose text did not move takes none. Counted for this page
    // (the domain's crawls render the other pages discovery found, whose first checks take theirs).
    const pictures = async () => Number((await t.service.store.db.selectFrom('screenshots')
      .innerJoin('snapshots', 'snapshots.id', 'screenshots.snapshot_id')
      .select(eb => eb.fn.countAll<number>().as('n')).where('snapshots.page_id', '=', page.id)
      .executeTakeFirstOrThrow()).n)
    const taken = await pictures()
    assert.ok(taken >= 1, 'the first check took its picture')
    await t.api.post(`/api/domains/${domainId}/crawl`)
    await eventually(async () => (await pageOf('/pricing')).lastCheckAt !== page.lastCheckAt || undefined, 30_000, 'a check')
    assert.equal(await pictures(), taken, 'no picture when the text did not move')
    proPrice = 59
    await t.api.post(`/api/domains/${domainId}/crawl`)
    const change = await eventually(async () => {
      const list = (await t.api.get(`/api/changes?domainId=${domainId}`)).body.data as any[]
      return list.find(c => c.pageId === page.id)
    }, 60_000, 'the price change')
    assert.equal(change.changeType, 'price_change')
    // Read as a table (an intelligence pricing page): the plan, the move and its size.
    assert.equal(change.summary, 'Pro: $49/month → $59/month (+20%)')
    assert.equal(change.severity, 'high')
    const plans = change.diffData.pricing.after.plans
    assert.deepEqual(plans.map((p: any) => [p.name, p.prices[0].text, p.limits, p.features]), [
      ['Starter', '$19/month', [{ name: 'projects', value: '3' }], []],
      ['Pro', '$59/month', [{ name: 'projects', value: '20' }], ['SSO']]
    ])
    assert.equal(await pictures(), taken + 1, 'one picture: the change\'s')
    // The screenshots are evidence: where the page changed, and the pictures themselves.
    assert.ok(change.diffData.visual.changedPercent > 0)
    assert.ok(change.diffData.visual.regions.length >= 1)
    const auth = { headers: { authorization: `Bearer ${t.key}` } }
    for (const which of ['before', 'after', 'diff']) {
      const res = await fetch(`${t.url}/api/changes/${change.id}/images/${which}`, auth)
      assert.equal(res.status, 200, which)
      assert.equal(res.headers.get('content-type'), 'image/png')
      const png = Buffer.from(await res.arrayBuffer())
      assert.equal(png.subarray(1, 4).toString(), 'PNG')
      if (which === 'diff') assert.equal(png.readUInt32BE(16), 1280 * 3 + 32, 'before | after | marked')
    }
    assert.equal((await fetch(`${t.url}/api/changes/${change.id}/images/diff`)).status, 401, 'the key is needed')
    const latest = await fetch(`${t.url}/api/domains/${domainId}/pages/${page.id}/screenshot`, auth)
    assert.equal(latest.status, 200)
    // The webhook's payload links to the images, without a key, for a limited time.
    const delivered = await eventually(async () =>
      deliveries.find(d => d.type === 'change.detected' && d.data.change.id === change.id), 30_000, 'the webhook')
    assert.deepEqual(delivered.data.change.diffData.pricing.changes.map((c: any) => [c.kind, c.percent]), [['price_up', 20]])
    const links = delivered.data.change.images
    assert.match(links.diff, /\/public\/changes\/.+\/images\/diff\?expires=\d+&signature=[0-9a-f]{64}$/)
    const viaLink = await fetch(links.diff)
    assert.equal(viaLink.status, 200)
    assert.equal(viaLink.headers.get('content-type'), 'image/png')
    assert.equal((await fetch(links.diff.replace(/signature=[0-9a-f]+/, `signature=${'0'.repeat(64)}`))).status, 401, 'a forged signature')
    assert.equal((await fetch(links.diff.replace(/expires=\d+/, 'expires=1000'))).status, 401, 'an expired link')
    assert.equal((await fetch(links.before.replace('/before?', '/after?'))).status, 401, "another image's signature")
    // A shared change's pictures are checked against its share link each time: revoked or sharing off, they stop.
    await setShareLinks(t.service.store.db, change.orgId, true)
    const shared = await createShareLink(t.service.store.db, t.url, { orgId: change.orgId, userId: null }, change.id)
    assert.equal((await fetch(`${shared.url}/images/diff`)).status, 200)
    await setShareLinks(t.service.store.db, change.orgId, false)
    assert.equal((await fetch(`${shared.url}/images/diff`)).status, 404)
    await retire(page.id)
  })

  it('a pricing table built by its script with one plan per row: a price change is named by its plan', async () => {
    const page = await addAndCrawl('/plans')
    assert.equal(page.renderedWith, 'browser')
    const intelligence = (await t.api.get(`/api/domains/${domainId}/pages/${page.id}`)).body.data
    assert.equal(intelligence.pageType, 'pricing')
    rowsProPrice = 59
    await t.api.post(`/api/domains/${domainId}/crawl`)
    const change = await eventually(async () => {
      const list = (await t.api.get(`/api/changes?domainId=${domainId}`)).body.data as any[]
      return list.find(c => c.pageId === page.id)
    }, 60_000, 'the price change')
    assert.equal(change.changeType, 'price_change')
    assert.equal(change.summary, 'Pro: $49/month → $59/month (+20%)')
    assert.deepEqual(change.diffData.pricing.after.plans.map((p: any) => [p.name, p.prices[0].text]),
      [['Starter', '$19/month'], ['Pro', '$59/month'], ['Team', '$99/month']])
    await retire(page.id)
  })

  it('a page whose script sends it astray (to a missing page, to another host) is read as it was: the error page is never a version', async () => {
    for (const path of ['/app-navigates', '/app-leaves']) {
      const page = await addAndCrawl(path)
      assert.equal(page.lastError, null)
      assert.equal(page.status, 'active')
      assert.equal(page.renderedWith, 'browser', path)
      const texts = await t.service.store.db.selectFrom('snapshots').select('content').where('page_id', '=', page.id)
        .execute()
      assert.ok(texts.every(r => /Version 3 adds audit logs|We aim for WCAG/.test(r.content)), path)
      assert.ok(texts.every(r => !/stolen|Not Found|gone-away/i.test(r.content)), path)
      await retire(page.id)
    }
  })

  it('a change seen only in the picture is reported where the page asks for it (visualThreshold), with its region', async () => {
    const page = await addAndCrawl('/status')
    const patched = await t.api.request('PATCH', `/api/domains/${domainId}/pages/${page.id}`, {
      body: { screenshots: true, visualThreshold: 0.5 }
    })
    assert.equal(patched.body.data.screenshots, true)
    assert.equal(patched.body.data.visualThreshold, 0.5)
    const crawled = async () => {
      const before = (await pageOf('/status')).lastCheckAt
      await t.api.post(`/api/domains/${domainId}/crawl`)
      await eventually(async () => ((await pageOf('/status')).lastCheckAt !== before ? true : undefined), 60_000, 'a crawl')
    }
    await crawled() // the first picture
    boxColour = '#e00'
    await crawled()
    const change = await eventually(async () => {
      const list = (await t.api.get(`/api/changes?domainId=${domainId}`)).body.data as any[]
      return list.find(c => c.pageId === page.id)
    }, 60_000, 'the visual change')
    assert.equal(change.changeType, 'content_change')
    assert.match(change.summary, /looks different/)
    const [region] = change.diffData.visual.regions
    assert.ok(region.x <= 100 && region.x + region.width >= 300, JSON.stringify(region))
    assert.ok(region.y <= 300 && region.y + region.height >= 400, JSON.stringify(region))
    await retire(page.id)
  })

  it("a bot wall's script challenge (cookie, reload) is passed in the browser", async () => {
    const page = await addAndCrawl('/walled')
    assert.equal(page.lastError, null)
    assert.equal(page.renderedWith, 'browser')
    assert.match(page.renderReason, /bot wall/)
    assert.match(await snapshotText(page.id), /Team plan \$99\/month/)
    await retire(page.id)
  })

  it("a page's scripts reach no private address: loopback, metadata, private ranges, WebSockets", async () => {
    const page = await addAndCrawl('/reach')
    assert.match(await snapshotText(page.id), /Tried to reach private addresses/)
    assert.deepEqual(bait.hits, [], 'the loopback server heard nothing')
    await retire(page.id)
  })

  it('pop-ups are closed and downloads refused; the page is read', async () => {
    const page = await addAndCrawl('/popups')
    assert.match(await snapshotText(page.id), /Opened windows and a download/)
    assert.equal(site.hitsOf('/file.bin'), 0, 'the download was never fetched')
    await retire(page.id)
  })

  it('a page that never finishes loading is read as far as it got, within the time limit (render always)', async () => {
    const page = await addAndCrawl('/never')
    assert.equal(page.renderedWith, 'http')
    await t.api.request('PATCH', `/api/domains/${domainId}/pages/${page.id}`, { body: { render: 'always' } })
    await t.api.post(`/api/domains/${domainId}/crawl`)
    await eventually(async () => (/Partly there/.test(await snapshotText(page.id)) ? true : undefined), 60_000,
      'the rendered text')
    assert.equal((await pageOf('/never')).renderReason, 'render is always')
    await retire(page.id)
  })

  it('when the browser fails where a plain fetch reads the page, the plain text is recorded and the page says so', async () => {
    const page = await addAndCrawl('/navigates')
    assert.equal(page.renderedWith, 'http')
    await t.api.request('PATCH', `/api/domains/${domainId}/pages/${page.id}`, { body: { render: 'always' } })
    const before = page.lastCheckAt
    await t.api.post(`/api/domains/${domainId}/crawl`)
    const checked = await eventually(async () => {
      const p = await pageOf('/navigates')
      return p.lastCheckAt !== before || p.lastError ? p : undefined
    }, 60_000, 'a rendered check')
    assert.equal(checked.lastError, null)
    assert.equal(checked.status, 'active')
    assert.equal(checked.renderedWith, 'http')
    assert.match(checked.renderReason, /^the browser failed \(HTTP 500 from .*\/navigates \(rendered\)\); read without it$/)
    assert.match(await snapshotText(page.id), /Version 2 ships faster checks/)
    assert.equal(navigatesHits, 3, 'plainly, in the browser, then plainly again')
    await retire(page.id)
  })

  it('an endless page is read, its screenshot cut at 8,000 px', async () => {
    const page = await addAndCrawl('/endless')
    await t.api.request('PATCH', `/api/domains/${domainId}/pages/${page.id}`, { body: { screenshots: true } })
    await t.api.post(`/api/domains/${domainId}/crawl`)
    const res = await eventually(async () => {
      const r = await fetch(`${t.url}/api/domains/${domainId}/pages/${page.id}/screenshot`, {
        headers: { authorization: `Bearer ${t.key}` }
      })
      return r.status === 200 ? r : undefined
    }, 60_000, 'a screenshot')
    const png = Buffer.from(await res.arrayBuffer())
    assert.equal(png.readUInt32BE(16), 1280)
    assert.ok(png.readUInt32BE(20) <= 8000, `height ${png.readUInt32BE(20)}`)
    assert.match(await snapshotText(page.id), /Newest stories first/)
    await retire(page.id)
  })

  it('a busy loop fails the attempt (retried), never the worker; the next page renders', async () => {
    const page = await addAndCrawl('/busy', 40_000)
    assert.match(page.lastError, /did not settle/)
    await retire(page.id)
    const plain = await addAndCrawl('/carousel')
    assert.equal(plain.renderedWith, 'browser')
    assert.match(await snapshotText(plain.id), /Fast/)
  })

  it('a browser that dies under a check is started again and the check run again, spending no attempt', async () => {
    const page = await addAndCrawl('/crash-once')
    assert.equal(page.lastError, null)
    assert.equal(page.renderedWith, 'browser')
    assert.match(await snapshotText(page.id), /Rendered after the browser came back/)
    const job = await t.service.store.db.selectFrom('jobs').select(['attempts_made', 'state'])
      .where('page_id', '=', page.id).where('name', '=', 'crawl.page').executeTakeFirstOrThrow()
    assert.deepEqual(job, { attempts_made: 1, state: 'completed' })
    await retire(page.id)
  })

  it('a carousel and an animated banner are no change', async () => {
    const page = await pageOf('/carousel')
    await t.api.post(`/api/domains/${domainId}/crawl`)
    await eventually(async () => {
      const p = await pageOf('/carousel')
      return p.lastCheckAt !== page.lastCheckAt ? true : undefined
    }, 60_000, 'a second crawl')
    const list = (await t.api.get(`/api/changes?domainId=${domainId}`)).body.data as any[]
    assert.equal(list.filter(c => c.pageId === page.id).length, 0)
  })

  it('render never reads the shell; the setting is the page\'s, else its domain\'s', async () => {
    const page = await pageOf('/pricing')
    const patched = await t.api.request('PATCH', `/api/domains/${domainId}/pages/${page.id}`, { body: { render: 'never' } })
    assert.equal(patched.status, 200)
    assert.equal(patched.body.data.render, 'never')
    const domain = await t.api.request('PATCH', `/api/domains/${domainId}`, { body: { render: 'always' } })
    assert.equal(domain.body.data.render, 'always')
    const bad = await t.api.request('PATCH', `/api/domains/${domainId}`, { body: { render: 'sometimes' } })
    assert.equal(bad.status, 400)
  })

  it('no browser process outlives the service', async () => {
    await t.stop()
    await eventually(async () => (browserProcesses() === 0 ? true : undefined), 10_000, 'browsers to exit')
  })
})

describe('a site of plain pages', () => {
  let site: TestSite
  let t: TestService
  before(async () => {
    site = await new TestSite().start()
    site.page('/', html(`<h1>Plain Co</h1><p>${'Server-rendered text. '.repeat(20)}</p><a href="/pricing">Pricing</a>`))
    site.page('/pricing', html(`<h1>Pricing</h1><p>Pro $49/month.</p><p>${'Details. '.repeat(30)}</p>`))
    t = await startTestService({ CRAWL_HOST_MAP: `plain.test=${site.origin}` })
  })
  after(async () => {
    await t.stop()
    await site.close()
  })

  it('is read without starting a browser', async () => {
    const created = (await t.api.post('/api/domains', { domain: 'plain.test' })).body.data
    const pages = await eventually(async () => {
      const list = (await t.api.get(`/api/domains/${created.id}/pages`)).body.data as any[]
      return list.length > 0 && list.every(p => p.lastCheckAt) ? list : undefined
    }, 30_000, 'the first crawls')
    assert.deepEqual([...new Set(pages.map(p => p.renderedWith))], ['http'])
    assert.equal(browserProcesses(), 0, 'no browser is running')
  })
})

describe('when no browser can start', () => {
  let site: TestSite
  let t: TestService
  before(async () => {
    site = await new TestSite().start()
    site.page('/', html('<div id="root"></div>'))
    t = await startTestService({ CRAWL_HOST_MAP: `nobrowser.test=${site.origin}`, CHROMIUM_PATH: '/nonexistent/chromium' })
  })
  after(async () => {
    await t.stop()
    await site.close()
  })

  it('the service runs and pages that need one say so in lastError', async () => {
    const created = (await t.api.post('/api/domains', { domain: 'nobrowser.test' })).body.data
    const page = await eventually(async () => {
      const pages = (await t.api.get(`/api/domains/${created.id}/pages`)).body.data as any[]
      return pages.find(p => p.lastError)
    }, 30_000, 'a recorded error')
    assert.match(page.lastError, /no browser could start.*CHROMIUM_PATH/)
    assert.equal((await fetch(`${t.url}/healthz`)).status, 200)
  })
})
