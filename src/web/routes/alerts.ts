import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, notFound } from '../../vocabulary/errors.js'
import { PLANS } from '../../vocabulary/plans.js'
import { appBaseUrl } from '../../config.js'
import { MAIL_MODES, roleAllows, SEVERITIES, type Severity } from '../../vocabulary/core.js'
import { alertSettings, changeAlertSettings, feedUrls } from '../../services/mail-alerts.js'
import {
  feedToken, listEmails, memberFeedToken, rotateFeedToken, rotateMemberFeedToken
} from '../../store/mail-alerts.js'
import {
  changeWebhook,
  createWebhook,
  removeWebhook,
  requireEndpoint,
  sendTestEvent,
  type DestinationRules
} from '../../services/webhooks.js'
import { endpointView, listDeliveries, listEndpoints } from '../../store/webhooks.js'
import { listLearnedRules } from '../../store/learned.js'
import { forgetRule } from '../../services/feedback.js'
import { field, page, requireRole, UUID, viewerOf, type WebDeps } from '../context.js'
import { AlertsPage, DestinationPage } from '../views/alerts.js'
import { html } from '../views/layout.js'

// Alert destinations (webhooks and Slack) and their delivery logs: the same services as the API's /webhooks.

const id = (params: unknown) => {
  const v = (params as Record<string, string>).id
  if (!UUID.test(v)) throw notFound('Alert destination')
  return v
}
const oneOf = <T extends string>(choices: readonly T[], value: string): T | undefined =>
  choices.includes(value as T) ? value as T : undefined
const DONE: Record<string, string> = {
  test: 'A test event is queued; its delivery appears below within seconds.',
  enabled: 'Destination switched on.',
  disabled: 'Destination switched off: nothing is sent to it until it is switched on.',
  deleted: 'Destination deleted, with its delivery log.',
  email: 'Your e-mail alerts are saved.',
  feeds: 'New feed addresses: the old ones no longer work.',
  forgotten: 'The learned rule is removed: it no longer applies.'
}
const notice = (q: unknown) => DONE[(q as Record<string, string>).done ?? '']

export async function alertRoutes (app: FastifyInstance, deps: WebDeps) {
  const { db, queue, settings: config } = deps
  const ctx = { db, queue }
  const base = appBaseUrl(config)
  const rules: DestinationRules = {
    hostMap: config.alertHostMap,
    allowPrivateNetworks: config.alertAllowPrivateNetworks
  }

  const showAlerts = async (
    req: FastifyRequest,
    reply: FastifyReply,
    extra: {
      error?: string
      status?: number
      created?: { secret: string, url: string }
      form?: Record<string, string>
    } = {}
  ) => {
    const org = req.person!.org
    const admin = roleAllows(req.person!.role, 'admin')
    const [{ items }, members, emails, mine, orgToken, learned] = await Promise.all([
      listEndpoints(db, org.id, 1, 100),
      alertSettings(db, org),
      admin ? listEmails(db, org.id, 1, 25) : { items: [] },
      memberFeedToken(db, org.id, req.person!.userId),
      admin ? feedToken(db, org.id) : undefined,
      listLearnedRules(db, org.id)
    ])
    return await page(reply, html(AlertsPage({
      viewer: viewerOf(req, reply),
      plan: PLANS[org.plan],
      mine: members.find(m => m.userId === req.person!.userId)!,
      members,
      emails: emails.items,
      feeds: feedUrls(base, mine),
      orgFeeds: orgToken === undefined ? undefined : feedUrls(base, orgToken),
      destinations: items,
      mailConfigured: deps.mailer.configured,
      learned,
      notice: notice(req.query),
      ...extra
    })), extra.status ?? 200)
  }
  app.get('/alerts', async (req, reply) => await showAlerts(req, reply))

  app.post('/learned/:id/delete', async (req, reply) => {
    const person = requireRole(req, 'editor')
    const ruleId = (req.params as Record<string, string>).id
    if (!UUID.test(ruleId)) throw notFound('Learned rule')
    await forgetRule(ctx, person.org.id, ruleId)
    return await reply.redirect('/app/alerts?done=forgotten#learned', 303)
  })

  app.post('/alerts', async (req, reply) => {
    const person = requireRole(req, 'admin')
    const kind = field(req.body, 'kind') === 'slack' ? 'slack' : 'webhook'
    const minSeverity = field(req.body, 'minSeverity')
    const form = { kind, url: field(req.body, 'url'), description: field(req.body, 'description'), minSeverity }
    try {
      const created = await createWebhook(ctx, rules, person.org, {
        kind,
        url: form.url.trim(),
        description: form.description.trim().slice(0, 200) || null,
        ...(SEVERITIES.includes(minSeverity as Severity) ? { minSeverity: minSeverity as Severity } : {})
      })
      // The signing secret is shown once, in this answer.
      return await showAlerts(req, reply, { created: { secret: created.secret, url: created.url } })
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode === 404) throw err
      return await showAlerts(req, reply, { error: err.message, status: err.statusCode, form })
    }
  })

  app.post('/alerts/email', async (req, reply) => {
    const person = req.person!
    const hour = Number.parseInt(field(req.body, 'hour'), 10)
    const weekday = Number.parseInt(field(req.body, 'weekday'), 10)
    try {
      await changeAlertSettings(db, person.org, person.userId, {
        mode: oneOf(MAIL_MODES, field(req.body, 'mode')),
        minSeverity: oneOf(SEVERITIES, field(req.body, 'minSeverity')),
        hour: hour >= 0 && hour <= 23 ? hour : undefined,
        weekday: weekday >= 0 && weekday <= 6 ? weekday : undefined,
        timeZone: field(req.body, 'timeZone') || undefined
      })
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode !== 400) throw err
      return await showAlerts(req, reply, { error: err.message, status: 400 })
    }
    return await reply.redirect('/app/alerts?done=email', 303)
  })

  // One's own feed addresses; the organisation's are an admin's to renew.
  app.post('/alerts/feeds/rotate', async (req, reply) => {
    const person = req.person!
    if (field(req.body, 'which') === 'organisation') {
      requireRole(req, 'admin')
      await rotateFeedToken(db, person.org.id)
    } else {
      await rotateMemberFeedToken(db, person.org.id, person.userId)
    }
    return await reply.redirect('/app/alerts?done=feeds', 303)
  })

  app.get('/alerts/:id', async (req, reply) => {
    const org = req.person!.org
    const endpoint = endpointView(await requireEndpoint(ctx, org.id, id(req.params)))
    const q = req.query as Record<string, string | undefined>
    const pageNo = Math.min(1000, Math.max(1, Number.parseInt(q.page ?? '1', 10) || 1))
    const pageSize = 25
    const { items, total } = await listDeliveries(db, endpoint.id, pageNo, pageSize)
    return await page(reply, html(DestinationPage({
      viewer: viewerOf(req, reply),
      endpoint,
      deliveries: items,
      total,
      page: pageNo,
      pageSize,
      notice: notice(req.query)
    })))
  })

  app.post('/alerts/:id/test', async (req, reply) => {
    const person = requireRole(req, 'admin')
    const endpoint = await sendTestEvent(ctx, person.org, id(req.params))
    return await reply.redirect(`/app/alerts/${endpoint.endpoint_id}?done=test`, 303)
  })

  app.post('/alerts/:id/enabled', async (req, reply) => {
    const person = requireRole(req, 'admin')
    const enabled = field(req.body, 'enabled') === 'true'
    const changed = await changeWebhook(ctx, rules, person.org, id(req.params), { enabled })
    return await reply.redirect(`/app/alerts/${changed.id}?done=${enabled ? 'enabled' : 'disabled'}`, 303)
  })

  app.post('/alerts/:id/delete', async (req, reply) => {
    const person = requireRole(req, 'admin')
    await removeWebhook(ctx, person.org.id, id(req.params))
    return await reply.redirect('/app/alerts?done=deleted', 303)
  })
}
