// The service as `npm start` runs it, in processes of its own, driven through its API:
// what the end-to-end benchmarks share.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'

/**
 * How `npm start` runs the service: the environment its script sets before `node` (`NAME=value`, or
 * `NAME=${NAME:-value}`, which the caller's own NAME overrides) and its node flags.
 */
export const START = (() => {
  const words = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'))
    .scripts.start as string).split(/\s+/)
  const env: Record<string, string> = {}
  for (const word of words) {
    const set = /^([A-Z_]+)=(?:\$\{\1:-(.*)\}|(.*))$/.exec(word)
    if (set) env[set[1]] = process.env[set[1]] ?? set[2] ?? set[3]
  }
  return { env, flags: words.filter(word => word.startsWith('--')) }
})()

/** A port free on 127.0.0.1 a moment ago. */
export async function freePort (): Promise<number> {
  return await new Promise<number>(resolve => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })
}

/**
 * Starts one service process (src/main.js, built) with `env`; its stderr is the bench's, and
 * each line of its log (warnings and errors) goes to `onLog`, or nowhere.
 * BENCH_SERVICE_FLAGS adds node flags of its own (`--cpu-prof --cpu-prof-dir=…` profiles it).
 */
export function startService (env: NodeJS.ProcessEnv, onLog?: (line: string) => void): ChildProcess {
  const main = fileURLToPath(new URL('../src/main.js', import.meta.url))
  const extra = process.env.BENCH_SERVICE_FLAGS?.split(/\s+/).filter(Boolean) ?? []
  const child = spawn(process.execPath, [...START.flags, ...extra, main], {
    env: { ...process.env, ...START.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', onLog ? 'pipe' : 'ignore', 'inherit']
  })
  if (onLog && child.stdout) createInterface({ input: child.stdout }).on('line', onLog)
  return child
}

/** Stops the processes (SIGTERM) and waits for them to exit. */
export async function stopServices (processes: ChildProcess[]): Promise<void> {
  for (const p of processes) p.kill('SIGTERM')
  await Promise.all(processes.map(async p => p.exitCode === null ? await once(p, 'exit') : undefined))
}

/** Waits until the API at `base` answers /readyz with 200. */
export async function untilReady (base: string): Promise<void> {
  for (;;) {
    const ready = await request(`${base}/readyz`).then(r => r.body.dump().then(() => r.statusCode === 200), () => false)
    if (ready) return
    await sleep(200)
  }
}

/** A call to the API at `base` with a bearer key, answering its parsed JSON body. */
export function apiClient (base: string) {
  return async (key: string, method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<any> => {
    const res = await request(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined
    })
    return await res.body.json()
  }
}
