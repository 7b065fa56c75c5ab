import { randomUUID } from 'node:crypto'
import pg from 'pg'

const FIRST_RETRY_MS = 1000
const LAST_RETRY_MS = 30_000
/** How long a listener waits to hear its probe before it takes itself for deaf. */
const PROBE_MS = 5000
/** Every probe's payload starts so; no listener passes one on (every process's probes reach every listener). */
const PROBE = '~probe:'
const DEAF = (channel: string): string =>
  `a notification on ${channel} sent through the pool was not heard in ${PROBE_MS / 1000} s: DATABASE_URL ` +
  'may be a pooler in transaction mode; set DATABASE_DIRECT_URL to a session with the server (docs/operations.md)'

/** What a listener is told: each payload heard, and when it may have missed some. */
export interface ListenerCallbacks {
  heard: (payload: string) => void
  /** Listening (again): from now on, every payload is heard. */
  listening?: () => void
  /** The connection is lost: payloads sent until `listening` is called again are never heard. */
  lost?: () => void
  error: (err: unknown) => void
}

/**
 * Keeps one PostgreSQL connection listening on `channel` and passes each payload it
 * hears along: new jobs (a worker starts on jobs that an API process queued at once, not
 * at its next poll) and the writes the API's validators follow. A lost connection is
 * opened again after 1 s, doubling to 30 s; until then the workers find jobs by polling,
 * and the API sends no validator.
 *
 * A connection is listening only once it heard a probe that `sendProbe` sent from another
 * connection: through a pooler in transaction mode (PgBouncer's), LISTEN succeeds and then
 * nothing is ever heard, and a process that trusted it would serve stale validators.
 */
export class ChannelListener {
  private client: pg.Client | undefined
  private retry: NodeJS.Timeout | undefined
  private retryMs = FIRST_RETRY_MS
  private stopped = false
  private deafTold = false
  private endProbe = (): void => {}

  constructor (
    private readonly connectionString: string,
    private readonly channel: string,
    private readonly on: ListenerCallbacks,
    private readonly sendProbe: (payload: string) => Promise<void>
  ) {}

  async start (): Promise<void> {
    await this.connect()
  }

  private async connect (): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, keepAlive: true })
    let lost = false
    const reconnect = (err?: unknown): void => {
      if (lost) return
      lost = true
      if (this.client === client) this.client = undefined
      client.end().catch(() => {})
      this.on.lost?.()
      if (this.stopped) return
      if (err) this.on.error(err)
      this.retry = setTimeout(() => {
        void this.connect()
      }, this.retryMs)
      this.retryMs = Math.min(this.retryMs * 2, LAST_RETRY_MS)
    }
    client.on('error', reconnect)
    client.on('end', () => {
      reconnect(new Error(`the connection listening on ${this.channel} closed`))
    })
    const probe = PROBE + randomUUID()
    let probeHeard = (): void => {}
    const heardProbe = new Promise<boolean>(resolve => {
      probeHeard = () => { resolve(true) }
      this.endProbe = () => { resolve(false) }
      setTimeout(resolve, PROBE_MS, false).unref()
    })
    client.on('notification', msg => {
      if (msg.payload === probe) probeHeard()
      else if (msg.payload && !msg.payload.startsWith(PROBE)) this.on.heard(msg.payload)
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${this.channel}`)
      await this.sendProbe(probe)
      if (!await heardProbe) {
        // Said once: a pooler's mode does not change between tries.
        reconnect(this.deafTold ? undefined : new Error(DEAF(this.channel)))
        this.deafTold = true
        return
      }
    } catch (err) {
      reconnect(err)
      return
    }
    if (this.stopped) {
      reconnect()
      return
    }
    this.client = client
    this.retryMs = FIRST_RETRY_MS
    this.deafTold = false
    this.on.listening?.()
  }

  async stop (): Promise<void> {
    this.stopped = true
    clearTimeout(this.retry)
    this.endProbe()
    await this.client?.end().catch(() => {})
  }
}
