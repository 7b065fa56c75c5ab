#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { loadConfig } from '../config.js'
import { PLAN_NAMES, type PlanName } from '../domain/vocabulary.js'
import { createOrg, updateOrg } from '../services/orgs.js'
import { openStore } from '../store/db.js'
import { issueKey, listOrgs, revokeKey } from '../store/orgs.js'

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

const config = loadConfig()
const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
const [noun, verb, a, b] = positionals
const print = (o: unknown) => process.stdout.write(`${JSON.stringify(o, null, 2)}\n`)
try {
  if (noun === 'org' && verb === 'list') {
    print(await listOrgs(store.db))
  } else if (noun === 'org' && verb === 'create') {
    if (!a) fail('org create needs a name')
    const { org, apiKey, keyId } = await createOrg(store.db, a, plan(values.plan ?? 'trial'))
    print({ org, apiKey, keyId })
  } else if (noun === 'org' && (verb === 'plan' || verb === 'trial')) {
    if (!a || !b) fail(`org ${verb} needs an organisation id and a value`)
    const at = verb === 'trial' ? new Date(b) : undefined
    if (at && Number.isNaN(at.getTime())) fail('trial end must be an ISO date-time')
    const org = await updateOrg(store.db, a, verb === 'plan' ? { plan: plan(b) } : { trialEndsAt: at })
    if (!org) fail(`no organisation ${a}`)
    print(org)
  } else if (noun === 'key' && verb === 'issue') {
    if (!a) fail('key issue needs an organisation id')
    print(await issueKey(store.db, a))
  } else if (noun === 'key' && verb === 'revoke') {
    if (!a) fail('key revoke needs a key id')
    if (!(await revokeKey(store.db, a))) fail(`no active key ${a}`)
    print({ revoked: a })
  } else {
    fail(`unknown command: ${positionals.join(' ')}`)
  }
} finally {
  await store.close()
}
