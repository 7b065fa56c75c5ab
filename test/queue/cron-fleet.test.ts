import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { killLeft, ServiceProcess } from '../helpers/process.js'
import { createDatabase, eventually, FAST_JOBS, freePort, onPostgres } from '../helpers/service.js'

// The cron across a fleet: four processes of the service (each its API, workers and cron)
// share one PostgreSQL, and each looks for the scheduler's slots every few seconds. Each
// slot is sent once and run once, whichever process sends it first (the unique index on
// a job's singleton). The tick runs every 5 s here (SCHEDULER_TICK_SECONDS), so that a
// few slots pass in a test; the mechanism is the minute's.

describe('the cron across four processes', { skip: !onPostgres && 'needs TEST_DATABASE_URL: PGlite serves one process' }, () => {
  let db: Awaited<ReturnType<typeof createDatabase>>
  const fleet: ServiceProcess[] = []

  before(async () => {
    db = await createDatabase()
    const first = new ServiceProcess({ ...FAST_JOBS, DATABASE_URL: db.url, PORT: String(await freePort()), SCHEDULER_TICK_SECONDS: '5', LOG_LEVEL: 'warn' })
    // The first one migrates the database; the others start on it at once.
    await first.start()
    fleet.push(first)
    const others = await Promise.all([1, 2, 3].map(async () => new ServiceProcess({
      ...FAST_JOBS, DATABASE_URL: db.url, PORT: String(await freePort()), SCHEDULER_TICK_SECONDS: '5', LOG_LEVEL: 'warn'
    })))
    fleet.push(...others)
    await Promise.all(others.map(async p => { await p.start() }))
  })
  after(async () => {
    await Promise.all(fleet.map(async p => await p.stop('SIGTERM').catch(() => undefined)))
    killLeft(...fleet)
    await db?.drop()
  })

  it('sends each slot once and runs it once', async () => {
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    try {
      const slots = async () => (await client.query<{ singleton: string, n: number, state: string, attempts: number }>(`
        SELECT singleton, count(*)::int AS n, min(state) AS state, max(attempts_made)::int AS attempts FROM jobs
        WHERE name = 'schedule.tick' AND singleton IS NOT NULL GROUP BY 1 ORDER BY 1`)).rows
      // Four slots sent and run since all four processes were up.
      const since = new Date().toISOString()
      await eventually(async () => (await slots()).filter(s => s.singleton.split('@')[1] > since && s.state === 'completed').length >= 4,
        60_000, 'four slots of the tick run')
      const seen = await slots()
      assert.deepEqual(seen.filter(s => s.n !== 1), [], 'one job per slot')
      assert.deepEqual(seen.filter(s => s.state === 'completed' && s.attempts !== 1), [], 'each run once')
    } finally {
      await client.end()
    }
  })
})
