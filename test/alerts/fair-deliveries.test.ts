// One tenant's receiver that never answers, flooded with deliveries, beside another
// tenant's that answers: the second is served while the first's flood still waits.
import assert from 'node:assert/strict'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { createOrg } from '../../src/services/orgs.js'
import { QUEUE } from '../../src/queue/queues.js'
import { eventually, startTestService, type TestService } from '../helpers/service.js'

/** A receiver that takes requests and answers none: it counts how many it holds at once. */
class SilentReceiver {
  readonly held = new Set<ServerResponse>()
  received = 0
  mostAtOnce = 0
  origin = ''
  private readonly server: Server = createServer((req, res) => {
    req.resume()
    this.received++
    this.held.add(res)
    this.mostAtOnce = Math.max(this.mostAtOnce, this.held.size)
    res.on('close', () => this.held.delete(res))
  })

  async start (): Promise<this> {
    await new Promise<void>(resolve => this.server.listen(0, '127.0.0.1', resolve))
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  async close (): Promise<void> {
    this.server.closeAllConnections()
    await new Promise(resolve => this.server.close(resolve))
  }
}

describe('deliveries: fair between tenants, an endpoint that never answers backed off', () => {
  let silent: SilentReceiver
  let answering: Server
  const answered: string[] = []
  let t: TestService

  before(async () => {
    silent = await new SilentReceiver().start()
    answering = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        answered.push(req.url ?? '')
        res.end('ok')
      })
    })
    await new Promise<void>(resolve => answering.listen(0, '127.0.0.1', resolve))
    const answeringOrigin = `http://127.0.0.1:${(answering.address() as AddressInfo).port}`
    t = await startTestService({
      ALERT_HOST_MAP: `silent.test=${silent.origin},answers.test=${answeringOrigin}`,
      // A failed delivery's retry, and with it the rest of its endpoint's, waits a minute: longer than this test.
      JOB_RETRY_DELAY_SECONDS: '60',
      CRAWL_TIMEOUT_MS: '1500'
    })
  })
  after(async () => {
    await t.stop()
    await silent.close()
    answering.closeAllConnections()
    await new Promise(resolve => answering.close(resolve))
  })

  it("a flood to a silent endpoint holds 2 slots at most, is held after its timeouts, and never delays another organisation's delivery", async () => {
    const db = t.service.store.db
    const flooder = t.api.withKey((await createOrg(db, 'Flooder', 'pro')).apiKey)
    const other = t.api.withKey((await createOrg(db, 'Other', 'pro')).apiKey)
    const slow = (await flooder.post('/api/webhooks', { url: 'https://silent.test/hook' })).body.data
    const flood = async (n: number) => {
      for (let i = 0; i < n; i++) assert.equal((await flooder.post(`/api/webhooks/${slow.id}/test`)).status, 200)
    }
    const heldBack = async (n: number) => await eventually(async () => {
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM jobs
        WHERE lane = ${QUEUE.deliver} AND state = 'waiting' AND start_after > now() + interval '30 seconds'`.execute(db)
      return rows[0]!.n === n ? true : undefined
    }, 30_000, "the flood held behind its endpoint's retry")
    // The flood's first attempts time out (CRAWL_TIMEOUT_MS): then the endpoint is backed off whole,
    // deliveries queued after that included.
    await flood(2)
    await heldBack(2)
    await flood(28)
    await heldBack(30)
    assert.equal(silent.received, 2, 'one attempt per slot the endpoint may hold, then none until its retry')
    assert.equal(silent.mostAtOnce, 2)

    const fast = (await other.post('/api/webhooks', { url: 'https://answers.test/hook' })).body.data
    // The flood again, from scratch, while the other organisation's test event is sent.
    const second = (await flooder.post('/api/webhooks', { url: 'https://silent.test/second' })).body.data
    for (let i = 0; i < 20; i++) await flooder.post(`/api/webhooks/${second.id}/test`)
    assert.equal((await other.post(`/api/webhooks/${fast.id}/test`)).status, 200)
    await eventually(async () => answered.includes('/hook') ? true : undefined, 20_000, "the other organisation's event")
    const pending = (await flooder.get(`/api/webhooks/${second.id}/deliveries`)).body.data
      .filter((d: any) => d.status === 'pending')
    assert.ok(pending.length >= 18, `the flood still waits (${pending.length} pending) when the other is delivered`)
    assert.ok(silent.mostAtOnce <= 4, `the flooder held ${silent.mostAtOnce} slots at once (4 at most)`)
  })

  it('a delivery whose last attempt was lost with its worker is failed with the reason, once the sweep gives it up', async () => {
    const db = t.service.store.db
    const api = t.api.withKey((await createOrg(db, 'Lost', 'pro')).apiKey)
    const ep = (await api.post('/api/webhooks', { url: 'https://silent.test/lost' })).body.data
    const delivery = (await api.post(`/api/webhooks/${ep.id}/test`)).body.data
    // Its worker dies on the last attempt: the sweep fails the job for good, and no worker told the delivery.
    await sql`UPDATE jobs SET state = 'failed', finished_at = now(), owner = NULL, attempts_made = max_attempts,
      failed_reason = 'its worker stopped answering: the attempt is taken to be lost', gave_up_at = NULL
      WHERE lane = ${QUEUE.deliver} AND data->>'deliveryId' = ${delivery.id}`.execute(db)
    await t.service.queue.sweep()
    const row = await eventually(async () => {
      const d = (await api.get(`/api/webhooks/${ep.id}/deliveries`)).body.data.find((x: any) => x.id === delivery.id)
      return d?.status === 'failed' ? d : undefined
    }, 10_000, 'the delivery failed')
    assert.match(row.error, /worker stopped answering/)
  })
})
