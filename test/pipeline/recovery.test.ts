import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { ApiClient } from '../helpers/client.js'
import { killLeft, ServiceProcess } from '../helpers/process.js'
import { eventually, freePort, onPostgres, queuesIdle } from '../helpers/service.js'
import { TestSite } from '../helpers/site.js'
import { startSmtp } from '../helpers/smtp.js'

// The service as a real process, killed and restarted on the same data: a job whose
// worker died is picked up again, and SIGTERM hands jobs back and exits 0 in time.

describe('crash and shutdown', { skip: onPostgres && 'runs on the embedded database only' }, () => {
  let site: TestSite
  let dataDir: string
  let env: Record<string, string>
  let hang = true
  const held: Array<() => void> = []
  before(async () => {
    site = await new TestSite().start()
    site.page('/', '<html><body><h1>Slowco</h1></body></html>')
    site.set('/slow', (_req, res) => {
      const answer = () => {
        res.writeHead(200, { 'content-type': 'text/html' })
        res.end('<h1>Slow page</h1><p>Finally.</p>')
      }
      if (hang) held.push(answer)
      else answer()
    })
    dataDir = mkdtempSync(join(tmpdir(), 'sitewatch-recovery-'))
    env = {
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      CRAWL_HOST_MAP: `slow.test=${site.origin}`,
      CRAWL_TIMEOUT_MS: '60000',
      CRAWL_PER_HOST_DELAY_MS: '0',
      // Longer than any job here runs, however loaded the machine: a job of a killed process is
      // retried because the service, restarted on its embedded database, hands it back, not by
      // its expiry. (A crawl that outlived a short expiry was run twice, and a last attempt failed.)
      JOB_EXPIRE_SECONDS: '600',
      JOB_MAINTENANCE_SECONDS: '1',
      JOB_POLLING_SECONDS: '0.5',
      JOB_RETRY_DELAY_SECONDS: '1',
      // The tests poll the API while they wait: on a loaded machine the plan's 100 a minute ran out.
      RATE_LIMIT_STANDARD_PER_MINUTE: '100000',
      DATABASE_URL: ''
    }
  })
  after(async () => {
    for (const answer of held) answer()
    await site.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('a job whose worker was killed is picked up again after a restart; SIGTERM exits 0 within 10 s', async () => {
    const [first, second, third] = [new ServiceProcess(env), new ServiceProcess(env), new ServiceProcess(env)]
    try {
      await first.start()
      const api = new ApiClient(`http://127.0.0.1:${env.PORT}`, first.key)
      const domain = (await api.post('/api/domains', { domain: 'slow.test' })).body.data
      const page = (await api.post(`/api/domains/${domain.id}/pages`, { url: 'https://slow.test/slow' })).body.data
      const jobId = await eventually(
        async () => {
          const jobs = (await api.get('/api/jobs?status=active')).body.data
          return jobs.find((j: any) => j.pageId === page.id)?.id
        },
        20_000,
        'the crawl to be running'
      )

      const killed = await first.stop('SIGKILL')
      assert.equal(killed.code, null, 'killed, not exited')

      await second.start()
      const job = await eventually(
        async () => {
          const j = (await api.get(`/api/jobs/${jobId}`)).body.data
          return j.state === 'active' && j.attemptsMade === 2 ? j : undefined
        },
        30_000,
        'the killed job to be retried by the new process'
      )
      assert.equal(job.id, jobId)

      // SIGTERM while that retry hangs: the process hands the job back and exits cleanly.
      const stopped = await second.stop('SIGTERM')
      assert.equal(stopped.code, 0, second.output.slice(-2000))
      assert.ok(stopped.ms < 10_000, `stopped in ${stopped.ms} ms`)

      hang = false
      await third.start()
      const done = await eventually(
        async () => {
          const j = (await api.get(`/api/jobs/${jobId}`)).body.data
          return j.state === 'completed' ? j : undefined
        },
        30_000,
        'the job to complete after the restart'
      )
      // The kill spent the first attempt; the shutdown handed the second back unspent.
      assert.equal(done.attemptsMade, 2)
      const pages = (await api.get(`/api/domains/${domain.id}/pages`)).body.data
      assert.ok(pages.find((p: any) => p.id === page.id).lastCheckAt, 'nothing was lost: the page was crawled')
      assert.equal((await third.stop('SIGTERM')).code, 0)
    } finally {
      killLeft(first, second, third)
    }
  })

  it('an alert e-mail whose sender was killed mid-send is sent once after a restart', async () => {
    let holding = true
    const smtp = await startSmtp(undefined, () => holding)
    site.page('/prices', '<html><body><h1>Prices</h1><p>Pro costs $10 a month.</p></body></html>')
    const mailEnv = {
      ...env,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'sitewatch-mail-recovery-')),
      PORT: String(await freePort()),
      SMTP_URL: smtp.url,
      ADMIN_TOKEN: 'recovery-admin-token-0123456789',
      RATE_LIMIT_STANDARD_PER_MINUTE: '10000'
    }
    const first = new ServiceProcess(mailEnv)
    const second = new ServiceProcess(mailEnv)
    try {
      await first.start()
      const api = new ApiClient(`http://127.0.0.1:${mailEnv.PORT}`, first.key)
      const domain = (await api.post('/api/domains', { domain: 'slow.test' })).body.data
      const member = await fetch(`http://127.0.0.1:${mailEnv.PORT}/admin/orgs/${domain.orgId}/members`, {
        method: 'POST',
        headers: { authorization: `Bearer ${mailEnv.ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'reader@example.test', role: 'viewer', password: 'a long enough password' })
      })
      assert.equal(member.status, 201)
      const page = (await api.post(`/api/domains/${domain.id}/pages`, { url: 'https://slow.test/prices' })).body.data
      const checked = async (after: string | null) => await eventually(async () => {
        const p = (await api.get(`/api/domains/${domain.id}/pages`)).body.data.find((x: any) => x.id === page.id)
        return p.lastCheckAt && p.lastCheckAt !== after ? p.lastCheckAt : undefined
      }, 30_000, 'the page to be checked')
      const firstCheck = await checked(null)
      site.page('/prices', '<html><body><h1>Prices</h1><p>Pro costs $20 a month.</p></body></html>')
      assert.equal((await api.post(`/api/domains/${domain.id}/crawl`)).status, 200)
      await checked(firstCheck)
      await eventually(async () => smtp.held() > 0 ? true : undefined, 30_000, 'the e-mail to be on the wire')
      assert.equal((await first.stop('SIGKILL')).code, null)

      holding = false
      await second.start()
      const sent = await eventually(async () => {
        const res = await api.get('/api/email-deliveries')
        const rows = res.body.data
        if (!rows) throw new Error(JSON.stringify(res.body))
        return rows.length === 1 && rows[0].status === 'delivered' ? rows[0] : undefined
      }, 40_000, 'the e-mail to be sent after the restart')
      assert.equal(sent.to, 'reader@example.test')
      assert.equal(sent.attempts, 1, 'the killed attempt had no answer to record')
      // Every mail job done: a duplicate would be in by now.
      await queuesIdle(`http://127.0.0.1:${mailEnv.PORT}`, ['mail.deliver', 'alerts.dispatch'])
      assert.equal(smtp.mails.filter(m => (m.to as { text: string }).text === 'reader@example.test').length, 1)
      assert.match(smtp.mails[0].subject ?? '', /\$10 .*→.*\$20|\$20/)
      assert.equal((await second.stop('SIGTERM')).code, 0)
    } finally {
      killLeft(first, second)
      await smtp.close()
      rmSync(mailEnv.DATA_DIR, { recursive: true, force: true })
    }
  })
  it('a worker killed mid-crawl: its host\'s turn is freed, and every page is read once, none lost or doubled', async () => {
    // One request at a time to the host, so the killed worker's request holds its only place.
    let hangOnce = true
    site.set('/held', (_req, res) => {
      const answer = () => {
        res.writeHead(200, { 'content-type': 'text/html' })
        res.end('<h1>Held page</h1><p>Answered at last.</p>')
      }
      if (hangOnce) {
        hangOnce = false
        held.push(answer)
      } else answer()
    })
    for (const p of ['/one', '/two', '/three']) site.page(p, `<html><body><h1>Page ${p}</h1></body></html>`)
    const turnsEnv = {
      ...env,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'sitewatch-turns-recovery-')),
      PORT: String(await freePort()),
      CRAWL_PER_HOST_CONCURRENCY: '1',
      CRAWL_PER_HOST_DELAY_MS: '200',
      CRAWL_TIMEOUT_MS: '3000',
      // A lease outlives the longest request by 10 s (see fleetPacer): a long one, so that a
      // place freed by the restart is told from one freed by its lease's end on a busy machine too.
      RENDER_TIMEOUT_MS: '60000'
    }
    const leaseMs = 60_000 + 10_000
    const first = new ServiceProcess(turnsEnv)
    const second = new ServiceProcess(turnsEnv)
    try {
      await first.start()
      const api = new ApiClient(`http://127.0.0.1:${turnsEnv.PORT}`, first.key)
      const domain = (await api.post('/api/domains', { domain: 'slow.test' })).body.data
      await eventually(async () => {
        const q = (await api.get('/api/jobs/stats')).body.data
        const discovered = (await api.get(`/api/jobs/${domain.discoveryJobId}`)).body.data.state === 'completed'
        return discovered && q.waiting + q.active + q.delayed === 0 ? true : undefined
      }, 30_000, 'the discovery and its crawls')
      const before = site.hits.length
      const heldPage = (await api.post(`/api/domains/${domain.id}/pages`, { url: 'https://slow.test/held' })).body.data
      await eventually(async () => site.hitsOf('/held') === 1 || undefined, 20_000, 'the held page to be asked for')
      const others: Array<{ id: string }> = []
      for (const p of ['/one', '/two', '/three']) {
        others.push((await api.post(`/api/domains/${domain.id}/pages`, { url: `https://slow.test${p}` })).body.data)
      }
      // The others wait for the host's one place, which the held request has.
      await new Promise(resolve => setTimeout(resolve, 1000))
      assert.deepEqual(site.hits.slice(before), ['/held'])
      assert.equal((await first.stop('SIGKILL')).code, null)
      const killedAt = Date.now()

      await second.start()
      const pages = await eventually(async () => {
        const all = (await api.get(`/api/domains/${domain.id}/pages`)).body.data
        const mine = all.filter((p: any) => [heldPage, ...others].some(x => x.id === p.id))
        return mine.every((p: any) => p.lastCheckAt) ? mine : undefined
      }, leaseMs + 30_000, 'every page to be checked after the restart')
      assert.equal(pages.length, 4)
      // The dead worker's place came back by its lease's end at the latest. On the embedded
      // database it comes back with the restart: its turns were in the dead process's memory
      // (on PostgreSQL, whose server did not crash, the lease expires).
      const waited = Date.now() - killedAt
      assert.ok(waited < leaseMs, `the host's place came back ${waited} ms after the kill`)
      // Every crawl done: a second read would be in by now.
      await queuesIdle(`http://127.0.0.1:${turnsEnv.PORT}`, ['crawl.page', 'crawl.render'])
      for (const p of ['/one', '/two', '/three']) assert.equal(site.hitsOf(p), 1, `${p} was read once`)
      assert.equal(site.hitsOf('/held'), 2, 'the held page: the killed attempt, then its retry')
      const jobs = (await api.get(`/api/jobs?domainId=${domain.id}&pageSize=100`)).body.data
        .filter((j: any) => [heldPage, ...others].some(x => x.id === j.pageId))
      assert.equal(jobs.length, 4, 'one crawl job per page')
      assert.ok(jobs.every((j: any) => j.state === 'completed'), JSON.stringify(jobs))
      assert.equal((await second.stop('SIGTERM')).code, 0)
    } finally {
      killLeft(first, second)
      rmSync(turnsEnv.DATA_DIR, { recursive: true, force: true })
    }
  })
})
