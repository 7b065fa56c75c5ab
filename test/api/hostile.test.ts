import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startTestService, type TestService } from '../helpers/service.js'

// Every operation that /openapi.json describes gets hostile values in each of its path
// parameters, query parameters and body fields, and hostile raw bodies. Whatever it
// answers must be a documented status with a documented body (the test client checks
// each response against /openapi.json), and never a 5xx.

const ZERO_UUID = '00000000-0000-0000-0000-000000000000'

const BODY_VALUES: unknown[] = [
  '',
  'x'.repeat(100_000),
  '\u0000',
  'a\u0000b',
  '\ud800',
  '😀'.repeat(3000),
  "'; DROP TABLE pages; --",
  -1,
  0,
  1.5,
  2 ** 63,
  1e308,
  true,
  null,
  [],
  {},
  [null],
  { a: { b: [] } },
  'https://127.0.0.1/',
  `https://acme.test/${'a/'.repeat(2000)}`
]
// As they stand in the query string (already encoded where they need it).
const QUERY_VALUES = [
  '',
  'x'.repeat(5000),
  '%00',
  '-1',
  '1e400',
  '99999999999999999999',
  '1.5',
  'true',
  '%FF%FE',
  ',,,',
  'a,b',
  '2026-02-30T00:00:00Z',
  '0001-01-01T00:00:00Z',
  '9999-12-31T23:59:59Z'
]
const PATH_VALUES = ['x', ZERO_UUID, 'ffffffff-ffff-ffff-ffff-ffffffffffff', '%00', 'a'.repeat(1000), '%2e%2e']
const RAW_BODIES = [
  '[]',
  '1',
  '"x"',
  'null',
  `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`,
  '{"domain":"a",}',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '\uFFFD\uFFFE'
]

/** Bodies that are valid but for the field under test, so that the test reaches the handler's own checks. */
const VALID_BODIES: Record<string, Record<string, unknown>> = {
  'POST /api/domains': { domain: 'hostile-test.com' },
  'POST /api/domains/{id}/pages': { url: 'https://acme.test/hostile' },
  'POST /api/webhooks': { url: 'https://example.org/hostile' }
}

describe('hostile input to every operation', () => {
  let t: TestService
  const ids: Record<string, string> = {}
  before(async () => {
    t = await startTestService({ CRAWL_HOST_MAP: 'acme.test=http://127.0.0.1:9' })
    ids.domain = (await t.api.post('/api/domains', { domain: 'acme.test' })).body.data.id
    ids.page = (await t.api.post(`/api/domains/${ids.domain}/pages`, { url: 'https://acme.test/pricing' })).body.data.id
    const webhook = await t.api.post('/api/webhooks', { url: 'https://example.org/hook' })
    assert.equal(webhook.status, 201)
    ids.webhook = webhook.body.data.id
  })
  after(async () => {
    await t.stop()
  })

  it('never answers 5xx, and answers only what /openapi.json documents', async () => {
    const spec = (await t.api.get('/openapi.json')).body
    const failures: string[] = []
    let requests = 0
    const send = async (method: string, path: string, opts: { body?: unknown, rawBody?: string }, what: string) => {
      requests++
      try {
        const res = await t.api.request(method, path, {
          ...opts,
          ...(opts.rawBody !== undefined ? { headers: { 'content-type': 'application/json' } } : {})
        })
        if (res.status >= 500) {
          failures.push(
            `${method} ${path.slice(0, 100)} ${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`
          )
        }
        // Whatever was created is removed, so that the fixtures stay as they were.
        if (res.status === 201 && method === 'POST' && path === '/api/domains') {
          await t.api.delete(`/api/domains/${res.body.data.id}`)
        }
        if (res.status === 201 && method === 'POST' && path.endsWith('/pages')) {
          await t.api.delete(`${path}/${res.body.data.id}`)
        }
        if (res.status === 201 && method === 'POST' && path === '/api/webhooks') {
          await t.api.delete(`/api/webhooks/${res.body.data.id}`)
        }
      } catch (err) {
        failures.push(`${method} ${path.slice(0, 100)} ${what}: ${(err as Error).message.slice(0, 300)}`)
      }
    }
    for (const [template, operations] of Object.entries<any>(spec.paths)) {
      if (!template.startsWith('/api')) continue
      const own = template.startsWith('/api/webhooks')
        ? ids.webhook
        : template.startsWith('/api/domains')
          ? ids.domain
          : ZERO_UUID
      const path = template.replace('{id}', own).replace('{pageId}', ids.page)
      for (const [lower, operation] of Object.entries<any>(operations)) {
        const method = lower.toUpperCase()
        const valid = VALID_BODIES[`${method} ${template}`] ?? {}
        const hasBody = operation.requestBody !== undefined
        for (const parameter of operation.parameters ?? []) {
          // Only these bad values reach a DELETE, so the fixtures stay.
          if (parameter.in === 'path') {
            for (const value of PATH_VALUES) {
              const bad = template
                .replace(`{${parameter.name}}`, value)
                .replace('{id}', own)
                .replace('{pageId}', ids.page)
              await send(method, bad, hasBody ? { body: valid } : {}, `path ${parameter.name}=${value.slice(0, 20)}`)
            }
          } else if (parameter.in === 'query') {
            for (const value of QUERY_VALUES) {
              const encoded = value.includes('%') ? value : encodeURIComponent(value)
              await send(
                method,
                `${path}?${parameter.name}=${encoded}`,
                {},
                `query ${parameter.name}=${value.slice(0, 20)}`
              )
            }
          }
        }
        if (!hasBody) continue
        const schema = operation.requestBody.content['application/json'].schema
        for (const field of Object.keys(schema.properties ?? {})) {
          for (const value of BODY_VALUES) {
            await send(
              method,
              path,
              { body: { ...valid, [field]: value } },
              `body ${field}=${JSON.stringify(value).slice(0, 20)}`
            )
          }
        }
        for (const raw of RAW_BODIES) await send(method, path, { rawBody: raw }, `raw body ${raw.slice(0, 20)}`)
      }
    }
    assert.deepEqual(failures, [])
    assert.ok(requests > 500, `only ${requests} requests: the operations were not all reached`)
    const pages = (await t.api.get(`/api/domains/${ids.domain}/pages`)).body.data
    assert.ok(
      pages.some((p: any) => p.id === ids.page),
      'the fixtures are still there'
    )
  })
})
