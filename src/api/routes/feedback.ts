import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { forgetRule, giveVerdict, learnFrom } from '../../services/feedback.js'
import { listLearnedRules } from '../../store/learned.js'
import { IgnoredFactSchema, literals } from '../../vocabulary/core.js'
import { VERDICTS } from '../../vocabulary/learned.js'
import type { ApiDeps } from '../deps.js'
import { Change, IdParams, Uuid } from '../schemas.js'
import { LearnedRule } from '../schemas-alerts.js'
import { responses } from '../responses.js'

// People's verdicts on changes and the rules Sitewatch learns from them (services/feedback.ts).

const Offer = Type.Object({
  kind: literals(['mute', 'lower'] as const),
  pattern: Type.Optional(Type.String({ description: 'mute: the ignore pattern it would add to the page' })),
  fact: Type.Optional(IgnoredFactSchema),
  changeType: Type.Optional(Type.String({ description: 'lower: the type of change it would lower on the page' })),
  description: Type.String()
})

export const feedbackRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db, queue, ruleChecks }) => {
  const ctx = { db, queue, ruleChecks }
  const teacher = (p: { keyId: string }) => ({ by: { keyId: p.keyId }, name: p.keyId })

  app.post('/changes/:id/feedback', {
    schema: {
      operationId: 'giveChangeFeedback',
      tags: ['changes'],
      summary: 'Say whether a change was important',
      description: '`important` pins the change and learns to raise later changes of its type on its page (to high ' +
        'at least). `not_important` acknowledges it (it stays stored and searchable) and answers `offers`: what ' +
        'Sitewatch could learn from it, to take with POST /api/changes/:id/learned-rules: muting one of its facts ' +
        'on the page (a plan\'s price moves, a limit, a feature, a section, an operation: up to three, its lead ' +
        'first), a pattern (offered only for a passage whose lines moved in their numbers, ids or words alone, ' +
        'never for a price), or lowering its type there.',
      params: IdParams,
      body: Type.Object({ verdict: literals(VERDICTS) }, { additionalProperties: false }),
      response: responses(200, Type.Object({
        change: Type.Ref(Change),
        learned: Type.Array(Type.Ref(LearnedRule)),
        offers: Type.Array(Offer)
      }), [404])
    }
  }, async req => {
    const p = req.principal!
    const given = await giveVerdict(ctx, p.org.id, req.params.id, req.body.verdict, teacher(p))
    const learned = await listLearnedRules(db, p.org.id, given.change.pageId)
    return { data: { ...given, learned: learned.filter(r => given.learned.some(l => l.id === r.id)) } }
  })

  app.post('/changes/:id/learned-rules', {
    schema: {
      operationId: 'learnFromChange',
      tags: ['changes'],
      summary: 'Take one of the offers of a change marked not important',
      description: "mute with `fact` (one of the offers' facts, as given) adds it to its page's ignoreFacts; mute " +
        "without adds the change's pattern to its ignorePatterns; both from the next crawl on. lower records " +
        'later changes of its type on its page as low (not offered for a price change, a 400: it would hide the ' +
        "next real rise; mute the plan's price moves instead). Taking an offer the page has already learned " +
        'answers that rule.',
      params: IdParams,
      body: Type.Object({
        kind: literals(['mute', 'lower'] as const),
        fact: Type.Optional(IgnoredFactSchema)
      }, { additionalProperties: false }),
      response: responses(201, Type.Ref(LearnedRule), [404, 409])
    }
  }, async (req, reply) => {
    const p = req.principal!
    const rule = await learnFrom(ctx, p.org.id, req.params.id, req.body.kind, teacher(p), req.body.fact)
    const [listed] = (await listLearnedRules(db, p.org.id, rule.pageId)).filter(r => r.id === rule.id)
    return await reply.code(201).send({ data: listed })
  })

  app.get('/learned-rules', {
    schema: {
      operationId: 'listLearnedRules',
      tags: ['changes'],
      summary: 'What Sitewatch learned from feedback, newest first',
      querystring: Type.Object({ pageId: Type.Optional(Uuid) }, { additionalProperties: false }),
      response: responses(200, Type.Array(Type.Ref(LearnedRule)), [])
    }
  }, async req => ({ data: await listLearnedRules(db, req.principal!.org.id, req.query.pageId) }))

  app.delete('/learned-rules/:id', {
    schema: {
      operationId: 'deleteLearnedRule',
      tags: ['changes'],
      summary: 'Remove a learned rule, which undoes it',
      description: "A muting rule's pattern leaves its page's ignorePatterns; the changes it moved keep their " +
        'severity.',
      params: IdParams,
      response: responses(200, Type.Object({ deleted: Type.Boolean() }), [404])
    }
  }, async req => {
    await forgetRule(ctx, req.principal!.org.id, req.params.id)
    return { data: { deleted: true } }
  })
}
