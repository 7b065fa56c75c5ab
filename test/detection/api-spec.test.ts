import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { parse, stringify } from 'yaml'
import { apiChange, compareSpecs, parseSpec, specLinks, specsNamedIn } from '../../src/detection/readers/api/spec.js'
import { compareContent, readPage } from '../../src/detection/detect.js'

// API pages (Swagger UI, Redoc, a bare link to YAML) and their descriptions: the Petstore,
// evolved the way real APIs are (an operation added, one deprecated, a field made
// required, one removed, an operation removed, words only), in OpenAPI 3 and Swagger 2;
// and hostile descriptions.

const file = (name: string) => readFileSync(new URL(`fixtures/api/${name}`, import.meta.url), 'utf8')
const petstore = () => parse(file('petstore.yaml'))
const orders = () => parse(file('orders.yaml'))

/** The change the API page reports when its description goes from `before` to `after` (YAML text). */
function changeOf (before: object, after: object) {
  return apiChange(compareSpecs(parseSpec(stringify(before)), parseSpec(stringify(after))))
}

describe('API descriptions found on their pages', () => {
  it('Swagger UI, Redoc and a plain link', () => {
    assert.deepEqual(specLinks(file('swagger-ui.html'), 'https://petstore.example.test/docs/api'),
      ['https://petstore.example.test/specs/petstore.json'])
    assert.deepEqual(specLinks(file('redoc.html'), 'https://petstore.example.test/docs'),
      ['https://petstore.example.test/openapi.yaml'])
    assert.deepEqual(specLinks(file('link.html'), 'https://petstore.example.test/developers'),
      ['https://petstore.example.test/downloads/petstore-openapi.yaml'])
    const scalar = '<script id="api-reference" data-url="/api/openapi.json"></script>'
    assert.deepEqual(specLinks(scalar, 'https://x.test/ref'), ['https://x.test/api/openapi.json'])
    const stoplight = '<elements-api apiDescriptionUrl="https://x.test/spec.yaml" router="hash"></elements-api>'
    assert.deepEqual(specLinks(stoplight, 'https://x.test/'), ['https://x.test/spec.yaml'])
  })

  it('Swagger UI as its dist ships: the page names its swagger-initializer.js, which names the description', () => {
    const shell = '<div id="swagger-ui"></div><script src="./swagger-ui-bundle.js"></script>' +
      '<script src="./swagger-initializer.js?v=5"></script>'
    assert.deepEqual(specLinks(shell, 'https://x.test/docs/'), ['https://x.test/docs/swagger-initializer.js?v=5'])
    assert.deepEqual(specLinks(`${shell}<a href="/openapi.yaml">Spec</a>`, 'https://x.test/docs/'), ['https://x.test/openapi.yaml'],
      'a description the page names itself comes first, alone')
    const init = 'window.onload = () => { window.ui = SwaggerUIBundle({ url: "specs/api.json", dom_id: "#swagger-ui" }) }'
    assert.deepEqual(specsNamedIn(init, 'https://x.test/docs/'), ['https://x.test/docs/specs/api.json'])
  })
})

describe('API descriptions compared operation by operation', () => {
  it('an operation added: feature_added, medium', () => {
    const after = petstore()
    after.paths['/pets/{petId}/photos'] = { get: { summary: 'A pet\'s photos', responses: { 200: { description: 'ok' } } } }
    const c = changeOf(petstore(), after)!
    assert.deepEqual([c.changeType, c.severity, c.summary], ['feature_added', 'medium', 'API: GET /pets/{petId}/photos added'])
    assert.deepEqual(c.diffData.api, { breaking: [], nonBreaking: [{ method: 'GET', path: '/pets/{petId}/photos', change: 'added' }], deprecated: [] })
  })

  it('a deprecation: content_change, medium', () => {
    const after = petstore()
    after.paths['/pets'].get.deprecated = true
    const c = changeOf(petstore(), after)!
    assert.deepEqual([c.changeType, c.severity, c.summary], ['content_change', 'medium', 'API: GET /pets deprecated'])
  })

  it('a required request field, a required parameter, a response field removed, a type narrowed: breaking, high', () => {
    const after = petstore()
    after.components.schemas.NewPet.required.push('tag')
    after.paths['/pets'].get.parameters.push({ name: 'species', in: 'query', required: true, schema: { type: 'string' } })
    delete after.components.schemas.Pet.properties.tag
    after.components.schemas.Error.properties.code = { type: 'string' }
    const c = changeOf(petstore(), after)!
    assert.deepEqual([c.changeType, c.severity], ['feature_removed', 'high'])
    assert.deepEqual(c.diffData.api!.breaking.map(x => `${x.method} ${x.path} ${x.change}`), [
      'GET /pets required parameter `species` (query) added',
      'GET /pets response field `tag` removed',
      'POST /pets required request field `tag` now required',
      'GET /pets/{petId} response field `tag` removed'
    ])
    assert.equal(c.summary, 'API: GET /pets required parameter `species` (query) added; 3 more breaking changes')
  })

  it('a field of a field: a nested response field removed is breaking too', () => {
    const after = petstore()
    delete after.components.schemas.Owner.properties.name
    const c = changeOf(petstore(), after)!
    assert.deepEqual(c.diffData.api!.breaking.map(x => `${x.method} ${x.path} ${x.change}`), [
      'GET /pets response field `owner.name` removed', 'GET /pets/{petId} response field `owner.name` removed'
    ])
  })

  it('an operation removed: feature_removed, critical', () => {
    const after = petstore()
    delete after.paths['/pets/{petId}'].delete
    after.paths['/pets'].get.parameters.push({ name: 'owner', in: 'query', required: true, schema: { type: 'string' } })
    const c = changeOf(petstore(), after)!
    assert.deepEqual([c.changeType, c.severity], ['feature_removed', 'critical'])
    assert.equal(c.summary, 'API: DELETE /pets/{petId} removed; 1 more breaking change')
  })

  it('descriptions, summaries, examples, vendor extensions and the version stamp: nothing; re-serialised: nothing', () => {
    const after = petstore()
    after.paths['/pets'].get.summary = 'List every pet in the store'
    assert.equal(changeOf(petstore(), after), undefined)
    const spec = orders()
    spec.info.version = '2024-09-15'
    spec.info.description = 'Create, track and cancel orders.'
    spec.info['x-logo'].url = 'https://parcelly.example.test/logo-2.svg'
    spec.paths['/orders'].get.description = 'Newest first; at most 100 at a time.'
    spec.paths['/orders'].get['x-rate-limit'] = 200
    spec.paths['/orders'].get.responses['200'].content['application/json'].examples.one.value[0].total = 1499
    spec.paths['/orders'].post.requestBody.content['application/json'].example.items[0].quantity = 3
    spec.components.schemas.NewOrder.properties.items.description = 'The lines of the order.'
    assert.equal(changeOf(orders(), spec), undefined)
    assert.equal(apiChange(compareSpecs(parseSpec(file('petstore.yaml')), parseSpec(JSON.stringify(petstore())))),
      undefined)
  })

  it('a response that becomes one object instead of an array breaks every client', () => {
    const after = orders()
    after.paths['/orders'].get.responses['200'].content['application/json'].schema = {
      type: 'object', properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Order' } }, next_cursor: { type: 'string' } }
    }
    const c = changeOf(orders(), after)!
    assert.deepEqual([c.changeType, c.severity], ['feature_removed', 'high'])
    assert.equal(c.summary, 'API: GET /orders response body type array → object')
    assert.deepEqual(c.diffData.api, {
      breaking: [{ method: 'GET', path: '/orders', change: 'response body type array → object' }], nonBreaking: [], deprecated: []
    })
  })

  it('a field made required inside the items of an optional array, and deeper: breaking, in the words of when', () => {
    const after = orders()
    after.components.schemas.NewOrder.properties.items.items.required = ['sku', 'quantity']
    after.components.schemas.NewOrder.properties.items.items.properties.options.items.required = ['code']
    const c = changeOf(orders(), after)!
    assert.deepEqual([c.changeType, c.severity], ['feature_removed', 'high'])
    assert.deepEqual(c.diffData.api!.breaking.map(b => `${b.method} ${b.path} ${b.change}`), [
      'POST /orders required request field `items[].quantity` now required (when `items` is sent)',
      'POST /orders required request field `items[].options[].code` now required (when `items` is sent)'
    ])
  })

  it('an enum value a client may send is removed, a success status removed: breaking', () => {
    const after = orders()
    after.components.schemas.NewOrder.properties.shipping.properties.method.enum = ['standard', 'express']
    after.paths['/orders'].get.parameters[0].schema.enum = ['open', 'shipped', 'delivered']
    after.paths['/orders'].post.responses = { 200: after.paths['/orders'].post.responses['201'] }
    const c = changeOf(orders(), after)!
    assert.deepEqual(c.diffData.api!.breaking.map(b => `${b.method} ${b.path} ${b.change}`).sort(), [
      'GET /orders parameter `status` (query) no longer accepts `cancelled`',
      'POST /orders request field `shipping.method` no longer accepts `overnight`',
      'POST /orders success response 201 removed'
    ])
  })

  it('a new optional field inside a new optional object is one addition, not one per field', () => {
    const after = orders()
    after.components.schemas.NewOrder.properties.gift = { type: 'object', properties: { message: { type: 'string' }, wrap: { type: 'boolean' } } }
    const c = changeOf(orders(), after)!
    assert.deepEqual([c.changeType, c.severity, c.summary], ['content_change', 'low', 'API: POST /orders optional request field `gift` added'])
  })

  it('Swagger 2.0: a body parameter and its schema, an operation removed', () => {
    const swagger = {
      swagger: '2.0',
      info: { title: 'Petstore', version: '1' },
      paths: {
        '/pets': {
          post: { parameters: [{ in: 'body', name: 'body', required: true, schema: { $ref: '#/definitions/NewPet' } }], responses: { 201: { description: 'ok' } } },
          get: { responses: { 200: { description: 'ok', schema: { type: 'array', items: { $ref: '#/definitions/Pet' } } } } }
        },
        '/pets/{id}': { delete: { parameters: [{ in: 'path', name: 'id', type: 'string', required: true }], responses: { 204: { description: 'gone' } } } }
      },
      definitions: {
        NewPet: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, tag: { type: 'string' } } },
        Pet: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } }
      }
    }
    const after = structuredClone(swagger) as any
    delete after.paths['/pets/{id}']
    after.definitions.NewPet.required.push('tag')
    delete after.definitions.Pet.properties.name
    const c = changeOf(swagger, after)!
    assert.equal(c.severity, 'critical')
    assert.deepEqual(c.diffData.api!.breaking.map(x => `${x.method} ${x.path} ${x.change}`), [
      'DELETE /pets/{id} removed', 'GET /pets response field `name` removed', 'POST /pets required request field `tag` now required'
    ])
  })
})

describe('hostile descriptions', () => {
  it('a YAML bomb (aliases of aliases) is refused before it expands', () => {
    const bomb = ['openapi: 3.0.0', 'a: &a ["x","x","x","x","x","x","x","x","x"]']
    for (let i = 1; i < 10; i++) bomb.push(`${'b'.repeat(i)}: &${'b'.repeat(i)} [${Array(9).fill(`*${i === 1 ? 'a' : 'b'.repeat(i - 1)}`).join(',')}]`)
    bomb.push('paths: {}')
    assert.throws(() => parseSpec(bomb.join('\n')), /not JSON or YAML we can read: .*alias/i)
  })

  it('$ref cycles end', () => {
    const spec = petstore()
    spec.components.schemas.A = { $ref: '#/components/schemas/B' }
    spec.components.schemas.B = { $ref: '#/components/schemas/A' }
    spec.paths['/loop'] = { get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/A' } } } } } } }
    const after = structuredClone(spec)
    after.paths['/loop'].get.deprecated = true
    assert.equal(changeOf(spec, after)!.summary, 'API: GET /loop deprecated')
  })

  it('10,000 operations are compared (the time is in the README: well under a second)', () => {
    const big = petstore()
    for (let i = 0; i < 10_000; i++) {
      big.paths[`/things/${i}`] = { get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } } } }
    }
    const after = structuredClone(big)
    delete after.paths['/things/5000']
    const [a, b] = [JSON.stringify(big), JSON.stringify(after)]
    const c = apiChange(compareSpecs(parseSpec(a), parseSpec(b)))!
    assert.equal(c.summary, 'API: GET /things/5000 removed')
  })

  it('what is no description says so', () => {
    assert.throws(() => parseSpec('<html><body>Not found</body></html>'), /not JSON or YAML|not an OpenAPI/)
    assert.throws(() => parseSpec('{"hello": "world"}'), /not an OpenAPI 3.x or Swagger 2.0 document/)
  })
})

describe('an API page with its description', () => {
  it('the page\'s text and the description, compared together', () => {
    const html = file('swagger-ui.html')
    const before = JSON.stringify(petstore())
    const spec = petstore()
    delete spec.paths['/pets/{petId}'].delete
    const a = readPage(html)
    const changes = compareContent(a.text, a, 'api_docs', undefined, { before: html, after: html, beforeDocument: before, afterDocument: JSON.stringify(spec) })
    assert.deepEqual(changes.map(c => [c.changeType, c.severity, c.summary]), [['feature_removed', 'critical', 'API: DELETE /pets/{petId} removed']])
  })
})
