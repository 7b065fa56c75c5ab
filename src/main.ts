import { loadConfig } from './config.js'
import { startService } from './service.js'

const config = loadConfig()
const service = await startService(config)
if (service.url) {
  const where = `Sitewatch is up: the web app at ${service.url}/app, the API at ${service.url}/api ` +
    `(docs: ${service.url}/swagger)`
  service.app?.log.info(where)
  if (service.config.role === 'all' || service.config.role === 'api') process.stdout.write(`\n${where}\n\n`)
}

// SIGTERM/SIGINT: stop taking requests and jobs, hand jobs in flight back to the
// queue, close the database, exit 0 — within 10 seconds.
let stopping = false
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return
    stopping = true
    const force = setTimeout(() => {
      process.exit(1)
    }, 10_000)
    force.unref()
    service.stop().then(
      () => process.exit(0),
      err => {
        console.error(err)
        process.exit(1)
      }
    )
  })
}
