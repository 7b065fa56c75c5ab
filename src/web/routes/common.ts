import { notFound } from '../../vocabulary/errors.js'
import { type MeteredResource, type Org, PLANS, quotaSentence, USAGE_COLUMN } from '../../vocabulary/plans.js'
import { currentPeriod } from '../../store/billing.js'
import type { Db } from '../../store/db.js'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../../vocabulary/errors.js'
import { flashAndReturn, type Person, requireRole, UUID } from '../context.js'

// What the app's routes for domains, pages and changes share: ids from paths, the page of
// a long list, the notices that follow a form, and why a button is off.

/**
 * The organisation's heavy actions of the hour (discoveries, crawls, checks and briefs, in
 * the app and through the API together), read without spending one: what is left, and,
 * when none is, why a heavy button is off and when it comes back.
 */
export async function heavyActions (
  app: FastifyInstance, req: FastifyRequest
): Promise<{ left: string, out?: string }> {
  req.rateKey = `org:${req.person!.org.id}`
  const limit = await app.tierLimits.heavy(req, { increment: false })
  // Not counted at all (an allow-listed caller): nothing to tell.
  if (!('remaining' in limit)) return { left: '' }
  const left = Math.max(0, limit.remaining)
  if (left > 0) {
    return {
      left: `${left} of the organisation's ${limit.max} discoveries, crawls, checks and briefs of this hour left.`
    }
  }
  const back = new Date(Date.now() + Math.max(1000, limit.ttl)).toISOString().slice(11, 16)
  return {
    left: '',
    out: `Your organisation has used its ${limit.max} discoveries, crawls, checks and briefs of the hour (in the app ` +
      `and through the API together); they come back at ${back} UTC.`
  }
}

/** The id in a path (`name`), or 404: anything not a UUID names nothing. */
export const id = (params: unknown, name = 'id') => {
  const v = (params as Record<string, string>)[name]
  if (!UUID.test(v)) throw notFound('This')
  return v
}

/** A textarea's lines, trimmed, blanks dropped. */
export const lines = (s: string) => s.split(/\r?\n/).map(l => l.trim()).filter(Boolean)

/** The page of a long list asked for (?page=), 1 when none or not a number. */
export const pageOf = (q: unknown) =>
  Math.min(10_000, Math.max(1, Number.parseInt((q as Record<string, string>).page ?? '1', 10) || 1))

const DONE: Record<string, string> = {
  added: 'Domain added: Sitewatch is discovering its pages.',
  'added-page': 'Domain added: Sitewatch is discovering its pages, starting with the page of the address you ' +
    'pasted, which is watched when it answers.',
  crawl: 'A crawl of every monitored page is queued.',
  'crawl-pending': 'Every monitored page already had a check waiting or running: no recheck was taken.',
  'crawl-nothing': 'No page of this domain is monitored: there is nothing to crawl, and no recheck was taken.',
  'page-crawl': 'A check of this page is queued.',
  'page-pending': 'A check of this page was already waiting or running: nothing more was queued.',
  discover: 'Discovery is queued: this page shows what it finds.',
  'discover-pending': 'A discovery of this domain was already queued or running: no other was queued. ' +
    'This page shows what it finds.',
  page: 'Page added: its first check is queued.',
  saved: 'Page settings saved.',
  tagged: 'Tags saved.',
  pinned: 'Pinned as important: later changes of this type on this page are raised to high.',
  'not-important': 'Marked as not important and acknowledged. Below: what Sitewatch can learn from it.',
  learned: 'Learned: it applies to this page from its next check. Everything learned is listed under Alerts.',
  acknowledged: 'Acknowledged.',
  unacknowledged: 'Marked as not reviewed.',
  typed: 'The page\'s type is saved: Sitewatch keeps your choice.',
  'page-deleted': 'The page is deleted, with its versions and changes.',
  unshared: 'The share link is revoked: it no longer opens this change, nor its pictures.',
  deleted: 'Domain deleted.',
  'org-deleted': 'The organisation is deleted. You are now in another of yours.'
}

/** The notice a form's redirect asked for (?done=). */
export const notice = (q: unknown) => DONE[(q as Record<string, string>).done ?? '']

/**
 * Why a button that spends a quota is off: the quota's sentence when none is left
 * (what ran out, when it comes back, who can change the plan), else undefined.
 */
export async function outOf (db: Db, org: Org, resource: MeteredResource, words: string): Promise<string | undefined> {
  const limit = {
    domains: PLANS[org.plan].domains,
    manualRechecks: PLANS[org.plan].manualRechecksPerPeriod,
    researchCredits: PLANS[org.plan].researchCreditsPerPeriod
  }[resource]
  if (limit === null) return undefined
  const period = await currentPeriod(db, org, new Date())
  return period[USAGE_COLUMN[resource]] >= limit ? quotaSentence(org, period, words, limit) : undefined
}

/**
 * An editor's form action: done → where `action` says, with a notice; a refusal the person
 * can fix → back to the page the form was on (`back`), which says why.
 */
export const formAction = (config: Parameters<typeof flashAndReturn>[0], back: (req: FastifyRequest) => string) =>
  (action: (req: FastifyRequest & { person: Person }) => Promise<string>) =>
    async (req: FastifyRequest, reply: FastifyReply) => {
      requireRole(req, 'editor')
      try {
        return await reply.redirect(await action(req as FastifyRequest & { person: Person }), 303)
      } catch (err) {
        if (!(err instanceof AppError) || err.statusCode === 403 || err.statusCode === 404) throw err
        // Sent back with why, as a 409 is: nothing was done, and nothing of the heavy tier is spent (rate-limits.ts).
        if (err.statusCode === 409) req.refusedByRoute = true
        return await flashAndReturn(config, req, reply, err.message, back(req))
      }
    }
