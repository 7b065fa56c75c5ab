import pg from 'pg'

const FIRST_RETRY_MS = 1000
const LAST_RETRY_MS = 30_000

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
 */
export class ChannelListener {
  private client: pg.Client | undefined
  private retry: NodeJS.Timeout | undefined
  private retryMs = FIRST_RETRY_MS
  private stopped = false

  constructor (
    private readonly connectionString: string,
    private readonly channel: string,
    private readonly on: ListenerCallbacks
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
    client.on('notification', msg => {
      if (msg.payload) this.on.heard(msg.payload)
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${this.channel}`)
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
    this.on.listening?.()
  }

  async stop (): Promise<void> {
    this.stopped = true
    clearTimeout(this.retry)
    await this.client?.end().catch(() => {})
  }
}
