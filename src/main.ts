import { appBaseUrl, loadConfig } from './config.js'
import { startService } from './service.js'

const config = loadConfig()
const service = await startService(config).catch((err: NodeJS.ErrnoException) => {
  // The one failure a first start meets most: said in a sentence, with what to do, not as a stack trace.
  if (err.code !== 'EADDRINUSE') throw err
  process.stderr.write(`\nPort ${config.port} is in use by another program: stop it, or start Sitewatch on another ` +
    `port (PORT=${config.port + 1} npm start). The API key and the setup link printed above are kept until used ` +
    `(${config.dataDir}/first-api-key.txt; the link is printed again at the next start).\n\n`)
  process.exit(1)
})
if (service.url) {
  // The address people open (PUBLIC_BASE_URL, else localhost), as the setup link gives it.
  const base = config.port === 0 ? service.url : appBaseUrl(config)
  const where = `Sitewatch is up: the web app at ${base}/app, the API at ${base}/api (docs: ${base}/swagger)`
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
