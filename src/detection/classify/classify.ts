import {
  LEGAL_PAGE_TYPES, SEVERITY_RANK as RANK, type DetectedChange, type DiffData, type Fact,
  type FactKind, type PageType, type Severity
} from '../../vocabulary/core.js'
import { allMuted, FACT_WORDS, judge } from '../../vocabulary/facts.js'
import { diffDataOf } from '../text/diff.js'
import { type EditKind, trivialPhrase } from '../text/edit-kinds.js'
import { type Language, ownLanguages } from '../words/lexicon.js'
import { legalTitle } from './page-kinds.js'
import { cut } from '../text/quote.js'
import { headingText, isHeading } from '../text/blocks.js'
import type { Context, Part, Reading } from './part.js'
import { leadOrder, sayPrices } from './prices.js'
import { classifyPart, leadsOver } from './readings.js'
import { hunkBlocks, withoutMoves } from '../text/hunks.js'
import { cellsOf, headingLevel } from '../../vocabulary/lines.js'

// A check's diff → the changes a person would name. Each block of changed lines is read on
// its own (readings.ts: a price, a feature, a section, an edit of text, trivial edits);
// blocks of one edit region (adjacent, or under one heading) become one change of the most
// significant kind among them; the plain text and legal edits of one check fold into one
// change each, so a rewrite is one item, not fifty; and trivial edits (renumbering,
// typography, spelling, a date of last update) never lead: they are counted in the most
// significant change ("…; also 38 renumbered references, 1 spelling change"), or make a low
// change of their own when nothing else moved. Summaries quote the words that changed.

/** The heading that stands above line `index` (0-based) of the page, with its line. */
function sectionOf (lines: readonly string[], index: number): { at: number, text?: string } {
  for (let i = Math.min(index, lines.length - 1); i >= 0; i--) {
    if (isHeading(lines[i])) return { at: i, text: headingText(lines[i]) }
  }
  return { at: -1 }
}

const KIND: Partial<Record<PageType, string>> = {
  pricing: 'Pricing',
  features: 'Features',
  terms: 'Terms',
  security: 'Security',
  api_docs: 'API docs',
  changelog: 'Changelog'
}

/**
 * What leads a summary: the page's kind (a legal page's own title when it is short, such as
 * "Privacy Policy", else what its title or address says it is) and the section, never
 * twice the same words, never a doubled colon.
 */
function prefixOf (pageType: PageType, afterLines: readonly string[], section?: string): string {
  const title = afterLines.find(l => headingLevel(l) === 1)
  const kind = LEGAL_PAGE_TYPES.includes(pageType)
    ? legalTitle(pageType, title ? headingText(title) : undefined)
    : KIND[pageType]
  const where = section && section !== kind ? cut(section, 60) : undefined
  return [kind, where].filter(Boolean).join(', ').replace(/[\s:]+$/, '')
}

/** What changed where, without the count of other passages. */
function headlineOf (prefix: string, phrase: string): string {
  if (!prefix) return `${phrase[0].toUpperCase()}${phrase.slice(1)}`
  return `${prefix}: ${phrase}`
}

type Counts = Partial<Record<EditKind, number>>
const addCounts = (into: Counts, from: Counts) => {
  for (const [k, n] of Object.entries(from) as Array<[EditKind, number]>) {
    if (k !== 'substantive') into[k] = (into[k] ?? 0) + n
  }
  return into
}

/** One change as it is being put together, with what its summary is made of. */
interface Counted {
  change: DetectedChange
  /** Its facts, the lead's first. */
  facts: Fact[]
  /** What changed where: the lead edit (or, with only trivial edits, their kinds). */
  headline: string
  /** Substantive passages it covers, the lead's included. */
  passages: number
  /** Trivial edits it covers, by kind, and the new date of last update if one. */
  trivial: Counts
  updatedOn?: string
  /** Nothing but trivial edits. */
  onlyTrivial: boolean
  /** Led by a section (or card) added or removed whole: among edits of one weight, it leads. */
  wholeSection?: boolean
  /** The sections of its other passages, the weightiest first: where else to read. */
  elsewhere?: string[]
}

/** How many sections of other passages a summary names. */
const NAMED_SECTIONS = 3

/**
 * The summary a person reads: the lead edit, how many more and in which sections, and the trivial edits by kind.
 */
function summaryOf (c: Counted): string {
  const more = c.passages - 1
  const rest = c.onlyTrivial ? [] : trivialPhrase(c.trivial, c.updatedOn)
  const others = more > 0 ? `, and ${more} more passage${more > 1 ? 's' : ''}${sectionsSaid(c.elsewhere)}` : ''
  return `${c.headline}${others}${rest.length > 0 ? `; also ${rest.join(', ')}` : ''}`
}

/** Sections named after a count of passages: " (4. Sub-processors; 1. Who we are)", a few of them. */
function sectionsSaid (sections: readonly string[] = []): string {
  const named = sections.slice(0, NAMED_SECTIONS).map(s => cut(s, 60))
  return named.length > 0 ? ` (${named.join('; ')}${sections.length > named.length ? '; …' : ''})` : ''
}

/** The headings a part's changed lines stand under past its first section: a block that runs on into the next. */
function sectionsWithin (p: Part): string[] {
  const out: string[] = []
  let heading: string | undefined
  for (const l of p.hunk.lines) {
    if (isHeading(l.content) && l.type !== 'deletion') heading = headingText(l.content)
    else if (l.type !== 'context' && heading !== undefined && !out.includes(heading)) out.push(heading)
  }
  return out
}

/** A fact about money: a price that moved, came or went, or a plan that came or went. */
const isMoney = (f: Fact) => f.kind.startsWith('price_') || f.kind === 'plan_added' || f.kind === 'plan_removed'

/** The parts of one edit region as one change: the most significant type and severity, every part's diff. */
function regionChange (
  region: Array<{ part: Part, reading: Reading }>,
  pageType: PageType,
  afterLines: readonly string[]
): Counted {
  const substantive = region.filter(r => !r.reading.trivial)
  const trivial = region.filter(r => r.reading.trivial)
  const counts: Counts = {}
  let updatedOn: string | undefined
  for (const r of region) {
    const kinds = r.reading.trivial ?? r.reading.trivialAlso
    if (!kinds) continue
    addCounts(counts, kinds.counts)
    updatedOn = kinds.updatedOn ?? updatedOn
  }
  const diffData = diffOf(region.map(r => r.part))
  const trivialFacts = trivial.flatMap(r => r.reading.facts)
  if (substantive.length === 0) {
    const { changeType, severity } = trivial[0].reading
    return {
      change: { changeType, severity, confidence: 0.9, summary: '', diffData },
      facts: trivialFacts,
      headline: headlineOf(prefixOf(pageType, afterLines, trivial[0].part.section),
        trivialPhrase(counts, updatedOn).join(', ')),
      passages: 0,
      trivial: counts,
      ...(updatedOn ? { updatedOn } : {}),
      onlyTrivial: true
    }
  }
  const lead = substantive.reduce((best, r) => leadsOver(r.reading, best.reading) ? r : best)
  const prices = substantive.filter(r => r.reading.changeType === 'price_change')
  // Prices are said, never counted as passages: after the lead's own words when something else leads, the
  // weightiest first.
  const byPrice = lead.reading.changeType === 'price_change'
  const otherPrices = prices.filter(r => r !== lead).flatMap(r => r.reading.facts)
  const beside = byPrice
    ? []
    : [...lead.reading.facts, ...otherPrices].filter(isMoney)
        .map(fact => ({ fact, ...judge(fact, pageType) })).sort(leadOrder).map(x => x.fact)
  const phrase = [
    byPrice ? sayPrices([...lead.reading.facts, ...otherPrices]) : lead.reading.phrase,
    lead.reading.alsoSaid,
    beside.length > 0 ? sayPrices(beside, true) : undefined
  ].filter(Boolean).join('; ')
  const counted = [lead, ...prices]
  const passages = substantive.filter(r => !counted.includes(r)).reduce((n, r) => n + r.reading.passages, 0) +
    lead.reading.passages
  const section = lead.reading.label ?? (lead.reading.standsAlone ? undefined : lead.part.section)
  const others = substantive.filter(r => r !== lead && !counted.includes(r))
  // The other passages' sections, the lead's own and the one its headline names left out.
  const said = new Set([lead.part.section, section, lead.reading.fact.subject])
  const elsewhere = [...new Set([
    ...sectionsWithin(lead.part), ...others.flatMap(r => [r.part.section, ...sectionsWithin(r.part)])
  ])].filter((s): s is string => s !== undefined && !said.has(s))
  return {
    facts: [
      ...lead.reading.facts, ...substantive.filter(r => r !== lead).flatMap(r => r.reading.facts), ...trivialFacts
    ],
    change: {
      changeType: lead.reading.changeType,
      severity: highest(substantive.map(r => r.reading.severity)),
      confidence: lead.reading.confidence,
      summary: '',
      diffData
    },
    headline: headlineOf(prefixOf(pageType, afterLines, section), phrase),
    passages,
    trivial: counts,
    ...(updatedOn ? { updatedOn } : {}),
    onlyTrivial: false,
    ...(lead.reading.standsAlone ? { wholeSection: true } : {}),
    ...(elsewhere.length > 0 ? { elsewhere } : {})
  }
}

/** The diff of a region's parts (see diffDataOf). */
const diffOf = (parts: readonly Part[]): DiffData => diffDataOf(parts.map(p => p.hunk))

/** Several changes' diffs as one: every hunk, in page order (see diffDataOf). */
const mergedDiff = (all: readonly DiffData[]): DiffData => diffDataOf(all.flatMap(d => d.hunks))

/** Folds the plain edits of one kind (text edits, legal edits) into one change, led by the weightiest. */
function fold (changes: Counted[], type: 'content_change' | 'terms_update'): Counted[] {
  const same = changes.filter(x => !x.onlyTrivial && x.change.changeType === type)
  if (same.length <= 1) return changes
  const severity = highest(same.map(x => x.change.severity))
  const weight = (x: Counted) => RANK[x.change.severity] * 2 + (x.wholeSection ? 1 : 0)
  const lead = same.reduce((best, x) => weight(x) > weight(best) ? x : best)
  // The other passages' sections, the weightiest first (page order among equals), each once, the lead's left out.
  const sections = [...lead.elsewhere ?? [], ...same.filter(x => x !== lead).sort((a, b) => weight(b) - weight(a))
    .flatMap(x => [x.facts[0]?.subject ?? '', ...x.elsewhere ?? []])]
  const elsewhere = [...new Set(sections)].filter(s => s && s !== lead.facts[0]?.subject)
  const merged: Counted = {
    facts: [...lead.facts, ...same.filter(x => x !== lead).flatMap(x => x.facts)],
    change: {
      changeType: type,
      severity: same.length > 5 && severity === 'low' ? 'medium' : severity,
      confidence: Math.min(...same.map(x => x.change.confidence)),
      summary: '',
      diffData: mergedDiff(same.map(x => x.change.diffData))
    },
    headline: lead.headline,
    ...(lead.wholeSection ? { wholeSection: true } : {}),
    ...(elsewhere.length > 0 ? { elsewhere } : {}),
    passages: same.reduce((n, x) => n + x.passages, 0),
    trivial: same.reduce((c, x) => addCounts(c, x.trivial), {}),
    ...(same.find(x => x.updatedOn) ? { updatedOn: same.find(x => x.updatedOn)!.updatedOn } : {}),
    onlyTrivial: false
  }
  return [...changes.filter(x => !same.includes(x)), merged]
}

/**
 * Trivial edits never stand beside a substantive change: they are counted in the most
 * significant change of the check; alone, they are one low change of their own.
 */
function foldTrivial (changes: Counted[]): Counted[] {
  const trivial = changes.filter(x => x.onlyTrivial)
  if (trivial.length === 0) return changes
  const others = changes.filter(x => !x.onlyTrivial)
  const counts = trivial.reduce((c, x) => addCounts(c, x.trivial), {})
  const updatedOn = trivial.find(x => x.updatedOn)?.updatedOn
  if (others.length === 0) {
    const merged = trivial.length === 1
      ? trivial[0]
      : { ...trivial[0], trivial: counts, facts: trivial.flatMap(x => x.facts) }
    return [{
      ...merged,
      headline: trivial.length === 1
        ? trivial[0].headline
        : headlineOf(trivial[0].headline.split(': ')[0], trivialPhrase(counts, updatedOn).join(', ')),
      change: { ...merged.change, diffData: mergedDiff(trivial.map(x => x.change.diffData)) },
      ...(updatedOn ? { updatedOn } : {})
    }]
  }
  const lead = others.reduce((best, x) => leadsOver(weighed(x), weighed(best)) ? x : best)
  const withTrivial: Counted = {
    ...lead,
    facts: [...lead.facts, ...trivial.flatMap(x => x.facts)],
    trivial: addCounts({ ...lead.trivial }, counts),
    ...(updatedOn ?? lead.updatedOn ? { updatedOn: updatedOn ?? lead.updatedOn } : {}),
    change: { ...lead.change, diffData: mergedDiff([lead.change.diffData, ...trivial.map(x => x.change.diffData)]) }
  }
  return changes.filter(x => !x.onlyTrivial).map(x => x === lead ? withTrivial : x)
}
/** A change as leadsOver weighs it: its type, its severity and its lead fact. */
const weighed = (c: Counted) => ({ ...c.change, fact: c.facts[0] })
const weighedChange = (c: DetectedChange) => ({ ...c, fact: c.diffData.facts?.[0] })

/** The first row of the table whose rows run on to the line at `at` (none: that line is no table's row). */
function tableHeadAt (lines: readonly string[], at: number): string[] | undefined {
  if (!cellsOf(lines[at] ?? '')) return undefined
  let top = at
  while (top > 0 && cellsOf(lines[top - 1] ?? '')) top--
  return cellsOf(lines[top]) ?? undefined
}

/** Blocks this close (unchanged lines between them) or under one heading are one edit. */
const ADJACENT = 1

export function classifyChanges (
  diff: DiffData,
  pageType: PageType,
  lines: { before: readonly string[], after: readonly string[] },
  language?: Language,
  priceLines: ReadonlySet<number> = new Set(),
  muted?: (f: Fact) => boolean
): DetectedChange[] {
  // A block that only moved is no edit (see withoutMoves).
  const parts: Part[] = withoutMoves(diff.hunks)
    .flatMap(h => hunkBlocks(h).map(b => ({ hunk: b.hunk, within: { hunk: h, at: b.at } })))
    .map(({ hunk, within }) => {
      const firstChange = hunk.lines.findIndex(l => l.type !== 'context')
      const lastChange = hunk.lines.length - 1 - [...hunk.lines].reverse().findIndex(l => l.type !== 'context')
      const newBefore = (i: number) => hunk.lines.slice(0, i).filter(l => l.type !== 'deletion').length
      const oldBefore = (i: number) => hunk.lines.slice(0, i).filter(l => l.type !== 'addition').length
      const from = hunk.newStart - 1 + newBefore(firstChange)
      const oldFrom = hunk.oldStart - 1 + oldBefore(firstChange)
      // The heading above the block's first changed line, in the page as it now reads.
      const section = sectionOf(lines.after, from - 1)
      let at = hunk.newStart - 1
      let priced = false
      for (const l of hunk.lines) {
        if (l.type === 'addition' && priceLines.has(at)) priced = true
        if (l.type !== 'deletion') at++
      }
      return {
        priced,
        tableHeads: { deletion: tableHeadAt(lines.before, oldFrom), addition: tableHeadAt(lines.after, from) },
        hunk,
        within,
        removed: hunk.lines.filter(l => l.type === 'deletion').map(l => l.content),
        added: hunk.lines.filter(l => l.type === 'addition').map(l => l.content),
        section: section.text,
        sectionAt: section.at,
        from,
        to: hunk.newStart - 1 + newBefore(lastChange + 1)
      }
    })
  const legalPage = LEGAL_PAGE_TYPES.includes(pageType)
  const ctx: Context = { pageType, language, own: ownLanguages(language), legalPage, ...(muted ? { muted } : {}) }
  // A block whose every fact the page mutes ("price moves of Cloud VPS 10") is not told.
  const read = parts.map(part => ({ part, reading: classifyPart(part, ctx) }))
    .filter(r => !allMuted(r.reading.facts, muted))
  const regions: Array<typeof read> = []
  for (const r of read) {
    const last = regions[regions.length - 1]?.at(-1)
    const together = last && (
      r.part.from - last.part.to <= ADJACENT ||
      (r.part.sectionAt === last.part.sectionAt && !twoPrices(r, last))
    )
    if (together) regions[regions.length - 1].push(r)
    else regions.push([r])
  }
  const changes = regions.map(region => regionChange(region, pageType, lines.after))
  return foldTrivial(fold(fold(changes, 'content_change'), 'terms_update')).map(c => ({
    ...c.change,
    summary: summaryOf(c),
    diffData: withEdits(c.change.diffData, c)
  }))
}

/** The change's diff, with how many edits of each kind it holds (and the new date of last update) and its facts. */
function withEdits (diffData: DiffData, c: Counted): DiffData {
  const kinds = { ...(c.passages > 0 ? { substantive: c.passages } : {}), ...c.trivial }
  return { ...diffData, edits: { kinds, ...(c.updatedOn ? { updatedOn: c.updatedOn } : {}) }, facts: c.facts }
}

/**
 * All that one check found on one page as one change (one edit, one alert): led by its
 * most significant change (severity, then type), whose type, severity and words it keeps,
 * with the others' facts counted after it ("; and 11 more prices up, 1 more section
 * added"). Its diff holds every change's lines and facts, the lead's first.
 */
export function oneChange (changes: readonly DetectedChange[]): DetectedChange[] {
  if (changes.length <= 1) return [...changes]
  const lead = changes.reduce((best, c) => leadsOver(weighedChange(c), weighedChange(best)) ? c : best)
  const others = changes.filter(c => c !== lead)
  // A move told twice (a reader's and the text's reading of one line) is told once; its lines stay in the diff.
  const told = new Set((lead.diffData.facts ?? []).map(moveKey).filter(k => k !== undefined))
  const fresh = (f: Fact) => {
    const key = moveKey(f)
    if (key === undefined) return true
    if (told.has(key)) return false
    told.add(key)
    return true
  }
  const counts = new Map<FactKind, number>()
  // Where the counted passages are: their sections, each once.
  const passagesIn = new Set<string>()
  const facts = [...(lead.diffData.facts ?? [])]
  // Other prices that moved are named ("Egress -50%, Volume Storage -40%"), a few of them, before anything is counted.
  const moves: string[] = []
  for (const c of others) {
    for (const f of c.diffData.facts ?? [{ kind: 'text_edit' as const }]) {
      if (!fresh(f)) continue
      if (c.diffData.facts) facts.push(f)
      const move = moves.length < NAMED_MOVES ? moveSaid(f) : undefined
      if (move) moves.push(move)
      else if (f.kind !== 'trivial_edit') counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1)
      if (f.kind === 'text_edit' && f.subject) passagesIn.add(f.subject)
    }
  }
  const more = [...counts].map(([kind, n]) => `${n} more ${FACT_WORDS[kind][n === 1 ? 0 : 1]}` +
    (kind === 'text_edit' ? sectionsSaid([...passagesIn]) : ''))
  const all = [lead, ...others].map(c => c.diffData)
  const pick = <K extends keyof DiffData>(key: K) => all.find(d => d[key] !== undefined)?.[key]
  const merged = mergedDiff(all)
  return [{
    ...lead,
    summary: [
      lead.summary.replace(/[\s.;,]+$/, ''),
      ...(moves.length > 0 ? [moves.join(', ')] : []),
      ...(more.length > 0 ? [`and ${more.join(', ')}`] : [])
    ].join('; '),
    diffData: {
      ...merged,
      ...Object.fromEntries((['pricing', 'changelog', 'api', 'visual', 'edits'] as const)
        .map(k => [k, pick(k)]).filter(([, v]) => v !== undefined)),
      facts
    }
  }]
}

/** A move's identity (its kind, subject and values), or undefined for a fact that is no move. */
/** How many other price moves a change names after its lead before it counts them. */
const NAMED_MOVES = 3

/**
 * A named plan's price move in a few words ("Egress -50%", "Pro: $20/user/month → $20/month", "Enterprise:
 * $49/user/month added"); else undefined.
 */
function moveSaid (f: Fact): string | undefined {
  if (!f.subject) return undefined
  if (f.kind === 'price_added' && f.after) return `${f.subject}: ${f.after} added`
  if (f.kind === 'price_removed' && f.before) return `${f.subject}: ${f.before} removed`
  if (!(f.kind === 'price_up' || f.kind === 'price_down' || f.kind === 'price_changed')) return undefined
  if (f.percent !== undefined) return `${f.subject} ${f.percent > 0 ? '+' : ''}${f.percent}%`
  return f.before && f.after ? `${f.subject}: ${f.before} → ${f.after}` : undefined
}

// Its values as written, spaces aside: the table's reader writes "4.50 €/month" where the text has "4.50 € / month".
const moveKey = (f: Fact) => f.before === undefined && f.after === undefined
  ? undefined
  : `${f.kind}\n${f.subject ?? ''}\n${(f.before ?? '').replace(/\s+/g, '')}\n${(f.after ?? '').replace(/\s+/g, '')}`

/** Two prices of different plans under one heading (rows of one table) stay two changes. */
const twoPrices = (a: { reading: Reading }, b: { reading: Reading }) =>
  a.reading.changeType === 'price_change' && b.reading.changeType === 'price_change' &&
  a.reading.label !== b.reading.label

const highest = (severities: Severity[]) => severities.reduce<Severity>((s, x) => (RANK[x] > RANK[s] ? x : s), 'low')
