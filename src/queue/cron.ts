import { CronExpressionParser } from 'cron-parser'

// Jobs sent on a cron schedule, once per slot however many processes ask: each process
// looks every few seconds for the schedules' latest slot, and sends it as a job whose
// `singleton` is its queue and time. The unique index on it keeps one (see queue.ts).

/** How often a process looks for a slot due. */
export const CRON_LOOK_MS = 5000
/** A slot older than this when first seen (the process was not running then) is not sent late. */
const LATE_MS = 120_000

export interface Schedule { name: string, cron: string }

/** The key of a schedule's slot: its queue and time. */
export const slotKey = (name: string, at: Date) => `${name}@${at.toISOString()}`

export class CronSlots {
  private readonly schedules: Schedule[] = []
  private readonly sent = new Map<string, number>()

  add (name: string, cron: string): void {
    // Parsed now, so that a wrong expression fails at start.
    CronExpressionParser.parse(cron, { tz: 'UTC' })
    this.schedules.push({ name, cron })
  }

  /** The slots due at `now` and not yet sent by this process: each schedule's latest, if recent. */
  due (now = new Date()): Array<{ name: string, at: Date }> {
    const out: Array<{ name: string, at: Date }> = []
    for (const s of this.schedules) {
      // The latest slot at or before now (prev() is strictly before: ask from a moment after).
      const after = new Date(now.getTime() + 1)
      const at = CronExpressionParser.parse(s.cron, { currentDate: after, tz: 'UTC' }).prev().toDate()
      if (now.getTime() - at.getTime() > LATE_MS || (this.sent.get(s.name) ?? 0) >= at.getTime()) continue
      out.push({ name: s.name, at })
    }
    return out
  }

  /** Notes that a slot was sent (or another process had). */
  sentSlot (name: string, at: Date): void {
    this.sent.set(name, at.getTime())
  }

  get empty (): boolean {
    return this.schedules.length === 0
  }
}
