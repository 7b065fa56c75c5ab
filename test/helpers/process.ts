import { spawn, type ChildProcess } from 'node:child_process'
import { programArgs } from './paths.js'
import { eventually } from './service.js'

/** The service as a real process (src/main.ts), with `env`, its output kept. */
export class ServiceProcess {
  child!: ChildProcess
  output = ''
  constructor (readonly env: Record<string, string>) {}

  async start (): Promise<void> {
    this.child = spawn(process.execPath, programArgs('src/main.ts'), {
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    this.child.stdout!.on('data', d => {
      this.output += d
    })
    this.child.stderr!.on('data', d => {
      this.output += d
    })
    await eventually(
      async () => {
        const res = await fetch(`http://127.0.0.1:${this.env.PORT}/readyz`).catch(() => undefined)
        return res?.ok ? true : undefined
      },
      // Under tsx each process compiles the service first: several started at once on a busy machine take a while.
      90_000,
      'the service to start'
    )
  }

  get key (): string {
    return /sw_live_[A-Za-z0-9_-]+/.exec(this.output)?.[0] ?? ''
  }

  async stop (signal: NodeJS.Signals): Promise<{ code: number | null, ms: number }> {
    const started = Date.now()
    const exited = new Promise<number | null>(resolve => this.child.once('exit', code => resolve(code)))
    this.child.kill(signal)
    return { code: await exited, ms: Date.now() - started }
  }
}

/** A failed assertion must not leave a service running: the test run would never end. */
export function killLeft (...processes: ServiceProcess[]): void {
  for (const p of processes) if (p.child?.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL')
}
