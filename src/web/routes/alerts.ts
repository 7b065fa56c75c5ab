import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, notFound } from '../../vocabulary/errors.js'
import { PLANS } from '../../vocabulary/plans.js'
import { appBaseUrl } from '../../config.js'
import {
  CHANGE_TYPES, MAIL_MODES, PAGE_TYPES, roleAllows, SEVERITIES, type ChangeType, type PageType, type Severity
} from '../../vocabulary/core.js'
import { RuleInputSchema } from '../../vocabulary/alert-rules.js'
import { WebhookCreateSchema, type WebhookCreate } from '../../vocabulary/webhooks.js'
import { checkForm } from '../form-check.js'
import { createAlertRule, removeAlertRule, tryAlertRules, type RuleInput } from '../../services/alert-rules.js'
import { listAlertRules } from '../../store/alert-rules.js'
import { domainNames } from '../../store/domains.js'
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
import { audited, changesNothing } from '../../services/audit.js'
import { field, fields, page, requireRole, UUID, viewerOf, type WebDeps } from '../context.js'
import { type RuleForm } from '../views/alert-rules.js'
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
  forgotten: 'The learned rule is removed: it no longer applies.',
  rule: 'Alert rule saved: it decides from the next change on.',
  'rule-deleted': 'Alert rule deleted.'
}

function ruleForm (body: unknown): RuleForm {
  return {
    name: field(body, 'name').trim(),
    action: field(body, 'action'),
    minSeverity: field(body, 'minSeverity'),
    minConfidence: field(body, 'minConfidence').trim(),
    tags: field(body, 'tags'),
    words: field(body, 'words'),
    plan: field(body, 'plan').trim(),
    direction: field(body, 'direction'),
    minPercent: field(body, 'minPercent').trim(),
    changeTypes: fields(body, 'changeTypes').filter(t => CHANGE_TYPES.includes(t as ChangeType)),
    domainIds: fields(body, 'domainIds').filter(id => UUID.test(id)),
    pageTypes: fields(body, 'pageTypes').filter(t => PAGE_TYPES.includes(t as PageType))
  }
}

const commaList = (s: string) => s.split(',').map(x => x.trim()).filter(Boolean)

/** A member's tag filter as typed: none typed is every domain (null). */
const tagsOf = (s: string) => {
  const tags = commaList(s).map(t => t.slice(0, 40)).slice(0, 20)
  return tags.length > 0 ? tags : null
}

/** What the form says of a field the API's schema refuses. */
const SAY = {
  name: 'Give the rule a name of 100 characters at most',
  action: 'Choose what becomes of the changes it matches',
  tags: 'Give at most 20 tags, each of 40 characters at most',
  words: 'Give at most 20 words or phrases, each of 100 characters at most',
  minConfidence: 'The least confidence is a number from 0 to 1',
  plan: "A plan's name is 100 characters at most",
  minPercent: 'The least move is a number of percent from 0 to 10,000',
  domainIds: 'Choose at most 100 domains'
}

/** What the destination form says of a field the API's schema refuses. */
const SAY_DESTINATION = {
  kind: 'Choose a webhook or Slack',
  url: 'Give the address to send to, of 2,048 characters at most',
  description: 'A description is 500 characters at most',
  minSeverity: 'Choose a severity: low, medium, high or critical'
}

/**
 * The rule a form says, checked against the API's schema for a rule (form-check.ts): what
 * it leaves empty is no condition, and what the API refuses is refused, not cut to fit.
 */
function ruleOf (f: RuleForm): RuleInput {
  const number = (s: string) => s === '' ? undefined : Number(s)
  const confidence = number(f.minConfidence)
  const percent = number(f.minPercent)
  const price = {
    ...(f.plan ? { plan: f.plan } : {}),
    ...(f.direction === 'up' || f.direction === 'down' ? { direction: f.direction } : {}),
    ...(percent !== undefined ? { minPercent: percent } : {})
  }
  const words = commaList(f.words)
  const tags = commaList(f.tags)
  const rule = {
    name: f.name,
    action: f.action,
    match: {
      ...(f.changeTypes.length ? { changeTypes: f.changeTypes } : {}),
      ...(f.domainIds.length ? { domainIds: f.domainIds } : {}),
      ...(f.pageTypes.length ? { pageTypes: f.pageTypes } : {}),
      ...(tags.length ? { tags } : {}),
      ...(SEVERITIES.includes(f.minSeverity as Severity) ? { minSeverity: f.minSeverity } : {}),
      ...(confidence !== undefined ? { minConfidence: confidence } : {}),
      ...(words.length ? { words } : {}),
      ...(Object.keys(price).length ? { price } : {})
    }
  }
  checkForm(RuleInputSchema, rule, SAY)
  return rule as RuleInput
}
const notice = (q: unknown) => DONE[(q as Record<string, string>).done ?? '']

export async function alertRoutes (app: FastifyInstance, deps: WebDeps) {
  const { db, queue, settings: config } = deps
  const ctx = { db, queue, ruleChecks: deps.ruleChecks }
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
      ruleForm?: RuleForm
      tried?: Awaited<ReturnType<typeof tryAlertRules>>
    } = {}
  ) => {
    const org = req.person!.org
    const admin = roleAllows(req.person!.role, 'admin')
    const [{ items }, members, emails, mine, orgToken, learned, alertRules, domains] = await Promise.all([
      listEndpoints(db, org.id, 1, 100),
      alertSettings(db, org),
      admin ? listEmails(db, org.id, 1, 25) : { items: [] },
      memberFeedToken(db, org.id, req.person!.userId),
      admin ? feedToken(db, org.id) : undefined,
      listLearnedRules(db, org.id),
      listAlertRules(db, org.id),
      domainNames(db, org.id, 100)
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
      alertRules: {
        rules: alertRules,
        offered: PLANS[org.plan].features.customAlertRules,
        domains,
        form: extra.ruleForm,
        tried: extra.tried
      },
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

  // An alert rule written in a form, tried on the last 30 days (intent=try) or saved.
  app.post('/alerts/rules', async (req, reply) => {
    const person = requireRole(req, 'admin')
    const form = ruleForm(req.body)
    try {
      const rule = ruleOf(form)
      if (field(req.body, 'intent') === 'try') {
        changesNothing()
        return await showAlerts(req, reply, { ruleForm: form, tried: await tryAlertRules(ctx, person.org, rule) })
      }
      await createAlertRule(ctx, person.org, rule)
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode === 404) throw err
      return await showAlerts(req, reply, { error: err.message, status: err.statusCode, ruleForm: form })
    }
    return await reply.redirect('/app/alerts?done=rule#rules', 303)
  })

  app.post('/alerts/rules/:id/delete', async (req, reply) => {
    const person = requireRole(req, 'admin')
    const ruleId = (req.params as Record<string, string>).id
    if (!UUID.test(ruleId)) throw notFound('Alert rule')
    await removeAlertRule(ctx, person.org.id, ruleId)
    return await reply.redirect('/app/alerts?done=rule-deleted#rules', 303)
  })

  app.post('/alerts', async (req, reply) => {
    const person = requireRole(req, 'admin')
    const form = {
      kind: field(req.body, 'kind'),
      url: field(req.body, 'url'),
      description: field(req.body, 'description'),
      minSeverity: field(req.body, 'minSeverity')
    }
    try {
      // The API's body for the same destination, checked by its schema: refused as the API refuses, never cut to fit.
      const input = {
        kind: form.kind || 'webhook',
        url: form.url.trim(),
        description: form.description.trim() || null,
        ...(form.minSeverity ? { minSeverity: form.minSeverity } : {})
      }
      checkForm(WebhookCreateSchema, input, SAY_DESTINATION)
      const created = await createWebhook(ctx, rules, person.org, input as WebhookCreate)
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
        timeZone: field(req.body, 'timeZone') || undefined,
        // A field the form shows on plans with custom alert rules only: left alone where it is not shown.
        ...(PLANS[person.org.plan].features.customAlertRules ? { tags: tagsOf(field(req.body, 'tags')) } : {})
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
      await audited(db, { action: 'feed.rotated', details: { of: 'organisation' } }, async tx => {
        await rotateFeedToken(tx, person.org.id)
      })
    } else {
      await audited(db, { action: 'feed.rotated', objectId: person.userId, details: { of: 'member' } }, async tx => {
        await rotateMemberFeedToken(tx, person.org.id, person.userId)
      })
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
