// npm run quality: how Sitewatch reads the project's labelled set (test/quality), per
// language and per page type: noise pairs kept silent, real changes found, change
// types right, page types right.
import { evaluate, LANGUAGES, qualityCases, type QualityCase, type Outcome } from '../test/quality/corpus.js'
import { evaluateLong, longCases } from '../test/quality/long-documents.js'
import { evaluateHistory, historyEdits, type HistoryOutcome } from '../test/quality/histories.js'
import { readerCases } from '../test/quality/readers.js'

const results = qualityCases().map(c => ({ c, o: evaluate(c) }))

interface Tally { noise: [number, number], found: [number, number], types: [number, number], pages: [number, number] }
const tally = (rows: Array<{ c: QualityCase, o: Outcome }>): Tally => {
  const t: Tally = { noise: [0, 0], found: [0, 0], types: [0, 0], pages: [0, 0] }
  for (const { c, o } of rows) {
    t.pages[0] += o.pageTypeRight ? 1 : 0
    t.pages[1]++
    if (!c.edit) {
      t.noise[0] += o.silent ? 1 : 0
      t.noise[1]++
    } else {
      t.found[0] += o.found ? 1 : 0
      t.found[1]++
      t.types[0] += o.typeRight ? 1 : 0
      t.types[1]++
    }
  }
  return t
}
const cell = ([n, of]: [number, number]) =>
  `${n}/${of}`.padStart(7) + `${of ? ` ${Math.round((100 * n) / of)}%` : ''}`.padEnd(6)
const line = (label: string, t: Tally) =>
  `${label.padEnd(12)}${cell(t.noise)}  ${cell(t.found)}  ${cell(t.types)}  ${cell(t.pages)}`
const header = ''.padEnd(12) + ['noise silent', 'changes found', 'types right'].map(h => h.padEnd(15)).join('') +
  'page types right'

console.log(`Sitewatch on its labelled set: ${results.length} pairs (test/quality)\n`)
console.log(`by language\n${header}`)
for (const lang of LANGUAGES) console.log(line(lang, tally(results.filter(r => r.c.lang === lang))))
console.log(`\nby page type\n${header}`)
for (const type of [...new Set(results.map(r => r.c.pageType))]) {
  console.log(line(type, tally(results.filter(r => r.c.pageType === type))))
}
const all = tally(results)
console.log(`\n${line('all', all)}`)

// What a person reads: summaries that show the difference, one edit as one change, no price where none moved.
interface Said { shows: [number, number], one: [number, number], prices: [number, number] }
const said = (rows: Array<{ c: QualityCase, o: Outcome }>): Said => {
  const t: Said = { shows: [0, 0], one: [0, 0], prices: [0, 0] }
  for (const { c, o } of rows) {
    if (!c.edit) continue
    t.shows[0] += o.showsDifference ? 1 : 0
    t.shows[1]++
    t.one[0] += o.oneChange ? 1 : 0
    t.one[1]++
    if (c.edit.expect !== 'price_change') {
      t.prices[0] += o.priceWithoutPrice ? 1 : 0
      t.prices[1]++
    }
  }
  return t
}
const saidLine = (label: string, t: Said) => `${label.padEnd(12)}${cell(t.shows)}${''.padEnd(12)}${cell(t.one)}` +
  `${''.padEnd(12)}${cell(t.prices)}`
console.log('\nwhat a person reads (goals: all, at least 90%, none)')
console.log(`${''.padEnd(12)}summaries that show    edits recorded as    price changes where`)
console.log(`${''.padEnd(12)}the difference         one change           no price moved`)
for (const lang of LANGUAGES) console.log(saidLine(lang, said(results.filter(r => r.c.lang === lang))))
console.log(saidLine('all', said(results)))

const misses = results.filter(({ c, o }) => !o.pageTypeRight || (c.edit ? !o.typeRight : !o.silent) ||
  (c.edit && (!o.showsDifference || !o.oneChange || o.priceWithoutPrice)))
for (const { c, o } of misses) {
  const seen = o.changes.map(ch => `${ch.changeType}: ${ch.summary}`).join(' | ') || 'nothing reported'
  console.log(`  miss ${c.id}: typed ${o.pageTypeGot}; ${seen}`)
}

// The structured readers (test/quality/readers.ts): structures read right, moves found and
// typed, noise kept silent, and the text changes a reader hid. Goals: every labelled
// structure read, every move right, no false alarm, nothing hidden.
const readers = readerCases().map(c => ({ c, r: c.run() }))
const ratio = (rows: typeof readers) => cell([rows.filter(x => x.r.right).length, rows.length])
console.log('\nstructured readers (goals: all read, all moves right, no false alarm, 0 text changes hidden)')
const columns = ['read right', 'moves typed', 'noise silent', 'text changes hidden by a reader']
console.log(`${''.padEnd(12)}${columns.map(h => h.padEnd(15)).join('')}`)
for (const reader of ['pricing', 'api', 'changelog'] as const) {
  const of = (kind: string) => readers.filter(x => x.c.reader === reader && x.c.kind === kind)
  const hidden = of('move').reduce((n, x) => n + x.r.hidden, 0)
  const figures = [ratio(of('read')), ratio(of('move')), ratio(of('noise')), String(hidden).padStart(7)]
  console.log(`${reader.padEnd(12)}${figures.join('  ')}`)
}
for (const { c, r } of readers.filter(x => !x.r.right || x.r.hidden > 0)) {
  const hidden = r.hidden > 0 ? ` (${r.hidden} changed lines hidden)` : ''
  console.log(`  miss ${c.reader} ${c.kind} ${c.id}: ${r.seen}${hidden}`)
}

// Long documents (test/quality/long-documents.ts): a new section among renumbered references,
// a typography-only rewrite, a spelling variant beside a real clause change, a heading made
// sentence case, a new date of last update beside a substantive edit. Goals: every summary
// led by the most significant edit; no trivial-only edit above low.
const long = longCases().map(c => ({ c, o: evaluateLong(c) }))
console.log('\nlong documents (goals: all led right, no trivial-only edit above low)')
const longColumns = ['summaries led right', 'trivial above low', 'one change']
console.log(`${''.padEnd(12)}${longColumns.map(h => h.padEnd(22)).join('')}`)
for (const lang of LANGUAGES) {
  const of = long.filter(x => x.c.lang === lang)
  const trivial = of.filter(x => x.c.trivial)
  console.log(`${lang.padEnd(12)}${cell([of.filter(x => x.o.ledRight).length, of.length]).padEnd(22)}` +
    `${cell([trivial.filter(x => x.o.trivialTooHigh).length, trivial.length]).padEnd(22)}` +
    `${cell([of.filter(x => x.o.changes.length === 1).length, of.length])}`)
}
for (const { c, o } of long.filter(x => !x.o.ledRight || x.o.trivialTooHigh)) {
  const seen = o.changes.map(ch => `${ch.changeType}/${ch.severity}: ${ch.summary}`).join(' | ') || 'nothing'
  console.log(`  miss ${c.id}: ${seen}`)
}

// Revision histories (test/quality/histories.ts): pages through several real edits each,
// every edit several things at once, each revision compared with the one before. Goals:
// every edit told as one change of the right type, no price pair that says nothing
// happened, no percentage no plan moved by.
const histories = historyEdits().map(e => ({ e, o: evaluateHistory(e) }))
console.log('\nrevision histories (goals: every edit one change, typed right; no no-move pair, no stray %, 0 hidden)')
const historyColumns = ['edits', 'one change', 'typed right', 'no-move pairs', 'stray %', 'hidden by a reader']
console.log(`${''.padEnd(12)}${historyColumns.map(h => h.padEnd(16)).join('')}`)
for (const reader of ['pricing', 'api', 'changelog', 'all'] as const) {
  const of = histories.filter(x => reader === 'all' || x.e.reader === reader)
  const count = (pick: (o: HistoryOutcome) => boolean) => cell([of.filter(x => pick(x.o)).length, of.length])
  const sum = (pick: (o: HistoryOutcome) => unknown[]) => String(of.reduce((n, x) => n + pick(x.o).length, 0))
  const figures = [String(of.length), count(o => o.oneChange), count(o => o.typeRight)]
  figures.push(sum(o => o.nothing), sum(o => o.stray), String(of.reduce((n, x) => n + x.o.hidden, 0)))
  console.log(`${reader.padEnd(12)}${figures.map(f => f.padEnd(16)).join('')}`)
}
const wrong = (o: HistoryOutcome) => !o.oneChange || !o.typeRight || o.nothing.length > 0 || o.stray.length > 0 ||
  o.hidden > 0
for (const { e, o } of histories.filter(x => wrong(x.o))) {
  const noMove = o.nothing.length ? `; no move: ${o.nothing.join(', ')}` : ''
  const stray = o.stray.length ? `; stray percentages: ${o.stray.join(', ')}` : ''
  const hidden = o.hidden > 0 ? ` (${o.hidden} changed lines hidden)` : ''
  console.log(`  miss ${e.history}, ${e.id}: expected ${e.expected}; ${o.seen}${noMove}${stray}${hidden}`)
}
