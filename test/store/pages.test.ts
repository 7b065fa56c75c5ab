import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { addPages } from '../../src/store/pages.js'
import { startTestService, type TestService } from '../helpers/service.js'

describe('a domain of 12,000 pages on the enterprise plan', () => {
  let t: TestService
  before(async () => {
    t = await startTestService({ ROLE: 'api' })
  })
  after(async () => {
    await t.stop()
  })

  it("adds every page and queues every crawl in one transaction (past one statement's 65,535 parameters)", async () => {
    const { db } = t.service.store
    const org = await db.updateTable('orgs').set({ plan: 'enterprise' }).returningAll().executeTakeFirstOrThrow()
    const domain = await db
      .insertInto('domains')
      .values({ org_id: org.id, hostname: 'big.test', status: 'active' })
      .returning('id')
      .executeTakeFirstOrThrow()
    const candidates = Array.from({ length: 12_000 }, (_, i) => ({
      url: `https://big.test/p/${i}`,
      pageType: 'other' as const,
      confidence: 0.5
    }))
    const queued = await db.transaction().execute(async tx => {
      const rows = await addPages(tx, org, domain.id, candidates)
      assert.equal(rows.length, 12_000)
      return await t.service.queue.enqueueCrawls(
        tx,
        rows.map(p => ({ orgId: org.id, domainId: domain.id, pageId: p.id, url: p.url }))
      )
    })
    assert.equal(queued.size, 12_000)
    const counts = await sql<{ pages: number, jobs: number, added: number }>`
      SELECT (SELECT count(*)::int FROM pages WHERE domain_id = ${domain.id}) AS pages,
             (SELECT count(*)::int FROM jobs WHERE lane = 'crawl.page' AND state = 'waiting') AS jobs,
             (SELECT pages_added FROM domains WHERE id = ${domain.id}) AS added`.execute(db)
    assert.deepEqual(counts.rows[0], { pages: 12_000, jobs: 12_000, added: 12_000 })
    // Asked again, nothing is queued twice.
    const again = await db.transaction().execute(
      async tx =>
        await t.service.queue.enqueueCrawls(
          tx,
          [...queued.keys()].map(pageId => ({ orgId: org.id, domainId: domain.id, pageId, url: '' }))
        )
    )
    assert.equal(again.size, 0)
  })
})
