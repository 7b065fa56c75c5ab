import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { describeUsage } from '../../vocabulary/plans.js'
import { currentPeriod } from '../../store/billing.js'
import { watchedCounts } from '../../store/domains.js'
import type { ApiDeps } from '../deps.js'
import { Usage } from '../schemas.js'
import { responses } from '../responses.js'

export const usageRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db }) => {
  app.get(
    '/usage',
    {
      // A period or a trial ends with no write.
      config: { clockSeconds: 60 },
      schema: {
        operationId: 'getUsage',
        tags: ['usage'],
        summary: 'Plan, usage and remaining quota',
        description:
          'Unlimited values (enterprise) are null. The counters count what was taken in this billing period ' +
          '(`period`): domains added, manual rechecks, research credits; they start again when a monthly period ' +
          'ends (a trial\'s do not: the trial ends). `watching` says what is watched now. Research credits are ' +
          'spent one a brief by `POST /api/domains/{id}/research` (and given back when its job fails for good).',
        response: responses(200, Type.Ref(Usage), [])
      }
    },
    async req => {
      const org = req.principal!.org
      const now = new Date()
      const [period, watching] = await Promise.all([currentPeriod(db, org, now), watchedCounts(db, org.id)])
      return { data: { ...describeUsage(org, period, now), watching } }
    }
  )
}
