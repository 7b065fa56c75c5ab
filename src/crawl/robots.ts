import robotsParserCjs from 'robots-parser'
import { ROBOTS_AGENT, type Fetcher, type InTurn } from './fetch.js'
import { FetchError } from './errors.js'
import type { TurnInHand } from './polite.js'

export interface Robots {
  isAllowed(url: string, ua?: string): boolean | undefined
  getSitemaps(): string[]
  getCrawlDelay(ua?: string): number | undefined
}
// A CommonJS module whose types describe an ES default export.
const robotsParser = robotsParserCjs as unknown as (url: string, robotstxt: string) => Robots

const TTL_MS = 60 * 60 * 1000
const ERROR_TTL_MS = 5 * 60 * 1000
const MAX_ROBOTS_BYTES = 512 * 1024
const MAX_ENTRIES = 5_000

/**
 * Where the fleet keeps the robots.txt files its processes read (see services/host-pacer.ts):
 * a host's file is fetched once for every worker, not once per worker.
 */
export interface RobotsFiles {
  /** The text kept for `origin` and until when it holds (epoch ms), if any. */
  read: (origin: string) => Promise<{ body: string, expiresAt: number } | undefined>
  write: (origin: string, body: string, expiresAt: number) => Promise<void>
}

/**
 * robots.txt per origin, cached an hour (here, and in the fleet's `files` when given). A
 * missing or unreadable file allows everything.
 */
export class RobotsCache {
  private readonly cache = new Map<string, { robots: Robots, expires: number }>()
  private readonly inflight = new Map<string, Promise<Robots>>()

  constructor (
    private readonly fetcher: Fetcher,
    /** Sends the request for robots.txt in the host's turn: the one in hand, if any. */
    private readonly polite: <T>(url: string, request: (inTurn: InTurn) => Promise<T>, inHand?: TurnInHand) =>
    Promise<T> = async (_url, request) => await request({}),
    private readonly files?: RobotsFiles
  ) {}

  /** The host's Crawl-delay for us, when its robots.txt is known (at most a minute); 0 otherwise. */
  crawlDelayMs (pageUrl: string): number {
    const seconds = this.cache.get(new URL(pageUrl).origin)?.robots.getCrawlDelay(ROBOTS_AGENT)
    return typeof seconds === 'number' && seconds > 0 ? Math.min(60, seconds) * 1000 : 0
  }

  /** `inHand`: a crawl's turn, used should the file be fetched (a request waiting for another turn would hold it). */
  async get (pageUrl: string, inHand?: TurnInHand): Promise<Robots> {
    const origin = new URL(pageUrl).origin
    const hit = this.cache.get(origin)
    if (hit && hit.expires > Date.now()) return hit.robots
    let pending = this.inflight.get(origin)
    if (!pending) {
      pending = this.load(origin, inHand).finally(() => this.inflight.delete(origin))
      this.inflight.set(origin, pending)
    }
    return await pending
  }

  async isAllowed (pageUrl: string, inHand?: TurnInHand): Promise<boolean> {
    return (await this.get(pageUrl, inHand)).isAllowed(pageUrl, ROBOTS_AGENT) !== false
  }

  private async load (origin: string, inHand?: TurnInHand): Promise<Robots> {
    const url = `${origin}/robots.txt`
    // The fleet's copy, when one is kept and still holds; it cannot be read: this process fetches its own.
    const kept = await this.files?.read(origin).catch(() => undefined)
    if (kept && kept.expiresAt > Date.now()) return this.remember(origin, robotsParser(url, kept.body), kept.expiresAt)
    let body = ''
    let ttl = TTL_MS
    try {
      const ask = { accept: 'text/plain,*/*;q=0.5', maxBytes: MAX_ROBOTS_BYTES }
      const res = await this.polite(url, async inTurn => await this.fetcher.fetch(url, { ...ask, ...inTurn }), inHand)
      body = res.status >= 200 && res.status < 300 ? res.body.toString('utf8') : ''
      if (res.status >= 500) ttl = ERROR_TTL_MS
    } catch (err) {
      // A robots.txt that could not be fetched allows everything for a while; one whose
      // turn could not be taken (the database, a machine too busy) was not asked: nothing is fetched.
      if (!(err instanceof FetchError) || err.code === 'BLOCKED_ADDRESS') throw err
      ttl = ERROR_TTL_MS
    }
    const expires = Date.now() + ttl
    await this.files?.write(origin, body, expires).catch(() => {})
    return this.remember(origin, robotsParser(url, body), expires)
  }

  private remember (origin: string, robots: Robots, expires: number): Robots {
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!)
    this.cache.set(origin, { robots, expires })
    return robots
  }
}
