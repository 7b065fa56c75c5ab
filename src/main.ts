import { loadConfig } from './config.js'
import { startService } from './service.js'

const config = loadConfig()
const service = await startService(config)
if (service.url) service.app?.log.info(`Sitewatch API on ${service.url} (docs: ${service.url}/swagger)`)

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
