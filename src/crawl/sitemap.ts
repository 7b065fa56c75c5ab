import { StringDecoder } from 'node:string_decoder'
import { createGunzip } from 'node:zlib'
import { TurnPassed } from './errors.js'
import type { Fetcher, InTurn } from './fetch.js'
import { boundedParser } from '../detection/detect.js'

const MAX_SITEMAP_BYTES = 50 * 1024 * 1024
/** What one sitemap may inflate to: the sitemaps protocol's own limit for an uncompressed file. */
export const MAX_SITEMAP_INFLATED_BYTES = 50 * 1024 * 1024

/** Why a sitemap's reading was cut short (its addresses read until then are kept). */
export type SitemapStop = 'enough addresses' | 'inflated bytes' | 'nested too deep' | 'aborted'

/**
 * How deep a sitemap's elements may nest (urlset › url › image:image › image:loc is 4).
 * Deeper is no sitemap, and the parser's cost grows with the depth at every tag (3 million
 * nested tags, 9 KB gzipped, held the event loop for 43 s): its reading stops there.
 */
const MAX_DEPTH = 16

export interface SitemapBudget {
  /** Bytes the discovery's sitemaps may still inflate to, all together: spent by each read. */
  inflatedLeft: number
  /** Aborts the reading (the discovery's deadline or its lease). */
  signal?: AbortSignal
}

export interface SitemapRead {
  /** Whether it answered 2xx and was read to its end. */
  ok: boolean
  /** Why it was not read to its end, when it was cut short. */
  stopped?: SitemapStop
}

class Stop extends Error {
  constructor (readonly why: SitemapStop) {
    super(why)
  }
}

/**
 * Reads a sitemap or sitemap index as it streams in (plain or gzip), calling `onUrl`
 * for each page (returning false stops the reading: the caller has enough) and
 * `onSitemap` for each child sitemap, in constant memory and within `budget`: its bytes
 * inflated (per file and for the discovery) and its signal.
 */
export async function readSitemap (
  fetcher: Fetcher,
  url: string,
  onUrl: (loc: string, lastmod: Date | undefined) => boolean,
  onSitemap: (loc: string) => void,
  budget: SitemapBudget,
  inTurn: InTurn = {}
): Promise<SitemapRead> {
  const stop = new AbortController()
  let stopped: SitemapStop | undefined
  // Set once the body turns out to be gzip (below); destroyed when the reading stops.
  let gunzip: ReturnType<typeof createGunzip> | undefined
  const halt = (why: SitemapStop) => {
    stopped ??= why
    stop.abort(new Stop(why))
    gunzip?.destroy()
  }
  const path: string[] = []
  let loc = ''
  let lastmod = ''
  let entry: string | undefined
  const parser = boundedParser(
    {
      onopentag (tag) {
        const name = tag.toLowerCase().replace(/^.*:/, '')
        path.push(name)
        // Thrown, it ends the parser's write at once (parse() below stops the reading).
        if (path.length > MAX_DEPTH) throw new Stop('nested too deep')
        if (name === 'loc') loc = ''
        if (name === 'lastmod') lastmod = ''
        if (name === 'url') entry = undefined
      },
      ontext (text) {
        if (stopped) return
        // A <loc> is an address: one of megabytes is not, and is not kept growing.
        if (path[path.length - 1] === 'loc' && loc.length < 4096) loc += text
        if (path[path.length - 1] === 'lastmod' && lastmod.length < 64) lastmod += text
      },
      onclosetag () {
        const name = path.pop()
        if (stopped) return
        const parent = path[path.length - 1]
        if (name === 'loc') {
          const value = loc.trim()
          if (!value) return
          if (parent === 'sitemap') onSitemap(value)
          else if (parent === 'url') entry = value
        } else if (name === 'url' && entry) {
          // Its <lastmod> may come before or after its <loc>: the entry is told once it closes.
          const at = lastmod ? new Date(lastmod.trim()) : undefined
          if (!onUrl(entry, at && !Number.isNaN(at.getTime()) ? at : undefined)) halt('enough addresses')
          entry = undefined
          lastmod = ''
        }
      }
    },
    { xmlMode: true, decodeEntities: true }
  )

  // Every byte the parser reads counts, gzip-wrapped or not: a sitemap inflates to at most
  // MAX_SITEMAP_INFLATED_BYTES, and the discovery's sitemaps to what its budget has left.
  let inflated = 0
  const text = new StringDecoder('utf8')
  const parse = (bytes: Buffer) => {
    if (stopped) return
    inflated += bytes.length
    budget.inflatedLeft -= bytes.length
    if (inflated > MAX_SITEMAP_INFLATED_BYTES || budget.inflatedLeft < 0) {
      halt('inflated bytes')
      return
    }
    try {
      parser.write(text.write(bytes))
    } catch (err) {
      if (!(err instanceof Stop)) throw err
      halt(err.why)
    }
  }
  // A .xml.gz file served as a gzip body (not as Content-Encoding) is unpacked here.
  let sniffed = false
  let gunzipEnd: Promise<void> = Promise.resolve()
  const onAbort = () => halt('aborted')
  budget.signal?.addEventListener('abort', onAbort, { once: true })
  if (budget.signal?.aborted) onAbort()
  try {
    const res = await fetcher.fetch(url, {
      ...inTurn,
      accept: 'application/xml,text/xml,*/*;q=0.5',
      maxBytes: MAX_SITEMAP_BYTES,
      signal: stop.signal,
      onData (chunk) {
        if (!sniffed) {
          sniffed = true
          if (chunk[0] === 0x1f && chunk[1] === 0x8b) {
            gunzip = createGunzip()
            gunzip.on('data', parse)
            gunzipEnd = new Promise<void>(resolve => {
              gunzip!.on('end', resolve)
              gunzip!.on('error', () => resolve())
              gunzip!.on('close', resolve)
            })
          }
        }
        if (stopped) throw new Stop(stopped)
        if (gunzip) gunzip.write(chunk)
        else parse(chunk)
      }
    })
    if (gunzip) {
      gunzip.end()
      await gunzipEnd
    }
    if (stopped) return { ok: false, stopped }
    try {
      parser.end(text.end())
    } catch (err) {
      if (!(err instanceof Stop)) throw err
      return { ok: false, stopped: err.why }
    }
    return { ok: res.status >= 200 && res.status < 300 }
  } catch (err) {
    gunzip?.destroy()
    // Not sent: its turn came too late (a busy machine). The caller's turn loop takes the next.
    if (err instanceof TurnPassed) throw err
    return stopped ? { ok: false, stopped } : { ok: false }
  } finally {
    budget.signal?.removeEventListener('abort', onAbort)
  }
}
