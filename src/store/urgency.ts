import { AsyncLocalStorage } from 'node:async_hooks'
import type { Actor } from '../vocabulary/audit.js'

// What runs on behalf of an HTTP request, which a person or a client is waiting for,
// as opposed to the pipeline's work. The embedded database's thread runs the first
// before the second (pglite-worker.ts), so that the API answers during a crawl. The
// request's scope also says who acts, for the audit log (services/audit.ts).

export interface RequestScope {
  ip: string | null
  traceId: string | null
  /** Set once the caller is known (an API key, a session, the operator's token). */
  actor?: Actor
  /** The organisation the caller acts in. */
  orgId?: string
  /** Audit events this request wrote: a state-changing request that writes none is a defect (api/audit-check.ts). */
  audited: number
  /** Said by a form whose button asked for a preview: it changes nothing, so it writes no event. */
  changesNothing?: boolean
}

const serving = new AsyncLocalStorage<RequestScope>()

/** Runs `work`, and everything it starts, as serving a request. */
export function serveRequest<T> (scope: RequestScope, work: () => T): T {
  return serving.run(scope, work)
}

/** Whether the caller runs on behalf of an HTTP request. */
export function servingRequest (): boolean {
  return serving.getStore() !== undefined
}

/** The scope of the request the caller serves, if it serves one. */
export function requestScope (): RequestScope | undefined {
  return serving.getStore()
}
