import type { FastifyInstance } from 'fastify'

// Which methods a path answers to, so a known path asked with another method gets 405
// with `Allow` rather than 404: the routes are collected as they are registered.

export class RouteMethods {
  private readonly routes: Array<{ pattern: RegExp, methods: Set<string> }> = []
  private readonly byUrl = new Map<string, Set<string>>()

  /** Collects every route registered on `app` and its plugins from now on. */
  watch (app: FastifyInstance): this {
    app.addHook('onRoute', route => {
      for (const method of [route.method].flat()) this.add(method, route.url ?? route.path)
    })
    return this
  }

  add (method: string, url: string): void {
    let methods = this.byUrl.get(url)
    if (!methods) {
      methods = new Set()
      this.byUrl.set(url, methods)
      this.routes.push({ pattern: patternOf(url), methods })
    }
    methods.add(method.toUpperCase())
  }

  /** The methods `path` answers to (empty: no route has it). */
  allowed (path: string): string[] {
    const out = new Set<string>()
    for (const r of this.routes) if (r.pattern.test(path)) for (const m of r.methods) out.add(m)
    return [...out].sort()
  }
}

/** A Fastify route URL as a regular expression: `:param` one segment, `*` the rest. */
function patternOf (url: string): RegExp {
  const source = url.split(/(:[A-Za-z0-9_]+|\*)/).map(part =>
    part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  ).join('')
  return new RegExp(`^${source}/?$`)
}
