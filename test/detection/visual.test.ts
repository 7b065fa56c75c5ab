import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { PNG } from 'pngjs'
import { compareScreenshots, diffImage, pngSize } from '../../src/detection/readers/visual.js'

/** A white PNG with a filled rectangle. */
function picture (width: number, height: number, box?: { x: number, y: number, w: number, h: number, rgb: number[] }) {
  const png = new PNG({ width, height })
  png.data.fill(255)
  if (box) {
    for (let y = box.y; y < box.y + box.h; y++) {
      for (let x = box.x; x < box.x + box.w; x++) {
        const i = (y * width + x) * 4
        png.data[i] = box.rgb[0]
        png.data[i + 1] = box.rgb[1]
        png.data[i + 2] = box.rgb[2]
      }
    }
  }
  return PNG.sync.write(png)
}

describe('screenshots compared', () => {
  it('the same picture is no change', () => {
    const a = picture(200, 300, { x: 10, y: 10, w: 50, h: 50, rgb: [0, 0, 200] })
    assert.deepEqual(compareScreenshots(a, a), { changedPercent: 0, regions: [] })
  })

  it('one box that changed colour is one region around it, and its share of the page', () => {
    const a = picture(400, 600, { x: 100, y: 300, w: 120, h: 60, rgb: [0, 0, 200] })
    const b = picture(400, 600, { x: 100, y: 300, w: 120, h: 60, rgb: [220, 0, 0] })
    const v = compareScreenshots(a, b)
    assert.equal(v.changedPercent, 3)
    assert.equal(v.regions.length, 1)
    const [r] = v.regions
    assert.ok(r.x <= 100 && r.x + r.width >= 220 && r.y <= 300 && r.y + r.height >= 360, JSON.stringify(r))
    assert.ok(r.width <= 168 && r.height <= 108, 'tight to within a cell')
  })

  it('pictures of different heights are compared on the taller one; the diff image is before | after | marked', () => {
    const a = picture(300, 200)
    const b = picture(300, 260, { x: 0, y: 200, w: 300, h: 60, rgb: [0, 0, 0] })
    const v = compareScreenshots(a, b)
    assert.equal(v.regions.length, 1)
    assert.equal(v.regions[0].y, 192)
    const diff = diffImage(a, b, v.regions)
    assert.deepEqual(pngSize(diff), { width: 300 * 3 + 32, height: 260 })
  })
})
