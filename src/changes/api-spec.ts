import { parseDocument } from 'htmlparser2'
import { parse as parseYaml } from 'yaml'
import type { ApiChange, ApiDiff, DiffData, Severity } from '../domain/vocabulary.js'
import type { DetectedChange } from './classify.js'

// An API documentation page's machine-readable description (OpenAPI 3.x, Swagger 2; JSON
// or YAML) compared operation by operation: operations removed or added, required
// request fields or parameters added, response fields removed, types changed,
// deprecations, and descriptions. Hostile documents are bounded: YAML aliases are capped
// (no "billion laughs"), $ref cycles end, and the work is linear in the operations.
// (api-smart-diff was measured first: it reads no Swagger 2, and a 10,000-operation
// document took it 10.4 s and 172 MB; this reading takes well under a second.)

/** A page's named description, in the order Swagger UI, Redoc, Scalar, Stoplight and plain links name it. */
export function specLinks (html: string, pageUrl: string): string[] {
  const found: string[] = []
  const add = (href: string | undefined) => {
    if (!href) return
    try {
      const url = new URL(href.trim(), pageUrl)
      if ((url.protocol === 'http:' || url.protocol === 'https:') && !found.includes(url.href)) found.push(url.href)
    } catch { /* not an address */ }
  }
  const doc = parseDocument(html)
  const walk = (nodes: typeof doc.children) => {
    for (const n of nodes) {
      if (n.type !== 'tag' && n.type !== 'script') continue
      const a = n.attribs
      add(a['spec-url'] ?? a['data-url'] ?? a.apidescriptionurl ?? a['api-description-url'] ?? a['data-spec-url'])
      if (n.name === 'script') {
        const code = n.children.map(c => (c.type === 'text' ? c.data : '')).join('')
        for (const m of code.matchAll(SCRIPT_URL)) add(m[1] ?? m[2])
      }
      if ((n.name === 'a' || n.name === 'link') && a.href && SPEC_FILE.test(a.href.split(/[?#]/)[0])) add(a.href)
      walk(n.children)
    }
  }
  walk(doc.children)
  return found
}

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

interface Operation {
  deprecated: boolean
  /** Each parameter, `in:name`: whether it is required, and its type. */
  params: Map<string, { required: boolean, type: string }>
  /** The request body's top-level fields: required, and type. */
  request: Map<string, { required: boolean, type: string }>
  requestRequired: boolean
  /** The success responses' top-level fields (an array's items' fields), with their type. */
  response: Map<string, string>
  /** Its words: summary, description, and its parts' descriptions. */
  words: string
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

/** How deep fields are compared: a body's own fields and theirs (`owner.name`). */
const FIELD_DEPTH = 2

/**
 * A schema's fields (of its items when an array; of each allOf part), and those of its
 * object fields down to FIELD_DEPTH, named with their path (`owner.name`, `tags[].id`).
 * A nested field is required when it and every field above it are.
 */
function fieldsOf (
  doc: Json, schema: any, prefix = '', depth = 1, out = new Map<string, { required: boolean, type: string }>(),
  above = true
): Map<string, { required: boolean, type: string }> {
  let s = deref(doc, schema)
  if (s.type === 'array' && s.items) s = deref(doc, s.items)
  const parts = [s, ...(Array.isArray(s.allOf) ? s.allOf.map((p: any) => deref(doc, p)) : [])]
  for (const part of parts) {
    const required = new Set(Array.isArray(part.required) ? part.required : [])
    for (const [name, prop] of Object.entries(part.properties ?? {})) {
      const type = typeOf(doc, prop)
      const path = `${prefix}${name}`
      const isRequired = above && required.has(name)
      out.set(path, { required: isRequired, type })
      if (depth < FIELD_DEPTH && (type === 'object' || type === 'array')) {
        fieldsOf(doc, prop, `${path}${type === 'array' ? '[]' : ''}.`, depth + 1, out, isRequired)
      }
    }
  }
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
      const params = new Map<string, { required: boolean, type: string }>()
      let request = new Map<string, { required: boolean, type: string }>()
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
        params.set(`${p.in}:${p.name}`, { required, type: typeOf(doc, p.schema ?? p) })
      }
      if (op.requestBody) {
        const body = deref(doc, op.requestBody)
        request = fieldsOf(doc, bodySchema(doc, body))
        requestRequired = body.required === true
      }
      const response = new Map<string, string>()
      for (const [status, res] of Object.entries(op.responses ?? {})) {
        if (!/^2/.test(status)) continue
        for (const [name, f] of fieldsOf(doc, bodySchema(doc, res))) response.set(name, f.type)
      }
      const words = [op.summary, op.description, ...[...params.keys()]].filter(Boolean).join('\n')
      const deprecated = op.deprecated === true
      ops.set(`${method.toUpperCase()} ${path}`, { deprecated, params, request, requestRequired, response, words })
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

/** Two descriptions compared operation by operation. */
export function compareSpecs (beforeDoc: Json, afterDoc: Json): ApiDiff {
  const [was, is] = [operationsOf(beforeDoc), operationsOf(afterDoc)]
  const diff: ApiDiff = { breaking: [], nonBreaking: [], deprecated: [] }
  for (const key of was.keys()) if (!is.has(key)) diff.breaking.push(item(key, 'removed'))
  for (const [key, b] of was) {
    const a = is.get(key)
    if (!a) continue
    for (const [name, p] of a.params) {
      const old = b.params.get(name)
      const label = `parameter \`${paramName(name)}\` (${name.slice(0, name.indexOf(':'))})`
      if (!old && p.required) diff.breaking.push(item(key, `required ${label} added`))
      else if (!old) diff.nonBreaking.push(item(key, `optional ${label} added`))
      else if (p.required && !old.required) diff.breaking.push(item(key, `${label} now required`))
      else if (old.type !== p.type) diff.breaking.push(item(key, `${label} type ${old.type} → ${p.type}`))
    }
    for (const name of b.params.keys()) {
      if (!a.params.has(name)) diff.nonBreaking.push(item(key, `parameter \`${paramName(name)}\` removed`))
    }
    if (a.requestRequired && !b.requestRequired) diff.breaking.push(item(key, 'request body now required'))
    for (const [name, f] of a.request) {
      const old = b.request.get(name)
      const field = `request field \`${name}\``
      if (f.required && !old?.required) {
        diff.breaking.push(item(key, `required ${field} ${old ? 'now required' : 'added'}`))
      } else if (old && old.type !== f.type) {
        diff.breaking.push(item(key, `${field} type ${old.type} → ${f.type}`))
      } else if (!old) diff.nonBreaking.push(item(key, `optional ${field} added`))
    }
    for (const [name, type] of b.response) {
      const now = a.response.get(name)
      if (now === undefined) diff.breaking.push(item(key, `response field \`${name}\` removed`))
      else if (now !== type) diff.breaking.push(item(key, `response field \`${name}\` type ${type} → ${now}`))
    }
    for (const name of a.response.keys()) {
      if (!b.response.has(name)) diff.nonBreaking.push(item(key, `response field \`${name}\` added`))
    }
    if (a.deprecated && !b.deprecated) diff.deprecated.push(item(key, 'deprecated'))
  }
  for (const key of is.keys()) if (!was.has(key)) diff.nonBreaking.push(item(key, 'added'))
  const wordsOf = (ops: Map<string, Operation>, doc: Json) =>
    JSON.stringify([doc.info?.description, doc.info?.title, ...[...ops.values()].map(o => o.words)])
  if (diff.breaking.length + diff.nonBreaking.length + diff.deprecated.length === 0 &&
    wordsOf(was, beforeDoc) !== wordsOf(is, afterDoc)) {
    diff.descriptionsChanged = true
  }
  return diff
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
const shown = (c: ApiChange) => `${c.method} ${c.path} ${c.change}`

/**
 * The change a person reads from two descriptions' difference, one per crawl: its type
 * and weight from the worst of it (an operation removed: critical; a breaking change:
 * high; an operation added or a deprecation: medium; descriptions only: low).
 */
export function apiChange (diff: ApiDiff, text: Omit<DiffData, 'api'>): DetectedChange | undefined {
  const removed = diff.breaking.filter(c => c.change === 'removed')
  const added = diff.nonBreaking.filter(c => c.change === 'added')
  const otherBreaking = diff.breaking.filter(c => c.change !== 'removed')
  let severity: Severity
  let changeType: DetectedChange['changeType']
  if (removed.length > 0) [severity, changeType] = ['critical', 'feature_removed']
  else if (otherBreaking.length > 0) [severity, changeType] = ['high', 'feature_removed']
  else if (added.length > 0) [severity, changeType] = ['medium', 'feature_added']
  else if (diff.deprecated.length > 0) [severity, changeType] = ['medium', 'content_change']
  else if (diff.nonBreaking.length > 0) [severity, changeType] = ['low', 'content_change']
  else if (diff.descriptionsChanged) [severity, changeType] = ['low', 'content_change']
  else return undefined
  const lead = removed[0] ?? otherBreaking[0] ?? added[0] ?? diff.deprecated[0] ?? diff.nonBreaking[0]
  const parts = lead ? [shown(lead)] : ['descriptions changed']
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
    diffData: { ...text, api: diff }
  }
}
