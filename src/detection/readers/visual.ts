import pixelmatch from 'pixelmatch'
import { PNG } from 'pngjs'

// Two screenshots of a page compared: how much of it changed and where, and a picture of
// before | after | the changed regions marked. Pure: PNG bytes in, numbers and PNG out.

export interface VisualDiff {
  /** Share of the page's pixels that changed, 0–100, two decimals. */
  changedPercent: number
  /** Boxes around the changed areas, in the page's pixels, largest first (at most MAX_REGIONS). */
  regions: Array<{ x: number, y: number, width: number, height: number }>
}

/** Changed pixels are gathered in cells this size: a moved glyph is one region, not a hundred. */
const CELL = 24
const MAX_REGIONS = 20
/** pixelmatch's colour distance: anti-aliasing and JPEG-like noise stay below it. */
const THRESHOLD = 0.1

function padded (png: PNG, width: number, height: number): Buffer {
  if (png.width === width && png.height === height) return png.data
  const out = Buffer.alloc(width * height * 4, 255)
  for (let y = 0; y < png.height; y++) {
    png.data.copy(out, y * width * 4, y * png.width * 4, y * png.width * 4 + png.width * 4)
  }
  return out
}

function read (before: Buffer, after: Buffer) {
  const a = PNG.sync.read(before)
  const b = PNG.sync.read(after)
  const width = Math.max(a.width, b.width)
  const height = Math.max(a.height, b.height)
  return { a, b, width, height, pa: padded(a, width, height), pb: padded(b, width, height) }
}

export function compareScreenshots (before: Buffer, after: Buffer): VisualDiff {
  const { width, height, pa, pb } = read(before, after)
  const mask = Buffer.alloc(width * height * 4)
  const changed = pixelmatch(pa, pb, mask, width, height, { threshold: THRESHOLD, diffMask: true, includeAA: false })
  return {
    // Two decimals, and never 0 when anything changed.
    changedPercent: changed === 0 ? 0 : Math.max(0.01, Math.round((changed / (width * height)) * 10_000) / 100),
    regions: changed === 0 ? [] : regionsOf(mask, width, height)
  }
}

/** Boxes around connected changed cells (pixelmatch paints changed pixels opaque in the diff mask). */
function regionsOf (mask: Buffer, width: number, height: number): VisualDiff['regions'] {
  const cols = Math.ceil(width / CELL)
  const rows = Math.ceil(height / CELL)
  const hot = new Uint8Array(cols * rows)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (mask[(y * width + x) * 4 + 3] !== 0) hot[Math.floor(y / CELL) * cols + Math.floor(x / CELL)] = 1
    }
  }
  const regions: VisualDiff['regions'] = []
  const stack: number[] = []
  for (let start = 0; start < hot.length; start++) {
    if (hot[start] !== 1) continue
    let [x0, y0, x1, y1] = [cols, rows, 0, 0]
    hot[start] = 2
    stack.push(start)
    while (stack.length > 0) {
      const cell = stack.pop()!
      const cx = cell % cols
      const cy = Math.floor(cell / cols)
      x0 = Math.min(x0, cx)
      y0 = Math.min(y0, cy)
      x1 = Math.max(x1, cx)
      y1 = Math.max(y1, cy)
      for (const [nx, ny] of [[cx - 1, cy], [cx + 1, cy], [cx, cy - 1], [cx, cy + 1]]) {
        if (nx < 0 || ny < 0 || nx >= cols || ny >= rows) continue
        const n = ny * cols + nx
        if (hot[n] === 1) {
          hot[n] = 2
          stack.push(n)
        }
      }
    }
    regions.push({
      x: x0 * CELL,
      y: y0 * CELL,
      width: Math.min(width, (x1 + 1) * CELL) - x0 * CELL,
      height: Math.min(height, (y1 + 1) * CELL) - y0 * CELL
    })
  }
  return regions.sort((p, q) => q.width * q.height - p.width * p.height).slice(0, MAX_REGIONS)
}

/** One PNG: before | after | after with the changed regions outlined in red. */
export function diffImage (before: Buffer, after: Buffer, regions: VisualDiff['regions']): Buffer {
  const { width, height, pa, pb } = read(before, after)
  const gap = 16
  const out = new PNG({ width: width * 3 + gap * 2, height })
  out.data.fill(255)
  const blit = (src: Buffer, left: number) => {
    for (let y = 0; y < height; y++) src.copy(out.data, (y * out.width + left) * 4, y * width * 4, (y + 1) * width * 4)
  }
  blit(pa, 0)
  blit(pb, width + gap)
  blit(pb, (width + gap) * 2)
  const left = (width + gap) * 2
  const paint = (x: number, y: number) => {
    if (x < 0 || y < 0 || x >= width || y >= height) return
    const i = (y * out.width + left + x) * 4
    out.data[i] = 230
    out.data[i + 1] = 0
    out.data[i + 2] = 0
    out.data[i + 3] = 255
  }
  for (const r of regions) {
    for (let t = 0; t < 3; t++) {
      for (let x = r.x; x < r.x + r.width; x++) {
        paint(x, r.y + t)
        paint(x, r.y + r.height - 1 - t)
      }
      for (let y = r.y; y < r.y + r.height; y++) {
        paint(r.x + t, y)
        paint(r.x + r.width - 1 - t, y)
      }
    }
  }
  return PNG.sync.write(out)
}

/** A PNG's size, from its header. */
export function pngSize (png: Buffer): { width: number, height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) }
}
