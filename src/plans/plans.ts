import type { PlanName } from '../store/schema.js'

/** The contract's plan table, as data. `null` means unlimited. */
export interface Plan {
  name: PlanName
  domains: number | null
  pagesPerDomain: number | null
  researchCreditsPerPeriod: number | null
  retentionDays: number | null
  intelligencePages: number | null
  manualRechecksPerPeriod: number | null
  alerts: 'realtime' | 'digest' | 'custom'
  features: { slackIntegration: boolean, apiAccess: boolean, customAlertRules: boolean }
}

export const PLANS: Record<PlanName, Plan> = {
  trial: {
    name: 'trial', domains: 25, pagesPerDomain: 500, researchCreditsPerPeriod: 50, retentionDays: 180,
    intelligencePages: 25, manualRechecksPerPeriod: 10, alerts: 'realtime',
    features: { slackIntegration: true, apiAccess: true, customAlertRules: false }
  },
  starter: {
    name: 'starter', domains: 5, pagesPerDomain: 50, researchCreditsPerPeriod: 10, retentionDays: 30,
    intelligencePages: 5, manualRechecksPerPeriod: 5, alerts: 'digest',
    features: { slackIntegration: false, apiAccess: false, customAlertRules: false }
  },
  pro: {
    name: 'pro', domains: 25, pagesPerDomain: 500, researchCreditsPerPeriod: 50, retentionDays: 180,
    intelligencePages: 25, manualRechecksPerPeriod: 10, alerts: 'realtime',
    features: { slackIntegration: true, apiAccess: true, customAlertRules: false }
  },
  enterprise: {
    name: 'enterprise', domains: null, pagesPerDomain: null, researchCreditsPerPeriod: null, retentionDays: null,
    intelligencePages: null, manualRechecksPerPeriod: null, alerts: 'custom',
    features: { slackIntegration: true, apiAccess: true, customAlertRules: true }
  }
}

export const PLAN_NAMES = Object.keys(PLANS) as PlanName[]
export const TRIAL_DAYS = 14

/** Paid periods are calendar months from the day the plan started, clamped to short months. */
export function addMonths (start: Date, months: number): Date {
  const d = new Date(start.getTime())
  const day = d.getUTCDate()
  d.setUTCDate(1)
  d.setUTCMonth(d.getUTCMonth() + months)
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate()
  d.setUTCDate(Math.min(day, lastDay))
  return d
}

/** The period that contains `now`, counting whole months on from `anchor`. */
export function periodContaining (anchor: Date, now: Date): { start: Date, end: Date } {
  let months = Math.max(0, (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + now.getUTCMonth() - anchor.getUTCMonth() - 1)
  while (addMonths(anchor, months + 1) <= now) months++
  return { start: addMonths(anchor, months), end: addMonths(anchor, months + 1) }
}

export function trialEnd (start: Date): Date {
  return new Date(start.getTime() + TRIAL_DAYS * 24 * 3600 * 1000)
}
