import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { parse, stringify } from 'yaml'
import { apiChange, compareSpecs, parseSpec, specLinks } from '../../src/changes/api-spec.js'
import { compareContent, readPage } from '../../src/changes/detect.js'

// API pages (Swagger UI, Redoc, a bare link to YAML) and their descriptions: the Petstore,
// evolved the way real APIs are (an operation added, one deprecated, a field made
// required, one removed, an operation removed, words only), in OpenAPI 3 and Swagger 2;
// and hostile descriptions.

const file = (name: string) => readFileSync(new URL(`fixtures/api/${name}`, import.meta.url), 'utf8')
const petstore = () => parse(file('petstore.yaml'))
const NO_TEXT = { before: '', after: '', stats: { additions: 0, deletions: 0, changes: 0 }, hunks: [] }

/** The change the API page reports when its description goes from `before` to `after` (YAML text). */
function changeOf (before: object, after: object) {
  return apiChange(compareSpecs(parseSpec(stringify(before)), parseSpec(stringify(after))), NO_TEXT)
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

  it('only descriptions: content_change, low; the same document re-serialised: nothing', () => {
    const after = petstore()
    after.paths['/pets'].get.summary = 'List every pet in the store'
    const c = changeOf(petstore(), after)!
    assert.deepEqual([c.changeType, c.severity, c.summary], ['content_change', 'low', 'API: descriptions changed'])
    assert.deepEqual(c.diffData.api, { breaking: [], nonBreaking: [], deprecated: [], descriptionsChanged: true })
    assert.equal(apiChange(compareSpecs(parseSpec(file('petstore.yaml')), parseSpec(JSON.stringify(petstore()))), NO_TEXT),
      undefined)
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
    const c = apiChange(compareSpecs(parseSpec(a), parseSpec(b)), NO_TEXT)!
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
