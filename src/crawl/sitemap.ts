import { StringDecoder } from 'node:string_decoder'
import { createGunzip } from 'node:zlib'
import { Parser } from 'htmlparser2'
import type { Fetcher } from './fetch.js'

const MAX_SITEMAP_BYTES = 50 * 1024 * 1024

/**
 * Reads a sitemap or sitemap index as it streams in (plain or gzip), calling `onUrl`
 * for each page and `onSitemap` for each child sitemap, so a site of any size is read
 * in constant memory. Returns false when the sitemap could not be read.
 */
export async function readSitemap (
  fetcher: Fetcher,
  url: string,
  onUrl: (loc: string, lastmod: Date | undefined) => void,
  onSitemap: (loc: string) => void
): Promise<boolean> {
  const path: string[] = []
  let loc = ''
  let lastmod = ''
  let entry: string | undefined
  const parser = new Parser(
    {
      onopentag (tag) {
        const name = tag.toLowerCase().replace(/^.*:/, '')
        path.push(name)
        if (name === 'loc') loc = ''
        if (name === 'lastmod') lastmod = ''
        if (name === 'url') entry = undefined
      },
      ontext (text) {
        if (path[path.length - 1] === 'loc') loc += text
        if (path[path.length - 1] === 'lastmod') lastmod += text
      },
      onclosetag () {
        const name = path.pop()
        const parent = path[path.length - 1]
        if (name === 'loc') {
          const value = loc.trim()
          if (!value) return
          if (parent === 'sitemap') onSitemap(value)
          else if (parent === 'url') entry = value
        } else if (name === 'url' && entry) {
          // Its <lastmod> may come before or after its <loc>: the entry is told once it closes.
          const at = lastmod ? new Date(lastmod.trim()) : undefined
          onUrl(entry, at && !Number.isNaN(at.getTime()) ? at : undefined)
          entry = undefined
          lastmod = ''
        }
      }
    },
    { xmlMode: true, decodeEntities: true }
  )

  // A .xml.gz file served as a gzip body (not as Content-Encoding) is unpacked here.
  let gunzip: ReturnType<typeof createGunzip> | undefined
  let sniffed = false
  let gunzipEnd: Promise<void> = Promise.resolve()
  const text = new StringDecoder('utf8')
  try {
    const res = await fetcher.fetch(url, {
      accept: 'application/xml,text/xml,*/*;q=0.5',
      maxBytes: MAX_SITEMAP_BYTES,
      onData (chunk) {
        if (!sniffed) {
          sniffed = true
          if (chunk[0] === 0x1f && chunk[1] === 0x8b) {
            gunzip = createGunzip()
            gunzip.on('data', (d: Buffer) => parser.write(text.write(d)))
            gunzipEnd = new Promise<void>(resolve => {
              gunzip!.on('end', resolve)
              gunzip!.on('error', () => resolve())
            })
          }
        }
        if (gunzip) gunzip.write(chunk)
        else parser.write(text.write(chunk))
      }
    })
    if (gunzip) {
      gunzip.end()
      await gunzipEnd
    }
    parser.end(text.end())
    return res.status >= 200 && res.status < 300
  } catch {
    gunzip?.destroy()
    return false
  }
}
