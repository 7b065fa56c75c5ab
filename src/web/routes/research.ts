import type { FastifyInstance, FastifyRequest } from 'fastify'
import { notFound } from '../../vocabulary/errors.js'
import { briefMarkdown } from '../../research/markdown.js'
import { findBrief } from '../../store/research.js'
import { page, viewerOf, type WebDeps } from '../context.js'
import { html } from '../views/layout.js'
import { ResearchPage } from '../views/research.js'
import { id } from './common.js'

// A research brief: read in the app, or taken away as Markdown. (It is asked for on its domain's page.)

export async function researchRoutes (app: FastifyInstance, deps: WebDeps) {
  const { db } = deps
  const requireBrief = async (req: FastifyRequest) => {
    const brief = await findBrief(db, req.person!.org.id, id(req.params))
    if (!brief) throw notFound('Research brief')
    return brief
  }

  app.get('/research/:id', async (req, reply) =>
    await page(reply, html(ResearchPage({ viewer: viewerOf(req, reply), brief: await requireBrief(req) }))))

  app.get('/research/:id/markdown', async (req, reply) => {
    const brief = await requireBrief(req)
    const name = `research-${brief.domain}-${new Date(brief.createdAt).toISOString().slice(0, 10)}.md`
    return await reply.type('text/markdown; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}"`)
      .send(briefMarkdown(brief))
  })
}
