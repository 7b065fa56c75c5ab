// Kept apart from the fetcher: the analysis threads decode pages, and importing this
// alone keeps undici and the rest of the network stack out of each thread's memory.

/**
 * The page's text in its real charset: the BOM, the header, then `<meta charset>`, then
 * UTF-8. A label that is unknown, or that leaves replacement characters where another
 * candidate decodes cleanly (a server that lies about its charset), loses to the next.
 */
export function decodeHtml (body: Buffer, contentType: string): string {
  const fromHeader = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType)?.[1]
  const head = body.subarray(0, 4096).toString('latin1')
  const fromMeta = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1]
  const bom = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 'utf-8' : undefined
  let best: { text: string, bad: number } | undefined
  for (const label of [bom, fromHeader, fromMeta, 'utf-8', 'windows-1252']) {
    if (!label) continue
    let text: string
    let decoder: TextDecoder
    try {
      decoder = new TextDecoder(label.toLowerCase())
    } catch {
      continue
    }
    text = decoder.decode(body)
    if (decoder.encoding === 'windows-1252') text = fixWindows1252(text)
    const bad = countReplacements(text)
    if (bad === 0) return text
    if (!best || bad < best.bad) best = { text, bad }
  }
  return best?.text ?? body.toString('utf8')
}

// The WHATWG windows-1252 table for 0x80–0x9F, which Node 20's decoder leaves as C1 controls.
const CP1252 = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ'
function fixWindows1252 (s: string): string {
  return s.replace(/[\u0080-\u009F]/g, c => CP1252[c.charCodeAt(0) - 0x80])
}

function countReplacements (s: string): number {
  let n = 0
  for (let i = s.indexOf('\uFFFD'); i !== -1; i = s.indexOf('\uFFFD', i + 1)) n++
  return n
}
