#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { appBaseUrl, loadConfig } from '../config.js'
import { AppError } from '../vocabulary/errors.js'
import { PLAN_NAMES, ROLES, UUID, type PlanName, type Role } from '../vocabulary/core.js'
import { Mailer } from '../mail/mailer.js'
import { invitationMail, resetMail } from '../mail/messages.js'
import { addUser, invite, normalizeEmail, requestReset } from '../services/accounts.js'
import { createOrg, updateOrg } from '../services/orgs.js'
import { listMembers } from '../store/accounts.js'
import { openStore } from '../store/db.js'
import { findOrg, listOrgs, orgView } from '../store/orgs.js'
import { serveRequest } from '../store/urgency.js'
import { makeApiKey, revokeApiKey } from '../services/keys.js'

const USAGE = `sitewatch — operator commands (reads DATABASE_URL or DATA_DIR)

  sitewatch org list
  sitewatch org create <name> [--plan trial|starter|pro|enterprise]
  sitewatch org plan <orgId> <plan>
  sitewatch org trial <orgId> <ISO datetime>
  sitewatch key issue <orgId>
  sitewatch key revoke <keyId>
  sitewatch user list <orgId>
  sitewatch user add <orgId> <email> [--role owner|admin|editor|viewer] [--name <name>]
                                      (reads the password from standard input)
  sitewatch user invite <orgId> <email> [--role viewer]
                                      (prints the link; e-mails it too when SMTP_URL is set)
  sitewatch user reset <email>        (prints a password reset link; e-mails it too when SMTP_URL is set)

Links start with PUBLIC_BASE_URL (default http://localhost:PORT).
`

function fail (message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}`)
  process.exit(2)
}

const plan = (p: string | undefined): PlanName => {
  if (!p || !(PLAN_NAMES as readonly string[]).includes(p)) fail(`plan must be one of ${PLAN_NAMES.join(', ')}`)
  return p as PlanName
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    plan: { type: 'string' },
    role: { type: 'string' },
    name: { type: 'string' },
    help: { type: 'boolean', short: 'h' }
  }
})
if (values.help || positionals.length === 0) {
  process.stdout.write(USAGE)
  process.exit(0)
}

const role = (r: string | undefined, fallback: Role): Role => {
  if (r === undefined) return fallback
  if (!(ROLES as readonly string[]).includes(r)) fail(`role must be one of ${ROLES.join(', ')}`)
  return r as Role
}

/** The first line of standard input, for a password that must not sit in the shell's history. */
async function passwordFromStdin (): Promise<string> {
  if (process.stdin.isTTY) fail('user add reads the password from standard input: pipe it in')
  let text = ''
  for await (const chunk of process.stdin) text += String(chunk)
  return text.split(/\r?\n/)[0]
}

const id = (value: string | undefined, what: string): string => {
  if (!value) fail(`${what} is missing`)
  if (!UUID.test(value)) fail(`"${value}" is not ${what} (a UUID such as 3f2c…-…)`)
  return value
}

const config = loadConfig()
let store: Awaited<ReturnType<typeof openStore>>
try {
  store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
} catch (err) {
  const message = (err as Error)?.message ?? String(err)
  process.stderr.write(config.databaseUrl
    ? `cannot open the database at DATABASE_URL: ${message}\n`
    : `cannot open the embedded database in ${config.dataDir}: a running Sitewatch may hold it (stop it, or use the ` +
      `admin API with ADMIN_TOKEN). ${message}\n`)
  process.exit(1)
}
const [noun, verb, a, b] = positionals
const base = appBaseUrl(config)

async function userCommand (verb: string | undefined, a: string | undefined, b: string | undefined) {
  const mailer = new Mailer(config, {
    info: () => {},
    warn: (o, m) => process.stderr.write(`${m}: ${JSON.stringify(o)}\n`)
  })
  const requireOrg = async (orgId: string | undefined) => {
    id(orgId, 'an organisation id')
    const org = await findOrg(store.db, orgId!)
    if (!org) fail(`no organisation ${orgId}`)
    return org
  }
  if (verb === 'list') {
    const org = await requireOrg(a)
    print((await listMembers(store.db, org.id)).map(m => ({ id: m.id, email: m.email, name: m.name, role: m.role })))
  } else if (verb === 'add') {
    const org = await requireOrg(a)
    if (!b) fail('user add needs an e-mail address')
    const r = role(values.role, 'owner')
    const password = await passwordFromStdin()
    const user = await addUser(store.db, org.id, { email: b, name: values.name, password }, r)
    print({ id: user.id, email: user.email, role: r, org: org.id, signIn: `${base}/app/sign-in` })
  } else if (verb === 'invite') {
    const org = await requireOrg(a)
    if (!b) fail('user invite needs an e-mail address')
    const r = role(values.role, 'viewer')
    const { secret, email } = await invite(store.db, { role: 'owner' }, org.id, b, r)
    const link = `${base}/app/invite/${secret}`
    const mailed = Boolean(config.smtpUrl) &&
      await mailer.send(invitationMail({ to: email, inviter: 'An operator', orgName: org.name, role: r, link }))
    print({ email, role: r, link, mailed })
  } else if (verb === 'reset') {
    if (!a) fail('user reset needs an e-mail address')
    const secret = await requestReset(store.db, a)
    if (!secret) fail(`no account has the e-mail ${a}`)
    const email = normalizeEmail(a)!
    const link = `${base}/app/reset/${secret}`
    const mailed = Boolean(config.smtpUrl) && await mailer.send(resetMail({ to: email, link }))
    print({ email, link, mailed })
  } else {
    fail(`unknown command: user ${verb ?? ''}`)
  }
  mailer.close()
}
const print = (o: unknown) => process.stdout.write(`${JSON.stringify(o, null, 2)}\n`)
// The operator's commands are in the audit log as the operator's, as the admin API's are.
const operator = {
  ip: null, traceId: null, audited: 0, actor: { kind: 'operator' as const, label: 'operator (command line)' }
}
try {
  await serveRequest(operator, async () => await command())
} catch (err) {
  // A refusal of the rules (an e-mail taken, a short password) is the operator's to fix: said plainly.
  if (!(err instanceof AppError)) throw err
  process.stderr.write(`${err.message}\n`)
  process.exitCode = 1
} finally {
  await store.close()
}

async function command (): Promise<void> {
  if (noun === 'org' && verb === 'list') {
    print((await listOrgs(store.db)).map(orgView))
  } else if (noun === 'org' && verb === 'create') {
    if (!a) fail('org create needs a name')
    const { org, apiKey, keyId } = await createOrg(store.db, a, plan(values.plan ?? 'trial'))
    print({ org: orgView(org), apiKey, keyId })
  } else if (noun === 'org' && (verb === 'plan' || verb === 'trial')) {
    if (!a || !b) fail(`org ${verb} needs an organisation id and a value`)
    id(a, 'an organisation id')
    const at = verb === 'trial' ? new Date(b) : undefined
    if (at && Number.isNaN(at.getTime())) fail('trial end must be an ISO date-time')
    if (at) {
      const current = await findOrg(store.db, a)
      if (!current) fail(`no organisation ${a}`)
      if (current.plan !== 'trial') fail(`organisation ${a} is on ${current.plan}, not on a trial: nothing to extend`)
    }
    const org = await updateOrg(store.db, a, verb === 'plan' ? { plan: plan(b) } : { trialEndsAt: at })
    if (!org) fail(`no organisation ${a}`)
    print(orgView(org))
  } else if (noun === 'key' && verb === 'issue') {
    id(a, 'an organisation id')
    if (!(await findOrg(store.db, a!))) fail(`no organisation ${a}`)
    print(await makeApiKey(store.db, a!))
  } else if (noun === 'key' && verb === 'revoke') {
    id(a, 'a key id')
    await revokeApiKey(store.db, a!)
    print({ revoked: a })
  } else if (noun === 'user') {
    await userCommand(verb, a, b)
  } else {
    fail(`unknown command: ${positionals.join(' ')}`)
  }
}
