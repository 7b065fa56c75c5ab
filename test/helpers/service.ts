import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import pg from 'pg'
import { loadConfig } from '../../src/config.js'
import { startService, type Service } from '../../src/service.js'
import { DATA_CHANNEL } from '../../src/store/data-versions.js'
import { dumpMigrated, openStore } from '../../src/store/db.js'
import { ApiClient } from './client.js'
import { repoRoot } from './paths.js'

// Tests run on PGlite in memory by default; with TEST_DATABASE_URL (CI) each service
// gets a fresh database on that PostgreSQL server, and with TEST_REDIS_URL the rate
// limits go through Redis. Either way a service starts from a migrated copy made once
// for the schema (initdb and the migrations took most of a test service's start).

export const onPostgres = Boolean(process.env.TEST_DATABASE_URL)
export const onRedis = Boolean(process.env.TEST_REDIS_URL)

/**
 * For a test of what no database changes (every page's width, colours and accessibility in
 * a browser): it runs in the embedded database's pass only. CI runs the suite once on each
 * database, and these sweeps of every page were its longest tests in both.
 */
export const sameOnEveryDatabase = { skip: onPostgres && 'the same on every database: run on the embedded one' }

/** The schema's fingerprint: the migrations, the store's settings and PGlite's version. */
const schemaKey = (() => {
  const root = repoRoot
  const hash = createHash('sha256')
  // Every file of the migrations (a new one missing here left tests on a seed without it).
  const migrations = readdirSync(new URL('src/store/migrations/', root)).filter(f => f.endsWith('.ts')).sort()
  for (const file of [...migrations.map(f => `src/store/migrations/${f}`), 'src/store/migrations.ts',
    'src/store/db.ts', 'node_modules/@electric-sql/pglite/package.json']) {
    hash.update(readFileSync(new URL(file, root)))
  }
  return hash.digest('hex').slice(0, 16)
})()

let seed: Promise<string> | undefined
/** A dump of a migrated embedded database, made by the first test process that needs it. */
async function pgliteSeed (): Promise<string> {
  return await (seed ??= (async () => {
    const file = join(tmpdir(), `sitewatch-test-seed-${schemaKey}.tar`)
    if (!existsSync(file)) await dumpMigrated(file)
    return file
  })())
}

let template: Promise<string> | undefined
/**
 * A migrated database on the PostgreSQL server that new ones copy (CREATE DATABASE …
 * TEMPLATE), made by the first test process that needs it: built under a name of its own
 * and renamed, so another process sees it whole or not at all.
 */
async function postgresTemplate (admin: pg.Client): Promise<string> {
  return await (template ??= (async () => {
    const name = `sw_template_${schemaKey}`
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
    if (found.rowCount! > 0) return name
    const building = `sw_building_${randomBytes(6).toString('hex')}`
    await admin.query(`CREATE DATABASE ${building}`)
    const url = new URL(process.env.TEST_DATABASE_URL!)
    url.pathname = `/${building}`
    await (await openStore({ databaseUrl: url.toString(), dataDir: '' })).close()
    try {
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`)
    } catch (err) {
      // Another process built it first (duplicate_database).
      if ((err as { code?: string }).code !== '42P04') throw err
      await admin.query(`DROP DATABASE ${building} WITH (FORCE)`)
    }
    return name
  })())
}

export async function createDatabase (): Promise<{ url: string, drop: () => Promise<void> }> {
  const admin = process.env.TEST_DATABASE_URL!
  const name = `sw_test_${randomBytes(6).toString('hex')}`
  const client = new pg.Client({ connectionString: admin })
  await client.connect()
  try {
    await client.query(`CREATE DATABASE ${name} TEMPLATE ${await postgresTemplate(client)}`)
  } finally {
    await client.end()
  }
  const url = new URL(admin)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: admin })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    }
  }
}

export interface TestService {
  service: Service
  url: string
  /** The bootstrap organisation's key. */
  key: string
  /** The first owner's one-time link of the web app. */
  setupLink: string
  api: ApiClient
  stop(): Promise<void>
}

// Tests poll the API, so limits are lifted unless a test sets the contract's own.
export const CONTRACT_RATE_LIMITS = { RATE_LIMIT_STANDARD_PER_MINUTE: '100', RATE_LIMIT_HEAVY_PER_HOUR: '10' }

export const FAST_JOBS = {
  RATE_LIMIT_STANDARD_PER_MINUTE: '100000',
  RATE_LIMIT_HEAVY_PER_HOUR: '100000',
  JOB_POLLING_SECONDS: '0.5',
  JOB_RETRY_DELAY_SECONDS: '1',
  CRAWL_PER_HOST_DELAY_MS: '0',
  CRAWL_TIMEOUT_MS: '2000'
}

export async function startTestService (
  env: Record<string, string | undefined> = {},
  opts: { databaseUrl?: string } = {}
): Promise<TestService> {
  const db = opts.databaseUrl ? undefined : onPostgres ? await createDatabase() : undefined
  const config = loadConfig({
    DATA_DIR: 'memory://',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    ...FAST_JOBS,
    ...((opts.databaseUrl ?? db) ? { DATABASE_URL: opts.databaseUrl ?? db!.url } : {}),
    // Each service counts in its own keys: test files sign in from 127.0.0.1 at once.
    ...(onRedis ? { REDIS_URL: process.env.TEST_REDIS_URL, REDIS_KEY_PREFIX: `sitewatch-rl-test-${randomUUID()}-` } : {}),
    ...env
  })
  let key = ''
  let setupLink = ''
  const service = await startService(config, {
    logger: false,
    ...(config.databaseUrl || config.dataDir !== 'memory://' ? {} : { databaseSeed: await pgliteSeed() }),
    onBootstrapKey: k => {
      key = k
    },
    onSetupLink: l => {
      setupLink = l
    }
  })
  const url = service.url ?? ''
  return {
    service,
    url,
    key,
    setupLink,
    api: new ApiClient(url, key),
    async stop () {
      await service.stop()
      await db?.drop()
    }
  }
}

/** Resolves once the clock reads `ms` (epoch ms): a timer may fire a millisecond early. */
export async function clockAt (ms: number): Promise<void> {
  while (Date.now() < ms) await new Promise(resolve => setTimeout(resolve, ms - Date.now() + 1))
}

/** Polls until `check` returns a value other than undefined or false, or fails after `ms`. */
export async function eventually<T> (check: () => Promise<T | undefined>, ms = 20_000, what = 'condition'): Promise<T> {
  const until = Date.now() + ms
  let last: unknown
  while (Date.now() < until) {
    try {
      const v = await check()
      // false is "not yet" too: a check written as a condition waits for it.
      if (v !== undefined && v !== false) return v
    } catch (err) {
      last = err
    }
    await new Promise(resolve => setTimeout(resolve, 150))
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`)
}

/**
 * Waits until the service's API has heard every write committed before the call (a
 * worker's, or a test's straight to the database): on PostgreSQL a write's notification
 * comes milliseconds after its commit, and until then the API may answer from before it
 * (api/validators.ts). Notifications come in commit order, so a probe's says the rest came.
 */
export async function writesHeard (t: TestService): Promise<void> {
  const { versions } = t.service
  if (!versions) throw new Error('this service serves no API')
  const probe = randomUUID()
  await sql`SELECT pg_notify(${DATA_CHANNEL}, ${`${probe}:heard`})`.execute(t.service.store.db)
  await eventually(async () => versions.of(probe) === 'xheard', 10_000, 'the writes to be heard')
}

/**
 * Polls GET `path` until `done` gives a value from its answer's `data`, asking with the
 * last answer's ETag as a polling client would: an unchanged answer is a 304, which no rate
 * limit counts (a test under the contract's 100 a minute may wait as long as it needs).
 */
export async function pollUntil<T> (
  api: ApiClient, path: string, done: (data: any) => T | undefined, ms = 30_000, what = `GET ${path}`
): Promise<T> {
  let tag: string | undefined
  return await eventually(async () => {
    const res = await api.get(path, tag ? { headers: { 'if-none-match': tag } } : {})
    if (res.status === 304) return undefined
    tag = res.headers.get('etag') ?? undefined
    return done(res.body.data)
  }, ms, what)
}

/** Waits until a job has finished (completed or failed) and returns it. */
export async function waitForJob (api: ApiClient, id: string, ms = 30_000): Promise<any> {
  return await eventually(
    async () => {
      const job = (await api.get(`/api/jobs/${id}`)).body.data
      return job.state === 'completed' || job.state === 'failed' ? job : undefined
    },
    ms,
    `job ${id}`
  )
}

/** Waits until none of the caller's jobs is waiting, running or due for a retry. */
export async function drainJobs (api: ApiClient, ms = 40_000): Promise<void> {
  let last: unknown
  try {
    await pollUntil(api, '/api/jobs/stats', s => {
      last = s
      return s.waiting + s.active + s.delayed === 0 ? true : undefined
    }, ms, 'the queue to drain')
  } catch (err) {
    // What was left says whether the queue was stuck or slow.
    throw new Error(`${(err as Error).message} (last seen: ${JSON.stringify(last)})`)
  }
}

/**
 * Waits until none of `queues` has a job waiting, delayed or running, as the service's
 * /metrics tells (the service may be another process): then whatever those queues were
 * to do is done, and an "exactly once" can be counted.
 */
export async function queuesIdle (url: string, queues: readonly string[], ms = 30_000): Promise<void> {
  await eventually(async () => {
    const text = await (await fetch(`${url}/metrics`)).text()
    const busy = [...text.matchAll(/^sitewatch_queue_jobs\{queue="([^"]+)",state="[a-z]+"\} (\d+)$/gm)]
      .filter(m => queues.includes(m[1]) && Number(m[2]) > 0)
    return busy.length === 0 ? true : undefined
  }, ms, `the queues ${queues.join(', ')} to be idle`)
}

export { freePort } from './ports.js'
