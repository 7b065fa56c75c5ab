#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { loadConfig } from '../config.js'
import { PLAN_NAMES, type PlanName } from '../domain/vocabulary.js'
import { createOrg, updateOrg } from '../services/orgs.js'
import { openStore } from '../store/db.js'
import { findOrg, issueKey, listOrgs, orgView, revokeKey } from '../store/orgs.js'

const USAGE = `sitewatch — operator commands (reads DATABASE_URL or DATA_DIR)

  sitewatch org list
  sitewatch org create <name> [--plan trial|starter|pro|enterprise]
  sitewatch org plan <orgId> <plan>
  sitewatch org trial <orgId> <ISO datetime>
  sitewatch key issue <orgId>
  sitewatch key revoke <keyId>
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
  options: { plan: { type: 'string' }, help: { type: 'boolean', short: 'h' } }
})
if (values.help || positionals.length === 0) {
  process.stdout.write(USAGE)
  process.exit(0)
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
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
const print = (o: unknown) => process.stdout.write(`${JSON.stringify(o, null, 2)}\n`)
try {
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
    print(await issueKey(store.db, a!))
  } else if (noun === 'key' && verb === 'revoke') {
    id(a, 'a key id')
    if (!(await revokeKey(store.db, a!))) fail(`no active key ${a}`)
    print({ revoked: a })
  } else {
    fail(`unknown command: ${positionals.join(' ')}`)
  }
} finally {
  await store.close()
}
