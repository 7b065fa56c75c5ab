import { LRUCache } from 'lru-cache'
import type { Db } from '../store/db.js'
import { findPrincipal, hashApiKey, touchKey, type Principal } from '../store/orgs.js'

/**
 * How long a key's lookup is trusted. A key revoked, or a plan changed, through this
 * process's admin API takes effect at once; through another process (the CLI, another
 * API process) within this.
 */
export const KEY_LOOKUP_TTL_MS = 2000

/**
 * API key → organisation, remembered for a moment: every /api request starts with this
 * lookup, and most come in bursts from one client. Concurrent lookups of one key make one
 * query; keys that match nothing are remembered too, so a flood of wrong keys costs one
 * query per key and TTL, within a bounded number of entries.
 */
export class Principals {
  private readonly cache: LRUCache<string, Principal | false>
  /** When each key's last use was written: at most once a minute, so a burst costs one write. */
  private readonly touched = new LRUCache<string, true>({ max: 10_000, ttl: 60_000 })

  constructor (private readonly db: Db, ttlMs = KEY_LOOKUP_TTL_MS) {
    this.cache = new LRUCache<string, Principal | false>({
      max: 10_000,
      ttl: ttlMs,
      // Kept by the key itself (in memory only, as the request held it): a hit spends no hash.
      fetchMethod: async apiKey => (await findPrincipal(db, hashApiKey(apiKey))) ?? false
    })
  }

  async find (apiKey: string): Promise<Principal | undefined> {
    return (await this.cache.fetch(apiKey)) || undefined
  }

  /** Records that a key was used (its lastUsedAt), in the background: a failed write loses a time, no request. */
  touch (keyId: string): void {
    if (this.touched.has(keyId)) return
    this.touched.set(keyId, true)
    touchKey(this.db, keyId, new Date()).catch(() => this.touched.delete(keyId))
  }

  /** After a key is revoked here. */
  forgetKey (keyId: string): void {
    for (const [key, p] of this.cache.entries()) if (p && p.keyId === keyId) this.cache.delete(key)
  }

  /** After an organisation's plan or trial changed here. */
  forgetOrg (orgId: string): void {
    for (const [key, p] of this.cache.entries()) if (p && p.org.id === orgId) this.cache.delete(key)
  }
}
