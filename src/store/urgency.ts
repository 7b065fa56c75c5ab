import { AsyncLocalStorage } from 'node:async_hooks'

// What runs on behalf of an HTTP request, which a person or a client is waiting for,
// as opposed to the pipeline's work. The embedded database's thread runs the first
// before the second (pglite-worker.ts), so that the API answers during a crawl.

const serving = new AsyncLocalStorage<true>()

/** Runs `work`, and everything it starts, as serving a request. */
export function serveRequest<T> (work: () => T): T {
  return serving.run(true, work)
}

/** Whether the caller runs on behalf of an HTTP request. */
export function servingRequest (): boolean {
  return serving.getStore() === true
}
