import { AppError } from '../vocabulary/errors.js'
import { attemptsOf, countAttempt, forgetAttempts } from '../store/auth-limits.js'
import { inTransaction, type Db } from '../store/db.js'
import { findUserByEmail, membershipsOf } from '../store/accounts.js'
import { recordAudit } from './audit.js'

// How many tries a person, an address or an organisation gets, OWASP-style: failed
// sign-ins and wrong current passwords slow the next try of that account and of that
// address by a growing delay, but a right password is never refused because of someone
// else's failures; an address with too many failures is refused for a while. Password
// resets and invitations have limits of their own. Only failures count, never a success.

const MINUTE = 60_000

/** The rules, by what is tried. */
export const ATTEMPT_RULES = {
  /** Failed sign-ins (and wrong passwords on an invitation): per account and per address. */
  signIn: { windowMs: 15 * MINUTE, freeFailures: 3, firstDelayMs: 250, maxDelayMs: 8_000, addressRefusesAfter: 30 },
  /** Wrong current passwords when changing one, per person. */
  passwordChange: { windowMs: 15 * MINUTE, freeFailures: 3, firstDelayMs: 250, maxDelayMs: 8_000 },
  /** Reset requests: per address and per e-mail given (known or not, alike). */
  reset: { windowMs: 60 * MINUTE, perAddress: 10, perEmail: 3 },
  /** Invitations sent, per organisation. */
  invitations: { windowMs: 60 * MINUTE, perOrg: 20 }
} as const

/** The wait before a try, after `failures` failures: none for the first few, then doubling to a cap. */
export function delayAfter (
  failures: number, rule: { freeFailures: number, firstDelayMs: number, maxDelayMs: number }
): number {
  if (failures < rule.freeFailures) return 0
  return Math.min(rule.maxDelayMs, rule.firstDelayMs * 2 ** (failures - rule.freeFailures))
}

const sleep = async (ms: number) => { if (ms > 0) await new Promise(resolve => setTimeout(resolve, ms)) }
const minutesLeft = (endsAt: Date, now: Date) => Math.max(1, Math.ceil((endsAt.getTime() - now.getTime()) / MINUTE))

const accountKey = (email: string) => `account:${email.trim().toLowerCase()}`
const addressKey = (ip: string) => `address:${ip}`

/**
 * Waits as long as the account's and the address's failures ask before a sign-in is
 * checked; refuses (429) an address with too many failures. The account's failures only
 * ever slow a try: the right password still signs in.
 */
export async function beforeSignIn (db: Db, who: { email: string, ip: string }, now = new Date()): Promise<void> {
  const rule = ATTEMPT_RULES.signIn
  const keys = [accountKey(who.email), addressKey(who.ip)]
  const counts = await attemptsOf(db, keys, rule.windowMs, now)
  const address = counts.get(keys[1])
  if (address && address.count >= rule.addressRefusesAfter) {
    throw new AppError('RATE_LIMITED', `Too many failed sign-ins from your address: try again in ${
      minutesLeft(address.endsAt, now)} minutes.`)
  }
  await sleep(Math.max(...keys.map(k => delayAfter(counts.get(k)?.count ?? 0, rule))))
}

/** Counts a failed sign-in against the account and the address; a success forgets the account's failures. */
export async function afterSignIn (db: Db, who: { email: string, ip: string }, ok: boolean): Promise<void> {
  const rule = ATTEMPT_RULES.signIn
  if (ok) {
    await forgetAttempts(db, accountKey(who.email))
    return
  }
  await inTransaction(db, async tx => {
    await countAttempt(tx, accountKey(who.email), rule.windowMs)
    await countAttempt(tx, addressKey(who.ip), rule.windowMs)
    // Each organisation of the account tried sees the failure; an address of no account, the operator's log.
    const user = await findUserByEmail(tx, who.email)
    const orgs = user ? (await membershipsOf(tx, user.id)).map(m => m.org.id) : []
    for (const orgId of orgs.length > 0 ? orgs : [null]) {
      await recordAudit(tx, {
        action: 'session.sign_in_failed',
        orgId,
        actor: { kind: 'anonymous', label: 'anonymous' },
        objectId: user?.id ?? null,
        objectLabel: who.email
      })
    }
  })
}

/** Waits as the person's wrong current passwords ask, before one is checked. */
export async function beforePasswordCheck (db: Db, userId: string, now = new Date()): Promise<void> {
  const rule = ATTEMPT_RULES.passwordChange
  const key = `password:${userId}`
  await sleep(delayAfter((await attemptsOf(db, [key], rule.windowMs, now)).get(key)?.count ?? 0, rule))
}

export async function afterPasswordCheck (db: Db, userId: string, ok: boolean): Promise<void> {
  const key = `password:${userId}`
  if (ok) await forgetAttempts(db, key)
  else await countAttempt(db, key, ATTEMPT_RULES.passwordChange.windowMs)
}

/** Counts a reset request, and refuses (429) one past the address's or the e-mail's limit. */
export async function countResetRequest (db: Db, who: { email: string, ip: string }, now = new Date()): Promise<void> {
  const rule = ATTEMPT_RULES.reset
  const perAddress = await countAttempt(db, `reset-address:${who.ip}`, rule.windowMs, now)
  const perEmail = await countAttempt(db, `reset:${who.email.trim().toLowerCase()}`, rule.windowMs, now)
  if (perAddress > rule.perAddress || perEmail > rule.perEmail) {
    throw new AppError('RATE_LIMITED',
      'Too many reset requests: try again in an hour. A link sent earlier still works.')
  }
}

/** Counts an invitation of the organisation, and refuses (429) one past its hourly limit. */
export async function countInvitation (db: Db, orgId: string, now = new Date()): Promise<void> {
  const rule = ATTEMPT_RULES.invitations
  if (await countAttempt(db, `invitations:${orgId}`, rule.windowMs, now) > rule.perOrg) {
    throw new AppError('RATE_LIMITED', `An organisation may send ${rule.perOrg} invitations an hour: ` +
      'try again later, or cancel and resend the pending ones.')
  }
}
