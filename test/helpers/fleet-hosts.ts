import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import type { Hit, SitesConfig, SitesMessage } from './fleet-sites.js'

/** The watched sites (fleet-sites.ts, in a thread of their own) and what they saw. */
export async function startHosts (config: SitesConfig) {
  // Under tsx (the tests) the thread's module is TypeScript: tsx is registered in it first.
  const sites = import.meta.url.endsWith('.ts')
    ? new Worker(
      `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(tsx => { tsx.register(); return ` +
      `import(${JSON.stringify(new URL('./fleet-sites.ts', import.meta.url).href)}) })`,
      { eval: true, workerData: config }
    )
    : new Worker(new URL('./fleet-sites.js', import.meta.url), { workerData: config })
  const [{ port }] = await once(sites, 'message') as [{ port: number }]
  const send = (msg: SitesMessage) => { sites.postMessage(msg) }
  return {
    origin: `http://127.0.0.1:${port}`,
    /** The requests seen so far, their times in epoch ms (performance.timeOrigin + performance.now()). */
    hits: async (): Promise<Hit[]> => {
      send('hits')
      return ((await once(sites, 'message')) as [{ hits: Hit[] }])[0].hits
    },
    /** The host's next page request is answered 429 with this Retry-After. */
    tooMany: (host: string, seconds: number) => { send({ tooMany: { host, seconds } }) },
    close: async () => {
      send('close')
      await once(sites, 'exit')
    }
  }
}

/** Per host, among `hits` since `since`: its requests, the most in flight at once, and its two closest starts. */
export function hostManners (hits: Hit[], since: number) {
  const byHost = new Map<string, Hit[]>()
  for (const h of hits.filter(x => x.start >= since)) byHost.set(h.host, [...(byHost.get(h.host) ?? []), h])
  return [...byHost].map(([host, hits]) => {
    const sorted = [...hits].sort((a, b) => a.start - b.start)
    const gaps = sorted.slice(1).map((h, i) => ({ gap: h.start - sorted[i].start, paths: `${sorted[i].path} then ${h.path}` }))
    const closest = gaps.reduce((a, b) => (b.gap < a.gap ? b : a), { gap: Infinity, paths: '' })
    return {
      host,
      requests: hits.length,
      maxInFlight: Math.max(...hits.map(h => h.inFlight)),
      minGap: closest.gap,
      closest: closest.paths
    }
  })
}
