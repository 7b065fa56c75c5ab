// The history lists besides changes and jobs (a page's snapshots, a destination's
// deliveries, the alert e-mails): a cursor walks each as the page numbers do, rows made
// in the same microsecond included, and the totals say what the descriptions promise.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { createOrg } from '../../src/services/orgs.js'
import { startTestService, type TestService } from '../helpers/service.js'
import type { ApiClient } from '../helpers/client.js'

const ROWS = 23
/** Ten of the rows share one instant, to the microsecond: a cursor must not skip or repeat them. */
const createdAt = sql`CASE WHEN g <= 10 THEN timestamptz '2026-03-01 12:00:00.654321+00'
  ELSE now() - g * interval '1 minute' END`

/** Every id of `path`, page by page (`page=n`) and cursor by cursor; and the meta of each cursor page. */
async function walk (api: ApiClient, path: string) {
  const byNumber: string[] = []
  for (let n = 1; n < 100; n++) {
    const r = await api.get(`${path}?pageSize=4&page=${n}`)
    assert.equal(r.status, 200)
    if (r.body.data.length === 0) break
    byNumber.push(...r.body.data.map((x: { id: string }) => x.id))
  }
  const byCursor: string[] = []
  const metas: Array<Record<string, unknown>> = []
  let cursor: string | undefined
  do {
    const r = await api.get(`${path}?pageSize=4${cursor ? `&cursor=${cursor}` : ''}`)
    assert.equal(r.status, 200)
    byCursor.push(...r.body.data.map((x: { id: string }) => x.id))
    metas.push(r.body.meta)
    cursor = r.body.meta.nextCursor
  } while (cursor && metas.length < 100)
  return { byNumber, byCursor, metas }
}

describe('history lists: snapshots, webhook deliveries and alert e-mails', () => {
  let t: TestService
  let api: ApiClient
  let paths: { snapshots: string, deliveries: string, emails: string }

  before(async () => {
    t = await startTestService()
    const db = t.service.store.db
    const { org, apiKey } = await createOrg(db, 'History Lists', 'enterprise')
    api = t.api.withKey(apiKey)
    const domain = await db.insertInto('domains').values({ org_id: org.id, hostname: 'history.test', status: 'active' })
      .returning('id').executeTakeFirstOrThrow()
    const page = await db.insertInto('pages')
      .values({ org_id: org.id, domain_id: domain.id, url: 'https://history.test/pricing', url_hash: 'h', page_type: 'pricing' })
      .returning('id').executeTakeFirstOrThrow()
    const endpoint = await db.insertInto('webhook_endpoints')
      .values({ org_id: org.id, kind: 'webhook', url: 'https://hooks.history.test/in', secret: 's', events: ['change.detected'] })
      .returning('id').executeTakeFirstOrThrow()
    const user = await db.insertInto('users').values({ email: 'reader@history.test' }).returning('id')
      .executeTakeFirstOrThrow()
    await sql`INSERT INTO snapshots (page_id, org_id, content_hash, content, http_status, created_at)
      SELECT ${page.id}::uuid, ${org.id}::uuid, 'h' || g, 'text ' || g, 200, ${createdAt}
      FROM generate_series(1, ${ROWS}::int) AS g`.execute(db)
    await sql`INSERT INTO webhook_deliveries (endpoint_id, org_id, event_type, event_id, payload, created_at)
      SELECT ${endpoint.id}::uuid, ${org.id}::uuid, 'change.detected', 'e' || g, '{}'::jsonb, ${createdAt}
      FROM generate_series(1, ${ROWS}::int) AS g`.execute(db)
    await sql`INSERT INTO email_deliveries (org_id, user_id, to_address, kind, event_id, subject, payload, created_at)
      SELECT ${org.id}::uuid, ${user.id}::uuid, 'reader@history.test', 'change', 'e' || g, 'Subject ' || g, '{}'::jsonb,
        ${createdAt}
      FROM generate_series(1, ${ROWS}::int) AS g`.execute(db)
    paths = {
      snapshots: `/api/domains/${domain.id}/pages/${page.id}/snapshots`,
      deliveries: `/api/webhooks/${endpoint.id}/deliveries`,
      emails: '/api/email-deliveries'
    }
  })
  after(async () => await t.stop())

  for (const list of ['snapshots', 'deliveries', 'emails'] as const) {
    it(`${list}: a cursor reads what the page numbers read, once each; the total is exact`, async () => {
      const { byNumber, byCursor, metas } = await walk(api, paths[list])
      assert.equal(byNumber.length, ROWS)
      assert.equal(new Set(byNumber).size, ROWS)
      assert.deepEqual(byCursor, byNumber)
      assert.equal(metas.length, Math.ceil(ROWS / 4), 'the last page carries no cursor')
      for (const meta of metas) {
        assert.equal(meta.total, ROWS)
        assert.equal(meta.totalCapped, undefined)
      }
      // Not ours: a short id, and one of 36 dashes that looks like a UUID's length (it reached the database: 500).
      for (const forged of ['1|x', `1|${'-'.repeat(36)}`, `1|${'g'.repeat(8)}-aaaa-aaaa-aaaa-${'a'.repeat(12)}`]) {
        const bad = await api.get(`${paths[list]}?cursor=${Buffer.from(forged).toString('base64url')}`)
        assert.equal(bad.status, 400, forged)
        assert.equal(bad.body.details.field, 'cursor')
      }
    })
  }

  for (const path of ['/api/changes', '/api/jobs']) {
    it(`${path}: a forged cursor is a 400 naming cursor`, async () => {
      const bad = await api.get(`${path}?cursor=${Buffer.from(`1|${'-'.repeat(36)}`).toString('base64url')}`)
      assert.equal(bad.status, 400)
      assert.equal(bad.body.details.field, 'cursor')
    })
  }
})
