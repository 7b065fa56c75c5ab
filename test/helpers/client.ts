import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

export interface Response<T = any> {
  status: number
  body: T
  headers: Headers
}

type Validator = ((data: unknown) => boolean) & { errors?: unknown }

/**
 * A client for the API under test. Every response it receives is checked against the
 * schema that the server's own /openapi.json gives for that path, method and status:
 * a response the description does not cover, or does not match, fails the test.
 */
export class ApiClient {
  private spec:
    | Promise<{
      ajv: any
      routes: Array<{ method: string, re: RegExp, pointer: string, responses: Record<string, any> }>
    }>
    | undefined

  constructor (
    readonly base: string,
    readonly key: string
  ) {}

  withKey (key: string): ApiClient {
    const c = new ApiClient(this.base, key)
    c.spec = this.spec
    return c
  }

  private async loadSpec () {
    const doc = (await (await fetch(`${this.base}/openapi.json`)).json()) as any
    const ajv = new (Ajv2020 as any)({ strict: false, allErrors: true })
    ;(addFormats as any)(ajv)
    ajv.addSchema({ ...doc, $id: 'openapi' })
    const routes = []
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const re = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`)
        const pointer = `openapi#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}/responses`
        routes.push({ method: method.toUpperCase(), re, pointer, responses: op.responses })
      }
    }
    return { ajv, routes }
  }

  private async check (method: string, path: string, res: Response): Promise<void> {
    this.spec ??= this.loadSpec()
    const { ajv, routes } = await this.spec
    // The path as fetch sent it: "%2e%2e" is a dot segment to a URL parser, and leads to another route.
    const pathOnly = new URL(path, this.base).pathname
    const route = routes.find(r => r.method === method && r.re.test(pathOnly))
    if (!route) {
      if (res.status === 404 || res.status === 401 || res.status === 405 || res.status === 429) return
      throw new Error(`${method} ${pathOnly} is not in /openapi.json`)
    }
    const status = String(res.status)
    if (!route.responses[status]) {
      throw new Error(`${method} ${pathOnly} answered ${status}, which /openapi.json does not document`)
    }
    if (!route.responses[status].content) {
      if (res.body !== undefined) throw new Error(`${method} ${pathOnly} ${status} has a body /openapi.json does not give`)
      return
    }
    const ref = `${route.pointer}/${status}/content/application~1json/schema`
    const validate: Validator = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref })
    if (!validate(res.body)) {
      throw new Error(
        `${method} ${pathOnly} ${status} does not match /openapi.json: ` +
        `${JSON.stringify(validate.errors).slice(0, 800)}\n${JSON.stringify(res.body).slice(0, 800)}`
      )
    }
  }

  async request<T = any>(
    method: string,
    path: string,
    opts: { body?: unknown, rawBody?: string, headers?: Record<string, string>, key?: string | null } = {}
  ): Promise<Response<T>> {
    const headers: Record<string, string> = { ...opts.headers }
    const key = opts.key === undefined ? this.key : opts.key
    if (key) headers.authorization = `Bearer ${key}`
    let body: string | undefined
    if (opts.rawBody !== undefined) body = opts.rawBody
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body)
      headers['content-type'] ??= 'application/json'
    }
    const res = await fetch(`${this.base}${path}`, { method, headers, body })
    const text = await res.text()
    const parsed = text ? JSON.parse(text) : undefined
    const out = { status: res.status, body: parsed, headers: res.headers }
    if (path.startsWith('/api')) await this.check(method, path, out)
    return out
  }

  get<T = any>(path: string, opts?: Parameters<ApiClient['request']>[2]) {
    return this.request<T>('GET', path, opts)
  }

  post<T = any>(path: string, body?: unknown, opts?: Parameters<ApiClient['request']>[2]) {
    return this.request<T>('POST', path, { ...opts, body })
  }

  delete<T = any>(path: string, opts?: Parameters<ApiClient['request']>[2]) {
    return this.request<T>('DELETE', path, opts)
  }
}
