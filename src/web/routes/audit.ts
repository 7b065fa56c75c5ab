import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AUDIT_ACTION_NAMES } from '../../vocabulary/audit.js'
import { UUID } from '../../vocabulary/core.js'
import { PLANS } from '../../vocabulary/plans.js'
import { auditActors, listAuditEvents, type AuditFilters } from '../../store/audit-events.js'
import { auditCsv, exportName } from '../../services/exports.js'
import { page, requireRole, viewerOf, type WebDeps } from '../context.js'
import { html } from '../views/layout.js'
import { AuditPage, type AuditQuery } from '../views/audit.js'

// The audit log, for owners and admins: a page of it with its filters, and the same as CSV.

const PAGE_SIZE = 50
const DAY = 86_400_000
const DATE = /^\d{4}-\d{2}-\d{2}$/

/** The filters a query names: values that mean nothing are left out (the page says what it shows). */
function queryOf (req: FastifyRequest): { query: AuditQuery, filters: AuditFilters, page: number } {
  const raw = req.query as Record<string, unknown>
  const text = (name: string) => typeof raw[name] === 'string' ? raw[name] : ''
  const day = (name: string) => DATE.test(text(name)) && !Number.isNaN(Date.parse(text(name))) ? text(name) : ''
  const query: AuditQuery = {
    userId: UUID.test(text('userId')) ? text('userId') : '',
    action: (AUDIT_ACTION_NAMES as readonly string[]).includes(text('action')) ? text('action') : '',
    from: day('from'),
    to: day('to')
  }
  const filters: AuditFilters = {
    ...(query.userId ? { userId: query.userId } : {}),
    ...(query.action ? { actions: [query.action] } : {}),
    ...(query.from ? { from: new Date(`${query.from}T00:00:00Z`) } : {}),
    // The day given is the last one shown, whole.
    ...(query.to ? { to: new Date(Date.parse(`${query.to}T00:00:00Z`) + DAY) } : {})
  }
  const n = Number(text('page'))
  return { query, filters, page: Number.isInteger(n) && n >= 1 && n <= 10_000 ? n : 1 }
}

export async function auditRoutes (app: FastifyInstance, deps: WebDeps) {
  const { db } = deps

  app.get('/audit', async (req, reply) => {
    const person = requireRole(req, 'admin')
    const { query, filters, page: pageNo } = queryOf(req)
    const [{ items, counted }, actors] = await Promise.all([
      listAuditEvents(db, person.org.id, filters, { limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE }),
      auditActors(db, person.org.id)
    ])
    const days = PLANS[person.org.plan].retentionDays
    const retention = days === null
      ? `The ${person.org.plan} plan keeps it for good.`
      : `The ${person.org.plan} plan keeps it ${days} days.`
    return await page(reply, html(AuditPage({
      viewer: viewerOf(req, reply),
      events: items,
      actors,
      query,
      page: pageNo,
      pageSize: PAGE_SIZE,
      total: counted.total,
      capped: counted.capped,
      retention
    })))
  })

  app.get('/audit.csv', async (req, reply) => {
    const person = requireRole(req, 'admin')
    const body = await auditCsv(db, person.org.id, queryOf(req).filters)
    return await reply.type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${exportName('audit')}"`).send(body)
  })
}
