import assert from 'node:assert/strict'
import type { ServerResponse } from 'node:http'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { ApiClient } from '../helpers/client.js'
import { killLeft, ServiceProcess } from '../helpers/process.js'
import { createDatabase, eventually, freePort, onPostgres } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'

// A worker frozen (a paused VM, a long GC, a partition) while it reads and records a page,
// on PostgreSQL with two workers. Its heartbeat stops, the other worker's sweep hands its
// attempt back and runs the retry; when it thaws, it records the change it had read. The
// retry then finds the page recorded meanwhile and reads it again against that: the edit
// is recorded once, and the frozen worker's completion, fenced, settles nothing of the
// retry's. The freeze is made to land in the recording: the test holds a lock on the
// changes until the frozen worker waits on it, its snapshot written, its change not yet;
// the retry then waits for the page, which the frozen worker's recording holds.
describe('a worker frozen while it records a page', { skip: !onPostgres && 'needs PostgreSQL (TEST_DATABASE_URL)' }, () => {
  let site: TestSite
  let database: Awaited<ReturnType<typeof createDatabase>>
  let direct: pg.Client
  let observer: pg.Client
  const held: ServerResponse[] = []
  let holding = false
  const prices = (pro: number) => `<html><body><h1>Pricing</h1><p>Pro costs $${pro} a month.</p></body></html>`
  let pro = 10

  before(async () => {
    site = await new TestSite().start()
    site.page('/', '<html><body><h1>Frozenco</h1></body></html>')
    for (let i = 0; i < 10; i++) {
      if (i === 3) continue
      site.page(`/p${i}`, `<html><body><h1>Page ${i}</h1><p>Nothing moves here.</p></body></html>`)
    }
    site.set('/p3', (_req, res) => {
      if (holding) {
        held.push(res)
        return
      }
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(prices(pro))
    })
    database = await createDatabase()
    direct = new pg.Client({ connectionString: database.url })
    await direct.connect()
    observer = new pg.Client({ connectionString: database.url })
    await observer.connect()
  })
  after(async () => {
    await direct?.end()
    await observer?.end()
    await site?.close()
    await database?.drop()
  })

  it('records the change once, loses none, and leaves no job failed or stuck', { timeout: 180_000 }, async () => {
    const env = async () => ({
      DATABASE_URL: database.url,
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      CRAWL_HOST_MAP: `frozen.test=${site.origin}`,
      CRAWL_PER_HOST_DELAY_MS: '0',
      JOB_MAINTENANCE_SECONDS: '1',
      JOB_POLLING_SECONDS: '0.5',
      JOB_RETRY_DELAY_SECONDS: '1',
      RATE_LIMIT_STANDARD_PER_MINUTE: '100000',
      RATE_LIMIT_HEAVY_PER_HOUR: '100000'
    })
    const frozen = new ServiceProcess(await env())
    const other = new ServiceProcess(await env())
    try {
      await frozen.start()
      const api = new ApiClient(`http://127.0.0.1:${frozen.env.PORT}`, frozen.key)
      const domain = (await api.post('/api/domains', { domain: 'frozen.test' })).body.data
      for (let i = 0; i < 10; i++) {
        const added = await api.post(`/api/domains/${domain.id}/pages`, { url: `https://frozen.test/p${i}` })
        assert.equal(added.status, 201, JSON.stringify(added.body))
      }
      const pageIds = async () => (await direct.query<{ id: string, url: string }>(
        "SELECT id, url FROM pages WHERE url LIKE 'https://frozen.test/p%'")).rows
      const checked = async (ids: string[]) => (await direct.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM snapshots WHERE page_id = ANY($1::uuid[])', [ids])).rows[0]!.n
      const pages = await eventually(async () => {
        const rows = await pageIds()
        return rows.length === 10 && await checked(rows.map(r => r.id)) === 10 ? rows : undefined
      }, 60_000, 'every page to have its baseline')
      const p3 = pages.find(p => p.url.endsWith('/p3'))!.id

      // The price moves; the recheck's read of /p3 waits at the site while the test takes the page's lock.
      pro = 12
      holding = true
      const recheck = await api.post(`/api/domains/${domain.id}/crawl`)
      assert.equal(recheck.status, 200, JSON.stringify(recheck.body))
      await eventually(async () => held.length === 1, 30_000, "the frozen worker's read of /p3")
      await direct.query('BEGIN')
      // No change can be written until the test says so: the recording of /p3 stops at its change.
      await direct.query('LOCK TABLE changes IN SHARE MODE')
      holding = false
      const answer = held.shift()!
      answer.writeHead(200, { 'content-type': 'text/html' })
      answer.end(prices(pro))
      // Seen from a connection of its own: inside the test's transaction, the activity would be its first sight of it.
      const waiting = async (n: number) => {
        const { rows } = await observer.query<{ query: string }>(
          `SELECT query FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()
            AND query ~* '^(insert into "changes"|select page_still_at)'`)
        return rows.length === n ? rows : undefined
      }
      const [blocked] = await eventually(async () => await waiting(1), 30_000, 'the frozen worker to reach the recording')
      assert.match(blocked!.query, /insert into "changes"/i)
      frozen.child.kill('SIGSTOP')

      // The other worker takes the frozen one to be lost, and its retry of /p3 reaches the same lock.
      await other.start()
      await eventually(async () => await waiting(2), 60_000, "the retry to reach the page's recording")
      await direct.query('COMMIT')
      frozen.child.kill('SIGCONT')

      const otherApi = new ApiClient(`http://127.0.0.1:${other.env.PORT}`, frozen.key)
      await eventually(async () => {
        const { rows } = await direct.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM jobs WHERE state IN ('waiting', 'active') AND name = 'crawl.page'")
        return rows[0]!.n === 0
      }, 60_000, 'every crawl to end')
      const changes = await direct.query<{ page_id: string, summary: string }>(
        'SELECT page_id, summary FROM changes WHERE domain_id = $1', [domain.id])
      assert.deepEqual(changes.rows.map(c => c.page_id), [p3], 'one change, of the page that changed')
      assert.match(changes.rows[0]!.summary, /\$10.*\$12|12/)
      const failed = await direct.query("SELECT id FROM jobs WHERE state = 'failed'")
      assert.equal(failed.rows.length, 0, 'no job failed')
      const snapshots = await direct.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM snapshots WHERE page_id = $1', [p3])
      assert.equal(snapshots.rows[0]!.n, 2, 'the baseline and the one recording of the new price')
      assert.match(frozen.output, /handed back before it ended/, 'the thawed worker saw its attempt was no longer its own')
      assert.equal((await otherApi.get(`/api/changes?domainId=${domain.id}`)).body.data.length, 1)
    } finally {
      killLeft(frozen, other)
      if (frozen.child?.signalCode === 'SIGSTOP') frozen.child.kill('SIGCONT')
    }
  })
})
