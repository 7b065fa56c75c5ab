import { readFileSync } from 'node:fs'

// How many renders run at once: BROWSER_CONCURRENCY at most, fewer on a machine short of
// memory or of CPU, so that a busy machine renders more slowly rather than failing its
// checks (a browser short of memory crashes; one starved of CPU times out). Memory: what
// the machine (or its container) has available, a render's share each. CPU: Linux's
// pressure stall information, the share of time tasks waited for a core (whoever made
// them wait: a render's own work on a machine with cores to spare makes none wait).

export const RENDER_SLOT_RULES = {
  /** How often the slots are sized. */
  everyMs: 1000,
  /** What one render may take, the browser's pages and the picture's decoding (MB). */
  renderMb: 256,
  /** Kept for everything else on the machine (MB). */
  reserveMb: 256,
  /** At this share of the last 10 s with tasks waiting for a core, one render fewer… */
  pressed: 40,
  /** …and below this one, one more, up to BROWSER_CONCURRENCY. */
  eased: 20
} as const

/** What the machine has to spare: available memory (MB), and the CPU's pressure (undefined where not measured). */
export interface MachineRoom {
  availableMb: number
  cpuPressure: number | undefined
}

/** The renders allowed next, from those allowed now (`slots`) and the machine's room. */
export function nextRenderSlots (slots: number, most: number, room: MachineRoom): number {
  const rules = RENDER_SLOT_RULES
  const byMemory = Math.floor((room.availableMb - rules.reserveMb) / rules.renderMb)
  let next = slots
  if (room.cpuPressure !== undefined && room.cpuPressure >= rules.pressed) next = slots - 1
  else if (room.cpuPressure === undefined || room.cpuPressure < rules.eased) next = slots + 1
  return Math.max(1, Math.min(most, byMemory, next))
}

/** The machine's room now: process.availableMemory (a container's limit counted) and /proc/pressure/cpu. */
export function machineRoom (): MachineRoom {
  let cpuPressure: number | undefined
  try {
    const some = /^some avg10=([\d.]+)/m.exec(readFileSync('/proc/pressure/cpu', 'latin1'))
    cpuPressure = some ? Number(some[1]) : undefined
  } catch {
    cpuPressure = undefined
  }
  return { availableMb: process.availableMemory() / 1024 / 1024, cpuPressure }
}

/** The renders a renderer allows, sized at most once per RENDER_SLOT_RULES.everyMs. */
export class RenderSlots {
  private slots: number
  private sizedAt = -Infinity

  constructor (private readonly most: number, private readonly room: () => MachineRoom = machineRoom) {
    this.slots = most
  }

  allowed (): number {
    const now = performance.now()
    if (now - this.sizedAt >= RENDER_SLOT_RULES.everyMs) {
      this.slots = nextRenderSlots(this.slots, this.most, this.room())
      this.sizedAt = now
    }
    return this.slots
  }
}
