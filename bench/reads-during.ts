// The reads a person or a client makes while a crawl runs (#53: p95 ≤ 100 ms): the queue's
// statistics, a domain's details, and a page's PATCH, each asked in turn every 100 ms
// until the crawl ends, and timed from the client's side. The client runs in a process of
// its own, as a person's browser or a client's program does: in the process that runs the
// service (the scenario bench's), its own turns of the event loop counted in every read.
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'

/** Each read's times, in ms, by its name. */
export type ReadTimes = Record<string, number[]>

export interface ReadProbe {
  /** Stops the probe and gives each read's times. */
  stop(): Promise<ReadTimes>
}

interface Target { base: string, apiKey: string, domainId: string, pageId: string }

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN
}

export function probeReads (base: string, apiKey: string, domainId: string, pageId: string): ReadProbe {
  const child = fork(fileURLToPath(import.meta.url), [JSON.stringify({ base, apiKey, domainId, pageId })], {
    execArgv: [], stdio: 'inherit'
  })
  const said = new Promise<ReadTimes>((resolve, reject) => {
    child.once('message', message => { resolve(message as ReadTimes) })
    child.once('exit', code => { reject(new Error(`the read probe exited with ${code} before it said its times`)) })
  })
  said.catch(() => {})
  return {
    async stop () {
      // A probe that failed has exited: `said` says so.
      if (child.connected) child.send('stop')
      return await said
    }
  }
}

/** Each read's p50, p95 and most, in ms, and how many were asked. */
export function describeReads (times: ReadTimes): string {
  return Object.entries(times).map(([name, ms]) =>
    `${name} p50 ${percentile(ms, 0.5).toFixed(0)} ms, p95 ${percentile(ms, 0.95).toFixed(0)} ms, ` +
    `most ${Math.max(...ms).toFixed(0)} ms (${ms.length} asked)`).join('; ')
}

/** `runs`' times, read by read. */
export function pooledReads (runs: ReadTimes[]): ReadTimes {
  const pooled: ReadTimes = {}
  for (const run of runs) for (const [name, ms] of Object.entries(run)) (pooled[name] ??= []).push(...ms)
  return pooled
}

async function probe ({ base, apiKey, domainId, pageId }: Target, stopped: { now: boolean }): Promise<ReadTimes> {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }
  let priority = 5
  const reads: Array<[string, () => Promise<number>]> = [
    ['GET /api/jobs/stats', async () => await call('GET', '/api/jobs/stats')],
    ['GET /api/domains/:id', async () => await call('GET', `/api/domains/${domainId}`)],
    ['PATCH a page', async () => {
      priority = priority === 5 ? 4 : 5
      return await call('PATCH', `/api/domains/${domainId}/pages/${pageId}`, { priority })
    }]
  ]
  const times = new Map<string, number[]>(reads.map(([name]) => [name, []]))
  async function call (method: 'GET' | 'PATCH', path: string, body?: unknown): Promise<number> {
    const res = await request(`${base}${path}`, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body)
    })
    await res.body.dump()
    if (res.statusCode !== 200) throw new Error(`${method} ${path}: HTTP ${res.statusCode}`)
    return res.statusCode
  }
  while (!stopped.now) {
    for (const [name, read] of reads) {
      const started = performance.now()
      await read()
      times.get(name)!.push(performance.now() - started)
    }
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  return Object.fromEntries(times)
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  const stopped = { now: false }
  process.once('message', () => { stopped.now = true })
  const said = await probe(JSON.parse(process.argv[2]) as Target, stopped)
  process.send(said, () => { process.exit(0) })
}
