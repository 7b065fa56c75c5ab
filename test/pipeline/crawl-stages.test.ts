import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { PNG } from 'pngjs'
import type { Crawler, FetchedPage } from '../../src/crawl/crawler.js'
import { FetchError } from '../../src/crawl/errors.js'
import type { RenderRequest } from '../../src/crawl/render.js'
import { PageAnalysis } from '../../src/pipeline/analysis.js'
import { crawlPage, crawlTargetLoader, type CrawlDeps } from '../../src/pipeline/crawl-job.js'
import { PipelineEvents, type ChangeDetected } from '../../src/pipeline/events.js'
import { openStore, type Store } from '../../src/store/db.js'
import { insertDomain } from '../../src/store/domains.js'
import { explainFailure } from '../../src/vocabulary/failures.js'
import { insertOrg } from '../../src/store/orgs.js'
import { addPages, updatePage } from '../../src/store/pages.js'
import { loadCrawlTargets } from '../../src/store/page-checks.js'
import { changeScreenshots } from '../../src/store/screenshots.js'
import type { PageType } from '../../src/vocabulary/core.js'

// The stages of one page's check (fetch → read → compare → record), run by crawlPage
// with the crawler, its neighbour on the network side, answering from a script; the
// database and the analysis threads are the real ones.

const html = (body: string) =>
  `<!doctype html><html lang="en"><head><title>Acme</title></head><body><main>${body}</main></body></html>`

/** The items in an order that rotates by `by` on every visit, as testimonials and carousels do. */
const rotated = (items: string[], by: number) => [...items.slice(by % items.length), ...items.slice(0, by % items.length)].join('')

/** A white PNG with a dark box `boxWidth` pixels wide at its top left. */
function picture (boxWidth: number): Buffer {
  const png = new PNG({ width: 200, height: 200 })
  png.data.fill(255)
  for (let y = 0; y < 80; y++) {
    for (let x = 0; x < boxWidth; x++) png.data.fill(0, (y * 200 + x) * 4, (y * 200 + x) * 4 + 3)
  }
  return PNG.sync.write(png)
}

/** What the scripted crawler answers next, and what it was asked. */
interface Script {
  page: (url: string, validators: { etag?: string | null }) => Partial<FetchedPage>
  documents?: Record<string, { body: string, contentType: string }>
}

function scriptedCrawler (script: { current: Script }, asked: string[]): Crawler {
  const answer = (url: string, part: Partial<FetchedPage>): FetchedPage => {
    const body = part.html ?? ''
    return {
      url,
      status: 200,
      notModified: false,
      html: body,
      raw: Buffer.from(body),
      contentType: 'text/html; charset=utf-8',
      contentLanguage: null,
      etag: null,
      lastModified: null,
      ...part
    }
  }
  const fake = {
    fetchPage: async (url: string, validators: { etag?: string | null } = {}) => {
      asked.push(`fetch ${url}${validators.etag ? ` if-none-match ${validators.etag}` : ''}`)
      return answer(url, script.current.page(url, validators))
    },
    // As the browser does: the picture only when asked for, asked while the page is open.
    renderPage: async (url: string, req: RenderRequest) => {
      const part = script.current.page(url, {})
      const wanted = typeof req.screenshot === 'function' ? await req.screenshot(part.html ?? '') : req.screenshot
      asked.push(`render ${url}${wanted && part.screenshot ? ' with its picture' : ''}`)
      return answer(url, wanted ? part : { ...part, screenshot: undefined })
    },
    fetchDocument: async (url: string) => {
      asked.push(`document ${url}`)
      const doc = script.current.documents?.[url]
      if (!doc) throw new FetchError('HTTP_STATUS', `HTTP 404 from ${url}`, 404)
      return { url, raw: Buffer.from(doc.body), contentType: doc.contentType }
    }
  }
  return fake as unknown as Crawler
}

describe('a page check, stage by stage', () => {
  let store: Store
  let analysis: PageAnalysis
  let deps: CrawlDeps
  let orgId = ''
  let domainId = ''
  const script: { current: Script } = { current: { page: () => ({}) } }
  const asked: string[] = []
  const detected: ChangeDetected[] = []

  before(async () => {
    store = await openStore({ dataDir: 'memory://' })
    analysis = new PageAnalysis(1)
    const events = new PipelineEvents()
    events.on('change.detected', e => detected.push(e))
    deps = {
      db: store.db,
      crawler: scriptedCrawler(script, asked),
      events,
      targets: crawlTargetLoader(store.db),
      analysis,
      mayRender: true
    }
    orgId = (await insertOrg(store.db, { name: 'Acme', plan: 'pro', trialEndsAt: null, now: new Date() })).id
    domainId = (await insertDomain(store.db, orgId, 'acme.test', null)).id
  })
  after(async () => {
    await analysis?.close()
    await store?.close()
  })

  const newPage = async (path: string, pageType: PageType = 'other') => {
    const org = { id: orgId, plan: 'pro' } as Parameters<typeof addPages>[1]
    const [row] = await store.db.transaction().execute(async tx =>
      await addPages(tx, org, domainId, [{ url: `https://acme.test${path}`, pageType, confidence: 1, typedBy: 'person' }]))
    return row
  }
  const check = async (pageId: string) => await crawlPage(deps, { orgId, domainId, pageId, url: '' })
  /** The pictures kept of a page, one per snapshot that has one. */
  const picturesOf = async (pageId: string) => Number((await store.db.selectFrom('screenshots')
    .innerJoin('snapshots', 'snapshots.id', 'screenshots.snapshot_id')
    .select(eb => eb.fn.countAll<string>().as('n')).where('snapshots.page_id', '=', pageId)
    .executeTakeFirstOrThrow()).n)

  it('the first check is the baseline; a 304 after it is not modified, and asks with the validator it was given', async () => {
    const page = await newPage('/about')
    script.current = { page: () => ({ html: html('<h1>About</h1><p>We make anvils.</p>'), etag: '"v1"' }) }
    const first = await check(page.id)
    assert.equal(first.outcome, 'baseline')
    assert.equal(first.changesDetected, 0)
    assert.ok(first.snapshotId)
    assert.equal(first.pageCheck?.etag, '"v1"')
    // The caller writes the check with the job's completion: here, by hand.
    await store.db.updateTable('pages').set({ etag: '"v1"' }).where('id', '=', page.id).execute()

    script.current = { page: (_url, v) => (v.etag === '"v1"' ? { notModified: true, status: 304, etag: '"v1"' } : {}) }
    const second = await check(page.id)
    assert.equal(second.outcome, 'not_modified')
    assert.equal(second.snapshotId, first.snapshotId)
    assert.equal(second.notModified, true)
    assert.ok(asked.includes('fetch https://acme.test/about if-none-match "v1"'), asked.join('\n'))
  })

  it('the same text is unchanged; a new price is changed, recorded and announced once committed', async () => {
    const page = await newPage('/plans', 'pricing')
    const pricing = (pro: string) => html(`<h1>Pricing</h1><h2>Pro</h2><p class="price">${pro}/month</p>`)
    script.current = { page: () => ({ html: pricing('$49') }) }
    assert.equal((await check(page.id)).outcome, 'baseline')
    const same = await check(page.id)
    assert.equal(same.outcome, 'unchanged')
    assert.equal(same.changed, false)

    script.current = { page: () => ({ html: pricing('$59') }) }
    const moved = await check(page.id)
    assert.equal(moved.outcome, 'changed')
    assert.equal(moved.changesDetected, 1)
    const announced = detected.filter(e => e.pageId === page.id)
    assert.equal(announced.length, 1)
    assert.equal(announced[0].changeType, 'price_change')
    const row = await store.db.selectFrom('changes').select('id').where('id', '=', announced[0].changeId)
      .executeTakeFirst()
    assert.ok(row, 'the change announced is in the database')
  })

  it('a change seen only in the picture is recorded when the page asks for it (visual threshold)', async () => {
    const page = await newPage('/look')
    await updatePage(store.db, page.id, { screenshots: true, visualThreshold: 5 })
    const text = html('<h1>Our look</h1><p>Nothing in the words moves.</p>')
    script.current = { page: () => ({ html: text, screenshot: picture(20) }) }
    assert.equal((await check(page.id)).outcome, 'baseline')
    assert.ok(asked.includes('render https://acme.test/look with its picture'), 'screenshots are taken in the browser')

    script.current = { page: () => ({ html: text, screenshot: picture(20) }) }
    assert.equal((await check(page.id)).outcome, 'unchanged', 'the same picture')

    script.current = { page: () => ({ html: text, screenshot: picture(120) }) }
    const looked = await check(page.id)
    assert.equal(looked.outcome, 'changed')
    const change = detected.find(e => e.pageId === page.id)
    assert.match(change?.summary ?? '', /^The page looks different: \d+% of it changed/)
  })

  it('a rendered page takes its picture when its words change, not when its text only moved', async () => {
    const page = await newPage('/team')
    await updatePage(store.db, page.id, { screenshots: true })
    // Its people in an order that rotates on every visit, as testimonials and carousels do.
    const people = [
      '<h2>Ada</h2><p>Ada leads engineering and writes the compilers we ship.</p>',
      '<h2>Grace</h2><p>Grace leads research on languages and tools.</p>',
      '<h2>Linus</h2><p>Linus looks after the kernel team and its releases.</p>'
    ]
    const team = (first: number, edit = (s: string) => s) =>
      html(`<h1>Team</h1>${edit(rotated(people, first))}`)
    const pictures = async () => await picturesOf(page.id)
    script.current = { page: () => ({ html: team(0), screenshot: picture(20) }) }
    assert.equal((await check(page.id)).outcome, 'baseline')
    assert.equal(await pictures(), 1, 'the first picture is the "before" of the first change')

    // The sections moved: a new version of the text, no change in it, and no picture taken.
    for (const first of [1, 2]) {
      script.current = { page: () => ({ html: team(first), screenshot: picture(20) }) }
      const moved = await check(page.id)
      assert.deepEqual([moved.changed, moved.changesDetected], [true, 0], 'a new version, no change')
      assert.equal(asked.at(-1), 'render https://acme.test/team', 'no picture asked for')
    }
    assert.equal(await pictures(), 1)

    script.current = {
      page: () => ({ html: team(0, s => s.replace('Grace leads research', 'Grace leads sales')), screenshot: picture(120) })
    }
    const changed = await check(page.id)
    assert.equal(changed.changesDetected, 1)
    assert.equal(asked.at(-1), 'render https://acme.test/team with its picture')
    assert.equal(await pictures(), 2)
    // The change shows the page before it (the baseline's picture, the last one taken) and after it.
    const change = detected.find(e => e.pageId === page.id)!
    const shots = await changeScreenshots(store.db, change.changeId)
    assert.ok(shots?.before && shots.after, 'both pictures of the change')
    assert.equal(shots.before.image.equals(picture(20)), true)
    assert.equal(shots.after.image.equals(picture(120)), true)
  })

  it('a rendered pricing page, read by its structured reader, takes its picture when a price moves, not its noise', async () => {
    const page = await newPage('/pricing-rendered', 'pricing')
    await updatePage(store.db, page.id, { screenshots: true })
    const [target] = await loadCrawlTargets(store.db, [page.id])
    assert.equal(target.read_structured, true, 'read by the pricing reader')
    // Its testimonials rotate on every visit: the text moves, and nothing in it changed.
    const quotes = [
      '<h3>Ada, CTO</h3><p>We moved our whole build to it in a week and never looked back.</p>',
      '<h3>Grace, engineer</h3><p>The support team answered every question within the hour.</p>',
      '<h3>Linus, founder</h3><p>Pricing that stays predictable as the team grows.</p>'
    ]
    const plans = (pro: string, visit: number) => html('<h1>Pricing</h1>' +
      '<div class="plan"><h2>Starter</h2><p class="price">$9/month</p><ul><li>3 projects</li></ul></div>' +
      `<div class="plan"><h2>Pro</h2><p class="price">${pro}/month</p><ul><li>Unlimited projects</li></ul></div>` +
      `<section><h2>What teams say</h2>${rotated(quotes, visit)}</section>` +
      `<footer><p>Prices updated ${visit + 2} minutes ago</p></footer>`)
    const asks = () => asked.filter(a => a.startsWith('render https://acme.test/pricing-rendered'))
    script.current = { page: () => ({ html: plans('$49', 0), screenshot: picture(20) }) }
    assert.equal((await check(page.id)).outcome, 'baseline')
    assert.equal(asks().at(-1), 'render https://acme.test/pricing-rendered with its picture')

    script.current = { page: () => ({ html: plans('$49', 1), screenshot: picture(20) }) }
    const noise = await check(page.id)
    assert.deepEqual([noise.changed, noise.changesDetected], [true, 0], 'a new version, no change')
    assert.equal(asks().at(-1), 'render https://acme.test/pricing-rendered', 'no picture when only the noise moved')

    script.current = { page: () => ({ html: plans('$59', 2), screenshot: picture(120) }) }
    const moved = await check(page.id)
    assert.equal(moved.changesDetected, 1)
    assert.equal(asks().at(-1), 'render https://acme.test/pricing-rendered with its picture')
    const change = detected.find(e => e.pageId === page.id)!
    assert.equal(change.changeType, 'price_change')
    const shots = await changeScreenshots(store.db, change.changeId)
    assert.equal(shots?.after?.image.equals(picture(120)), true, 'the change keeps its picture')
    assert.equal(asks().length, 3)
  })

  it('a rendered API page, compared with its description, takes its picture in doubt and keeps it only beside a change', async () => {
    const page = await newPage('/developers-rendered', 'api_docs')
    await updatePage(store.db, page.id, { screenshots: true })
    const [target] = await loadCrawlTargets(store.db, [page.id])
    assert.equal(target.read_structured, true, 'read by the API reader, with its description')
    // Its featured guides rotate on every visit; its description is fetched after the page closed.
    const guides = [
      '<h3>Quick start</h3><p>Make your first request with a test key in five minutes.</p>',
      '<h3>Webhooks</h3><p>Hear of every order as it ships, signed with your secret.</p>',
      '<h3>Pagination</h3><p>Walk long lists with cursors that stay stable as orders arrive.</p>'
    ]
    const developers = (visit: number) => html('<h1>Developers</h1>' +
      '<p><a href="/openapi.yaml">The OpenAPI description</a></p>' +
      `<section><h2>Featured guides</h2>${rotated(guides, visit)}</section>`)
    const description = (operation: string) => ({
      body: ['openapi: 3.1.0', 'info:', '  title: Acme API', '  version: "1"', 'paths:', '  /orders:', '    get:',
        '      operationId: listOrders', '      summary: List orders', '      responses:', "        '200':",
        '          description: The orders', operation].join('\n'),
      contentType: 'application/yaml'
    })
    const cancel = ['    delete:', '      operationId: cancelOrder', '      summary: Cancel an order', '      responses:',
      "        '204':", '          description: Cancelled'].join('\n')
    const pictures = async () => await picturesOf(page.id)
    const asks = () => asked.filter(a => a.startsWith('render https://acme.test/developers-rendered'))
    const visit = (n: number, operation: string, shot: Buffer) => {
      script.current = {
        page: () => ({ html: developers(n), screenshot: shot }),
        documents: { 'https://acme.test/openapi.yaml': description(operation) }
      }
    }
    visit(0, '', picture(20))
    assert.equal((await check(page.id)).outcome, 'baseline')
    assert.equal(await pictures(), 1, 'the first picture is kept')

    // The description cannot be compared while the page is open: the picture is taken, then dropped with the noise.
    for (const n of [1, 2]) {
      visit(n, '', picture(20 + n))
      const noise = await check(page.id)
      assert.deepEqual([noise.changed, noise.changesDetected], [true, 0], 'a new version, no change')
      assert.equal(asks().at(-1), 'render https://acme.test/developers-rendered with its picture', 'taken in doubt')
    }
    assert.equal(await pictures(), 1, 'no picture kept for noise')

    visit(3, cancel, picture(120))
    const added = await check(page.id)
    assert.ok(added.changesDetected > 0, 'the new operation is a change')
    assert.equal(await pictures(), 2)
    const change = detected.find(e => e.pageId === page.id)!
    const shots = await changeScreenshots(store.db, change.changeId)
    assert.equal(shots?.before?.image.equals(picture(20)), true, 'before: the last picture kept')
    assert.equal(shots?.after?.image.equals(picture(120)), true, 'after: the change\'s own')
  })

  it('a page that asks to hear of its picture hears of it when only noise moved in its words', async () => {
    const page = await newPage('/banner')
    await updatePage(store.db, page.id, { screenshots: true, visualThreshold: 5 })
    // Its two notices swap places on every visit: the text moves, and nothing in it changed.
    const notices = ['<p>Free shipping on every order this week.</p>', '<p>Our support desk answers around the clock.</p>']
    const text = (visit: number) => html(`<h1>Our look</h1><section>${visit % 2 ? notices.join('') : [...notices].reverse().join('')}</section>`)
    script.current = { page: () => ({ html: text(1), screenshot: picture(20) }) }
    assert.equal((await check(page.id)).outcome, 'baseline')
    script.current = { page: () => ({ html: text(2), screenshot: picture(22) }) }
    const under = await check(page.id)
    assert.deepEqual([under.changed, under.changesDetected], [true, 0], 'a new version, its picture moved under its threshold')
    script.current = { page: () => ({ html: text(3), screenshot: picture(120) }) }
    const looked = await check(page.id)
    assert.equal(looked.changesDetected, 1)
    const change = detected.find(e => e.pageId === page.id)
    assert.match(change?.summary ?? '', /^The page looks different: \d+% of it changed/)
  })

  it('an API description that is none fails the page with its reason; the page records no snapshot', async () => {
    const page = await newPage('/developers', 'api_docs')
    const developers = html('<h1>Developers</h1><p><a href="/openapi.yaml">The OpenAPI description</a></p>')
    script.current = {
      page: () => ({ html: developers }),
      documents: { 'https://acme.test/openapi.yaml': { body: '<html>Not found, try again</html>', contentType: 'text/html' } }
    }
    await assert.rejects(check(page.id), (err: FetchError) => err.code === 'BAD_DOCUMENT' &&
      /openapi\.yaml/.test(err.message))
    const row = await store.db.selectFrom('pages').select(['last_error', 'failure_code']).where('id', '=', page.id)
      .executeTakeFirstOrThrow()
    assert.match(row.last_error ?? '', /openapi\.yaml/)
    const snapshots = await store.db.selectFrom('snapshots').select('id').where('page_id', '=', page.id).execute()
    assert.equal(snapshots.length, 0)
  })

  it('a page read as nothing fails, saying what to do next, and records no version', async () => {
    const page = await newPage('/reference')
    await updatePage(store.db, page.id, { render: 'never' })
    const shell = '<!doctype html><html><head><title></title></head><body><div id="app"></div>' +
      '<script src="/app.js"></script></body></html>'
    script.current = { page: () => ({ html: shell }) }
    await assert.rejects(check(page.id), (err: FetchError) => err.code === 'EMPTY_PAGE' && err.permanent)
    const row = await store.db.selectFrom('pages').select(['last_error', 'failure_code']).where('id', '=', page.id)
      .executeTakeFirstOrThrow()
    assert.match(row.last_error ?? '', /shows no text to read \(HTTP 200\)/)
    assert.equal(row.failure_code, 'EMPTY_PAGE')
    assert.match(explainFailure(row.failure_code).nextStep, /render to "always"/)
    const snapshots = await store.db.selectFrom('snapshots').select('id').where('page_id', '=', page.id).execute()
    assert.equal(snapshots.length, 0)
  })

  it('a page gone or paused is skipped, and says why', async () => {
    const page = await newPage('/paused')
    await updatePage(store.db, page.id, { monitoringEnabled: false })
    assert.deepEqual(await check(page.id), {
      outcome: 'skipped', changed: false, changesDetected: 0, snapshotId: null, skipped: 'monitoring disabled'
    })
    const gone = await check('00000000-0000-4000-8000-000000000000')
    assert.equal(gone.outcome, 'skipped')
    assert.equal(gone.skipped, 'page no longer exists')
  })
})
