import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { AUDIT_ACTION_NAMES, AuditEventSchema } from '../../vocabulary/audit.js'
import { AppError } from '../../vocabulary/errors.js'
import { literals, roleAllows } from '../../vocabulary/core.js'
import { listAuditEvents } from '../../store/audit-events.js'
import type { ApiDeps } from '../deps.js'
import { DateTime, Uuid } from '../schemas.js'
import { CursorParam, historyMeta, paginationFields, readCursor, responses } from '../responses.js'

// The organisation's audit log (services/audit.ts): who did what, newest first.

export const auditRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db }) => {
  app.get('/audit-events', {
    schema: {
      operationId: 'listAuditEvents',
      tags: ['audit'],
      summary: "The organisation's audit log, newest first",
      description: 'Every action that changed the organisation or revealed it, recorded in the same transaction as ' +
        'the change: who (a person, an API key, the operator, or `anonymous` for a failed sign-in), when, from ' +
        'which address, the action and its object, and what changed (`details`, never a secret). Events are ' +
        'never edited; they are kept as long as the plan keeps history (trial 30 days, starter and pro 180 ' +
        'days, enterprise for good) and go with the organisation. Account events (sign-ins, passwords) are ' +
        'in the log of the organisation the person signed in to; a failed sign-in of a member\'s address is in ' +
        'each of their organisations\'. Needs a key of scope `write` (the log shows members\' addresses and ' +
        'IP addresses, an admin\'s to see): a `read` key, and a key whose maker is no longer an admin, get 403. ' +
        'Filters: `userId` (what one person did), ' +
        '`action` (several, repeated or comma-separated), `since` (inclusive) and `until` (exclusive). Pages ' +
        'by `cursor` (`meta.nextCursor`) or by `page`.',
      querystring: Type.Object({
        ...paginationFields(50, 200),
        cursor: CursorParam,
        userId: Type.Optional(Uuid),
        action: Type.Optional(Type.Array(literals(AUDIT_ACTION_NAMES), { maxItems: AUDIT_ACTION_NAMES.length })),
        since: Type.Optional(DateTime),
        until: Type.Optional(DateTime)
      }, { additionalProperties: false }),
      response: responses(200, Type.Array(Type.Ref(AuditEventSchema)), [], { list: true })
    }
  }, async req => {
    const principal = req.principal!
    if (principal.scope !== 'write') {
      throw new AppError('FORBIDDEN', 'The audit log needs a key of scope write (an admin\'s): this key is read-only')
    }
    if (!roleAllows(principal.role, 'admin')) {
      throw new AppError('FORBIDDEN', `The audit log is an admin's to see: this key's maker is now a ${principal.role}`)
    }
    const { page, pageSize, since, until } = req.query
    const { items, counted, next } = await listAuditEvents(db, principal.org.id, {
      userId: req.query.userId,
      actions: req.query.action,
      from: since ? new Date(since) : undefined,
      to: until ? new Date(until) : undefined
    }, { limit: pageSize, offset: (page - 1) * pageSize, cursor: readCursor(req.query.cursor) })
    return { data: items, meta: historyMeta(counted, page, pageSize, next) }
  })
}
