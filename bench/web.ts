// The web app's pages beside the JSON API's answers for the same data, in the same process:
// the domain list, the changes inbox, a change's page and a page's own view, at 100 domains,
// 10,000 pages and 100,000 changes (BENCH_WEB_DOMAINS, BENCH_WEB_PAGES_PER_DOMAIN,
// BENCH_WEB_CHANGES), the viewed page with a long history of its own (BENCH_WEB_HISTORY
// versions, each a price change). Each is requested in turn with a session cookie or an API
// key; p50/p95 of the full request.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { loadConfig } from '../src/config.js'
import { startService } from '../src/service.js'
import { addUser, startSession } from '../src/services/accounts.js'
import { createOrg } from '../src/services/orgs.js'
import type { Db } from '../src/store/db.js'

const DOMAINS = Number(process.env.BENCH_WEB_DOMAINS ?? 100)
const PAGES_PER_DOMAIN = Number(process.env.BENCH_WEB_PAGES_PER_DOMAIN ?? 100)
const CHANGES = Number(process.env.BENCH_WEB_CHANGES ?? 100_000)
const HISTORY = Number(process.env.BENCH_WEB_HISTORY ?? 2000)
const RUNS = 200
const TYPES = ['pricing', 'features', 'terms', 'security', 'api_docs', 'changelog', 'other'] as const

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]
}

/** A price change's diff as the pricing reader writes it: three plans, two prices each, limits, features (A → B). */
const PRICED_DIFF = (() => {
  const monthly = (name: string, i: number, pro: string) => name === 'Pro' ? pro : 9 + 40 * i
  const table = (pro: string) => ({
    plans: ['Starter', 'Pro', 'Team'].map((name, i) => ({
      name,
      prices: [
        { amount: monthly(name, i, pro), currency: '$', period: 'month', billing: 'monthly', text: `$${monthly(name, i, pro)}/month` },
        { amount: 90 + 400 * i, currency: '$', period: 'year', billing: 'yearly', text: `$${90 + 400 * i}/year` }
      ],
      limits: [{ name: 'users', value: String(5 * (i + 1)) }, { name: 'projects', value: String(10 * (i + 1)) }],
      features: Array.from({ length: 8 }, (_, k) => `Feature ${k} of the ${name} plan`)
    })),
    sources: ['cards']
  })
  return JSON.stringify({
    before: 'Pro $__A__/month',
    after: 'Pro $__B__/month',
    stats: { additions: 1, deletions: 1, changes: 1 },
    hunks: [{ oldStart: 2, oldLines: 1, newStart: 2, newLines: 1, lines: [{ type: 'deletion', content: 'Pro $__A__/month' }, { type: 'addition', content: 'Pro $__B__/month' }] }],
    pricing: { before: table('__A__'), after: table('__B__'), changes: [] }
  }).replace(/"__([AB])__"/g, '__$1__')
})()

/** An enterprise organisation with DOMAINS domains of PAGES_PER_DOMAIN pages and CHANGES changes. */
export async function seedWebTenant (db: Db) {
  const { org, apiKey } = await createOrg(db, 'web-bench', 'enterprise')
  const domains = await db.insertInto('domains')
    .values(Array.from({ length: DOMAINS }, (_, i) => ({
      org_id: org.id, hostname: `site${i}.example.com`, status: 'active' as const
    })))
    .returning('id').execute()
  for (const [i, d] of domains.entries()) {
    await db.insertInto('pages').values(Array.from({ length: PAGES_PER_DOMAIN }, (_, k) => ({
      org_id: org.id,
      domain_id: d.id,
      url: `https://site${i}.example.com/${TYPES[k % TYPES.length]}/${k}`,
      url_hash: `${i}-${k}`,
      page_type: TYPES[k % TYPES.length],
      last_check_at: new Date()
    }))).execute()
  }
  const pageCount = DOMAINS * PAGES_PER_DOMAIN
  const snapshot = await db.insertInto('snapshots')
    .values({
      org_id: org.id,
      page_id: (await db.selectFrom('pages').select('id').where('org_id', '=', org.id).limit(1).executeTakeFirstOrThrow()).id,
      content_hash: 'x',
      content: 'Pro $49/month\nTeam $99/month',
      http_status: 200
    })
    .returning('id').executeTakeFirstOrThrow()
  // Generated in the database: one change per page in turn, a word-level diff each, over a year.
  await sql`
    WITH p AS (SELECT id, domain_id, (row_number() OVER (ORDER BY id) - 1)::int AS k FROM pages WHERE org_id = ${org.id}::uuid)
    INSERT INTO changes (page_id, domain_id, org_id, change_type, severity, confidence, summary, diff_data,
      snapshot_before_id, snapshot_after_id, created_at, alerted_at)
    SELECT p.id, p.domain_id, ${org.id}::uuid,
      (ARRAY['price_change','feature_added','feature_removed','terms_update','section_added','section_removed','content_change'])[1 + g % 7],
      (ARRAY['low','low','medium','medium','high','critical'])[1 + (g / 7) % 6],
      0.80,
      'Pricing, Pro: $' || (g % 300) || '/month → $' || (g % 300 + 10) || '/month',
      jsonb_build_object('before', 'Pro $' || (g % 300) || '/month', 'after', 'Pro $' || (g % 300 + 10) || '/month',
        'stats', jsonb_build_object('additions', 1, 'deletions', 1, 'changes', 1),
        'hunks', jsonb_build_array(jsonb_build_object('oldStart', 1, 'oldLines', 1, 'newStart', 1, 'newLines', 1,
          'lines', jsonb_build_array(
            jsonb_build_object('type', 'deletion', 'content', 'Pro $' || (g % 300) || '/month'),
            jsonb_build_object('type', 'addition', 'content', 'Pro $' || (g % 300 + 10) || '/month'))))),
      ${snapshot.id}::uuid, ${snapshot.id}::uuid,
      now() - (g || ' minutes')::interval * 5, now()
    FROM generate_series(0, ${CHANGES - 1}::int) AS g
    JOIN p ON p.k = g % ${pageCount}::int`.execute(db)
  // The pricing page whose view is read: HISTORY versions, a day apart, each a price change from the one before.
  const long = await db.selectFrom('pages').select(['id', 'domain_id']).where('org_id', '=', org.id)
    .where('page_type', '=', 'pricing').orderBy('url').limit(1).executeTakeFirstOrThrow()
  await sql`
    WITH v AS (
      INSERT INTO snapshots (page_id, org_id, content_hash, content, http_status, created_at)
      SELECT ${long.id}::uuid, ${org.id}::uuid, 'h' || g, '# Pricing\nPro $' || (40 + g % 60) || '/month\nTeam $99/month', 200,
        now() - (g || ' days')::interval
      FROM generate_series(0, ${HISTORY - 1}::int) AS g
      RETURNING id, created_at)
    INSERT INTO changes (page_id, domain_id, org_id, change_type, severity, confidence, summary, diff_data,
      snapshot_before_id, snapshot_after_id, created_at, alerted_at)
    SELECT ${long.id}::uuid, ${long.domain_id}::uuid, ${org.id}::uuid, 'price_change', 'medium', 0.9,
      'Pricing, Pro: $' || n || '/month → $' || (n + 1) || '/month',
      replace(replace(${PRICED_DIFF}, '__A__', n::text), '__B__', (n + 1)::text)::jsonb,
      before.id, after.id, after.created_at, after.created_at
    FROM (SELECT id, created_at, row_number() OVER (ORDER BY created_at) AS k FROM v) AS after
    JOIN (SELECT id, row_number() OVER (ORDER BY created_at) AS k FROM v) AS before ON before.k = after.k - 1,
    LATERAL (SELECT 40 + (after.k % 60)::int AS n) AS price`.execute(db)
  // As autovacuum leaves a table after a bulk load: statistics, and the visibility map index-only scans read.
  await sql`VACUUM ANALYZE`.execute(db)
  return { org, apiKey, pageCount, longPage: long }
}

export async function webBenchmark (target: string): Promise<void> {
  const embedded = target === 'pglite'
  const dataDir = mkdtempSync(join(tmpdir(), 'sitewatch-web-bench-'))
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: embedded ? '' : target,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    ROLE: 'api',
    RATE_LIMIT_STANDARD_PER_MINUTE: '100000000',
    RATE_LIMIT_HEAVY_PER_HOUR: '100000000'
  })
  const service = await startService(config, { logger: false, onBootstrapKey: () => {}, onSetupLink: () => {} })
  try {
    const db = service.store.db
    const started = performance.now()
    const { org, apiKey, pageCount, longPage } = await seedWebTenant(db)
    const user = await addUser(db, org.id, { email: 'bench@example.com', password: 'bench password 1' }, 'owner')
    const { token } = await startSession(db, { idleMs: 3_600_000, maxMs: 86_400_000 }, user.id, { orgId: org.id })
    const changeId = (await db.selectFrom('changes').select('id').where('org_id', '=', org.id)
      .orderBy('created_at', 'desc').limit(1).offset(500).executeTakeFirstOrThrow()).id
    console.log(`\n== the web app beside the API: ${DOMAINS} domains, ${pageCount.toLocaleString('en')} pages, ` +
      `${CHANGES.toLocaleString('en')} changes (${embedded ? 'PGlite' : 'PostgreSQL'}; loaded in ` +
      `${((performance.now() - started) / 1000).toFixed(0)} s)`)

    const time = async (path: string, headers: Record<string, string>, expect: RegExp) => {
      const one = async () => {
        const t0 = performance.now()
        const res = await fetch(`${service.url}${path}`, { headers })
        const body = await res.text()
        if (res.status !== 200 || !expect.test(body)) throw new Error(`${path}: ${res.status} ${body.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').slice(0, 600)}`)
        return { ms: performance.now() - t0, bytes: body.length }
      }
      for (let i = 0; i < 10; i++) await one()
      const times: number[] = []
      let bytes = 0
      for (let i = 0; i < RUNS; i++) {
        const r = await one()
        times.push(r.ms)
        bytes = r.bytes
      }
      return { p50: percentile(times, 0.5), p95: percentile(times, 0.95), kb: bytes / 1024 }
    }
    const app = { cookie: `sw_session=${token}` }
    const api = { authorization: `Bearer ${apiKey}` }
    const cases: Array<[string, string, string, RegExp]> = [
      ['domain list', '/app/domains', '/api/domains?pageSize=100', /Your domains|"total"/],
      ['changes inbox (newest 25)', '/app/changes', '/api/changes?pageSize=25', /Pricing, Pro/],
      ['inbox: high, unacknowledged, q=month', '/app/changes?severity=high&acknowledged=false&q=month',
        '/api/changes?pageSize=25&severity=high&acknowledged=false&q=month', /Pricing, Pro/],
      ["a change's page", `/app/changes/${changeId}`, `/api/changes/${changeId}`, /Pricing, Pro/],
      [`a page's view (${HISTORY.toLocaleString('en')} versions)`, `/app/domains/${longPage.domain_id}/pages/${longPage.id}`,
        `/api/domains/${longPage.domain_id}/pages/${longPage.id}/snapshots`, /Pro|"total"/]
    ]
    const f = (n: number) => n.toFixed(1).padStart(6)
    console.log(`  ${''.padEnd(38)}   app (HTML) p50    p95    KB   |  API (JSON) p50    p95    KB`)
    for (const [label, appPath, apiPath, expect] of cases) {
      const a = await time(appPath, app, expect)
      const b = await time(apiPath, api, expect)
      console.log(`  ${label.padEnd(38)}  ${f(a.p50)} ms ${f(a.p95)} ms ${f(a.kb)}  |  ${f(b.p50)} ms ${f(b.p95)} ms ${f(b.kb)}`)
    }
    console.log('  (goal: the app\'s p95 under 50 ms on PostgreSQL, and no more than the API\'s time plus rendering; a page\'s view under 300 ms)')
  } finally {
    await service.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
