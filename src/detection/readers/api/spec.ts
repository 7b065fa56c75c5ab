import { parseDom } from '../../text/dom.js'
import { parse as parseYaml } from 'yaml'
import type { ApiChange, ApiDiff, Fact } from '../../../vocabulary/core.js'
import { judge } from '../../../vocabulary/facts.js'
import type { StructuredChange, StructuredReading } from '../structure.js'

// An API documentation page's machine-readable description (OpenAPI 3.x, Swagger 2; JSON
// or YAML) compared operation by operation: operations removed or added, required
// request fields or parameters added, response fields removed, types changed,
// deprecations, and descriptions. Hostile documents are bounded: YAML aliases are capped
// (no "billion laughs"), $ref cycles end, and the work is linear in the operations.
// (api-smart-diff was measured first: it reads no Swagger 2, and a 10,000-operation
// document took it 10.4 s and 172 MB; this reading takes well under a second.)

/**
 * A page's named description, in the order Swagger UI, Redoc, Scalar, Stoplight and plain
 * links name it; when it names none, the script that configures its viewer (Swagger UI's
 * swagger-initializer.js), whose named description specsNamedIn reads.
 */
export function specLinks (html: string, pageUrl: string): string[] {
  const found: string[] = []
  const initializers: string[] = []
  const addTo = (list: string[]) => (href: string | undefined) => {
    if (!href) return
    try {
      const url = new URL(href.trim(), pageUrl)
      if ((url.protocol === 'http:' || url.protocol === 'https:') && !list.includes(url.href)) list.push(url.href)
    } catch { /* not an address */ }
  }
  const add = addTo(found)
  const doc = parseDom(html)
  const walk = (nodes: typeof doc.children) => {
    for (const n of nodes) {
      if (n.type !== 'tag' && n.type !== 'script') continue
      const a = n.attribs
      add(a['spec-url'] ?? a['data-url'] ?? a.apidescriptionurl ?? a['api-description-url'] ?? a['data-spec-url'])
      if (n.name === 'script') {
        const code = n.children.map(c => (c.type === 'text' ? c.data : '')).join('')
        for (const m of code.matchAll(SCRIPT_URL)) add(m[1] ?? m[2])
        if (a.src && INITIALIZER.test(a.src.split(/[?#]/)[0])) addTo(initializers)(a.src)
      }
      if ((n.name === 'a' || n.name === 'link') && a.href && SPEC_FILE.test(a.href.split(/[?#]/)[0])) add(a.href)
      walk(n.children)
    }
  }
  walk(doc.children)
  return found.length > 0 ? found : initializers
}

/** The descriptions a viewer's configuring script names (`url: "/openapi.json"`), as addresses of the page. */
export function specsNamedIn (script: string, pageUrl: string): string[] {
  const found: string[] = []
  for (const m of script.slice(0, MAX_SCRIPT).matchAll(SCRIPT_URL)) {
    try {
      const url = new URL((m[1] ?? m[2]).trim(), pageUrl)
      if ((url.protocol === 'http:' || url.protocol === 'https:') && !found.includes(url.href)) found.push(url.href)
    } catch { /* not an address */ }
  }
  return found
}

/** The scripts that configure an API viewer, by their conventional names. */
const INITIALIZER = /(?:^|\/)swagger-(?:initializer|config)\.js$/i
/** How much of a configuring script is read. */
const MAX_SCRIPT = 256 * 1024

/** `url: "…/openapi.json"` (Swagger UI), `Redoc.init("…")`, `specUrl`, `spec-url`, in a page's script. */
const SCRIPT_URL = /(?:\burl|specUrl|spec_url|apiDescriptionUrl)\s*[:=]\s*["'`]([^"'`]+)["'`]|Redoc\.init\(\s*["'`]([^"'`]+)["'`]/g
const SPEC_FILE = /(?:openapi|swagger|api-docs|api|spec)[\w.-]*\.(?:json|ya?ml)$/i

/** Where a host's description is by convention, asked when its page names none. */
export const CONVENTIONAL_SPEC_PATHS = ['/.well-known/openapi.json', '/openapi.json']

const MAX_OPERATIONS = 50_000
const MAX_REF_DEPTH = 12
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

type Json = Record<string, any>

/** A description parsed and checked; throws an Error that says what is wrong with it. */
export function parseSpec (text: string): Json {
  let doc: unknown
  try {
    doc = /^\s*[{[]/.test(text) ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100, uniqueKeys: false })
  } catch (err) {
    throw new Error(`not JSON or YAML we can read: ${(err as Error).message.split('\n')[0]}`)
  }
  if (!doc || typeof doc !== 'object') throw new Error('not an OpenAPI or Swagger document')
  const d = doc as Json
  const version = String(d.openapi ?? d.swagger ?? '')
  if (!/^(?:3\.\d|2\.0)/.test(version) || !d.paths || typeof d.paths !== 'object') {
    throw new Error('not an OpenAPI 3.x or Swagger 2.0 document (no openapi/swagger version, or no paths)')
  }
  const count = operationCount(d)
  if (count > MAX_OPERATIONS) throw new Error(`${count} operations, more than the ${MAX_OPERATIONS} we read`)
  return d
}

/** How many operations (a path's methods) a parsed description has. */
export function operationCount (doc: Json): number {
  return Object.values(doc.paths as Json)
    .reduce((n: number, item) => n + (item && typeof item === 'object' ? METHODS.filter(m => m in item).length : 0), 0)
}

/** A field of a body: whether its parent requires it, whether every field above it is required, its type. */
interface Field {
  required: boolean
  /** Required, and so is every field above it: a client must always send it. */
  always: boolean
  type: string
  /** Its enum's values, when it has one. */
  values?: readonly string[]
}

interface Operation {
  deprecated: boolean
  /** Each parameter, `in:name`: whether it is required, its type and its enum's values. */
  params: Map<string, Field>
  /** The request body's fields (`''` is the body itself): required, and type. */
  request: Map<string, Field>
  requestRequired: boolean
  /** The success responses' fields (`''` is the body itself), with their type, by status. */
  response: Map<string, string>
  /** The success statuses it answers with. */
  statuses: string[]
}

/** `#/components/schemas/Pet` followed, through at most MAX_REF_DEPTH references (cycles end there). */
function deref (doc: Json, value: any): any {
  let v = value
  for (let depth = 0; v && typeof v === 'object' && typeof v.$ref === 'string' && depth < MAX_REF_DEPTH; depth++) {
    const ref: string = v.$ref
    if (!ref.startsWith('#/')) return {}
    v = ref.slice(2).split('/').reduce<any>((o, k) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc)
  }
  return v && typeof v === 'object' && typeof v.$ref !== 'string' ? v : {}
}

const typeOf = (doc: Json, schema: any): string => {
  const s = deref(doc, schema)
  const t = Array.isArray(s.type) ? s.type.join('|') : s.type ?? (s.properties ? 'object' : s.items ? 'array' : 'any')
  return s.format ? `${t}(${s.format})` : t
}
const enumOf = (doc: Json, schema: any): string[] | undefined => {
  const values = deref(doc, schema).enum
  return Array.isArray(values) ? values.map(v => String(v)) : undefined
}

/** How deep fields are compared (`items[].options[].code` is three), and how many a body may have read. */
const FIELD_DEPTH = 6
const MAX_FIELDS = 500

/**
 * A schema's fields (of its items when an array; of each allOf part), and those of its
 * object fields down to FIELD_DEPTH, named with their path (`owner.name`, `tags[].id`);
 * the body itself is `''`. A nested field is required within its parent when the parent
 * lists it; it must always be sent when every field above it is required too.
 */
function fieldsOf (doc: Json, schema: any): Map<string, Field> {
  const out = new Map<string, Field>()
  if (schema === undefined) return out
  out.set('', { required: true, always: true, type: typeOf(doc, schema) })
  // A schema already open above a field (Pet → owner → pets[] → Pet) is not read again.
  const open = new Set<unknown>()
  const walk = (schema: any, prefix: string, depth: number, above: boolean) => {
    let s = deref(doc, schema)
    if (s.type === 'array' && s.items) s = deref(doc, s.items)
    if (open.has(s)) return
    open.add(s)
    const parts = [s, ...(Array.isArray(s.allOf) ? s.allOf.map((p: any) => deref(doc, p)) : [])]
    for (const part of parts) {
      const required = new Set(Array.isArray(part.required) ? part.required : [])
      for (const [name, prop] of Object.entries(part.properties ?? {})) {
        if (out.size >= MAX_FIELDS) return
        const type = typeOf(doc, prop)
        const path = `${prefix}${name}`
        const values = enumOf(doc, prop)
        const field: Field = { required: required.has(name), always: above && required.has(name), type }
        if (values) field.values = values
        out.set(path, field)
        if (depth < FIELD_DEPTH && (type === 'object' || type === 'array')) {
          walk(prop, `${path}${type === 'array' ? '[]' : ''}.`, depth + 1, field.always)
        }
      }
    }
    open.delete(s)
  }
  walk(schema, '', 1, true)
  return out
}

/** The JSON (or first) media type's schema of a request body or response, OpenAPI 3 or Swagger 2. */
function bodySchema (doc: Json, holder: any): any {
  const h = deref(doc, holder)
  if (h.schema) return h.schema
  const content = h.content && typeof h.content === 'object' ? h.content : {}
  const type = Object.keys(content).find(k => /json/i.test(k)) ?? Object.keys(content)[0]
  return type ? content[type]?.schema : undefined
}

function operationsOf (doc: Json): Map<string, Operation> {
  const ops = new Map<string, Operation>()
  for (const [path, rawItem] of Object.entries(doc.paths as Json)) {
    const item = deref(doc, rawItem)
    for (const method of METHODS) {
      const op = item[method]
      if (!op || typeof op !== 'object') continue
      const params = new Map<string, Field>()
      let request = new Map<string, Field>()
      let requestRequired = false
      const list = (v: unknown): unknown[] => Array.isArray(v) ? v : []
      for (const raw of [...list(item.parameters), ...list(op.parameters)]) {
        const p = deref(doc, raw)
        if (!p.name) continue
        // Swagger 2's body parameter is the request body.
        if (p.in === 'body') {
          request = fieldsOf(doc, p.schema)
          requestRequired = p.required === true
          continue
        }
        const required = p.required === true || p.in === 'path'
        const field: Field = { required, always: required, type: typeOf(doc, p.schema ?? p) }
        const values = enumOf(doc, p.schema ?? p)
        if (values) field.values = values
        params.set(`${p.in}:${p.name}`, field)
      }
      if (op.requestBody) {
        const body = deref(doc, op.requestBody)
        request = fieldsOf(doc, bodySchema(doc, body))
        requestRequired = body.required === true
      }
      const response = new Map<string, string>()
      const statuses: string[] = []
      for (const [status, res] of Object.entries(op.responses ?? {})) {
        if (!/^2/.test(status)) continue
        statuses.push(status)
        for (const [name, f] of fieldsOf(doc, bodySchema(doc, res))) if (!response.has(name)) response.set(name, f.type)
      }
      const deprecated = op.deprecated === true
      ops.set(`${method.toUpperCase()} ${path}`, { deprecated, params, request, requestRequired, response, statuses })
    }
  }
  return ops
}

/** `query:limit` → `limit`. */
const paramName = (key: string) => key.slice(key.indexOf(':') + 1)

const item = (key: string, change: string): ApiChange => {
  const [method, path] = [key.slice(0, key.indexOf(' ')), key.slice(key.indexOf(' ') + 1)]
  return { method, path, change }
}

const removedValues = (old: Field, now: Field) =>
  old.values && now.values ? old.values.filter(v => !now.values!.includes(v)) : []
const addedValues = (old: Field, now: Field) => removedValues(now, old)
const quoted = (values: readonly string[]) => values.map(v => `\`${v}\``).join(', ')
/** `items[].qty` → "(when `items` is sent)": the first optional field above a nested one. */
function whenSent (fields: ReadonlyMap<string, Field>, path: string): string {
  const parts = path.split('.')
  for (let i = 1; i < parts.length; i++) {
    const above = parts.slice(0, i).join('.').replace(/\[\]$/, '')
    const f = fields.get(above) ?? fields.get(`${above}[]`)
    if (f && !f.always) return ` (when \`${above}\` is sent)`
  }
  return ''
}

/**
 * Two descriptions compared operation by operation, by the rules the reference checkers
 * (oasdiff, openapi-diff) grade with. Breaking: an operation or a success status removed,
 * a required parameter or request field added or made required (nested in an optional
 * field too: then only when that field is sent), a parameter's or field's type changed,
 * a request enum's value removed, a response field removed or its type changed, the
 * response body's own type changed (an array become an object). Not breaking: operations,
 * optional parameters and fields added, a request enum's value added, parameters removed. Descriptions, summaries,
 * examples, vendor extensions and the version stamp are nobody's contract: not compared.
 */
export function compareSpecs (beforeDoc: Json, afterDoc: Json): ApiDiff {
  const [was, is] = [operationsOf(beforeDoc), operationsOf(afterDoc)]
  const diff: ApiDiff = { breaking: [], nonBreaking: [], deprecated: [] }
  for (const key of was.keys()) if (!is.has(key)) diff.breaking.push(item(key, 'removed'))
  for (const [key, b] of was) {
    const a = is.get(key)
    if (!a) continue
    const breaking = (change: string) => diff.breaking.push(item(key, change))
    const nonBreaking = (change: string) => diff.nonBreaking.push(item(key, change))
    for (const [name, p] of a.params) {
      const old = b.params.get(name)
      const label = `parameter \`${paramName(name)}\` (${name.slice(0, name.indexOf(':'))})`
      if (!old && p.required) breaking(`required ${label} added`)
      else if (!old) nonBreaking(`optional ${label} added`)
      else if (p.required && !old.required) breaking(`${label} now required`)
      else if (old.type !== p.type) breaking(`${label} type ${old.type} → ${p.type}`)
      else if (removedValues(old, p).length > 0) breaking(`${label} no longer accepts ${quoted(removedValues(old, p))}`)
      else if (addedValues(old, p).length > 0) nonBreaking(`${label} now also accepts ${quoted(addedValues(old, p))}`)
    }
    for (const name of b.params.keys()) {
      if (!a.params.has(name)) nonBreaking(`parameter \`${paramName(name)}\` removed`)
    }
    if (a.requestRequired && !b.requestRequired) breaking('request body now required')
    // A body of another type (an array become an object) is another body: that says it all.
    const [requestWas, requestIs] = [b.request.get('')?.type, a.request.get('')?.type]
    if (requestWas && requestIs && requestWas !== requestIs) breaking(`request body type ${requestWas} → ${requestIs}`)
    for (const [name, f] of requestWas && requestIs && requestWas !== requestIs ? [] : a.request) {
      const old = b.request.get(name)
      if (name === '') continue
      const field = `request field \`${name}\``
      if (f.required && !old?.required && (old || !parentIsNew(b.request, name))) {
        breaking(`required ${field} ${old ? 'now required' : 'added'}${whenSent(a.request, name)}`)
      } else if (old && old.type !== f.type) {
        breaking(`${field} type ${old.type} → ${f.type}`)
      } else if (old && removedValues(old, f).length > 0) {
        breaking(`${field} no longer accepts ${quoted(removedValues(old, f))}`)
      } else if (old && addedValues(old, f).length > 0) {
        nonBreaking(`${field} now also accepts ${quoted(addedValues(old, f))}`)
      } else if (!old && !parentIsNew(b.request, name)) nonBreaking(`optional ${field} added`)
    }
    for (const status of b.statuses) {
      if (!a.statuses.includes(status)) breaking(`success response ${status} removed`)
    }
    const [responseWas, responseIs] = [b.response.get(''), a.response.get('')]
    const reshaped = responseWas !== undefined && responseIs !== undefined && responseWas !== responseIs
    for (const [name, type] of reshaped ? [['', responseWas]] as const : b.response) {
      const now = a.response.get(name)
      const what = name === '' ? 'response body' : `response field \`${name}\``
      if (now === undefined) {
        if (name !== '' && !parentGone(a.response, name)) breaking(`${what} removed`)
      } else if (now !== type) breaking(`${what} type ${type} → ${now}`)
    }
    for (const name of reshaped ? [] : a.response.keys()) {
      if (name !== '' && !b.response.has(name) && !parentIsNew(b.response, name)) {
        nonBreaking(`response field \`${name}\` added`)
      }
    }
    if (a.deprecated && !b.deprecated) diff.deprecated.push(item(key, 'deprecated'))
  }
  for (const key of is.keys()) if (!was.has(key)) diff.nonBreaking.push(item(key, 'added'))
  return diff
}

/** The field above a nested path (`a.b[].c` → `a.b`), or undefined at the top. */
function parentOf (path: string): string | undefined {
  const at = path.lastIndexOf('.')
  return at < 0 ? undefined : path.slice(0, at).replace(/\[\]$/, '')
}
/** Whether a field's parent is new too (the parent's addition says it all). */
const parentIsNew = (old: ReadonlyMap<string, unknown>, path: string) => {
  const parent = parentOf(path)
  return parent !== undefined && !old.has(parent)
}
/** Whether a removed field's parent is gone too (the parent's removal says it all). */
const parentGone = (now: ReadonlyMap<string, unknown>, path: string) => {
  const parent = parentOf(path)
  return parent !== undefined && !now.has(parent)
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
const shown = (c: ApiChange) => `${c.method} ${c.path} ${c.change}`

/**
 * The change a person reads from two descriptions' difference, one per crawl: its type
 * and weight from the worst of it (an operation removed: critical; a breaking change:
 * high; an operation added or a deprecation: medium; descriptions only: low).
 */
export function apiChange (diff: ApiDiff): StructuredChange | undefined {
  const removed = diff.breaking.filter(c => c.change === 'removed')
  const added = diff.nonBreaking.filter(c => c.change === 'added')
  const otherBreaking = diff.breaking.filter(c => c.change !== 'removed')
  const otherNonBreaking = diff.nonBreaking.filter(c => c.change !== 'added')
  // Each difference as a fact, weightiest kind first: the first leads (see facts.ts).
  const about = (c: ApiChange) => ({ subject: `${c.method} ${c.path}` })
  const facts: Fact[] = [
    ...removed.map(c => ({ kind: 'operation_removed' as const, ...about(c) })),
    ...otherBreaking.map(c => ({ kind: 'api_breaking' as const, ...about(c) })),
    ...added.map(c => ({ kind: 'operation_added' as const, ...about(c) })),
    ...diff.deprecated.map(c => ({ kind: 'api_deprecated' as const, ...about(c) })),
    ...otherNonBreaking.map(c => ({ kind: 'api_described' as const, ...about(c) }))
  ]
  if (facts.length === 0) return undefined
  const { changeType, severity } = judge(facts[0], 'api_docs')
  const lead = removed[0] ?? otherBreaking[0] ?? added[0] ?? diff.deprecated[0] ?? diff.nonBreaking[0]
  const parts = [shown(lead)]
  const restBreaking = diff.breaking.length - (lead && diff.breaking.includes(lead) ? 1 : 0)
  const more = lead && diff.breaking.includes(lead) ? 'more ' : ''
  if (restBreaking > 0) parts.push(plural(restBreaking, `${more}breaking change`, `${more}breaking changes`))
  const restAdded = added.length - (lead && added.includes(lead) ? 1 : 0)
  if (restAdded > 0) parts.push(`${plural(restAdded, 'operation')} added`)
  const restDeprecated = diff.deprecated.length - (lead && diff.deprecated.includes(lead) ? 1 : 0)
  if (restDeprecated > 0) parts.push(`${plural(restDeprecated, 'deprecation')}`)
  return {
    changeType,
    severity,
    confidence: 0.95,
    summary: `API: ${parts.join('; ')}`,
    diffData: { api: diff, facts }
  }
}

/**
 * Two versions of an API page's description as a structured reading: one change for
 * what its contract lost or gained (none when only words moved). The page's own text is
 * compared on its own: the description explains none of it.
 */
export function compareApiDocuments (before: string, after: string): StructuredReading | undefined {
  // A version that is no description cannot be read (undefined); a comparison that fails throws, and is told.
  let specs
  try {
    specs = [parseSpec(before), parseSpec(after)] as const
  } catch {
    return undefined
  }
  const diff: ApiDiff = compareSpecs(...specs)
  const change = apiChange(diff)
  return { changes: change ? [change] : [], explains: () => false }
}
