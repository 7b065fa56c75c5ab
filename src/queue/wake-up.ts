import pg from 'pg'

/** The channel on which a transaction that queued jobs names their queues (see JobQueue.transaction). */
export const JOBS_CHANNEL = 'sitewatch_jobs'

const FIRST_RETRY_MS = 1000
const LAST_RETRY_MS = 30_000

/**
 * Keeps one PostgreSQL connection listening on JOBS_CHANNEL and passes each queue name
 * it hears to `onJobs`, so that a worker process starts on jobs that an API process
 * queued at once, not at its next poll. A lost connection is opened again after 1 s,
 * doubling to 30 s; until then the workers find jobs by polling, as they always can.
 */
export class WakeUpListener {
  private client: pg.Client | undefined
  private retry: NodeJS.Timeout | undefined
  private retryMs = FIRST_RETRY_MS
  private stopped = false

  constructor (
    private readonly connectionString: string,
    private readonly onJobs: (queue: string) => void,
    private readonly onError: (err: unknown) => void
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
      if (this.stopped) return
      if (err) this.onError(err)
      this.retry = setTimeout(() => {
        void this.connect()
      }, this.retryMs)
      this.retryMs = Math.min(this.retryMs * 2, LAST_RETRY_MS)
    }
    client.on('error', reconnect)
    client.on('end', () => {
      reconnect(new Error('the connection listening for new jobs closed'))
    })
    client.on('notification', msg => {
      if (msg.payload) this.onJobs(msg.payload)
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${JOBS_CHANNEL}`)
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
  }

  async stop (): Promise<void> {
    this.stopped = true
    clearTimeout(this.retry)
    await this.client?.end().catch(() => {})
  }
}
