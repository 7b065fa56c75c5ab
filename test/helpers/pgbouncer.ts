import { spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './ports.js'

/** Debian's PgBouncer (`apt-get install pgbouncer`), when the machine has it. */
export const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find(existsSync)

export interface PgBouncer {
  /** `serverUrl` with its host and port turned to the pooler's. */
  route: (serverUrl: string) => string
  /** What the pooler logged. */
  log: () => string
  stop: () => Promise<void>
}

/**
 * A PgBouncer of the test's own before the server of `serverUrl`, in `mode`, at the
 * settings docs/operations.md shows. It runs as the server's superuser: PgBouncer refuses
 * to run as root, and as root the test process is asked to switch.
 */
export async function startPgBouncer (serverUrl: string, mode: 'transaction' | 'session'): Promise<PgBouncer> {
  if (!PGBOUNCER) throw new Error('PgBouncer is not installed (apt-get install pgbouncer)')
  const server = new URL(serverUrl)
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'sitewatch-pgbouncer-'))
  chmodSync(dir, 0o755)
  const user = decodeURIComponent(server.username || 'postgres')
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`, { mode: 0o644 })
  writeFileSync(join(dir, 'pgbouncer.ini'), [
    '[databases]',
    `* = host=${server.hostname} port=${server.port || 5432}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${join(dir, 'users.txt')}`,
    `pool_mode = ${mode}`,
    'max_client_conn = 500',
    'default_pool_size = 20'
  ].join('\n') + '\n', { mode: 0o644 })
  const asRoot = process.getuid?.() === 0
  const child = spawn(PGBOUNCER, [...(asRoot ? ['-u', user] : []), join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] })
  // It logs to its standard error.
  let logged = ''
  child.stderr.on('data', d => { logged += String(d) })
  const log = () => logged
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', () => { if (logged.includes('process up')) resolve() })
    child.once('exit', code => { reject(new Error(`PgBouncer exited with ${code}: ${logged}`)) })
  })
  return {
    route: url => {
      const routed = new URL(url)
      routed.hostname = '127.0.0.1'
      routed.port = String(port)
      return routed.toString()
    },
    log,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM')
        await new Promise(resolve => child.once('exit', resolve))
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
