import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { programArgs } from '../helpers/paths.js'

// The shipped Chromium is unpacked into the temporary directory by the first process that
// needs it. Processes that start together (a fleet on one machine, the suite's files) once
// started it half written: "spawn ETXTBSY", four times in five.

const run = promisify(execFile)

describe('the shipped Chromium, wanted by several processes at once on a new machine', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-unpack-'))
  after(() => { rmSync(dir, { recursive: true, force: true }) })

  it('is unpacked once, whole, and starts in every one of them', async () => {
    const args = programArgs('src/crawl/chromium.ts')
    const [flags, module] = [args.slice(0, -1), args.at(-1)!]
    const program = `const { shippedChromium } = await import(${JSON.stringify(new URL(`file://${module}`).href)})
const { execFileSync } = await import('node:child_process')
const path = await shippedChromium()
process.stdout.write(execFileSync(path, ['--version'], { encoding: 'utf8' }))`
    const started = await Promise.allSettled(Array.from({ length: 4 }, async () =>
      await run(process.execPath, [...flags, '--input-type=module', '-e', program], { env: { ...process.env, TMPDIR: dir } })))
    const failed = started.flatMap(s => s.status === 'rejected' ? [String(s.reason).split('\n').slice(0, 3).join(' ')] : [])
    assert.deepEqual(failed, [])
    for (const s of started) if (s.status === 'fulfilled') assert.match(s.value.stdout, /Chrom/)

    // Marked by the packed binary it came from: another version's mark is unpacked anew.
    const mark = join(dir, 'chromium.unpacked')
    const packed = readFileSync(mark, 'utf8')
    writeFileSync(mark, 'another version')
    writeFileSync(join(dir, 'chromium'), 'another version\'s binary')
    const again = await run(process.execPath, [...flags, '--input-type=module', '-e', program],
      { env: { ...process.env, TMPDIR: dir } })
    assert.match(again.stdout, /Chrom/)
    assert.equal(readFileSync(mark, 'utf8'), packed)
  })
})
