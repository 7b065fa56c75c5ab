import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { parse, stringify } from 'yaml'
import { compareContent, extractPage, readPage, type ReaderFailure } from '../../src/detection/detect.js'
import { READERS, readerOf } from '../../src/detection/readers/table.js'
import { withReading } from '../../src/detection/readers/structure.js'
import { buildDiff } from '../../src/detection/text/diff.js'
import { STRUCTURED_PAGE_TYPES } from '../../src/vocabulary/core.js'
import type { DetectedChange, PageType } from '../../src/vocabulary/core.js'

// The one rule of the structured readers (readers/structure.ts, withReading), tried on every row
// of the registry (readers/table.ts): a reader takes over only the changed lines it explains; a
// text change it cannot explain stays with its own type and severity; a reader that
// cannot read a version, or finds no move, leaves the text changes as they are without it.

const fixture = (path: string) => readFileSync(new URL(`fixtures/${path}`, import.meta.url), 'utf8')
const swap = (html: string, from: string, to: string) => {
  assert.ok(html.includes(from), `the fixture holds ${from}`)
  return html.replace(from, to)
}
const told = (changes: DetectedChange[]) => changes.map(c => `${c.changeType}/${c.severity}: ${c.summary}`)

/** The changes with the page type's reader (both versions given), and without it (the text alone). */
type Documents = { beforeDocument?: string, afterDocument?: string }

function both (pageType: PageType, before: string, after: string, documents: Documents = {}) {
  const [a, b] = [readPage(before, undefined, undefined, pageType), readPage(after, undefined, undefined, pageType)]
  return {
    read: compareContent(a.text, b, pageType, undefined, { before, after, ...documents }),
    alone: compareContent(a.text, b, pageType)
  }
}

/** Per reader: a page, an edit it explains, an edit it cannot, and a version it cannot read. */
interface Row {
  page: string
  explained: (h: string) => string
  unexplained: (h: string) => string
  unreadable: string
  documents?: (edit: boolean) => Documents
}
const ROWS: Record<string, Row> = {
  pricing: {
    page: fixture('pricing/plans-rows.html'),
    explained: h => swap(h, '<td>$49/month</td>', '<td>$59/month</td>'),
    unexplained: h => swap(h, 'All plans include SSL, daily backups and our uptime SLA.', 'All plans include SSL and weekly backups.'),
    unreadable: '<html><body><main><h1>Pricing</h1><p>Our prices are changing. Talk to sales.</p></main></body></html>'
  },
  changelog: {
    page: fixture('changelog/keep-a-changelog.html'),
    explained: h => swap(h, '<h2>[2.3.0]', '<h2>[2.4.0] - 2026-11-20</h2><h3>Added</h3><ul><li>Webhooks for exports.</li></ul>\n<h2>[2.3.0]'),
    unexplained: h => swap(h, 'The format is based on Keep a Changelog.', 'The format follows Keep a Changelog 1.1.'),
    unreadable: '<html><body><main><h1>Changelog</h1><p>Our changelog moved to the blog.</p></main></body></html>'
  },
  api_docs: {
    page: fixture('api/swagger-ui.html'),
    explained: h => h,
    unexplained: h => swap(h, '</body>', '<p>Questions? Write to api@petstore.example.test.</p></body>'),
    unreadable: fixture('api/swagger-ui.html'),
    documents: edit => {
      const after = parse(fixture('api/petstore.yaml'))
      if (edit) delete after.paths['/pets/{petId}'].delete
      return { beforeDocument: fixture('api/petstore.yaml'), afterDocument: stringify(after) }
    }
  }
}

describe('the registry of structured readers', () => {
  it('has one row per structured page type, and none for the others', () => {
    assert.deepEqual(Object.keys(READERS).sort(), [...STRUCTURED_PAGE_TYPES].sort())
    for (const type of ['features', 'terms', 'security', 'other'] as const) assert.equal(readerOf(type), undefined)
    assert.deepEqual(Object.keys(ROWS).sort(), [...STRUCTURED_PAGE_TYPES].sort(), 'every row is tried below')
  })
})

for (const type of STRUCTURED_PAGE_TYPES) {
  const row = ROWS[type]
  describe(`the ${type} reader never hides a change`, () => {
    it('an edit it cannot explain is the text\'s change, as it is without the reader', () => {
      const { read, alone } = both(type, row.page, row.unexplained(row.page), row.documents?.(false))
      assert.ok(alone.length > 0)
      assert.deepEqual(told(read), told(alone))
    })

    it('a version it cannot read: the text changes are what they are without it', () => {
      const { read, alone } = both(type, row.page, row.unreadable, type === 'api_docs'
        ? { beforeDocument: fixture('api/petstore.yaml'), afterDocument: 'not a description' }
        : {})
      assert.deepEqual(told(read), told(alone))
    })

    it('an edit it explains beside one it cannot: one change, led by the reader\'s, the other counted with its lines', () => {
      const after = row.unexplained(row.explained(row.page))
      const { read, alone } = both(type, row.page, after, row.documents?.(true))
      const [text] = both(type, row.page, row.unexplained(row.page), row.documents?.(false)).alone
      assert.equal(read.length, 1, told(read).join(' | '))
      const [change] = read
      assert.ok(change.diffData.pricing ?? change.diffData.changelog ?? change.diffData.api)
      // The edit it cannot explain is said after the lead, as the text alone reads it: its facts and its lines.
      const where = text.diffData.facts?.[0]?.subject
      assert.ok(change.summary.endsWith(`; and 1 more passage${where ? ` (${where})` : ''}`), change.summary)
      const changed = (c: typeof change) => c.diffData.hunks.flatMap(h => h.lines.filter(l => l.type !== 'context'))
      for (const line of changed(text)) {
        assert.ok(changed(change).some(l => l.type === line.type && l.content === line.content), line.content)
      }
      assert.deepEqual(change.diffData.facts!.slice(-text.diffData.facts!.length), text.diffData.facts)
      assert.ok(alone.length >= 1)
    })
  })
}

describe('the rule on its own', () => {
  const diff = buildDiff(
    { lines: ['# Plans', 'Pro', '$49/month', 'For small teams.'], comparable: ['# Plans', 'Pro', '$49/month', 'For small teams.'] },
    { lines: ['# Plans', 'Pro', '$59/month', 'For growing teams.'], comparable: ['# Plans', 'Pro', '$59/month', 'For growing teams.'] }
  )
  const classify = (d: typeof diff) => d.hunks.length === 0
    ? []
    : [{ changeType: 'content_change' as const, severity: 'low' as const, confidence: 0.7, summary: d.after, diffData: d }]

  it('takes the lines it explains, leaves the others to the text', () => {
    const changes = withReading(diff, {
      changes: [{ changeType: 'price_change', severity: 'high', confidence: 0.9, summary: 'Pro: $49 → $59', diffData: {} }],
      explains: line => /\$\d+/.test(line.text)
    }, classify)
    // Each change's passage reads with the lines around it (diffDataOf); its hunks hold only its own changes.
    assert.deepEqual(changes.map(c => c.summary), ['Pro: $49 → $59', '# Plans\nPro\n$59/month\nFor growing teams.'])
    const changed = (c: typeof changes[number]) => c.diffData.hunks.flatMap(h => h.lines).filter(l => l.type !== 'context')
      .map(l => `${l.type} ${l.content}`)
    assert.deepEqual(changed(changes[0]), ['deletion $49/month', 'addition $59/month'])
    assert.deepEqual(changed(changes[1]), ['deletion For small teams.', 'addition For growing teams.'])
  })

  it('explains nothing when it cannot read: the text as it is', () => {
    assert.deepEqual(withReading(diff, undefined, classify).map(c => c.summary), ['# Plans\nPro\n$59/month\nFor growing teams.'])
  })

  it('a reader that finds no move and explains nothing changes nothing', () => {
    assert.deepEqual(withReading(diff, { changes: [], explains: () => false }, classify).map(c => c.summary),
      ['# Plans\nPro\n$59/month\nFor growing teams.'])
  })
})

describe('a reader that cannot read or compare says so', () => {
  const told = (pageType: PageType, before: string, after: string, documents: Documents = {}) => {
    const [a, b] = [readPage(before, undefined, undefined, pageType), readPage(after, undefined, undefined, pageType)]
    const failures: ReaderFailure[] = []
    const read = compareContent(a.text, b, pageType, undefined, { before, after, ...documents }, f => failures.push(f))
    return { read, alone: compareContent(a.text, b, pageType), failures }
  }

  it('a version it cannot read: told (not an error), and the text is compared alone', () => {
    const { read, alone, failures } = told('pricing', ROWS.pricing.page, ROWS.pricing.unreadable)
    assert.deepEqual(read, alone)
    assert.deepEqual(failures, [{ reader: 'pricing', error: false, note: 'The plans and prices could not be read: compared as text' }])
  })

  it('a comparison that fails is an error, said with its message; the text is compared alone, never "nothing changed"', () => {
    const page = ROWS.changelog.page
    const after = ROWS.changelog.explained(page)
    const feed = '<?xml version="1.0"?><rss version="2.0"><channel><title>Releases</title>' +
      '<item><title>2.3.0</title><description>Faster exports.</description></item></channel></rss>'
    // A feed stored with the last snapshot that no longer reads as one (a reader's fault to hear of).
    const { read, alone, failures } = told('changelog', page, after, { beforeDocument: feed, afterDocument: '{"not": "a feed"}' })
    assert.equal(failures.length, 1)
    assert.equal(failures[0].error, true)
    assert.match(failures[0].note, /^The changelog's entries could not be compared \(.+\): compared as text$/)
    assert.deepEqual(read, alone)
    assert.ok(read.length > 0, 'the new entry is still told, as text')
  })

  it('a reader that reads says nothing', () => {
    const { failures } = told('pricing', ROWS.pricing.page, ROWS.pricing.explained(ROWS.pricing.page))
    assert.deepEqual(failures, [])
  })
})

describe('a reader claims the lines that stand in its elements, not the lines that read alike', () => {
  const card = (name: string, price: string) =>
    `<div class="card"><h3>${name}</h3><p><span style="display:block">${price}</span><span>per user / month</span></p>` +
    '<p>Unlimited projects</p></div>'
  const pricing = (pro: string, faq: string) => `<html><body><main><h1>Pricing</h1><div class="grid">${card('Starter', '$9')}` +
    `${card('Pro', pro)}${card('Team', '$99')}</div><h2>Questions</h2><p>${faq}</p></main></body></html>`
  const lines = (c: DetectedChange) => c.diffData.hunks.flatMap(h => h.lines).filter(l => l.type !== 'context')
    .map(l => `${l.type === 'addition' ? '+' : '-'} ${l.content}`)
  /** How the reader and the text share a check's changed lines (the text's kept apart, as one content change). */
  const shared = (pageType: PageType, before: string, after: string) => {
    const [b, a] = [readPage(before).lines, readPage(after).lines]
    return withReading(
      buildDiff({ lines: b, comparable: b }, { lines: a, comparable: a }),
      readerOf(pageType)!.compare({ before, after }),
      d => d.hunks.length === 0 ? [] : [{ changeType: 'content_change', severity: 'low', confidence: 0.5, summary: 'text', diffData: d }],
      { before: extractPage(before).sources, after: extractPage(after).sources }
    ).map(c => [c.changeType, lines(c)])
  }

  it('a price its card lays out as a block of its own is the card\'s line: one move, not a second from the text', () => {
    const before = pricing('$49', 'Can I change plans? Yes, at any time.')
    const after = pricing('$59', 'Can I change plans? Yes, at any time.')
    const [change] = both('pricing', before, after).read
    assert.equal(change.changeType, 'price_change')
    // The reader's one move, with its lines; the text comparison has nothing left to say of the same price.
    assert.deepEqual(change.diffData.facts?.map(f => f.kind), ['price_up'])
    assert.deepEqual(lines(change), ['- $49', '+ $59'])
  })

  it('a line outside the plans that reads like one of theirs stays with the text comparison', () => {
    // The FAQ answer reads "$49" as the Pro card's price line does; only the card's is the reader's.
    const before = pricing('$49', '$49')
    const after = pricing('$59', '$59')
    const changes = both('pricing', before, after).read
    // Still one change, led by the plan's move; the answer's price is the Questions section's, counted after it.
    assert.deepEqual(changes.map(c => c.summary), ['Pro: $49/user/month → $59/user/month (+20%); Questions +20%'])
    assert.deepEqual(changes[0].diffData.facts?.map(f => f.subject), ['Pro', 'Questions'])
    assert.deepEqual(shared('pricing', before, after), [
      ['price_change', ['- $49', '+ $59']],
      ['content_change', ['- $49', '+ $59']]
    ])
  })

  it('a changelog\'s teaser that repeats a new entry\'s words outside the entries stays with the text comparison', () => {
    const page = fixture('changelog/keep-a-changelog.html')
    const teaser = (text: string) => swap(page, '<h1>Changelog</h1>', `<h1>Changelog</h1><p>${text}</p>`)
    const before = teaser('Webhook retries with exponential backoff.')
    const after = swap(teaser('Webhooks for exports.'), '<h2>[2.3.0]',
      '<h2>[2.4.0] - 2026-11-20</h2><h3>Added</h3><ul><li>Webhooks for exports.</li></ul>\n<h2>[2.3.0]')
    assert.deepEqual(shared('changelog', before, after), [
      ['feature_added', ['+ ## [2.4.0] - 2026-11-20', '+ ### Added', '+ - Webhooks for exports.']],
      ['content_change', ['- Webhook retries with exponential backoff.', '+ Webhooks for exports.']]
    ])
  })

  it('a stored text that its page no longer reads as, line for line, is claimed by its words: nothing is lost', () => {
    const before = ROWS.pricing.page
    const after = ROWS.pricing.explained(before)
    // The text stored from an older reading of the page: one more line than its HTML reads as now.
    const stored = `${readPage(before).text}\nPrices in US dollars.`
    const [change] = compareContent(stored, readPage(after, undefined, undefined, 'pricing'), 'pricing', undefined, { before, after })
    assert.equal(change.changeType, 'price_change')
    assert.ok(lines(change).includes('- Prices in US dollars.'), lines(change).join('\n'))
    assert.ok(lines(change).includes('+ | Pro | $59/month | 10 | Priority email |') || lines(change).some(l => l.includes('$59/month')))
  })
})
