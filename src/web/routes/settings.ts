import { appBaseUrl } from '../../config.js'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, notFound } from '../../vocabulary/errors.js'
import { describeUsage, PLANS } from '../../vocabulary/plans.js'
import { ROLES, type KeyScope, type PlanName, type Role } from '../../vocabulary/core.js'
import { InvitationInputSchema, KeyInputSchema } from '../../vocabulary/people.js'
import { checkForm } from '../form-check.js'
import { changeMember, changePassword, invite, transferOwnership, type SessionRules } from '../../services/accounts.js'
import { changePlan, deleteOrganisation, SELF_SERVICE_PLANS } from '../../services/orgs.js'
import { currentPeriod } from '../../store/billing.js'
import {
  cancelInvitation,
  deleteSessions,
  listInvitations,
  listMembers,
  listSessions,
  setSessionOrg
} from '../../store/accounts.js'
import { watchedCounts } from '../../store/domains.js'
import { listKeys, setShareLinks, shareLinksOn } from '../../store/orgs.js'
import { audited, recordAudit } from '../../services/audit.js'
import { makeApiKey, revokeApiKey } from '../../services/keys.js'
import { inTransaction } from '../../store/db.js'
import { cookieNames, cookieOptions, field, page, requireRole, UUID, viewerOf, type WebDeps } from '../context.js'
import { invitationMail } from '../../mail/messages.js'
import { html } from '../views/layout.js'
import { AccountPage, KeysPage, MembersPage, UsagePage } from '../views/settings.js'

/** What the invitation form says of a field the schema refuses. */
const SAY_INVITATION = { email: 'Give the e-mail address to invite', role: 'Choose a role.' }
/** What the key form says of a field the schema refuses. */
const SAY_KEY = { scope: 'Choose read or write', name: "A key's name is 100 characters at most" }

// Usage, members and invitations, API keys, one's own account; switching organisation.

const DONE: Record<string, string> = {
  invited: 'Invitation sent.',
  changed: 'Member updated.',
  cancelled: 'Invitation cancelled.',
  revoked: 'Key revoked.',
  password: 'Password changed; your other sessions are signed out.',
  others: 'Your other sessions are signed out.',
  plan: 'Plan changed: its limits apply now, to this period\'s usage as well.',
  sharing: 'Sharing saved.',
  transferred: 'Ownership transferred: you are an admin now.'
}
const notice = (q: unknown) => DONE[(q as Record<string, string>).done ?? '']

export async function settingsRoutes (app: FastifyInstance, deps: WebDeps & { rules: SessionRules }) {
  const { db, settings: config, mailer, principals, rules } = deps
  const base = appBaseUrl(config)

  const showUsage = async (req: FastifyRequest, reply: FastifyReply, error?: string, status = 200) => {
    const org = req.person!.org
    const [period, shareLinks, watching] = await Promise.all([
      currentPeriod(db, org, new Date()), shareLinksOn(db, org.id), watchedCounts(db, org.id)
    ])
    return await page(reply, html(UsagePage({
      viewer: viewerOf(req, reply),
      usage: { ...describeUsage(org, period), watching },
      plans: SELF_SERVICE_PLANS,
      shareLinks,
      notice: notice(req.query),
      error
    })), status)
  }
  app.get('/usage', async (req, reply) => await showUsage(req, reply))

  app.post('/plan', async (req, reply) => {
    const person = requireRole(req, 'owner')
    try {
      await changePlan(db, person, person.org, field(req.body, 'plan') as PlanName)
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode !== 400) throw err
      return await showUsage(req, reply, err.message, 400)
    }
    principals.forgetOrg(person.org.id)
    return await reply.redirect('/app/usage?done=plan', 303)
  })

  app.post('/org/share-links', async (req, reply) => {
    const person = requireRole(req, 'admin')
    const on = field(req.body, 'on') === '1'
    await audited(db, {
      action: 'share_links.changed',
      objectId: person.org.id,
      objectLabel: person.org.name,
      details: { on }
    },
    async tx => { await setShareLinks(tx, person.org.id, on) })
    return await reply.redirect('/app/usage?done=sharing', 303)
  })

  app.post('/org/delete', async (req, reply) => {
    const person = requireRole(req, 'owner')
    try {
      await deleteOrganisation(db, person, person.org, field(req.body, 'name'))
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode !== 400) throw err
      return await showUsage(req, reply, err.message, 400)
    }
    principals.forgetOrg(person.org.id)
    const other = person.orgs.find(o => o.id !== person.org.id)
    if (other) {
      await setSessionOrg(db, person.sessionId, other.id)
      return await reply.redirect('/app/domains?done=org-deleted', 303)
    }
    // Nothing left to sign in to: the session ends with the organisation.
    await deleteSessions(db, person.userId, { id: person.sessionId })
    reply.clearCookie(cookieNames(config).session, cookieOptions(config))
    return await reply.redirect('/app/sign-in?done=org-deleted', 303)
  })

  const showMembers = async (
    req: FastifyRequest, reply: FastifyReply, error?: string, status = 200, invited?: { email: string, link: string },
    typed?: { email: string, role: string }
  ) => {
    const org = req.person!.org
    const [members, invitations] = await Promise.all([listMembers(db, org.id), listInvitations(db, org.id, new Date())])
    return await page(reply, html(MembersPage({
      viewer: viewerOf(req, reply),
      members,
      invitations,
      me: req.person!.userId,
      mailConfigured: mailer.configured,
      ...(invited ? { invited } : {}),
      ...(typed ? { typed } : {}),
      notice: notice(req.query),
      error
    })), status)
  }
  app.get('/members', async (req, reply) => await showMembers(req, reply))
  // Where the invitation form posts: its address, opened again, is the members' page.
  app.get('/members/invite', async (_req, reply) => await reply.redirect('/app/members', 303))

  app.post('/members/invite', async (req, reply) => {
    const person = requireRole(req, 'admin')
    const role = field(req.body, 'role') as Role
    try {
      checkForm(InvitationInputSchema, { email: field(req.body, 'email').trim(), role }, SAY_INVITATION)
      const { secret, email } = await invite(db, { userId: person.userId, role: person.role }, person.org.id,
        field(req.body, 'email'), role)
      const link = `${base}/app/invite/${secret}`
      const sent = await mailer.send(invitationMail({
        to: email, inviter: person.name ?? person.email, orgName: person.org.name, role, link
      }))
      // Without SMTP_URL nothing leaves: the link goes to its maker, once, rather than only to the log.
      if (!mailer.configured) return await showMembers(req, reply, undefined, 200, { email, link })
      if (!sent) {
        return await showMembers(req, reply, `The invitation is made, but the mail to ${email} could not be sent: ` +
          'cancel it and invite again later.', 200)
      }
      return await reply.redirect('/app/members?done=invited', 303)
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode === 403) throw err
      const typed = { email: field(req.body, 'email'), role }
      return await showMembers(req, reply, err.message, err.statusCode, undefined, typed)
    }
  })

  app.post('/members/:userId', async (req, reply) => {
    const person = req.person!
    const userId = (req.params as Record<string, string>).userId
    if (!UUID.test(userId)) throw notFound('Member')
    const choice = field(req.body, 'role')
    const role = choice === 'remove' ? null : ROLES.includes(choice as Role) ? choice as Role : undefined
    if (role === undefined) return await showMembers(req, reply, 'Choose a role.', 400)
    try {
      await changeMember(db, { userId: person.userId, role: person.role }, person.org.id, userId, role)
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode !== 409) throw err
      return await showMembers(req, reply, err.message, 409)
    }
    const left = userId === person.userId && role === null
    return await reply.redirect(left ? '/app/domains' : '/app/members?done=changed', 303)
  })

  app.post('/members/transfer', async (req, reply) => {
    const person = requireRole(req, 'owner')
    const to = field(req.body, 'userId')
    if (!UUID.test(to)) return await showMembers(req, reply, 'Choose the member who becomes owner.', 400)
    await transferOwnership(db, person, person.org.id, to)
    return await reply.redirect('/app/members?done=transferred', 303)
  })

  app.post('/invitations/:id/cancel', async (req, reply) => {
    const person = requireRole(req, 'admin')
    const id = (req.params as Record<string, string>).id
    if (!UUID.test(id)) throw notFound('Invitation')
    await inTransaction(db, async tx => {
      const email = await cancelInvitation(tx, person.org.id, id, new Date())
      if (!email) throw notFound('Invitation')
      await recordAudit(tx, { action: 'invitation.cancelled', objectId: id, objectLabel: email })
    })
    return await reply.redirect('/app/members?done=cancelled', 303)
  })

  const showKeys = async (
    req: FastifyRequest, reply: FastifyReply, created?: { apiKey: string, scope: string },
    refused?: { error: string, typed: { name: string, scope: string } }
  ) => {
    const org = req.person!.org
    const error = refused?.error
    return await page(reply, html(KeysPage({
      ...refused,
      viewer: viewerOf(req, reply),
      apiAccess: PLANS[org.plan].features.apiAccess,
      keys: await listKeys(db, org.id),
      created,
      notice: notice(req.query)
    })), error ? 400 : 200)
  }
  app.get('/keys', async (req, reply) => await showKeys(req, reply))

  app.post('/keys', async (req, reply) => {
    const person = requireRole(req, 'admin')
    if (!PLANS[person.org.plan].features.apiAccess) {
      throw new AppError('FORBIDDEN', `The ${person.org.plan} plan does not include API access, so it has no API keys.`)
    }
    const input = { scope: field(req.body, 'scope') || 'write', name: field(req.body, 'name') }
    try {
      checkForm(KeyInputSchema, input, SAY_KEY)
    } catch (err) {
      return await showKeys(req, reply, undefined, { error: (err as AppError).message, typed: input })
    }
    const scope = input.scope as KeyScope
    const key = await makeApiKey(db, person.org.id, { scope, createdBy: person.userId, name: input.name })
    // Shown once, in this answer: it is not stored.
    return await showKeys(req, reply, { apiKey: key.apiKey, scope })
  })

  app.post('/keys/:id/revoke', async (req, reply) => {
    const person = requireRole(req, 'admin')
    const id = (req.params as Record<string, string>).id
    if (!UUID.test(id)) throw notFound('API key')
    await revokeApiKey(db, id, person.org.id)
    principals.forgetKey(id)
    return await reply.redirect('/app/keys?done=revoked', 303)
  })

  const showAccount = async (req: FastifyRequest, reply: FastifyReply, error?: string, status = 200) => {
    const now = new Date()
    const sessions = await listSessions(db, req.person!.userId, new Date(now.getTime() - rules.idleMs), now)
    return await page(reply, html(AccountPage({
      viewer: viewerOf(req, reply), sessions, current: req.person!.sessionId, notice: notice(req.query), error
    })), status)
  }
  app.get('/account', async (req, reply) => await showAccount(req, reply))

  app.post('/account/password', async (req, reply) => {
    const person = req.person!
    try {
      await changePassword(db, { id: person.userId, email: person.email }, field(req.body, 'currentPassword'),
        field(req.body, 'password'), person.sessionId)
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode !== 400) throw err
      return await showAccount(req, reply, err.message, 400)
    }
    return await reply.redirect('/app/account?done=password', 303)
  })

  app.post('/account/sessions/end-others', async (req, reply) => {
    await audited(db, { action: 'session.others_ended', objectId: req.person!.sessionId }, async tx => {
      await deleteSessions(tx, req.person!.userId, { keep: req.person!.sessionId })
    })
    return await reply.redirect('/app/account?done=others', 303)
  })

  app.post('/org', async (req, reply) => {
    const orgId = field(req.body, 'orgId')
    if (!req.person!.orgs.some(o => o.id === orgId)) {
      // A session single sign-on opened lists its organisation only: another one asks for its own sign-in.
      if (req.person!.signedOnTo) {
        throw new AppError('FORBIDDEN', 'This session was opened by your organisation\'s identity provider and ' +
          'reaches that organisation only: sign out, and sign in to the other one its own way.')
      }
      throw notFound('Organisation')
    }
    // Said in the log of the organisation the person goes to.
    await audited(db, {
      action: 'session.org_switched',
      orgId,
      objectId: req.person!.sessionId,
      details: { from: req.person!.org.id }
    },
    async tx => { await setSessionOrg(tx, req.person!.sessionId, orgId) })
    return await reply.redirect('/app/domains', 303)
  })
}
