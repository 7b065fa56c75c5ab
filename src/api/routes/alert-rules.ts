import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  changeAlertRule, createAlertRule, MAX_ALERT_RULES, removeAlertRule, TRY_DAYS, TRY_MOST, tryAlertRules
} from '../../services/alert-rules.js'
import { listAlertRules } from '../../store/alert-rules.js'
import { RULE_ACTIONS, RULE_FIELDS } from '../../vocabulary/alert-rules.js'
import { literals } from '../../vocabulary/core.js'
import type { ApiDeps } from '../deps.js'
import { DateTime, IdParams, Uuid } from '../schemas.js'
import { AlertRule } from '../schemas-alerts.js'
import { responses } from '../responses.js'

// Alert rules people write (services/alert-rules.ts): custom alert rules, enterprise.

const Tried = Type.Object({
  window: Type.Object({ from: DateTime, to: DateTime }),
  total: Type.Integer({
    description: `the changes of the last ${TRY_DAYS} days tried (the newest ${TRY_MOST} at most)`
  }),
  capped: Type.Boolean({ description: `true when there were more than ${TRY_MOST}` }),
  byAction: Type.Object({ alert: Type.Integer(), digest: Type.Integer(), mute: Type.Integer() }, {
    description: 'what would have become of them (a change no rule matches is alerted)'
  }),
  rules: Type.Array(Type.Object({
    id: Type.Union([Uuid, Type.Null()], { description: 'null: the rule being tried (`rule` in the request)' }),
    name: Type.String(),
    action: literals(RULE_ACTIONS),
    decided: Type.Integer({ description: 'the changes this rule would have decided (the first that matches decides)' })
  }))
})

export const alertRuleRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db, queue }) => {
  const ctx = { db, queue }

  app.get('/alert-rules', {
    schema: {
      operationId: 'listAlertRules',
      tags: ['alerts'],
      summary: 'The alert rules, in order',
      description: 'The first enabled rule that matches a change decides what becomes of it; a change no rule ' +
        `matches is alerted as the plan says. Custom alert rules (enterprise), at most ${MAX_ALERT_RULES}.`,
      response: responses(200, Type.Array(Type.Ref(AlertRule)), [])
    }
  }, async req => ({ data: await listAlertRules(db, req.principal!.org.id) }))

  app.post('/alert-rules', {
    schema: {
      operationId: 'createAlertRule',
      tags: ['alerts'],
      summary: 'Add an alert rule',
      body: Type.Object(RULE_FIELDS, { additionalProperties: false }),
      response: responses(201, Type.Ref(AlertRule), [403, 409])
    }
  }, async (req, reply) => {
    return await reply.code(201).send({ data: await createAlertRule(ctx, req.principal!.org, req.body) })
  })

  app.post('/alert-rules/try', {
    config: { changesNothing: true },
    schema: {
      operationId: 'tryAlertRules',
      tags: ['alerts'],
      summary: `What the rules would have made of the last ${TRY_DAYS} days' changes`,
      description: 'With `rule`, the saved rules and that one after them, as if it were saved: "this rule would ' +
        'have muted 4 of 57 changes". Without, the saved rules alone. Nothing is saved.',
      body: Type.Object({ rule: Type.Optional(Type.Object(RULE_FIELDS, { additionalProperties: false })) },
        { additionalProperties: false }),
      response: responses(200, Tried, [403])
    }
  }, async req => ({ data: await tryAlertRules(ctx, req.principal!.org, req.body.rule) }))

  app.patch('/alert-rules/:id', {
    schema: {
      operationId: 'updateAlertRule',
      tags: ['alerts'],
      summary: 'Change an alert rule',
      params: IdParams,
      body: Type.Partial(Type.Object(RULE_FIELDS), { additionalProperties: false, minProperties: 1 }),
      response: responses(200, Type.Ref(AlertRule), [403, 404])
    }
  }, async req => ({ data: await changeAlertRule(ctx, req.principal!.org, req.params.id, req.body) }))

  app.delete('/alert-rules/:id', {
    schema: {
      operationId: 'deleteAlertRule',
      tags: ['alerts'],
      summary: 'Delete an alert rule',
      params: IdParams,
      response: responses(200, Type.Object({ deleted: Type.Boolean() }), [404])
    }
  }, async req => {
    await removeAlertRule(ctx, req.principal!.org.id, req.params.id)
    return { data: { deleted: true } }
  })
}
