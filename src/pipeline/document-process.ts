import { fork } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { DocumentTask } from './analysis-thread.js'

// A document whose decoder no heap limit bounds (a PDF: PDF.js decodes its streams into
// buffers outside V8's heap, and a few megabytes of filters inflated to 7.5 GB) is read
// in a process of its own, which is killed when its memory passes its cap or its time
// runs out: that page fails, saying why, and nothing else is touched.

/** How often the reading process's memory is looked at. */
const WATCH_MS = 20

/** Why a document was not read, or what was read: as the analysis threads answer. */
export type DocumentAnswer = { html: string } | { error: string }

/** Resident memory of process `pid` in bytes, from /proc (Linux); undefined where it cannot be read. */
function residentBytes (pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'latin1').split(' ')[1]) * 4096
  } catch {
    return undefined
  }
}

export class DocumentTimeout extends Error {}

/**
 * Reads `task` in a child process of at most `maxMb` MB of memory (its V8 heap, and its
 * resident memory watched every WATCH_MS) and `ms` milliseconds.
 */
export async function readInProcess (
  task: DocumentTask, limits: { maxMb: number, ms: number }
): Promise<DocumentAnswer> {
  // Under tsx (tests, dev) the child is TypeScript, and it needs tsx registered.
  const ts = import.meta.url.endsWith('.ts')
  const child = fork(fileURLToPath(new URL(ts ? './document-child.ts' : './document-child.js', import.meta.url)), {
    execArgv: [...(ts ? ['--import', 'tsx'] : []), `--max-old-space-size=${limits.maxMb}`],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'ignore', 'ipc']
  })
  return await new Promise<DocumentAnswer>((resolve, reject) => {
    let settled = false
    const end = (outcome: () => void) => {
      if (settled) return
      settled = true
      clearInterval(watch)
      clearTimeout(timer)
      if (child.exitCode === null) child.kill('SIGKILL')
      outcome()
    }
    const tooBig = () => end(() => {
      resolve({ error: `reading it took more than ${limits.maxMb} MB of memory (a PDF bomb?); it was not read` })
    })
    const watch = setInterval(() => {
      const rss = child.pid === undefined ? undefined : residentBytes(child.pid)
      if (rss !== undefined && rss > limits.maxMb * 1024 * 1024) tooBig()
    }, WATCH_MS)
    const timer = setTimeout(() => end(() => { reject(new DocumentTimeout()) }), limits.ms)
    child.once('message', answer => end(() => { resolve(answer as DocumentAnswer) }))
    child.once('error', err => end(() => { reject(err) }))
    // Ended without a word: at its heap limit V8 aborts; any other end is said as it is.
    child.once('close', (code, signal) => {
      if (signal === 'SIGABRT' || code === 134) tooBig()
      else end(() => { resolve({ error: `its reader stopped (${signal ?? `exit code ${code}`})` }) })
    })
    child.send(task)
  })
}
