// API reads under load: each endpoint the issue names, beside a bare Fastify route that
// serves the very same JSON from the same process, loaded alike by autocannon from a
// process of its own (bench/load.ts). Prints requests/s, p50/p99, CPU per request and the
// ratio to the bare route.
import { fork } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Fastify from 'fastify'
import { sql } from 'kysely'
import { loadConfig } from '../src/config.js'
import { startService } from '../src/service.js'
import type { Db } from '../src/store/db.js'
import { seedTenant } from './seed.js'

const SECONDS = Number(process.env.BENCH_API_SECONDS ?? 5)
const CONNECTIONS = 20

interface Load {
  requests: number
  perSecond: number
  p50: number
  p99: number
  non2xx: number
  errors: number
}

function loadGenerator () {
  const child = fork(fileURLToPath(new URL('./load.js', import.meta.url)), { execArgv: [] })
  const ready = new Promise(resolve => child.once('message', resolve))
  return {
    ready,
    run: async (url: string, headers: Record<string, string>, seconds = SECONDS): Promise<Load> => {
      const answer = new Promise<Load>(resolve => child.once('message', m => resolve(m as Load)))
      child.send({ url, headers, seconds, connections: CONNECTIONS })
      return await answer
    },
    close: () => child.disconnect()
  }
}

export async function apiBenchmark (target: string): Promise<void> {
  const embedded = target === 'pglite'
  const dataDir = mkdtempSync(join(tmpdir(), 'sitewatch-api-bench-'))
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
  const service = await startService(config, { logger: false, onBootstrapKey: () => {} })
  const bare = Fastify({ logger: false })
  const load = loadGenerator()
  try {
    const { org, apiKey } = await seed(service.store.db)
    const auth = { authorization: `Bearer ${apiKey}` }
    const domain = (await sql<{ id: string }>`SELECT id FROM domains WHERE org_id = ${org}::uuid ORDER BY hostname LIMIT 1`
      .execute(service.store.db)).rows[0].id
    const paths = [
      '/api/domains',
      `/api/domains/${domain}`,
      `/api/domains/${domain}/pages`,
      '/api/changes',
      '/api/usage'
    ]
    // The bare routes answer what the service answered, as objects for Fastify to serialise.
    const bodies = new Map<string, unknown>()
    for (const [i, path] of paths.entries()) {
      const res = await fetch(`${service.url}${path}`, { headers: auth })
      if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`)
      const body = await res.json()
      bodies.set(path, body)
      bare.get(`/bare/${i}`, async () => body)
    }
    const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' })
    await load.ready

    console.log(
      `\n== API reads, ${embedded ? 'embedded database (PGlite)' : 'PostgreSQL'}: ${CONNECTIONS} connections, ` +
      `${SECONDS} s each, the bare Fastify route serving the same JSON in the same process`
    )
    console.log(
      `  ${'endpoint'.padEnd(36)} ${'req/s'.padStart(7)} ${'p50'.padStart(6)} ${'p99'.padStart(6)} ` +
      `${'CPU/req'.padStart(8)} ${'bare req/s'.padStart(10)} ${'ratio'.padStart(6)}`
    )
    const measure = async (url: string, headers: Record<string, string>) => {
      await load.run(url, headers, 1)
      const cpu = process.cpuUsage()
      const r = await load.run(url, headers)
      const used = process.cpuUsage(cpu)
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`)
      if (process.env.BENCH_API_CPU_SPLIT) {
        const ms = (us: number) => (us / 1000 / r.requests).toFixed(2)
        console.log(`    user ${ms(used.user)} ms, system ${ms(used.system)} ms per request`)
      }
      return { ...r, cpuMs: (used.user + used.system) / 1000 / r.requests }
    }
    const target = embedded ? 0.15 : 0.25
    const ratios: number[] = []
    for (const [i, path] of paths.entries()) {
      // BENCH_API_ONLY=/api/domains/:id measures that path alone (for profiling one).
      if (process.env.BENCH_API_ONLY && path.replace(domain, ':id') !== process.env.BENCH_API_ONLY) continue
      const ours = await measure(`${service.url}${path}`, auth)
      // BENCH_API_SKIP_BARE=1 leaves the reference out (for profiling the service alone).
      const reference = process.env.BENCH_API_SKIP_BARE
        ? { perSecond: NaN }
        : await measure(`${bareUrl}/bare/${i}`, {})
      const ratio = ours.perSecond / reference.perSecond
      ratios.push(ratio)
      const label = path.replace(domain, ':id')
      console.log(
        `  ${label.padEnd(36)} ${ours.perSecond.toFixed(0).padStart(7)} ${`${ours.p50}`.padStart(4)}ms ` +
        `${`${ours.p99}`.padStart(4)}ms ${ours.cpuMs.toFixed(2).padStart(6)}ms ${reference.perSecond.toFixed(0).padStart(10)} ` +
        `${ratio.toFixed(2).padStart(6)}`
      )
    }
    const health = await measure(`${service.url}/healthz`, {})
    console.log(`  ${'/healthz (no key, no database)'.padEnd(36)} ${health.perSecond.toFixed(0).padStart(7)} ` +
      `${`${health.p50}`.padStart(4)}ms ${`${health.p99}`.padStart(4)}ms ${health.cpuMs.toFixed(2).padStart(6)}ms`)
    console.log(`  (target: ratio >= ${target} on every endpoint; lowest ${Math.min(...ratios).toFixed(2)})`)
  } finally {
    load.close()
    await bare.close()
    await service.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** The benchmark's tenant (see seedTenant) with 2,000 changes among its pages. */
async function seed (db: Db): Promise<{ org: string, apiKey: string }> {
  const { org, apiKey, pages, snapshotId } = await seedTenant(db, `api-bench-${Date.now()}`)
  await sql`
    INSERT INTO changes (page_id, domain_id, org_id, change_type, severity, confidence, summary, diff_data,
      snapshot_before_id, snapshot_after_id, created_at, alerted_at)
    SELECT p.id, p.domain_id, ${org.id}::uuid,
      (ARRAY['price_change','feature_added','terms_update','content_change'])[1 + g % 4],
      (ARRAY['low','medium','high','critical'])[1 + (g / 4) % 4],
      0.80,
      'Pro plan: $' || (g % 300) || '/month → $' || (g % 300 + 10) || '/month',
      jsonb_build_object('before', '$49/month', 'after', '$59/month',
        'stats', jsonb_build_object('additions', 1, 'deletions', 1, 'changes', 1),
        'hunks', jsonb_build_array(jsonb_build_object('oldStart', 3, 'oldLines', 1, 'newStart', 3, 'newLines', 1,
          'lines', jsonb_build_array(jsonb_build_object('type', 'deletion', 'content', 'Pro plan $49/month'),
            jsonb_build_object('type', 'addition', 'content', 'Pro plan $59/month'))))),
      ${snapshotId}::uuid, ${snapshotId}::uuid, now() - (g || ' minutes')::interval, now()
    FROM generate_series(0, 1999) AS g
    JOIN LATERAL (SELECT id, domain_id FROM pages WHERE org_id = ${org.id}::uuid
      ORDER BY id OFFSET (g % ${pages.length}::int) LIMIT 1) p ON true`.execute(db)
  return { org: org.id, apiKey }
}
