import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createDatabase, eventually, freePort, onPostgres, startTestService, type TestService } from '../helpers/service.js'
import { programArgs } from '../helpers/paths.js'
import { startSmtp } from '../helpers/smtp.js'
import { FormClient } from '../helpers/web-client.js'

// Operators make people without the app: the admin API and the CLI create users, invite and
// reset; the links they give work in the app.

const ADMIN = 'operator-token'
const PASSWORD = 'operator chosen pass'

describe('operators manage people through the admin API', () => {
  let t: TestService
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined
    })
    return { status: res.status, body: (await res.json()) as any }
  }

  before(async () => {
    smtp = await startSmtp()
    const port = await freePort()
    t = await startTestService({
      ADMIN_TOKEN: ADMIN,
      SMTP_URL: smtp.url,
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`
    })
  })
  after(async () => {
    await t?.stop()
    await smtp?.close()
  })

  it('creates a person who signs in, invites one who joins, and resets a password', async () => {
    const org = (await admin('POST', '/admin/orgs', { name: 'Operated', plan: 'starter' })).body.data.org
    const made = await admin('POST', `/admin/orgs/${org.id}/members`, { email: 'Ada@Example.test', role: 'owner', password: PASSWORD })
    assert.equal(made.status, 201)
    assert.equal(made.body.data.email, 'ada@example.test')
    const ada = new FormClient(t.url)
    const signedIn = await ada.signIn('ada@example.test', PASSWORD)
    assert.equal(signedIn.status, 303)
    assert.match((await ada.request('GET', '/app/members')).text, /ada@example\.test/)

    // Refusals change nothing.
    assert.equal((await admin('POST', `/admin/orgs/${org.id}/members`, { email: 'ada@example.test', role: 'owner', password: PASSWORD })).status, 409)
    const short = await admin('POST', `/admin/orgs/${org.id}/members`, { email: 'bo@example.test', role: 'viewer', password: 'short' })
    assert.equal(short.status, 400)
    assert.equal(short.body.code, 'VALIDATION_ERROR')
    assert.equal((await admin('POST', `/admin/orgs/${org.id}/members`, { email: 'bo@example.test', role: 'god', password: PASSWORD })).status, 400)
    assert.equal((await admin('POST', '/admin/orgs/00000000-0000-4000-8000-000000000000/invitations', { email: 'x@example.test', role: 'viewer' })).status, 404)

    const invited = await admin('POST', `/admin/orgs/${org.id}/invitations`, { email: 'bo@example.test', role: 'editor' })
    assert.equal(invited.status, 201)
    assert.equal(invited.body.data.mailed, true)
    assert.match(invited.body.data.link, new RegExp(`^${t.url}/app/invite/[\\w-]{40,}$`))
    const mail = await eventually(async () => smtp.find('bo@example.test'), 10_000, 'the invitation')
    assert.match(mail.text!, /as editor/)
    assert.ok(mail.text!.includes(invited.body.data.link))
    const bo = new FormClient(t.url)
    const path = new URL(invited.body.data.link).pathname
    const joined = await bo.submit(path, path, { email: 'bo@example.test', password: PASSWORD })
    assert.equal(joined.status, 303)
    const members = (await admin('GET', `/admin/orgs/${org.id}/members`)).body.data
    assert.deepEqual(members.map((m: any) => `${m.email}:${m.role}`), ['ada@example.test:owner', 'bo@example.test:editor'])

    assert.equal((await admin('POST', '/admin/password-resets', { email: 'nobody@example.test' })).status, 404)
    const reset = await admin('POST', '/admin/password-resets', { email: 'bo@example.test' })
    assert.equal(reset.status, 201)
    const resetPath = new URL(reset.body.data.link).pathname
    const done = await new FormClient(t.url).submit(resetPath, resetPath, { password: 'a brand new password' })
    assert.equal(done.status, 303)
    assert.equal((await new FormClient(t.url).signIn('bo@example.test', PASSWORD)).status, 401)
    assert.equal((await new FormClient(t.url).signIn('bo@example.test', 'a brand new password')).status, 303)
    // The reset ended Bo's sessions.
    assert.equal((await bo.request('GET', '/app/domains')).status, 303)
  })
})

describe('operators manage people with the CLI', () => {
  let dataDir: string | undefined
  let database: { url: string, drop: () => Promise<void> } | undefined
  let t: TestService | undefined
  before(async () => {
    if (onPostgres) database = await createDatabase()
    else dataDir = mkdtempSync(join(tmpdir(), 'sitewatch-cli-'))
  })
  after(async () => {
    await t?.stop()
    await database?.drop()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  const cli = async (args: string[], stdin = '') => await new Promise<{ code: number, out: string, err: string }>(resolve => {
    const child = execFile(process.execPath, [...programArgs('src/cli/main.ts'), ...args], {
      env: {
        ...process.env,
        PUBLIC_BASE_URL: 'https://watch.example.test',
        ...(database ? { DATABASE_URL: database.url } : { DATA_DIR: dataDir, DATABASE_URL: '' })
      }
    }, (err, out, errOut) => resolve({ code: err ? Number(err.code ?? 1) : 0, out, err: errOut }))
    child.stdin!.end(stdin)
  })

  it('adds a person, lists, invites and resets; the person signs in to the app', async () => {
    const org = JSON.parse((await cli(['org', 'create', 'Cli Corp', '--plan', 'pro'])).out).org
    const added = await cli(['user', 'add', org.id, 'cy@example.test', '--role', 'admin', '--name', 'Cy'], `${PASSWORD}\n`)
    assert.equal(added.code, 0, added.err)
    assert.equal(JSON.parse(added.out).role, 'admin')
    const again = await cli(['user', 'add', org.id, 'cy@example.test'], `${PASSWORD}\n`)
    assert.equal(again.code, 1)
    assert.match(again.err, /already has an account/)
    assert.match((await cli(['user', 'add', org.id, 'di@example.test', '--role', 'king'], PASSWORD)).err, /role must be one of/)
    const listed = JSON.parse((await cli(['user', 'list', org.id])).out)
    assert.deepEqual(listed.map((m: any) => [m.email, m.role, m.name]), [['cy@example.test', 'admin', 'Cy']])
    const invited = JSON.parse((await cli(['user', 'invite', org.id, 'di@example.test'])).out)
    assert.equal(invited.role, 'viewer')
    assert.equal(invited.mailed, false)
    assert.match(invited.link, /^https:\/\/watch\.example\.test\/app\/invite\/[\w-]{40,}$/)
    const reset = JSON.parse((await cli(['user', 'reset', 'cy@example.test'])).out)
    assert.match(reset.link, /^https:\/\/watch\.example\.test\/app\/reset\//)
    assert.equal((await cli(['user', 'reset', 'nobody@example.test'])).code, 2)

    t = await startTestService(dataDir ? { DATA_DIR: dataDir } : {}, database ? { databaseUrl: database.url } : {})
    const cy = new FormClient(t.url)
    assert.equal((await cy.signIn('cy@example.test', PASSWORD)).status, 303)
    assert.match((await cy.request('GET', '/app/members')).text, /Cy/)
    const di = new FormClient(t.url)
    const path = new URL(invited.link).pathname
    assert.equal((await di.submit(path, path, { email: 'di@example.test', password: PASSWORD })).status, 303)
    // What the command line did is in the organisation's audit log, as the operator's.
    const events = await t.service.store.db.selectFrom('audit_events').select(['action', 'actor_kind', 'actor_label'])
      .where('org_id', '=', org.id).where('actor_kind', '=', 'operator').orderBy('at').execute()
    assert.deepEqual(events.map(e => e.action), ['org.created', 'member.added', 'member.invited', 'password.reset_requested'])
    assert.ok(events.every(e => e.actor_label === 'operator (command line)'))
  })
})
