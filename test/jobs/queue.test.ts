import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { after, before, describe, it } from 'node:test'
import { CompiledQuery, sql } from 'kysely'
import { ANALYZE_AFTER_JOBS, QUEUE } from '../../src/jobs/queue.js'
import { onPostgres, startTestService, type TestService } from '../helpers/service.js'

// pg-boss's own fetch statement, so that the plan checked is the one its fetch() runs.
const plans = createRequire(import.meta.url)('pg-boss/src/plans.js') as { fetchNextJob: (schema: string) => (opts: { includeMetadata: boolean }) => string }

describe('fetching crawl jobs from a long queue', () => {
  let t: TestService
  before(async () => { t = await startTestService({ ROLE: 'api' }) })
  after(async () => { await t.stop() })

  const fetchPlan = async () => {
    const text = `EXPLAIN ${plans.fetchNextJob('pgboss')({ includeMetadata: true })}`
    const r = await t.service.store.db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(text, [QUEUE.crawl, 32]))
    return r.rows.map(row => row['QUERY PLAN']).join('\n')
  }

  // The sort of the waiting jobs (the plan's other sort orders the batch's 32 rows).
  const sortsWaitingJobs = /Sort Key: [^\n]*created_on/

  async function queueCrawls (n: number, from: number) {
    const { db } = t.service.store
    const org = await db.selectFrom('orgs').select('id').executeTakeFirstOrThrow()
    const domain = await db.insertInto('domains').values({ org_id: org.id, hostname: `q${from}.test`, status: 'active' }).returning('id').executeTakeFirstOrThrow()
    const pages = await db.insertInto('pages').values(Array.from({ length: n }, (_, i) => ({
      domain_id: domain.id, org_id: org.id, url: `https://q.test/${from + i}`, url_hash: `q${from + i}`
    }))).returning(['id', 'url']).execute()
    await t.service.queue.transaction(db, tx => t.service.queue.enqueueCrawls(tx, pages.map(p => ({ orgId: org.id, domainId: domain.id, pageId: p.id, url: p.url }))))
  }

  it('walks the fetch-order index instead of sorting every waiting job, once a crawl of 1,000 pages is queued', async () => {
    const { db } = t.service.store
    const crawlIndex = (await sql<{ name: string }>`
      SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      JOIN pg_index x ON x.indexrelid = c.oid JOIN pgboss.queue q ON x.indrelid = ('pgboss.' || q.partition_name)::regclass
      WHERE i.inhparent = 'pgboss.job_fetch_order'::regclass AND q.name = ${QUEUE.crawl}`.execute(db)).rows[0]?.name
    assert.ok(crawlIndex, 'the crawl queue\'s partition has the fetch-order index')

    await queueCrawls(ANALYZE_AFTER_JOBS - 1, 0)
    // Without statistics the planner sorts (PostgreSQL's autovacuum could have run in
    // between, so this is only asserted on PGlite, which has none).
    if (!onPostgres) assert.match(await fetchPlan(), sortsWaitingJobs)

    await queueCrawls(1, ANALYZE_AFTER_JOBS)
    const until = Date.now() + 10_000
    let plan = await fetchPlan()
    while (!plan.includes(crawlIndex) && Date.now() < until) {
      await new Promise(resolve => setTimeout(resolve, 100))
      plan = await fetchPlan()
    }
    assert.ok(plan.includes(crawlIndex), plan)
    assert.doesNotMatch(plan, sortsWaitingJobs)

    const jobs = await t.service.queue.boss.fetch(QUEUE.crawl, { batchSize: 32 }) ?? []
    assert.equal(jobs.length, 32)
  })
})
