import { Piscina } from 'piscina'
import type { DetectedChange } from '../vocabulary/core.js'
import type { NoiseRules, PageType } from '../vocabulary/core.js'
import type { VisualDiff } from '../detection/visual.js'
import type { Brief, ResearchInputs } from '../vocabulary/research.js'
import type {
  CompareTask, CurrentText, DocumentTask, FetchedPage, LinksTask, PageReading, ReadTask, ScreenshotsTask
} from './analysis-thread.js'

export type { PageReading }

/**
 * Reading and comparing pages (decode, parse, extract, mask noise, hash, diff,
 * classify, compress) is nearly all of a crawl's CPU. On worker threads it runs beside
 * the event loop, which stays free to keep requests and database round trips moving;
 * a page that exhausts a thread's memory fails its own job and nothing else.
 */
/**
 * A page's analysis outlived its deadline: its thread was replaced, and the check fails
 * for that page alone (its noise rules or its size are the likely cause).
 */
export class AnalysisTimeout extends Error {
  constructor (readonly task: string, readonly ms: number) {
    super(`Reading and comparing the page took longer than ${ms / 1000} s and was stopped; ` +
      'its ignorePatterns, its noise rules or its size may be the cause')
  }
}

/** How long a research brief may take, in page deadlines: it reads a whole domain's history. */
const BRIEF_DEADLINES = 10

/** A task handed to the threads: the flag its thread sets when it starts it, and when that was seen. */
interface Running {
  started: Int32Array
  controller: AbortController
  ms: number
  since?: number
}
/** How often running tasks are checked against their deadline. */
const WATCH_MS = 100

export class PageAnalysis {
  private readonly pool: Piscina
  private readonly running = new Set<Running>()
  private watch: NodeJS.Timeout | undefined

  /**
   * `deadlineMs`: how long a page's task (read, links, compare, screenshots) may run once
   * a thread has started it (time waiting in the queue does not count); then its thread is
   * terminated and replaced, and the task fails with AnalysisTimeout.
   */
  constructor (threads: number, private readonly deadlineMs = 60_000) {
    // Under tsx (tests, dev) the worker is TypeScript, and its thread needs tsx registered first.
    const worker = import.meta.url.endsWith('.ts') ? './analysis-thread-tsx.mjs' : './analysis-thread.js'
    this.pool = new Piscina({
      filename: new URL(worker, import.meta.url).href,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: 60_000,
      // Enough old space for a 5 MB page compared with its last version; a small young
      // generation (V8's default is 48 MB) keeps each thread about 40 MB smaller, and it
      // was not measurably slower.
      resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 4 }
    })
  }

  /** The page's reading; its text and compressed HTML only when its hash is not `previousHash`. */
  async read (task: ReadTask): Promise<PageReading> {
    return await this.run(task, 'read')
  }

  /** A document (PDF, JSON, plain text) read into HTML, or why it cannot be. */
  async document (task: DocumentTask): Promise<{ html: string } | { error: string }> {
    return await this.run(task, 'document')
  }

  /** The documents a page names for its reader (an API description, a feed), best first. */
  async links (task: LinksTask): Promise<string[]> {
    return await this.run(task, 'links')
  }

  async compare (
    previousText: string,
    current: CurrentText,
    pageType: PageType,
    rules?: NoiseRules | null,
    pages?: { before: FetchedPage, after: FetchedPage }
  ): Promise<DetectedChange[]> {
    // Only what the comparison reads crosses to the thread (a snapshot also holds its compressed HTML).
    const { text, language, priceLines } = current
    const task: CompareTask = { previousText, current: { text, language, priceLines }, pageType, rules, pages }
    return await this.run(task, 'compare')
  }

  /** Two screenshots compared (decoding and comparing 10 million pixels takes a while: off the event loop). */
  async compareScreenshots (before: Buffer, after: Buffer): Promise<VisualDiff> {
    return await this.run({ before, after } satisfies ScreenshotsTask, 'screenshots')
  }

  /** A research brief built from a domain's pages and changes (parsing pages and API descriptions takes a while). */
  async brief (inputs: ResearchInputs): Promise<Pick<Brief, 'window' | 'sections'>> {
    return await this.run(inputs, 'brief', this.deadlineMs * BRIEF_DEADLINES)
  }

  private async run<T> (task: object, name: string, ms = this.deadlineMs): Promise<T> {
    const started = new Int32Array(new SharedArrayBuffer(4))
    const running: Running = { started, controller: new AbortController(), ms }
    this.running.add(running)
    this.watch ??= setInterval(() => this.enforceDeadlines(), WATCH_MS).unref()
    try {
      return await this.pool.run({ ...task, started: running.started }, { name, signal: running.controller.signal })
    } catch (err) {
      if (running.controller.signal.aborted) throw new AnalysisTimeout(name, ms)
      throw err
    } finally {
      this.running.delete(running)
      if (this.running.size === 0 && this.watch) {
        clearInterval(this.watch)
        this.watch = undefined
      }
    }
  }

  /** Stops each task that has run past its deadline since a thread started it (queued, its clock stands). */
  private enforceDeadlines (): void {
    const now = performance.now()
    for (const r of this.running) {
      if (r.since === undefined && Atomics.load(r.started, 0) === 1) r.since = now
      if (r.since !== undefined && now - r.since > r.ms) r.controller.abort()
    }
  }

  async close (): Promise<void> {
    if (this.watch) clearInterval(this.watch)
    await this.pool.destroy()
  }
}
