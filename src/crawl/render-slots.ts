// How many renders run at once: BROWSER_CONCURRENCY at most, fewer on a machine short of
// memory (a browser short of memory crashes its check), one at least. What the machine (or
// its container) has available counts, a render's share each.
//
// Not the CPU: on two cores the renders themselves are most of the pressure, and one
// render fewer whenever tasks waited for a core (Linux's /proc/pressure/cpu at 40 %)
// halved the noisy rendered recrawl on a quiet machine (3.29 → 1.79 checks/s), while with
// three processes burning cores beside it no check failed either way (1.73 checks/s
// without that rule, 1.53 with it). A busy CPU makes renders slower, not failed.

export const RENDER_SLOT_RULES = {
  /** How often the slots are sized. */
  everyMs: 1000,
  /** What one render may take, the browser's pages and the picture's decoding (MB). */
  renderMb: 256,
  /** Kept for everything else on the machine (MB). */
  reserveMb: 256
} as const

/** The renders allowed at once with `availableMb` of memory to spare, out of `most`. */
export function renderSlots (most: number, availableMb: number): number {
  const byMemory = Math.floor((availableMb - RENDER_SLOT_RULES.reserveMb) / RENDER_SLOT_RULES.renderMb)
  return Math.max(1, Math.min(most, byMemory))
}

/** The memory the machine has available (MB), a container's limit counted. */
export const availableMb = (): number => process.availableMemory() / 1024 / 1024

/** The renders a renderer allows, sized at most once per RENDER_SLOT_RULES.everyMs. */
export class RenderSlots {
  private slots: number
  private sizedAt = -Infinity

  constructor (private readonly most: number, private readonly memory: () => number = availableMb) {
    this.slots = most
  }

  allowed (): number {
    const now = performance.now()
    if (now - this.sizedAt >= RENDER_SLOT_RULES.everyMs) {
      this.slots = renderSlots(this.most, this.memory())
      this.sizedAt = now
    }
    return this.slots
  }
}
