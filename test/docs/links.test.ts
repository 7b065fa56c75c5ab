import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { describe, it } from 'node:test'
import { inRepo } from '../helpers/paths.js'

// Every relative link of the README and of docs/ leads to a file of the repository, and
// every #fragment to a heading of that file (as GitHub names headings' anchors).

const ROOT = inRepo('.')
const FILES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter(f => f.endsWith('.md')).map(f => `docs/${f}`)]

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')

/** The anchors of a Markdown file's headings, fenced code left out. */
function anchors (text: string): Set<string> {
  const out = new Set<string>()
  let fenced = false
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    const heading = !fenced && /^#{1,6} (.+)$/.exec(line)
    if (heading) out.add(anchorOf(heading[1]))
  }
  return out
}

/** The relative links of a Markdown file, outside fenced code. */
function links (text: string): string[] {
  const prose = text.split(/^```[\s\S]*?^```/m).join('')
  return [...prose.matchAll(/\]\((?!<?https?:|mailto:)([^)\s]+)\)/g)].map(m => m[1])
}

describe('the documentation', () => {
  it('has a README that is a front door: 150 lines at most', () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length
    assert.ok(lines <= 150, `${lines} lines`)
  })

  for (const file of FILES) {
    it(`${file}: every relative link resolves`, () => {
      const text = readFileSync(join(ROOT, file), 'utf8')
      const broken: string[] = []
      for (const link of links(text)) {
        const [path, fragment] = link.split('#')
        const target = path ? resolve(ROOT, dirname(file), decodeURIComponent(path)) : join(ROOT, file)
        if (!existsSync(target)) {
          broken.push(`${link}: no file`)
          continue
        }
        if (fragment && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(fragment)) {
          broken.push(`${link}: no heading with that anchor`)
        }
      }
      assert.deepEqual(broken, [])
    })
  }
})
