import { notFound } from '../vocabulary/errors.js'
import type { KeyScope } from '../vocabulary/core.js'
import { inTransaction, type Db } from '../store/db.js'
import { issueKey, revokeKey } from '../store/orgs.js'
import { recordAudit } from './audit.js'

// API keys made and revoked by people and operators, each in the audit log.

/** A new key of the organisation; the key itself is in the answer only (never in the log). */
export async function makeApiKey (
  db: Db, orgId: string, opts: { scope?: KeyScope, createdBy?: string, name?: string } = {}
) {
  return await inTransaction(db, async tx => {
    const key = await issueKey(tx, orgId, opts)
    const label = `${opts.name?.trim() || 'unnamed'} (${key.apiKey.slice(0, 12)}…)`
    await recordAudit(tx, {
      action: 'key.created',
      orgId,
      objectId: key.id,
      objectLabel: label,
      details: { scope: key.scope }
    })
    return key
  })
}

/** Revokes a live key (of `orgId` when given): 404 when there is none. */
export async function revokeApiKey (db: Db, keyId: string, orgId?: string): Promise<void> {
  await inTransaction(db, async tx => {
    const revoked = await revokeKey(tx, keyId, orgId)
    if (!revoked) throw notFound('API key')
    await recordAudit(tx, { action: 'key.revoked', orgId: revoked.orgId, objectId: keyId, objectLabel: revoked.label })
  })
}
