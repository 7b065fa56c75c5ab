import { connect, createServer, type Server, type Socket } from 'node:net'

/**
 * A TCP proxy between the service and a shared server (PostgreSQL, Redis) that a test
 * can cut: every open connection is reset and new ones are refused until it is restored.
 * That is what a restart, a failover or a network blip looks like from the client, and
 * the shared server itself is never touched.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>()
  private server: Server | undefined
  private refusing = false
  /** The server's answers are dropped on the way (see muteAnswers). */
  private answersMuted = false
  port = 0

  constructor (
    private readonly targetHost: string,
    private readonly targetPort: number
  ) {}

  async start (): Promise<this> {
    this.server = createServer(client => {
      if (this.refusing) {
        client.resetAndDestroy()
        return
      }
      const upstream = connect(this.targetPort, this.targetHost)
      for (const [a, b] of [[client, upstream], [upstream, client]]) {
        this.sockets.add(a)
        a.on('error', () => b.destroy())
        a.on('close', () => {
          this.sockets.delete(a)
          b.destroy()
        })
      }
      client.pipe(upstream)
      upstream.on('data', chunk => {
        if (!this.answersMuted) client.write(chunk)
      })
    })
    await new Promise<void>(resolve => this.server!.listen(0, '127.0.0.1', resolve))
    this.port = (this.server.address() as { port: number }).port
    return this
  }

  /** The same URL, through the proxy. */
  route (url: string): string {
    const u = new URL(url)
    u.hostname = '127.0.0.1'
    u.port = String(this.port)
    return u.toString()
  }

  /** Resets every connection and refuses new ones until restore(). */
  cut (): void {
    this.refusing = true
    for (const s of this.sockets) s.resetAndDestroy()
  }

  restore (): void {
    this.refusing = false
    this.answersMuted = false
  }

  /**
   * Drops what the server sends from now on, until cut(): a statement sent meanwhile runs
   * and commits, and its answer is lost with the connection, as in a network partition.
   */
  muteAnswers (): void {
    this.answersMuted = true
  }

  async close (): Promise<void> {
    this.cut()
    await new Promise(resolve => this.server?.close(resolve))
  }
}

/** A TcpProxy in front of the server that `url` names. */
export async function proxyFor (url: string): Promise<TcpProxy> {
  const u = new URL(url)
  return await new TcpProxy(u.hostname || '127.0.0.1', Number(u.port || (u.protocol === 'redis:' ? 6379 : 5432)))
    .start()
}
