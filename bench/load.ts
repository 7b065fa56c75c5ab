// The load generator of the API benchmark, in a process of its own so that its work is
// not counted against the server measured. Asked over IPC, it answers autocannon's figures.
import autocannon from 'autocannon'

interface LoadRequest {
  url: string
  headers: Record<string, string>
  seconds: number
  connections: number
}

process.on('message', (msg: LoadRequest) => {
  void (async () => {
    const result = await autocannon({
      url: msg.url,
      headers: msg.headers,
      duration: msg.seconds,
      connections: msg.connections
    })
    process.send!({
      requests: result.requests.total,
      perSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      notModified: result['3xx'],
      errors: result.errors
    })
  })()
})
process.on('disconnect', () => process.exit(0))
process.send!({ ready: true })
