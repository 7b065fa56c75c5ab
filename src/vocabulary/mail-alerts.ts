import { factsOf, matchOfFilters, ruleMatches } from './alert-rules.js'
import { PLANS, type Plan } from './plans.js'
import {
  type ChangeType,
  type MailMode,
  type PageType,
  type PlanName,
  type Severity
} from './core.js'

// E-mail alerts per member: what each plan offers, what a member gets when they chose
// nothing, and when a digest is due in the member's own time zone.

export interface MailPreference {
  mode: MailMode
  minSeverity: Severity
  changeTypes: ChangeType[] | null
  domainIds: string[] | null
  pageTypes: PageType[] | null
  /** Only changes of domains with one of these tags (null: any). */
  tags: string[] | null
  timeZone: string
  /** The local hour a digest is sent at, 0–23. */
  hour: number
  /** The local day a weekly digest is sent on, 0 (Sunday) to 6. */
  weekday: number
}

/** The modes a plan offers: digest plans have no realtime e-mail. */
export function mailModesFor (plan: Plan): MailMode[] {
  return plan.alerts === 'digest' ? ['daily', 'weekly', 'off'] : ['realtime', 'daily', 'weekly', 'off']
}

/** A member's preference before they chose one: the plan's alert mode. */
export function defaultMailPreference (plan: PlanName): MailPreference {
  return {
    mode: PLANS[plan].alerts === 'digest' ? 'daily' : 'realtime',
    minSeverity: 'low',
    changeTypes: null,
    domainIds: null,
    pageTypes: null,
    tags: null,
    timeZone: 'UTC',
    hour: 8,
    weekday: 1
  }
}

/**
 * What the member gets on the plan as it is now: a mode the plan no longer offers falls
 * back to its digest, and filters beyond minSeverity need custom alert rules.
 */
export function effectiveMailPreference (plan: PlanName, chosen: MailPreference | null): MailPreference {
  const p = chosen ?? defaultMailPreference(plan)
  const offers = mailModesFor(PLANS[plan])
  const custom = PLANS[plan].features.customAlertRules
  return {
    ...p,
    mode: offers.includes(p.mode) ? p.mode : 'daily',
    changeTypes: custom ? p.changeTypes : null,
    domainIds: custom ? p.domainIds : null,
    pageTypes: custom ? p.pageTypes : null,
    tags: custom ? p.tags : null
  }
}

/** Whether a member's filters let a change through: they are an alert rule's match, read by its evaluator. */
export function preferenceWants (p: MailPreference, c: Parameters<typeof factsOf>[0]): boolean {
  return ruleMatches(matchOfFilters(p), factsOf(c))
}

/** Whether the name is a time zone this runtime knows. */
export function isTimeZone (name: string): boolean {
  try {
    return name.length <= 64 && Boolean(new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone)
  } catch {
    return false
  }
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']

/** The local date, hour and weekday at `now` in the time zone. */
export function localClock (timeZone: string, now: Date): { date: string, hour: number, weekday: number } {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', {
    timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: 'numeric', hourCycle: 'h23', weekday: 'short'
  }).formatToParts(now).map(x => [x.type, x.value]))
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    hour: Number(parts.hour),
    weekday: WEEKDAYS.indexOf(parts.weekday)
  }
}

const HOUR = 3_600_000

/**
 * Whether a digest is due: its local hour (and day, weekly) has come, and the last one
 * is older than most of a period. Runs every quarter hour may ask; one digest is sent.
 */
export function isDigestDue (p: MailPreference, lastDigestAt: Date | null, now: Date): boolean {
  if (p.mode !== 'daily' && p.mode !== 'weekly') return false
  const clock = localClock(p.timeZone, now)
  if (clock.hour !== p.hour) return false
  if (p.mode === 'weekly' && clock.weekday !== p.weekday) return false
  const gap = p.mode === 'daily' ? 20 * HOUR : 6 * 24 * HOUR
  return !lastDigestAt || now.getTime() - lastDigestAt.getTime() >= gap
}

/**
 * Whether a real-time member's daily digest of the changes alert rules kept for the digest
 * is due: at their hour, once a day.
 */
export function isHeldDigestDue (p: MailPreference, lastDigestAt: Date | null, now: Date): boolean {
  return p.mode === 'realtime' && isDigestDue({ ...p, mode: 'daily' }, lastDigestAt, now)
}

/** Where a digest's changes start when there was none before. */
export function digestStart (p: MailPreference, lastDigestAt: Date | null, now: Date): Date {
  return lastDigestAt ?? new Date(now.getTime() - (p.mode === 'weekly' ? 7 * 24 : 24) * HOUR)
}
