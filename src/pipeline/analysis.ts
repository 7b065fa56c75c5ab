import { Piscina } from 'piscina'
import type { DetectedChange } from '../domain/vocabulary.js'
import type { NoiseRules, PageType } from '../domain/vocabulary.js'
import type { VisualDiff } from '../changes/visual.js'
import type { Brief, ResearchInputs } from '../domain/research.js'
import type {
  CompareTask, CurrentText, FetchedPage, LinksTask, PageReading, ReadTask, ScreenshotsTask
} from './analysis-thread.js'

export type { PageReading }

/**
 * Reading and comparing pages (decode, parse, extract, mask noise, hash, diff,
 * classify, compress) is nearly all of a crawl's CPU. On worker threads it runs beside
 * the event loop, which stays free to keep requests and database round trips moving;
 * a page that exhausts a thread's memory fails its own job and nothing else.
 */
export class PageAnalysis {
  private readonly pool: Piscina

  constructor (threads: number) {
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
    return await this.pool.run(task, { name: 'read' })
  }

  /** The documents a page names for its reader (an API description, a feed), best first. */
  async links (task: LinksTask): Promise<string[]> {
    return await this.pool.run(task, { name: 'links' })
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
    return await this.pool.run(task, { name: 'compare' })
  }

  /** Two screenshots compared (decoding and comparing 10 million pixels takes a while: off the event loop). */
  async compareScreenshots (before: Buffer, after: Buffer): Promise<VisualDiff> {
    return await this.pool.run({ before, after } satisfies ScreenshotsTask, { name: 'screenshots' })
  }

  /** A research brief built from a domain's pages and changes (parsing pages and API descriptions takes a while). */
  async brief (inputs: ResearchInputs): Promise<Pick<Brief, 'window' | 'sections'>> {
    return await this.pool.run(inputs, { name: 'brief' })
  }

  async close (): Promise<void> {
    await this.pool.destroy()
  }
}
