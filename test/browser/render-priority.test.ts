import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import type { BrowserRenderer } from '../../src/crawl/render.js'
import { CRAWL_WORK_NICE } from '../../src/vocabulary/core.js'
import { siteRenderer } from '../helpers/renderer.js'
import { TestSite } from '../helpers/site.js'

// Rendering is the crawl's work: it yields the CPU to the threads that serve people. Run as
// root (as on these machines), Chromium raised its own display threads to nice -8, above
// every thread of the service, and a read of the API waited behind a rendered crawl.

/** The fields of /proc/<pid>[/task/<tid>]/stat after the command's name: [0] is field 3 (the state). */
const statOf = (path: string) => readFileSync(path, 'utf8').split(') ').pop()!.split(' ')

/** This process's descendants, with every thread's nice value. */
function descendants (): Array<{ pid: number, command: string, nice: number[] }> {
  const children = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const parent = Number(statOf(`/proc/${entry}/stat`)[1])
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)])
    } catch {} // gone meanwhile
  }
  const found: Array<{ pid: number, command: string, nice: number[] }> = []
  const next = [...(children.get(process.pid) ?? [])]
  while (next.length > 0) {
    const pid = next.pop()!
    next.push(...(children.get(pid) ?? []))
    try {
      const command = readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
      const nice = readdirSync(`/proc/${pid}/task`).map(tid => Number(statOf(`/proc/${pid}/task/${tid}/stat`)[16]))
      found.push({ pid, command, nice })
    } catch {}
  }
  return found
}

describe('the browser at the crawl\'s priority', { skip: process.platform !== 'linux' }, () => {
  const site = new TestSite()
  let renderer: BrowserRenderer
  before(async () => {
    await site.start()
    site.page('/app', '<!doctype html><html lang="en"><head><title>App</title></head><body><main id="root"></main>' +
      "<script>document.getElementById('root').textContent = 'Plans from $20'</script></body></html>")
    renderer = siteRenderer(site, 'app.test')
  })
  after(async () => {
    await renderer?.close()
    await site.close()
  })

  it('runs every thread of the browser at the crawl\'s nice value, none raised above it', async () => {
    const rendered = await renderer.render('https://app.test/app', { screenshot: true })
    assert.match(rendered.html, /Plans from \$20/)
    const browsers = descendants().filter(p => /chrom|headless/i.test(p.command))
    assert.ok(browsers.length > 0, 'the browser runs as a process of this one')
    for (const { pid, command, nice } of browsers) {
      assert.ok(nice.every(n => n >= CRAWL_WORK_NICE), `${command} (${pid}): its threads' nice values ${nice.join(', ')}`)
    }
  })
})
