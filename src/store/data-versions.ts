import { randomBytes } from 'node:crypto'

/** The channel on which every committed write names its organisations (migration 0025: `org:txid`). */
export const DATA_CHANNEL = 'sitewatch_data'

/**
 * Each organisation's data version as this process heard it: the id of the last
 * transaction that wrote what the API shows it, from the triggers' notifications. The
 * API's validators are these versions, so a conditional GET reads no row (api/validators.ts).
 *
 * Until the first write to an organisation is heard, its version is this process's epoch,
 * a random token that no other process and no earlier connection shares. While writes may
 * go unheard (before listening, or with the connection lost), there is no version at all,
 * and the API answers in full. On the embedded database the write is heard before its
 * commit returns; on PostgreSQL, within milliseconds of it (its NOTIFY).
 */
export class DataVersions {
  private readonly heardOf = new Map<string, string>()
  private epoch = newEpoch()
  private live = false
  private writes = 0

  /** The organisation's version, or undefined while writes may go unheard. */
  of (orgId: string): string | undefined {
    if (!this.live) return undefined
    return this.heardOf.get(orgId) ?? this.epoch
  }

  /** A write to an organisation committed: `org:txid`, as migration 0025's triggers send it. */
  heard (payload: string): void {
    const at = payload.indexOf(':')
    if (at > 0) this.heardOf.set(payload.slice(0, at), `x${payload.slice(at + 1)}`)
  }

  /**
   * This process committed a write to an organisation: its version moves now, not when
   * the write's notification comes back (on PostgreSQL, milliseconds later), so that the
   * caller's next read is never a 304 or a kept answer from before its own write.
   */
  wrote (orgId: string): void {
    if (this.live) this.heardOf.set(orgId, `w${++this.writes}${this.epoch}`)
  }

  /** From now on, every write is heard. */
  listening (): void {
    this.live = true
  }

  /** Writes may have gone unheard: no version is trusted until listening again, and then a new epoch. */
  lost (): void {
    this.live = false
    this.heardOf.clear()
    this.epoch = newEpoch()
  }
}

const newEpoch = () => `e${randomBytes(6).toString('base64url')}`
