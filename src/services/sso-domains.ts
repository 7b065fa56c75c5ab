import { randomBytes } from 'node:crypto'
import { Resolver } from 'node:dns/promises'
import { AppError } from '../vocabulary/errors.js'
import { roleAllows, type Role } from '../vocabulary/core.js'
import type { Org } from '../vocabulary/plans.js'
import type { SsoDomainState } from '../vocabulary/sso.js'
import { inTransaction, type Db } from '../store/db.js'
import {
  domainsProvenElsewhere, findSso, provenDomainsCheckedBefore, recordDomainCheck, type SsoDomainRow
} from '../store/sso.js'
import { audited, recordUnattended } from './audit.js'

// An e-mail domain counts for single sign-on once its organisation proved it owns it, as
// Slack, Atlassian and GitHub ask: a DNS TXT record at `_sitewatch-challenge.<domain>` that
// holds the claim's token. A domain is proven by one organisation at most; the proof is
// looked at again each day, and a record gone for good takes it away.

export const PROOF_PREFIX = 'sitewatch-domain-verification='
export const proofRecordName = (domain: string) => `_sitewatch-challenge.${domain}`
export const newProofToken = () => randomBytes(16).toString('hex')

/** How often a proven domain's record is looked at again. */
const RECHECK_MS = 24 * 3600_000

export interface DomainProofDeps {
  db: Db
  /** DNS servers to ask (`ip` or `ip:port`); empty: the system's. */
  dnsServers: readonly string[]
}

/** What the TXT records of `domain`'s challenge say: proven, not (the record is not there), or no answer. */
export async function lookForProof (
  servers: readonly string[], domain: string, token: string
): Promise<{ proven: boolean | undefined, error: string | null }> {
  const resolver = new Resolver({ timeout: 3000, tries: 2 })
  if (servers.length > 0) resolver.setServers([...servers])
  const name = proofRecordName(domain)
  try {
    const values = (await resolver.resolveTxt(name)).map(chunks => chunks.join(''))
    if (values.includes(PROOF_PREFIX + token)) return { proven: true, error: null }
    return { proven: false, error: `${name} has ${values.length} TXT record(s), none of them ${PROOF_PREFIX}${token}` }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOTFOUND' || code === 'ENODATA') return { proven: false, error: `${name} has no TXT record` }
    return { proven: undefined, error: `the DNS lookup of ${name} failed (${code ?? String(err)})` }
  }
}

const provenElsewhere = (domain: string) =>
  new AppError('CONFLICT', `${domain} is proven by another organisation: it signs in through that one's provider`)

/** A claimed domain as the settings show it: the record to publish, and whether it is proven. */
export function domainState (d: SsoDomainRow): SsoDomainState {
  return {
    domain: d.domain,
    verified: d.verifiedAt !== null,
    verifiedAt: d.verifiedAt?.toISOString() ?? null,
    checkedAt: d.checkedAt?.toISOString() ?? null,
    problem: d.verifiedAt ? null : d.checkError,
    txtName: proofRecordName(d.domain),
    txtValue: PROOF_PREFIX + d.token
  }
}

/**
 * Looks for the proof of one claimed domain now (an owner's "Check now"): proven, it signs
 * its people in; a domain another organisation proved first is a 409.
 */
export async function checkDomainProof (
  deps: DomainProofDeps, actor: { role: Role }, org: Org, domain: string
): Promise<SsoDomainState> {
  if (!roleAllows(actor.role, 'owner')) throw new AppError('FORBIDDEN', 'Only an owner sets single sign-on')
  const claim = (await findSso(deps.db, org.id))?.domains.find(d => d.domain === domain)
  if (!claim) throw new AppError('NOT_FOUND', `${domain} is not one of this organisation's single sign-on domains`)
  const found = await lookForProof(deps.dnsServers, domain, claim.token)
  const now = new Date()
  if (found.proven && (await domainsProvenElsewhere(deps.db, org.id, [domain])).length > 0) {
    throw provenElsewhere(domain)
  }
  const newlyProven = found.proven === true && claim.verifiedAt === null
  try {
    await audited(deps.db, {
      action: newlyProven ? 'sso.domain_verified' : 'sso.domain_checked',
      objectId: org.id,
      objectLabel: domain,
      details: { proven: found.proven ?? null, ...(found.error ? { problem: found.error } : {}) }
    }, async tx => {
      await recordDomainCheck(tx, org.id, domain, now, found.proven, found.error)
    })
  } catch (err) {
    if ((err as { code?: string }).code === '23505') {
      throw provenElsewhere(domain)
    }
    throw err
  }
  return domainState((await findSso(deps.db, org.id))!.domains.find(d => d.domain === domain)!)
}

/**
 * The daily look at proven domains: a record that is gone takes the proof away (logged as
 * `sso.domain_lost`); a lookup that got no answer leaves it as it was.
 */
export async function recheckProvenDomains (deps: DomainProofDeps, now = new Date()): Promise<{ lost: number }> {
  let lost = 0
  for (const d of await provenDomainsCheckedBefore(deps.db, new Date(now.getTime() - RECHECK_MS), 200)) {
    const found = await lookForProof(deps.dnsServers, d.domain, d.token)
    await inTransaction(deps.db, async tx => {
      await recordDomainCheck(tx, d.org_id, d.domain, now, found.proven, found.error)
      if (found.proven === false) {
        lost++
        await recordUnattended(tx, d.org_id, {
          action: 'sso.domain_lost', objectId: d.org_id, objectLabel: d.domain, details: { problem: found.error }
        })
      }
    })
  }
  return { lost }
}
