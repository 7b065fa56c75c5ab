import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { notFound } from '../../vocabulary/errors.js'
import { getJob, jobStats, listJobs } from '../../queue/job-records.js'
import type { ApiDeps } from '../deps.js'
import { Job, JobListItem, JobStateSchema, JobTypeSchema, QueueStats } from '../schemas.js'
import { CursorParam, historyMeta, PageNumber, readCursor, responses } from '../responses.js'

export const jobRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { db }) => {
  app.get(
    '/jobs',
    {
      // A job turns from delayed to waiting, and the oldest due job ages, with no write.
      config: { clockSeconds: 5 },
      schema: {
        operationId: 'listJobs',
        tags: ['jobs'],
        summary: 'List recent jobs',
        description:
          "The organisation's jobs of the last 7 days, newest first. `limit` 1..100 (default 20), optional `page`; " +
          '`status` and `type` (an addition to the contract) narrow the list. Added to the contract: `cursor`, ' +
          "the previous page's `meta.nextCursor`, reads the next page from where that one ended (its cost does not " +
          'grow with depth, and a job queued meanwhile does not shift it); with a cursor, `page` is ignored. ' +
          '`meta.total` is exact: kept per organisation, name and state as jobs change, so counting costs the same ' +
          'at any history.',
        querystring: Type.Object(
          {
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
            page: PageNumber,
            status: Type.Optional(JobStateSchema),
            type: Type.Optional(JobTypeSchema),
            cursor: CursorParam
          },
          { additionalProperties: false }
        ),
        response: responses(200, Type.Array(Type.Ref(JobListItem)), [], { list: true })
      }
    },
    async req => {
      const { limit, page, status, type } = req.query
      const cursor = readCursor(req.query.cursor)
      const { jobs, total, next } = await listJobs(db, req.principal!.org.id, {
        limit,
        offset: (page - 1) * limit,
        cursor,
        state: status,
        type
      })
      return { data: jobs, meta: historyMeta({ total }, page, limit, next) }
    }
  )

  app.get(
    '/jobs/stats',
    {
      // A job turns from delayed to waiting, and the oldest due job ages, with no write.
      config: { clockSeconds: 5 },
      schema: {
        operationId: 'getJobStats',
        tags: ['jobs'],
        summary: "Queue statistics of the organisation's jobs",
        description: 'Counts by state, and (added to the contract) the backlog of unfinished crawls by host and how ' +
          'long the oldest due job has waited. A crawl is taken when its host is free (one request per ' +
          'CRAWL_PER_HOST_DELAY_MS across every worker), so a big domain\'s crawls show as `waiting` until then; ' +
          '`delayed` is a retry\'s backoff or a host\'s Retry-After.',
        response: responses(200, Type.Ref(QueueStats), [])
      }
    },
    async req => {
      return { data: await jobStats(db, req.principal!.org.id) }
    }
  )

  app.get(
    '/jobs/:id',
    {
      // A job turns from delayed to waiting, and the oldest due job ages, with no write.
      config: { clockSeconds: 5 },
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
