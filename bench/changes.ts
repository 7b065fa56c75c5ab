// GET /api/changes latency at BENCH_CHANGES (default 1,000,000) changes of one
// organisation in PostgreSQL: no filter, with filters, and with full-text search.
import { sql } from 'kysely'
import { loadConfig } from '../src/config.js'
import { startService } from '../src/service.js'
import { seedTenant } from './seed.js'

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]
}

export async function changesBenchmark (databaseUrl: string): Promise<void> {
  const total = Number(process.env.BENCH_CHANGES ?? 1_000_000)
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    ROLE: 'api',
    RATE_LIMIT_STANDARD_PER_MINUTE: '1000000',
    RATE_LIMIT_HEAVY_PER_HOUR: '1000000'
  })
  const service = await startService(config, { logger: false, onBootstrapKey: () => {} })
  try {
    const db = service.store.db
    const { org, apiKey, domains, pages, snapshotId } = await seedTenant(db, 'changes-bench')
    console.log(`\n== GET /api/changes at ${total.toLocaleString('en')} changes (PostgreSQL)`)
    const started = performance.now()
    // Generated in the database: summaries drawn from a small vocabulary, times over a year.
    const words = [
      'pricing',
      'enterprise',
      'seats',
      'annual',
      'discount',
      'security',
      'SSO',
      'audit',
      'export',
      'webhooks',
      'liability',
      'privacy',
      'retention',
      'limits',
      'storage',
      'analytics',
      'support',
      'SLA',
      'region',
      'encryption'
    ]
    const batch = 100_000
    for (let offset = 0; offset < total; offset += batch) {
      await sql`
        INSERT INTO changes (page_id, domain_id, org_id, change_type, severity, confidence, summary, diff_data, snapshot_before_id, snapshot_after_id, created_at, alerted_at)
        SELECT p.id, p.domain_id, ${org.id}::uuid,
          (ARRAY['price_change','feature_added','feature_removed','terms_update','section_added','section_removed','content_change'])[1 + g % 7],
          (ARRAY['low','low','medium','medium','high','critical'])[1 + (g / 7) % 6],
          0.80,
          (${words}::text[])[1 + g % 20] || ' ' || (${words}::text[])[1 + (g / 20) % 20] || ': $' || (g % 300) || '/month → $' || (g % 300 + 10) || '/month',
          jsonb_build_object('before', 'old ' || (${words}::text[])[1 + (g / 400) % 20], 'after', 'new ' || (${words}::text[])[1 + (g / 8000) % 20],
            'stats', jsonb_build_object('additions', 1, 'deletions', 1, 'changes', 1), 'hunks', '[]'::jsonb),
          ${snapshotId}::uuid, ${snapshotId}::uuid,
          now() - (g || ' minutes')::interval * 0.5, now()
        FROM generate_series(${offset}::int, ${Math.min(total, offset + batch) - 1}::int) AS g
        JOIN LATERAL (SELECT id, domain_id FROM pages WHERE org_id = ${org.id}::uuid ORDER BY id OFFSET (g % ${pages.length}::int) LIMIT 1) p ON true`.execute(
        db
      )
    }
    await sql`ANALYZE changes`.execute(db)
    console.log(`  loaded in ${((performance.now() - started) / 1000).toFixed(0)} s`)

    const call = async (qs: string) => {
      const t0 = performance.now()
      const res = await fetch(`${service.url}/api/changes${qs}`, { headers: { authorization: `Bearer ${apiKey}` } })
      const body = (await res.json()) as any
      if (res.status !== 200) throw new Error(`${qs}: ${res.status} ${JSON.stringify(body)}`)
      return { ms: performance.now() - t0, n: body.data.length }
    }
    const cases: Array<[string, string]> = [
      ['newest 20, no filter', ''],
      ['severity=high,critical & changeType=price_change', '?severity=high,critical&changeType=price_change'],
      [
        'pageType=pricing & acknowledged=false & since',
        `?pageType=pricing&acknowledged=false&since=${new Date(Date.now() - 30 * 86_400_000).toISOString()}`
      ],
      ['domainId & severity=critical', `?domainId=${domains[3].id}&severity=critical`],
      ['q=encryption', '?q=encryption'],
      ['q="audit export" & severity=high', '?q=%22audit%20export%22&severity=high'],
      ['page 50 of the newest', '?page=50&pageSize=20']
    ]
    for (const [label, qs] of cases) {
      for (let i = 0; i < 5; i++) await call(qs)
      const times: number[] = []
      let n = 0
      for (let i = 0; i < 100; i++) {
        const r = await call(qs)
        times.push(r.ms)
        n = r.n
      }
      console.log(
        `  ${label.padEnd(52)} median ${percentile(times, 0.5).toFixed(1)} ms   p99 ` +
        `${percentile(times, 0.99).toFixed(1)} ms   (${n} rows)`
      )
    }
    console.log('  (target: p99 < 50 ms)')
  } finally {
    await service.stop()
  }
}
