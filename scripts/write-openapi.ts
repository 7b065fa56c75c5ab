// Writes the service's OpenAPI description to a file, for linting and client generation.
import { writeFileSync } from 'node:fs'
import pino from 'pino'
import { buildApp } from '../src/api/app.js'
import { loadConfig } from '../src/config.js'
import { Metrics } from '../src/metrics/metrics.js'
import { JobQueue } from '../src/queue/queue.js'
import { openStore } from '../src/store/db.js'
import { DataVersions } from '../src/store/data-versions.js'

const out = process.argv[2] ?? 'openapi.json'
const config = loadConfig({ ...process.env, DATA_DIR: 'memory://', LOG_LEVEL: 'silent', REDIS_URL: '' })
const store = await openStore({ dataDir: 'memory://' })
const queue = await JobQueue.start(store, config, { runsWorkers: false, log: pino({ level: 'silent' }) })
const metrics = new Metrics({ queue, ping: store.ping, poolUse: store.poolUse })
const deps = {
  db: store.db,
  queue,
  config,
  ping: store.ping,
  metrics,
  linkSecret: 'unused',
  ruleChecks: async () => [],
  readings: {
    outline: async () => { throw new Error('unused') },
    tryRules: async () => { throw new Error('unused') }
  },
  versions: new DataVersions()
}
const app = await buildApp(deps, { logger: false })
await app.ready()
writeFileSync(out, JSON.stringify(app.swagger(), null, 2))
await app.close()
await queue.stop()
await store.close()
console.log(`wrote ${out}`)
