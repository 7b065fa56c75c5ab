import { LRUCache } from 'lru-cache'
import type { Db } from '../store/db.js'
import { findPrincipal, hashApiKey, type Principal } from '../store/orgs.js'

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

  constructor (db: Db, ttlMs = KEY_LOOKUP_TTL_MS) {
    this.cache = new LRUCache<string, Principal | false>({
      max: 10_000,
      ttl: ttlMs,
      fetchMethod: async keyHash => (await findPrincipal(db, keyHash)) ?? false
    })
  }

  async find (apiKey: string): Promise<Principal | undefined> {
    return (await this.cache.fetch(hashApiKey(apiKey))) || undefined
  }

  /** After a key is revoked here. */
  forgetKey (keyId: string): void {
    for (const [hash, p] of this.cache.entries()) if (p && p.keyId === keyId) this.cache.delete(hash)
  }

  /** After an organisation's plan or trial changed here. */
  forgetOrg (orgId: string): void {
    for (const [hash, p] of this.cache.entries()) if (p && p.org.id === orgId) this.cache.delete(hash)
  }
}
