// API reads under load: each endpoint the issue names, beside bare Fastify routes in the
// same process that serve the very same JSON, loaded alike by autocannon from a process of
// its own (bench/load.ts): one that asks the same kind of database once for it (`SELECT
// $1::text`: a pool of 10 on PostgreSQL, an in-process PGlite), and one that answers a 304
// when If-None-Match names its tag. Prints requests/s, p50/p99, CPU per request and the
// ratios to both (goal: 0.5); then a cold read's time (the first after a write moved the
// organisation's version, so that nothing kept answers it). On PostgreSQL, each read is
// also set beside a route that runs the very statements the service ran for it (recorded
// from pg), with pg, and answers their rows: what the service adds to its SQL.
import { fork } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import Fastify from 'fastify'
import { sql } from 'kysely'
import pg from 'pg'
import pino from 'pino'
import { loadConfig } from '../src/config.js'
import { startService } from '../src/service.js'
import type { Db } from '../src/store/db.js'
import { seedTenant } from './seed.js'

const SECONDS = Number(process.env.BENCH_API_SECONDS ?? 5)
/** The jobs' reads are measured with the organisation's history at each of these sizes. */
const JOB_HISTORIES = [10, Number(process.env.BENCH_API_JOBS ?? 100_000)]
const CONNECTIONS = 20

interface Load {
  requests: number
  perSecond: number
  p50: number
  p99: number
  non2xx: number
  /** Answers 3xx: all of them when asked with a current ETag (304). */
  notModified: number
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

/** The statements pg runs while `recording` is set: what one request of the service asks the database. */
const recorded: Array<{ text: string, values: unknown[] }> = []
let recording = false
const pgQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  if (recording && typeof args[0] === 'string') recorded.push({ text: args[0], values: (args[1] as unknown[]) ?? [] })
  return pgQuery.apply(this, args)
} as typeof pg.Client.prototype.query

export async function apiBenchmark (target: string): Promise<void> {
  const embedded = target === 'pglite'
  const dataDir = mkdtempSync(join(tmpdir(), 'sitewatch-api-bench-'))
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: embedded ? '' : target,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ROLE: 'api',
    RATE_LIMIT_STANDARD_PER_MINUTE: '100000000',
    RATE_LIMIT_HEAVY_PER_HOUR: '100000000'
  })
  // Its requests logged as started (info), to a file that keeps nothing, so the table stays readable.
  const service = await startService(config, {
    logger: { level: 'info', stream: pino.destination('/dev/null') },
    onBootstrapKey: () => {}
  })
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
    // The jobs' reads, at a small history and at a large one (JOB_HISTORIES).
    const jobPaths = async () => {
      const one = (await sql<{ id: string }>`SELECT id FROM jobs WHERE org_id = ${org}::uuid LIMIT 1`
        .execute(service.store.db)).rows[0].id
      return ['/api/jobs', '/api/jobs?status=completed', `/api/jobs/${one}`, '/api/jobs/stats']
    }
    await seedJobs(service.store.db, org, JOB_HISTORIES[0])
    // The bare routes answer what the service answered, as objects for Fastify to serialise.
    // One route serving each answer by its number: routes cannot be added once Fastify listens.
    const answers: string[] = []
    // The database the one-round-trip route asks: the same kind as the service's.
    const onceLite = embedded ? new PGlite() : undefined
    const oncePool = embedded ? undefined : new pg.Pool({ connectionString: target, max: 10 })
    const askOnce = async (text: string) => onceLite
      ? (await onceLite.query<{ body: string }>('SELECT $1::text AS body', [text])).rows[0].body
      : (await oncePool!.query<{ body: string }>('SELECT $1::text AS body', [text])).rows[0].body
    bare.get<{ Params: { n: string } }>('/bare/:n', async (req, reply) =>
      await reply.type('application/json; charset=utf-8').send(await askOnce(answers[Number(req.params.n)])))
    bare.get<{ Params: { n: string } }>('/tagged/:n', async (req, reply) => {
      if (req.headers['if-none-match'] === '"t"') return await reply.code(304).send()
      return await reply.type('application/json; charset=utf-8').header('etag', '"t"').send(answers[Number(req.params.n)])
    })
    const bareRoute = async (path: string) => {
      const res = await fetch(`${service.url}${path}`, { headers: auth })
      if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`)
      answers.push(await res.text())
      return String(answers.length - 1)
    }
    const bareOf = new Map<string, string>()
    for (const path of paths) bareOf.set(path, await bareRoute(path))
    // On PostgreSQL: a route per read that runs the statements the service ran for it, with pg, and answers their rows.
    const statements: Array<Array<{ text: string, values: unknown[] }>> = []
    const referencePool = embedded ? undefined : new pg.Pool({ connectionString: target, max: 30 })
    // In their order, on one connection: a read's statements may be a transaction (a capped count runs in one,
    // under SET LOCAL statement_timeout); a count that runs out of its time is answered without, as the service does.
    const runStatements = async (n: number) => {
      const client = await referencePool!.connect()
      try {
        const rows: unknown[] = []
        for (const q of statements[n]) {
          rows.push(await client.query(q.text, q.values).then(r => r.rows, (err: { code?: string }) => {
            if (err.code === '57014') return []
            throw err
          }))
        }
        return rows
      } finally {
        client.release()
      }
    }
    bare.get<{ Params: { n: string } }>('/sql/:n', async req => ({ data: await runStatements(Number(req.params.n)) }))
    const sqlRoute = async (path: string) => {
      if (!referencePool) return undefined
      // A cold read's statements: a write moves the version first, so that no kept answer serves it; the
      // 304s asked until the write is heard run none.
      const tag = (await fetch(`${service.url}${path}`, { headers: auth })).headers.get('etag') ?? ''
      await sql`UPDATE orgs SET name = name WHERE id = ${org}::uuid`.execute(service.store.db)
      recorded.length = 0
      recording = true
      while ((await fetch(`${service.url}${path}`, { headers: { ...auth, 'if-none-match': tag } })).status === 304);
      recording = false
      statements.push([...recorded])
      // BENCH_API_SHOW_SQL=1 prints the statements each read runs.
      if (process.env.BENCH_API_SHOW_SQL) console.log(path, recorded.map(q => q.text.replace(/\s+/g, ' ').slice(0, 90)))
      return `/sql/${statements.length - 1}`
    }
    const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' })
    await load.ready

    console.log(
      `\n== API reads, ${embedded ? 'embedded database (PGlite)' : 'PostgreSQL'}: ${CONNECTIONS} connections, ` +
      `${SECONDS} s each, beside bare Fastify routes in the same process serving the same JSON: one that asks ` +
      `${embedded ? 'an in-process PGlite' : 'PostgreSQL (a pool of 10)'} once (SELECT $1::text), one that answers 304`
    )
    console.log(
      `  ${'endpoint'.padEnd(40)} ${'req/s'.padStart(7)} ${'p50'.padStart(6)} ${'p99'.padStart(6)} ` +
      `${'CPU/req'.padStart(8)} ${'1 trip/s'.padStart(9)} ${'ratio'.padStart(6)} ${'304/s'.padStart(7)} ` +
      `${'bare 304'.padStart(8)} ${'ratio'.padStart(6)} ${'cold'.padStart(7)}` +
      `${embedded ? '' : ` ${'same SQL/s'.padStart(10)} ${'ratio'.padStart(6)}`}`
    )
    /** `headers`, or a function that gives them once warmed up (a tag that is current when the run starts). */
    const measure = async (
      url: string, given: Record<string, string> | (() => Promise<Record<string, string>>), seconds = SECONDS
    ) => {
      const fresh = async () => typeof given === 'function' ? await given() : given
      await load.run(url, await fresh(), 1)
      const headers = await fresh()
      const cpu = process.cpuUsage()
      const r = await load.run(url, headers, seconds)
      const used = process.cpuUsage(cpu)
      const unexpected = headers['if-none-match'] ? r.non2xx - r.notModified : r.non2xx
      if (unexpected > 0 || r.errors > 0) throw new Error(`${url}: ${unexpected} unexpected answers, ${r.errors} errors`)
      if (process.env.BENCH_API_CPU_SPLIT) {
        const ms = (us: number) => (us / 1000 / r.requests).toFixed(2)
        console.log(`    user ${ms(used.user)} ms, system ${ms(used.system)} ms per request`)
      }
      return { ...r, cpuMs: (used.user + used.system) / 1000 / r.requests }
    }
    /**
     * A cold read's time, median of 15: the first whole answer after a write moved the
     * organisation's version (asked with the old tag until the write is heard), which
     * nothing kept can answer.
     */
    const coldMs = async (path: string) => {
      const times: number[] = []
      for (let i = 0; i < 15; i++) {
        const tag = (await fetch(`${service.url}${path}`, { headers: auth })).headers.get('etag') ?? ''
        await sql`UPDATE orgs SET name = name WHERE id = ${org}::uuid`.execute(service.store.db)
        for (;;) {
          const started = performance.now()
          const res = await fetch(`${service.url}${path}`, { headers: { ...auth, 'if-none-match': tag } })
          await res.arrayBuffer()
          if (res.status === 200) {
            times.push(performance.now() - started)
            break
          }
        }
      }
      return times.sort((a, b) => a - b)[7]
    }
    const ratios: number[] = []
    const unchangedRatios: number[] = []
    const sqlRatios: number[] = []
    /** One line of the table: `path` of the service beside the bare routes that serve its JSON (answer `n`). */
    const compare = async (label: string, path: string, n: string) => {
      // BENCH_API_ONLY=/api/domains/:id measures that path alone (for profiling one).
      if (process.env.BENCH_API_ONLY && !label.startsWith(process.env.BENCH_API_ONLY)) return
      // A few reads one at a time first: the database's first plans of a read, after the seed, took seconds.
      for (let i = 0; i < 5; i++) await (await fetch(`${service.url}${path}`, { headers: auth })).arrayBuffer()
      const ours = await measure(`${service.url}${path}`, auth)
      // BENCH_API_SKIP_BARE=1 leaves the references out (for profiling the service alone).
      const skip = process.env.BENCH_API_SKIP_BARE
      const once = skip ? { perSecond: NaN } : await measure(`${bareUrl}/bare/${n}`, {})
      const bare304 = skip ? { perSecond: NaN } : await measure(`${bareUrl}/tagged/${n}`, { 'if-none-match': '"t"' })
      const ratio = ours.perSecond / once.perSecond
      ratios.push(ratio)
      // The same read asked with its current ETag: every answer a 304.
      // A job's tag also moves every 5 s (its clock): its 304s are measured within one such tick.
      const clock = path.startsWith('/api/jobs') ? 5000 : 0
      const withTag = async () => {
        if (clock) await new Promise(resolve => setTimeout(resolve, clock - Date.now() % clock + 20))
        const tag = (await fetch(`${service.url}${path}`, { headers: auth })).headers.get('etag')
        if (!tag) throw new Error(`${path}: no ETag`)
        return { ...auth, 'if-none-match': tag }
      }
      const unchanged = await measure(`${service.url}${path}`, withTag, clock ? Math.min(SECONDS, 4) : SECONDS)
      const share = unchanged.notModified / unchanged.requests
      const cold = await coldMs(path)
      const sqlPath = await sqlRoute(path)
      const sameSql = sqlPath ? await measure(`${bareUrl}${sqlPath}`, {}) : undefined
      if (sameSql) sqlRatios.push(ours.perSecond / sameSql.perSecond)
      const unchangedRatio = unchanged.perSecond / bare304.perSecond
      unchangedRatios.push(unchangedRatio)
      console.log(
        `  ${label.padEnd(40)} ${ours.perSecond.toFixed(0).padStart(7)} ${`${ours.p50}`.padStart(4)}ms ` +
        `${`${ours.p99}`.padStart(4)}ms ${ours.cpuMs.toFixed(2).padStart(6)}ms ${once.perSecond.toFixed(0).padStart(9)} ` +
        `${ratio.toFixed(2).padStart(6)} ${unchanged.perSecond.toFixed(0).padStart(7)} ` +
        `${bare304.perSecond.toFixed(0).padStart(8)} ${unchangedRatio.toFixed(2).padStart(6)} ` +
        `${cold.toFixed(1).padStart(5)}ms` +
        (sameSql
          ? ` ${sameSql.perSecond.toFixed(0).padStart(10)} ${(ours.perSecond / sameSql.perSecond).toFixed(2).padStart(6)}`
          : '') +
        `${share < 1 ? ` (${(share * 100).toFixed(0)} % 304)` : ''}`
      )
    }
    for (const path of paths) await compare(path.replace(domain, ':id'), path, bareOf.get(path)!)
    // The jobs' reads at each history size, each beside a bare route serving that size's answer.
    for (const [i, jobs] of JOB_HISTORIES.entries()) {
      if (i > 0) await seedJobs(service.store.db, org, jobs - JOB_HISTORIES[i - 1])
      for (const path of await jobPaths()) {
        const reference = await bareRoute(path)
        const label = `${path.replace(/jobs\/[0-9a-f-]{36}/, 'jobs/:id')} (${jobs.toLocaleString('en')} jobs)`
        await compare(label, path, reference)
      }
    }
    const health = await measure(`${service.url}/healthz`, {})
    console.log(`  ${'/healthz (no key, no database)'.padEnd(36)} ${health.perSecond.toFixed(0).padStart(7)} ` +
      `${`${health.p50}`.padStart(4)}ms ${`${health.p99}`.padStart(4)}ms ${health.cpuMs.toFixed(2).padStart(6)}ms`)
    console.log(`  (goal >= 0.5 on every read: full reads beside one round trip, lowest ${Math.min(...ratios).toFixed(2)}; ` +
      `304s beside a bare 304, lowest ${Math.min(...unchangedRatios).toFixed(2)}` +
      (sqlRatios.length ? `; beside the same SQL: target >= 0.5, lowest ${Math.min(...sqlRatios).toFixed(2)}` : '') + ')')
    await referencePool?.end()
    await oncePool?.end()
    await onceLite?.close()
  } finally {
    load.close()
    await bare.close()
    await service.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/**
 * `n` more jobs of the organisation's history, as the queue leaves them: crawls and
 * discoveries of the last week, most completed, some failed, a few waiting or running.
 */
async function seedJobs (db: Db, org: string, n: number): Promise<void> {
  await sql`
    WITH p AS (SELECT array_agg(id) AS ids, array_agg(domain_id) AS domains, array_agg(url) AS urls, count(*)::int AS n
      FROM pages WHERE org_id = ${org}::uuid)
    INSERT INTO jobs (id, org_id, domain_id, page_id, name, lane, url, state, start_after, attempts_made, max_attempts,
      processed_at, finished_at, failed_reason, return_value, created_at)
    SELECT gen_random_uuid(), ${org}::uuid, p.domains[1 + g % p.n], p.ids[1 + g % p.n], 'crawl.page', 'crawl.page',
      p.urls[1 + g % p.n],
      s.state, now() - (g || ' seconds')::interval, 1, 3, now() - (g || ' seconds')::interval,
      CASE WHEN s.state IN ('completed', 'failed') THEN now() - (g || ' seconds')::interval END,
      CASE WHEN s.state = 'failed' THEN 'HTTP 503 from ' || p.urls[1 + g % p.n] END,
      CASE WHEN s.state = 'completed' THEN '{"outcome": "unchanged", "changed": false}'::jsonb END,
      now() - (g * 6 || ' seconds')::interval
    FROM p, generate_series(1, ${n}::int) AS g
    CROSS JOIN LATERAL (SELECT CASE WHEN g % 50 = 0 THEN 'failed' WHEN g % 997 = 0 THEN 'waiting'
      ELSE 'completed' END AS state) s`.execute(db)
  // As the queue does after every thousand crawls queued (see JobQueue.refreshFetchStatistics).
  await sql`ANALYZE jobs`.execute(db)
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
