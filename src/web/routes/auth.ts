import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../../vocabulary/errors.js'
import {
  acceptLink,
  checkPassword,
  endSession,
  normalizeEmail,
  peekLink,
  signsOnOnly,
  resetPassword,
  startSession,
  type SessionRules
} from '../../services/accounts.js'
import { afterSignIn, beforeSignIn, countResetRequest } from '../../services/attempts.js'
import { audited } from '../../services/audit.js'
import { QUEUE, type AccountMailJobData } from '../../queue/queues.js'
import { cookieNames, cookieOptions, csrfToken, field, page, type WebDeps } from '../context.js'
import {
  CreateAccount, LinkGone, ResetForm, ResetRequest, SignIn, SsoInvitation, SsoLeaving, SsoLinkMailed, SsoProveAccount,
  SsoRefusedPage, Unsubscribe
} from '../views/auth.js'
import {
  backchannelLogout, finishSsoSignIn, mailedLinkEmail, newBinding, passwordRefusal, pendingLink, proveAccount,
  recordSsoRefusal, SsoRefused, ssoDeps, startSsoSignIn, type SsoOutcome, type SsoSessionOf
} from '../../services/sso.js'
import { appBaseUrl } from '../../config.js'
import { SIGNED_ON } from '../../vocabulary/sso.js'
import { unsubscribe, unsubscribeTarget } from '../../services/mail-alerts.js'
import { html } from '../views/layout.js'

// Signing in and out, the first owner's link, invitations, password resets. The answers
// never tell whether an e-mail has an account; failed attempts slow the next ones of that
// account and that address (services/attempts.ts), and never lock a right password out.

const PUBLIC = { config: { public: true } }

/** Where to go after signing in: only a path of the app itself. */
const safeNext = (next: string) => /^\/app(\/[\w\-/?=&%.]*)?$/.test(next) && !next.startsWith('//') ? next : '/app/domains'

export async function authRoutes (app: FastifyInstance, deps: WebDeps & { rules: SessionRules }) {
  const { db, settings: config, rules, queue } = deps
  const cookies = cookieNames(config)
  // Who tries: the e-mail given and the address it comes from (see services/attempts.ts).
  const who = (req: FastifyRequest) => ({ email: normalizeEmail(field(req.body, 'email')) ?? '-', ip: req.ip })

  const signedIn = async (
    req: FastifyRequest, reply: FastifyReply, user: { id: string, email: string }, orgId?: string, to = '/app/domains',
    via?: string, sso?: SsoSessionOf
  ) => {
    // A new session at every sign-in: a cookie planted before it is worth nothing after.
    const old = req.cookies[cookies.session]
    if (old && req.person) await endSession(db, req.person.userId, req.person.sessionId)
    const { token } = await startSession(db, rules, user.id, {
      userAgent: req.headers['user-agent'],
      ip: req.ip,
      orgId,
      actor: { kind: 'user', userId: user.id, label: user.email },
      ...(via ? { via } : {}),
      ...(sso ? { sso } : {})
    })
    reply.setCookie(cookies.session, token, { ...cookieOptions(config), maxAge: rules.maxMs / 1000 })
    // The forms' secret starts again with the session: no token made before it works after it.
    reply.clearCookie(cookies.csrf, cookieOptions(config))
    return await reply.redirect(to, 303)
  }

  app.get('/sign-in', PUBLIC, async (req, reply) => {
    const q = req.query as Record<string, string>
    const notices: Record<string, string> = {
      reset: 'Your password is set. Sign in with it.',
      out: 'You are signed out.',
      'org-deleted': 'The organisation is deleted, and you belong to no other: you are signed out.'
    }
    const notice = notices[q.done ?? '']
    return await page(reply, html(SignIn({ csrf: csrfToken(req, reply), next: q.next, notice })))
  })

  app.post('/sign-in', PUBLIC, async (req, reply) => {
    await beforeSignIn(db, who(req))
    const email = field(req.body, 'email')
    const user = await checkPassword(db, email, field(req.body, 'password'))
    await afterSignIn(db, who(req), user !== undefined)
    if (!user) {
      return await page(reply, html(SignIn({
        csrf: csrfToken(req, reply),
        email,
        next: field(req.body, 'next'),
        error: 'That e-mail and password do not match an account.'
      })), 401)
    }
    const refusal = await passwordRefusal(db, user)
    if (refusal) {
      return await page(reply, html(SignIn({ csrf: csrfToken(req, reply), email, error: refusal })), 403)
    }
    return await signedIn(req, reply, user, undefined, safeNext(field(req.body, 'next')))
  })

  // Single sign-on: off to the organisation's provider, and back (services/sso.ts). The
  // browser that starts a sign-in gets a short-lived cookie its callback must bring back.
  const sso = ssoDeps(db, config)
  const bindingCookie = `${cookies.session}_sso`
  const bindingOptions = { ...cookieOptions(config), path: '/app/sso', maxAge: 15 * 60 }
  const refusedPage = async (reply: FastifyReply, err: unknown) => {
    if (!(err instanceof SsoRefused)) throw err
    await recordSsoRefusal(db, err)
    return await page(reply, html(SsoRefusedPage({ message: err.message })), 401)
  }
  const ssoSignedIn = async (
    req: FastifyRequest, reply: FastifyReply, done: Extract<SsoOutcome, { kind: 'signed-in' }>
  ) => {
    reply.clearCookie(bindingCookie, bindingOptions)
    return await signedIn(req, reply, done.user, done.orgId, done.next ?? '/app/domains', SIGNED_ON, done.sso)
  }
  app.post('/sso/start', { ...PUBLIC, config: { ...PUBLIC.config, changesNothing: true } }, async (req, reply) => {
    const binding = req.cookies[bindingCookie] ?? newBinding()
    try {
      const to = await startSsoSignIn(sso, field(req.body, 'email'), safeNext(field(req.body, 'next')), binding)
      reply.setCookie(bindingCookie, binding, bindingOptions)
      return await page(reply, html(SsoLeaving({ to: to.href })))
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode >= 500) throw err
      return await page(reply, html(SignIn({ csrf: csrfToken(req, reply), error: err.message })), err.statusCode)
    }
  })
  app.get('/sso/callback', PUBLIC, async (req, reply) => {
    let outcome: SsoOutcome
    try {
      outcome = await finishSsoSignIn(sso, new URL(req.url, appBaseUrl(config)), req.cookies[bindingCookie])
    } catch (err) {
      return await refusedPage(reply, err)
    }
    if (outcome.kind === 'signed-in') return await ssoSignedIn(req, reply, outcome)
    return await page(reply, html(SsoProveAccount({ csrf: csrfToken(req, reply), ...outcome })))
  })
  // The account's password proves it, in the browser that came back from the provider.
  app.post('/sso/link', PUBLIC, async (req, reply) => {
    const token = field(req.body, 'token')
    const pending = await pendingLink(sso, token, req.cookies[bindingCookie])
    if (!pending) return await page(reply, html(LinkGone()), 404)
    const attempt = { email: pending.email, ip: req.ip }
    await beforeSignIn(db, attempt)
    try {
      const done = await proveAccount(sso, {
        token, binding: req.cookies[bindingCookie], password: field(req.body, 'password')
      })
      await afterSignIn(db, attempt, true)
      return await ssoSignedIn(req, reply, done)
    } catch (err) {
      if (!(err instanceof SsoRefused) || err.orgId === null) return await refusedPage(reply, err)
      await afterSignIn(db, attempt, false)
      await recordSsoRefusal(db, err)
      return await page(reply, html(SsoProveAccount({
        csrf: csrfToken(req, reply), token, email: pending.email, hasPassword: pending.hasPassword, error: err.message
      })), 401)
    }
  })
  // Or a link mailed to the address (made and sent by a job, as a password reset's).
  app.post('/sso/link/mail', { ...PUBLIC, config: { ...PUBLIC.config, changesNothing: true } }, async (req, reply) => {
    const token = field(req.body, 'token')
    const pending = await pendingLink(sso, token, req.cookies[bindingCookie])
    if (!pending) return await page(reply, html(LinkGone()), 404)
    const job: AccountMailJobData = { kind: 'sso-link', email: pending.email, linkTokenHash: pending.tokenHash }
    await queue.send(QUEUE.accountMail, job)
    return await page(reply, html(SsoProveAccount({
      csrf: csrfToken(req, reply),
      token,
      email: pending.email,
      hasPassword: pending.hasPassword,
      notice: `A link is on its way to ${pending.email}. It works for 30 minutes.`
    })))
  })
  app.get('/sso/link/:secret', PUBLIC, async (req, reply) => {
    const { secret } = req.params as { secret: string }
    const email = await mailedLinkEmail(db, secret)
    if (!email) return await page(reply, html(LinkGone()), 404)
    const action = `/app/sso/link/${secret}`
    return await page(reply, html(SsoLinkMailed({ csrf: csrfToken(req, reply), action, email })))
  })
  app.post('/sso/link/:secret', PUBLIC, async (req, reply) => {
    const { secret } = req.params as { secret: string }
    try {
      return await ssoSignedIn(req, reply, await proveAccount(sso, { mailed: secret }))
    } catch (err) {
      return await refusedPage(reply, err)
    }
  })
  // OpenID Connect Back-Channel Logout: the provider says a person or a session of its is signed out.
  app.post('/sso/backchannel-logout', { config: { public: true, fromOutside: true } }, async (req, reply) => {
    reply.header('cache-control', 'no-store')
    try {
      const ended = await backchannelLogout(sso, field(req.body, 'logout_token'))
      return await reply.code(200).type('application/json').send(JSON.stringify({ ended }))
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode >= 500) throw err
      return await reply.code(400).type('application/json')
        .send(JSON.stringify({ error: 'invalid_request', error_description: err.message }))
    }
  })

  app.post('/sign-out', async (req, reply) => {
    await endSession(db, req.person!.userId, req.person!.sessionId)
    reply.clearCookie(cookies.session, cookieOptions(config))
    return await reply.redirect('/app/sign-in?done=out', 303)
  })

  // The first owner's link and invitations: the same form, a new account or an existing one's password.
  for (const purpose of ['setup', 'invite'] as const) {
    const title = purpose === 'setup' ? 'Create the owner account' : 'Join an organisation'
    const intro = (role?: string | null) => purpose === 'setup'
      ? 'Choose the e-mail and password of the organisation\'s owner.'
      : `You are invited to join as ${role ?? 'a member'}. ` +
        'Create your account, or enter the password of the one you have.'
    /** An invitation whose address signs in only through the organisation's provider: its page, with no password. */
    const throughProvider = async (
      req: FastifyRequest, reply: FastifyReply, link: NonNullable<Awaited<ReturnType<typeof peekLink>>>, error?: string
    ) => {
      const { email, org_id: orgId, role } = link
      if (!email || !orgId || !role || !await signsOnOnly(db, email, orgId, role)) return
      const shown = SsoInvitation({ csrf: csrfToken(req, reply), email, role, error })
      return await page(reply, html(shown), error ? 403 : 200)
    }
    app.get(`/${purpose}/:token`, PUBLIC, async (req, reply) => {
      const { token } = req.params as { token: string }
      const link = await peekLink(db, purpose, token)
      if (!link) return await page(reply, html(LinkGone()), 404)
      const sso = await throughProvider(req, reply, link)
      if (sso) return sso
      return await page(reply, html(CreateAccount({
        csrf: csrfToken(req, reply),
        action: `/app/${purpose}/${token}`,
        title,
        intro: intro(link.role),
        email: link.email ?? undefined,
        emailFixed: Boolean(link.email)
      })))
    })
    app.post(`/${purpose}/:token`, PUBLIC, async (req, reply) => {
      const { token } = req.params as { token: string }
      const link = await peekLink(db, purpose, token)
      if (!link) return await page(reply, html(LinkGone()), 404)
      const sso = await throughProvider(req, reply, link, 'No password is set for this organisation: join through ' +
        'single sign-on.')
      if (sso) return sso
      // The password of an account that exists is checked as a sign-in is.
      await beforeSignIn(db, who(req))
      try {
        const { user, orgId } = await acceptLink(db, purpose, token, {
          email: field(req.body, 'email'), name: field(req.body, 'name'), password: field(req.body, 'password')
        })
        return await signedIn(req, reply, user, orgId)
      } catch (err) {
        if (err instanceof AppError && err.code === 'UNAUTHORIZED') await afterSignIn(db, who(req), false)
        if (err instanceof AppError && err.code === 'NOT_FOUND') return await page(reply, html(LinkGone()), 404)
        if (!(err instanceof AppError)) throw err
        return await page(reply, html(CreateAccount({
          csrf: csrfToken(req, reply),
          action: `/app/${purpose}/${token}`,
          title,
          intro: intro(link.role),
          email: link.email ?? field(req.body, 'email'),
          emailFixed: Boolean(link.email),
          error: err.message
        })), err.statusCode)
      }
    })
  }

  // One-click unsubscribe (RFC 8058): the mail client POSTs `List-Unsubscribe=One-Click` to the link itself.
  app.get('/unsubscribe/:token', PUBLIC, async (req, reply) => {
    const { token } = req.params as { token: string }
    const target = await unsubscribeTarget(db, deps.linkSecret, token)
    if (!target) return await page(reply, html(LinkGone()), 404)
    return await page(reply, html(Unsubscribe({
      action: `/app/unsubscribe/${token}`, email: target.email, orgName: target.org.name, done: false
    })))
  })
  app.post('/unsubscribe/:token', { config: { public: true, fromOutside: true } }, async (req, reply) => {
    const { token } = req.params as { token: string }
    const target = await unsubscribeTarget(db, deps.linkSecret, token)
    if (!target || !(await unsubscribe(db, target))) return await page(reply, html(LinkGone()), 404)
    return await page(reply, html(Unsubscribe({
      action: `/app/unsubscribe/${token}`, email: target.email, orgName: target.org.name, done: true
    })))
  })

  app.get('/reset', PUBLIC, async (req, reply) =>
    await page(reply, html(ResetRequest({ csrf: csrfToken(req, reply) }))))

  app.post('/reset', PUBLIC, async (req, reply) => {
    const email = normalizeEmail(field(req.body, 'email'))
    if (!email) {
      return await page(reply, html(ResetRequest({
        csrf: csrfToken(req, reply), error: 'Enter an e-mail address such as name@example.com'
      })), 400)
    }
    // The log of no organisation: the answer must not tell whether the address has an account.
    await audited(db, { action: 'password.reset_requested', orgId: null, objectLabel: email }, async tx => {
      await countResetRequest(tx, { email, ip: req.ip })
    })
    // The link is made and sent by a job: the same answer, in the same time, whether or not the e-mail has an account.
    await queue.send(QUEUE.accountMail, { kind: 'reset', email } satisfies AccountMailJobData)
    return await page(reply, html(ResetRequest({
      csrf: csrfToken(req, reply),
      notice: 'If this e-mail has an account, a reset link is on its way. It works for an hour.'
    })))
  })

  app.get('/reset/:token', PUBLIC, async (req, reply) => {
    const { token } = req.params as { token: string }
    if (!(await peekLink(db, 'reset', token))) return await page(reply, html(LinkGone()), 404)
    return await page(reply, html(ResetForm({ csrf: csrfToken(req, reply), action: `/app/reset/${token}` })))
  })

  app.post('/reset/:token', PUBLIC, async (req, reply) => {
    const { token } = req.params as { token: string }
    try {
      await resetPassword(db, token, field(req.body, 'password'))
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND') return await page(reply, html(LinkGone()), 404)
      if (!(err instanceof AppError)) throw err
      const form = ResetForm({ csrf: csrfToken(req, reply), action: `/app/reset/${token}`, error: err.message })
      return await page(reply, html(form), 400)
    }
    reply.clearCookie(cookies.session, cookieOptions(config))
    return await reply.redirect('/app/sign-in?done=reset', 303)
  })
}
