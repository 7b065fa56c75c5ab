import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { PictureBoxes } from '../vocabulary/outline.js'

// Chromium as the renderer (render.ts) starts it, and what it runs in a page.

// The flags @sparticuz/chromium suggests for a GPU-less machine, less those that trade
// safety for memory (--single-process, where one page's crash ends every page) or turn
// off the same-origin policy (--disable-web-security).
const ARGS = [
  '--no-sandbox',
  '--no-zygote',
  '--disable-gpu',
  '--use-gl=angle',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--font-render-hinting=none',
  '--disable-features=AudioServiceOutOfProcess',
  '--no-default-browser-check',
  '--no-pings',
  '--disable-domain-reliability'
]

// Chromium's own connections (updates, safe browsing, DNS prefetch, preconnects) go to
// a proxy address where nothing listens; every request of a page is answered by
// route() through the fetcher instead, so the browser itself never reaches the network.
const CONTAINED = [
  '--proxy-server=http://127.0.0.1:9',
  '--proxy-bypass-list=<-loopback>',
  '--dns-prefetch-disable',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
  '--disable-dev-shm-usage',
  '--mute-audio'
]

/** A lock older than this was left by a process that died while it unpacked. */
const STALE_UNPACKING_MS = 120_000

/**
 * The Chromium that @sparticuz/chromium ships, unpacked into the temporary directory once
 * per machine. It unpacks by writing the binary in place, and takes any file there as done:
 * processes starting together (a fleet, the suite's files) started it half written
 * (ETXTBSY). So one process unpacks, under a lock, anew unless a process marked it done,
 * and marks it; the others wait for the mark.
 */
export async function shippedChromium (): Promise<string> {
  const binary = join(tmpdir(), 'chromium')
  const done = join(tmpdir(), 'chromium.unpacked')
  const lock = join(tmpdir(), 'chromium.unpacking')
  // The mark names the packed binary it came from (by its size): another version is unpacked anew.
  const packed = String(statSync(new URL('../bin/chromium.br', import.meta.resolve('@sparticuz/chromium'))).size)
  for (;;) {
    if (existsSync(binary) && marked(done) === packed) return binary
    try {
      mkdirSync(lock)
    } catch {
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs
      if (since !== undefined && Date.now() - since > STALE_UNPACKING_MS) rmSync(lock, { recursive: true, force: true })
      await sleep(100)
      continue
    }
    try {
      // The mark goes first: no process takes the binary while it is written.
      rmSync(done, { force: true })
      rmSync(binary, { force: true })
      const path = await (await import('@sparticuz/chromium')).default.executablePath()
      writeFileSync(done, packed)
      return path
    } finally {
      rmSync(lock, { recursive: true, force: true })
    }
  }
}

const marked = (file: string) => {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

/** What Playwright says when the browser, or the context or page it held, went away under a call. */
export const BROWSER_GONE = /(Target page, context or browser|Browser) has been closed|Browser closed|browser has disconnected/i

/** Every flag the renderer starts Chromium with. */
export const CHROMIUM_ARGS = [...ARGS, ...CONTAINED]

/** How many boxes a picture keeps at most (of OUTLINE_TAGS' elements: what a page's outline may show). */
export const MAX_BOXES = 3000

/**
 * Runs in the page: the boxes of its blocks, by their path from <html> (see PictureBoxes).
 * One loop, no function inside: what the page runs is this function's text as written.
 */
export function blockBoxes ({ tags, most }: { tags: string[], most: number }): PictureBoxes {
  const wanted = new Set(tags)
  const out: PictureBoxes = {}
  let n = 0
  const stack: Array<[Element, string]> = [[document.documentElement, '0']]
  while (stack.length > 0 && n < most) {
    const [el, path] = stack.pop()!
    if (wanted.has(el.localName)) {
      const r = el.getBoundingClientRect()
      if (r.width > 0 && r.height > 0) {
        const [x, y] = [Math.round(r.left + window.scrollX), Math.round(r.top + window.scrollY)]
        out[path] = [x, y, Math.round(r.width), Math.round(r.height)]
        n++
      }
    }
    for (let i = el.children.length - 1; i >= 0; i--) stack.push([el.children[i], `${path}.${i}`])
  }
  return out
}
