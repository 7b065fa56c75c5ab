import { Piscina } from 'piscina'
import { documentFormat } from '../detection/detect.js'
import type { NoiseRules, PageType } from '../vocabulary/core.js'
import type { VisualDiff } from '../detection/detect.js'
import type { Brief, ResearchInputs } from '../vocabulary/research.js'
import type {
  Comparison, CompareTask, CurrentText, DocumentTask, FetchedPage, LinksTask, PageReading, ReadTask, RulesProblem,
  ScreenshotsTask, OutlineTask, OutlineReading, TryRulesTask
} from './analysis-thread.js'
import type { RulesTried } from '../detection/detect.js'
import { DocumentTimeout, readInProcess } from './document-process.js'

export type { Comparison, PageReading, RulesProblem }

/**
 * Reading and comparing pages (decode, parse, extract, mask noise, hash, diff,
 * classify, compress) is nearly all of a crawl's CPU. On worker threads it runs beside
 * the event loop, which stays free to keep requests and database round trips moving;
 * a page that exhausts a thread's memory fails its own job and nothing else.
 *
 * The threads are shared by every organisation, fairly: tasks wait in one line per
 * tenant, served in turn, and a task still running after SLOW_MS gives its thread's
 * share to the others (a thread more is started for them) while its tenant's next tasks
 * wait behind it. So a tenant's costly page (a 5 MB page, a costly selector) delays its
 * own checks, not everyone's.
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

/** A task that has run this long is slow: it no longer holds its share of the threads (see PageAnalysis). */
export const SLOW_MS = 2_000

/** The most a document read in a process of its own may hold in memory (see document-process.ts). */
export const DOCUMENT_PROCESS_MB = 256

/** A task handed to the threads: its tenant, the flag its thread sets when it starts it, and when that was seen. */
interface Running {
  tenant: string
  started: Int32Array
  controller: AbortController
  ms: number
  since?: number
  /** It has run past SLOW_MS: it no longer counts against the threads' share. */
  slow: boolean
}
/** How often running tasks are checked against their deadline. */
const WATCH_MS = 100

/** The threads and the tenants' lines in front of them: one per service, shared by every PageAnalysis of it. */
export class FairPool {
  readonly pool: Piscina
  readonly running = new Set<Running>()
  /** Each tenant's waiting tasks' starters, tenants in turn order (the next served is the first). */
  private readonly lines = new Map<string, Array<() => void>>()
  private watch: NodeJS.Timeout | undefined

  constructor (readonly threads: number, readonly deadlineMs: number) {
    // Under tsx (tests, dev) the worker is TypeScript, and its thread needs tsx registered first.
    const worker = import.meta.url.endsWith('.ts') ? './analysis-thread-tsx.mjs' : './analysis-thread.js'
    this.pool = new Piscina({
      filename: new URL(worker, import.meta.url).href,
      minThreads: 0,
      // A thread more per thread, for the others while slow tasks hold theirs.
      maxThreads: threads * 2,
      idleTimeout: 60_000,
      // Enough old space for a 5 MB page compared with its last version; a small young
      // generation (V8's default is 48 MB) keeps each thread about 40 MB smaller, and it
      // was not measurably slower.
      resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 4 }
    })
  }

  /** Whether `tenant`'s next task may start now. */
  private mayStart (tenant: string): boolean {
    let busy = 0
    for (const r of this.running) {
      if (r.slow && r.tenant === tenant) return false
      if (!r.slow) busy++
    }
    return busy < this.threads && this.running.size < this.threads * 2
  }

  /** Tasks running (of which slow) and waiting in the tenants' lines. */
  load (): { running: number, slow: number, waiting: number } {
    let slow = 0
    for (const r of this.running) if (r.slow) slow++
    let waiting = 0
    for (const line of this.lines.values()) waiting += line.length
    return { running: this.running.size, slow, waiting }
  }

  /** Waits for `tenant`'s turn at a thread. */
  async turn (tenant: string): Promise<void> {
    if (this.lines.size === 0 && this.mayStart(tenant)) return
    await new Promise<void>(resolve => {
      const line = this.lines.get(tenant)
      if (line) line.push(resolve)
      else this.lines.set(tenant, [resolve])
      this.serve()
    })
  }

  /** Starts waiting tasks while threads are free: one per tenant in turn, a tenant served goes last. */
  serve (): void {
    for (let served = true; served;) {
      served = false
      for (const [tenant, line] of this.lines) {
        if (!this.mayStart(tenant)) continue
        this.lines.delete(tenant)
        if (line.length > 1) this.lines.set(tenant, line.slice(1))
        served = true
        // Counted as running at once, so that the next pass sees its thread taken.
        line[0]()
        break
      }
    }
  }

  /** Runs `work` in `tenant`'s turn, under its deadline; `started` is set by its thread (or by `work`). */
  async run<T> (tenant: string, name: string, ms: number, work: (r: Running) => Promise<T>): Promise<T> {
    await this.turn(tenant)
    const running: Running = {
      tenant, started: new Int32Array(new SharedArrayBuffer(4)), controller: new AbortController(), ms, slow: false
    }
    this.running.add(running)
    this.watch ??= setInterval(() => this.enforceDeadlines(), WATCH_MS).unref()
    try {
      return await work(running)
    } catch (err) {
      if (running.controller.signal.aborted || err instanceof DocumentTimeout) throw new AnalysisTimeout(name, ms)
      throw err
    } finally {
      this.running.delete(running)
      if (this.running.size === 0 && this.watch) {
        clearInterval(this.watch)
        this.watch = undefined
      }
      // A thread freed (or replaced, after a deadline) takes the next waiting task at once.
      this.serve()
    }
  }

  /**
   * Stops each task that has run past its deadline since a thread started it (queued, its
   * clock stands); a task past SLOW_MS leaves its share of the threads to the others.
   */
  private enforceDeadlines (): void {
    const now = performance.now()
    let slower = false
    for (const r of this.running) {
      if (r.since === undefined && Atomics.load(r.started, 0) === 1) r.since = now
      if (r.since === undefined) continue
      if (now - r.since > r.ms) r.controller.abort()
      if (!r.slow && now - r.since > SLOW_MS) slower = r.slow = true
    }
    if (slower) this.serve()
  }

  async close (): Promise<void> {
    if (this.watch) clearInterval(this.watch)
    await this.pool.destroy()
  }
}

/** The analysis as one tenant sees it (see `for`): its tasks wait in its own line. */
export class PageAnalysis {
  private readonly shared: FairPool

  /**
   * `deadlineMs`: how long a page's task (read, links, compare, screenshots) may run once
   * a thread has started it (time waiting in line does not count); then its thread is
   * terminated and replaced, and the task fails with AnalysisTimeout.
   */
  constructor (threads: number | FairPool, deadlineMs = 60_000, private readonly tenant = '') {
    this.shared = typeof threads === 'number' ? new FairPool(threads, deadlineMs) : threads
  }

  /** What the threads are doing, for everyone (see FairPool.load). */
  load (): ReturnType<FairPool['load']> {
    return this.shared.load()
  }

  /** The same analysis for `tenant` (an organisation's id): its tasks wait their turn among that tenant's. */
  for (tenant: string): PageAnalysis {
    return new PageAnalysis(this.shared, this.shared.deadlineMs, tenant)
  }

  /** The page's reading; its text and compressed HTML only when its hash is not `previousHash`. */
  async read (task: ReadTask): Promise<PageReading> {
    return await this.run(task, 'read')
  }

  /**
   * A document (PDF, JSON, plain text) read into HTML, or why it cannot be. A format whose
   * decoder no heap limit bounds is read in a process of its own (see document-process.ts).
   */
  async document (task: DocumentTask): Promise<{ html: string } | { error: string }> {
    if (!documentFormat(task.contentType, task.raw)?.isolated) return await this.run(task, 'document')
    const { deadlineMs } = this.shared
    return await this.shared.run(this.tenant, 'document', deadlineMs, async running => {
      Atomics.store(running.started, 0, 1)
      return await readInProcess(task, { maxMb: DOCUMENT_PROCESS_MB, ms: deadlineMs })
    })
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
  ): Promise<Comparison> {
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
    return await this.run(inputs, 'brief', this.shared.deadlineMs * BRIEF_DEADLINES)
  }

  /** Problems with a page's noise rules, checked and priced off the event loop (see checkNoiseRules). */
  async checkRules (rules: NoiseRules): Promise<RulesProblem[]> {
    return await this.run({ rules }, 'rules')
  }

  /** A page's outline and where its blocks moved in its versions (parsing each version takes a while). */
  async outline (task: OutlineTask): Promise<OutlineReading> {
    return await this.run(task, 'outline')
  }

  /** A page's proposed rules tried on its last version and its earlier changes. */
  async tryRules (task: TryRulesTask): Promise<RulesTried> {
    return await this.run(task, 'tryPageRules')
  }

  private async run<T> (task: object, name: string, ms = this.shared.deadlineMs): Promise<T> {
    return await this.shared.run(this.tenant, name, ms, async running =>
      await this.shared.pool.run({ ...task, started: running.started }, { name, signal: running.controller.signal }))
  }

  async close (): Promise<void> {
    await this.shared.close()
  }
}
