import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { notFound } from '../../domain/errors.js'
import { getJob, jobStats, listJobs } from '../../queue/job-records.js'
import type { ApiDeps } from '../deps.js'
import { Job, JobListItem, JobStateSchema, PageNumber, QueueStats, responses } from '../schemas.js'

export const jobRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db }) => {
  app.get(
    '/jobs',
    {
      schema: {
        operationId: 'listJobs',
        tags: ['jobs'],
        summary: 'List recent jobs',
        description:
          "The organisation's jobs of the last 7 days, newest first. `limit` 1..100 (default 20), optional `page`.",
        querystring: Type.Object(
          {
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
            page: PageNumber,
            status: Type.Optional(JobStateSchema)
          },
          { additionalProperties: false }
        ),
        response: responses(200, Type.Array(Type.Ref(JobListItem)), [], { list: true })
      }
    },
    async req => {
      const { limit, page, status } = req.query
      const { jobs, total } = await listJobs(db, req.principal!.org.id, {
        limit,
        offset: (page - 1) * limit,
        state: status
      })
      return { data: jobs, meta: { total, page, pageSize: limit } }
    }
  )

  app.get(
    '/jobs/stats',
    {
      schema: {
        operationId: 'getJobStats',
        tags: ['jobs'],
        summary: "Queue statistics of the organisation's jobs",
        response: responses(200, Type.Ref(QueueStats), [])
      }
    },
    async req => ({ data: await jobStats(db, req.principal!.org.id) })
  )

  app.get(
    '/jobs/:id',
    {
      schema: {
        operationId: 'getJob',
        tags: ['jobs'],
        summary: 'One job',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: responses(200, Type.Ref(Job), [404])
      }
    },
    async req => {
      const job = await getJob(db, req.principal!.org.id, req.params.id)
      if (!job) throw notFound('Job')
      return { data: job }
    }
  )
}
