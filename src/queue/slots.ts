import { availableParallelism } from 'node:os'
import { getHeapStatistics } from 'node:v8'

// How many jobs of a queue a worker runs at once. A crawl mostly waits (for the site's
// answer, for its host's turn): at a fixed 16 slots a worker left most of its CPU idle
// (a one-host recrawl used 1.1 of 2 cores, and ran 1.3 times as fast at 64). So a queue
// may grow from its base while every slot is taken and the process has CPU and memory to
// spare, and shrinks back towards its base when either runs short.

/** What the process used since the last look: a share of the machine's cores, and of its heap's limit (buffers too). */
export interface Load {
  cpu: number
  heap: number
}

export const SLOT_RULES = {
  /** How often the slots are sized. */
  everyMs: 1000,
  grow: 1.25,
  shrink: 0.8,
  /** Below this share of the cores, a worker whose slots are all taken takes more. */
  roomyCpu: 0.8,
  /** At this share of the cores, or of the heap's limit, it takes fewer. */
  fullCpu: 0.95,
  fullHeap: 0.7
} as const

/** The slots for the next interval: more when all were taken with room to spare, fewer when short of room. */
export function nextSlots (slots: number, base: number, max: number, allTaken: boolean, load: Load): number {
  if (load.cpu >= SLOT_RULES.fullCpu || load.heap >= SLOT_RULES.fullHeap) {
    return Math.max(base, Math.floor(slots * SLOT_RULES.shrink))
  }
  if (allTaken && load.cpu < SLOT_RULES.roomyCpu) return Math.min(max, Math.ceil(slots * SLOT_RULES.grow))
  return slots
}

/** The process's load since the last call (its CPU over every thread: analysis, the embedded database). */
export class LoadGauge {
  private cpu = process.cpuUsage()
  private at = performance.now()
  private readonly cores = availableParallelism()

  read (): Load {
    const cpu = process.cpuUsage(this.cpu)
    const now = performance.now()
    const elapsedMs = Math.max(1, now - this.at)
    this.cpu = process.cpuUsage()
    this.at = now
    const heap = getHeapStatistics()
    // Buffers outside the heap (pages, a discovery's inflated sitemaps) press on memory too.
    const { external } = process.memoryUsage()
    return {
      cpu: (cpu.user + cpu.system) / 1000 / elapsedMs / this.cores,
      heap: (heap.used_heap_size + external) / heap.heap_size_limit
    }
  }
}
