import { Parser } from 'htmlparser2'
import { operationCount, parseSpec } from '../changes/api-spec.js'
import { readChangelog, readFeed } from '../changes/changelog.js'
import { pageLanguage } from '../changes/language.js'
import {
  FREE_WORDS, IMPRINT, TRIAL_DAYS, TRIAL_WORDS, fold, matcher, ownLanguages, type Language
} from '../changes/lexicon.js'
import { planKey, readPricing } from '../changes/pricing.js'
import {
  ACTIVITY_WINDOWS, FEATURE_WINDOWS, sourceKey,
  type Brief, type BriefSections, type ResearchInputs, type Source, type StoredBytes
} from '../domain/research.js'
import {
  CHANGE_TYPES, PAGE_TYPES, SEVERITIES, type ChangelogEntry, type PageType
} from '../domain/vocabulary.js'
import { findClaims, sentenceAt } from './claims.js'
import { featureMoves, readFeatures } from './features.js'
import { plural } from './markdown.js'

// A research brief built from what the store holds of a domain (ResearchInputs): pure, and
// run on an analysis thread. Each section says where each of its facts was read, or why it
// is left out.

/** Bytes as a snapshot keeps them → text (the caller's charset decoding). */
export type Decode = (bytes: StoredBytes) => string

type Sections = BriefSections
const DAY_MS = 86_400_000
/** A site's home page: its address has no path. */
const isHome = (url: string) => /^https?:\/\/[^/]+\/?$/.test(url)
const MAX_LIST = 100

interface PageFacts {
  url: string
  pageType: PageType
  monitored: boolean
  /** Its place among the pages read, the highest-ranked first. */
  rank: number
  snapshot?: { id: string, at: Date }
  text?: string
  language?: Language
}

/** What every section reads: the pages by id, with their latest snapshot and language. */
class Reading {
  readonly pages = new Map<string, PageFacts>()

  constructor (readonly inputs: ResearchInputs, readonly decode: Decode) {
    for (const p of inputs.pages) {
      this.pages.set(p.id, { url: p.url, pageType: p.pageType, monitored: p.monitored, rank: Infinity })
    }
    inputs.texts.forEach((t, rank) => {
      const page = this.pages.get(t.pageId)
      if (!page) return
      Object.assign(page, { rank, snapshot: { id: t.snapshotId, at: t.at }, text: t.text })
      page.language = pageLanguage({ declared: t.declared, lines: t.text.split('\n', 400) })
    })
  }

  get monitored () { return [...this.pages.values()].filter(p => p.monitored) }

  /** The page as its latest snapshot read it. */
  source (pageId: string, snapshot?: { id: string, at: Date }): Source {
    const page = this.pages.get(pageId)
    const s = snapshot ?? page?.snapshot
    return { url: page?.url ?? '', at: s?.at ?? this.inputs.now, snapshotId: s?.id ?? null, changeId: null }
  }

  /** The page as one of its changes showed it. */
  changeSource (c: { pageId: string, changeId: string, at: Date }): Source {
    return { url: this.pages.get(c.pageId)?.url ?? '', at: c.at, snapshotId: null, changeId: c.changeId }
  }

  /** The raw pages of `type`, highest-ranked first, decoded. */
  raws (type?: PageType) {
    return this.inputs.raws
      .filter(r => type === undefined || this.pages.get(r.pageId)?.pageType === type)
      .sort((a, b) => (this.pages.get(a.pageId)?.rank ?? Infinity) - (this.pages.get(b.pageId)?.rank ?? Infinity))
      .map(r => ({
        ...r,
        html: () => this.decode(r.page),
        document: r.document && { url: r.document.url, text: () => this.decode(r.document!) },
        source: this.source(r.pageId, { id: r.snapshotId, at: r.at })
      }))
  }

  count (type: PageType) { return this.monitored.filter(p => p.pageType === type).length }
}

/** A section's facts with their sources, or the section left out with a reason. */
function included<T extends object> (sources: Source[], facts: T) {
  const seen = new Set<string>()
  const unique = sources.filter(s => {
    const key = sourceKey(s)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  return { included: true, reason: null, sources: unique, ...facts }
}
const omitted = <T extends object>(reason: string, empty: T) => ({ included: false, reason, sources: [], ...empty })

const noPageOf = (r: Reading, what: string) =>
  `no ${what} is among its ${plural(r.monitored.length, 'monitored page')}`

export function buildBrief (inputs: ResearchInputs, decode: Decode): Pick<Brief, 'window' | 'sections'> {
  const r = new Reading(inputs, decode)
  const sections: Sections = {
    company: company(r),
    pricing: pricing(r),
    features: features(r),
    security: security(r),
    legal: legal(r),
    api: api(r),
    releases: releases(r),
    activity: activity(r)
  }
  return {
    window: {
      builtAt: inputs.now,
      retentionDays: inputs.retentionDays,
      pages: inputs.texts.length,
      changes: inputs.changesInWindow
    },
    sections
  }
}

/** The name a page's head gives the site: og:site_name, application-name, and its title. */
function headNames (html: string): { 'og:site_name'?: string, 'application-name'?: string, title?: string } {
  const names: Record<string, string> = {}
  let inTitle = false
  let title = ''
  const parser = new Parser({
    onopentag (name, attrs) {
      if (name === 'title') inTitle = true
      if (name === 'meta') {
        const key = attrs.property ?? attrs.name
        if ((key === 'og:site_name' || key === 'application-name') && attrs.content?.trim()) {
          names[key] ??= attrs.content.trim()
        }
      }
      if (name === 'body') parser.reset()
    },
    ontext (text) { if (inTitle) title += text },
    onclosetag (name) {
      if (name === 'title') inTitle = false
      if (name === 'head') parser.reset()
    }
  }, { decodeEntities: true })
  parser.write(html.slice(0, 200_000))
  parser.end()
  return { ...names, ...(title.trim() ? { title: title.replace(/\s+/g, ' ').trim() } : {}) }
}

const TITLE_PARTS = /\s+[|\-–—·:•]\s+/

/**
 * The part the titles share ("Pricing | Acme", "Features | Acme" → Acme); else the home
 * page's first part ("Acme | Event delivery"), or another page's last ("Blog | Acme").
 */
function nameFromTitles (titles: Array<{ title: string, home: boolean }>): string | undefined {
  const counts = new Map<string, number>()
  for (const { title } of titles) {
    for (const part of new Set(title.split(TITLE_PARTS))) counts.set(part, (counts.get(part) ?? 0) + 1)
  }
  const shared = [...counts].filter(([, n]) => n >= 2).sort((a, b) => b[1] - a[1] || a[0].length - b[0].length)[0]
  if (shared) return shared[0]
  const home = titles.find(t => t.home)
  return home ? home.title.split(TITLE_PARTS)[0] : titles[0]?.title.split(TITLE_PARTS).at(-1)
}

/** A company's name with its legal form, as an imprint or terms write it: capitalised words, then the form. */
const LEGAL_FORM = /(?<![\p{L}\p{N}])(?:[\p{Lu}\p{N}&][\p{L}\p{N}&.'-]*,? ){1,5}(?:GmbH(?: & Co\. KG)?|AG|SE|KG|Ltd\.?|Limited|LLC|L\.L\.C\.|Inc\.?|Corp\.?|Corporation|PLC|plc|SAS|SARL|S\.A\.S\.|S\.A\.|SA|B\.V\.|BV|N\.V\.|S\.r\.l\.|S\.p\.A\.|Lda\.?|S\.L\.|Oy|AB|ApS)(?![\p{L}])/u

function company (r: Reading): Sections['company'] {
  const monitored = r.monitored
  const pagesByType = Object.fromEntries(PAGE_TYPES.map(t => [t, r.count(t)]))
  const empty = {
    name: null, nameFrom: null, legalName: null, languages: [], monitoredPages: monitored.length, pagesByType
  }
  if (monitored.length === 0) return omitted('the domain has no monitored page yet', empty)
  const raws = r.raws()
  const home = raws.find(p => isHome(r.pages.get(p.pageId)?.url ?? ''))
  const heads = [home, ...raws.filter(p => p !== home)].filter(p => p !== undefined)
    .map(p => ({ names: headNames(p.html()), source: p.source, home: p === home }))
  const sources: Source[] = []
  let name: string | null = null
  let nameFrom: Sections['company']['nameFrom'] = null
  for (const key of ['og:site_name', 'application-name'] as const) {
    const found = heads.find(h => h.names[key])
    if (found && name === null) {
      name = found.names[key]!
      nameFrom = key
      sources.push(found.source)
    }
  }
  if (name === null) {
    const titled = heads.filter(h => h.names.title)
    const fromTitles = nameFromTitles(titled.map(h => ({ title: h.names.title!, home: h.home })))
    if (fromTitles) {
      name = fromTitles
      nameFrom = 'title'
      sources.push(...titled.filter(h => h.names.title!.includes(fromTitles)).slice(0, 3).map(h => h.source))
    }
  }
  let legalName: Sections['company']['legalName'] = null
  const legalPages = [...r.pages].filter(([, p]) => p.text !== undefined &&
    (IMPRINT.test(fold(decodeURIComponent(new URL(p.url).pathname).replace(/[-_/]/g, ' '))) || p.pageType === 'terms'))
    .sort((a, b) => Number(b[1].pageType !== 'terms') - Number(a[1].pageType !== 'terms') || a[1].rank - b[1].rank)
  for (const [id, p] of legalPages) {
    const m = p.text!.split('\n').map(l => l.length <= 200 ? LEGAL_FORM.exec(l) : null).find(x => x)
    if (m) {
      legalName = { name: m[0].trim(), source: r.source(id) }
      sources.push(legalName.source)
      break
    }
  }
  const byLanguage = new Map<string, number>()
  for (const p of monitored) if (p.language) byLanguage.set(p.language, (byLanguage.get(p.language) ?? 0) + 1)
  const languages = [...byLanguage].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([language, pages]) => ({ language, pages }))
  return included(sources, { ...empty, name, nameFrom, legalName, languages })
}

const PERCENT = /([+\-−]?\d+(?:[.,]\d+)?)\s?%/

function pricing (r: Reading): Sections['pricing'] {
  const empty = { currency: null, plans: [], freeTier: null, trial: null, priceChanges: [] }
  const pages = r.raws('pricing')
  const plans: Sections['pricing']['plans'] = []
  for (const page of pages) {
    for (const plan of readPricing(page.html()).table.plans) {
      if (!plans.some(p => planKey(p.name) === planKey(plan.name))) plans.push({ ...plan, source: page.source })
    }
  }
  const currencies = new Map<string, number>()
  for (const { currency: c } of plans.flatMap(p => p.prices)) currencies.set(c, (currencies.get(c) ?? 0) + 1)
  const currency = [...currencies].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null
  const free = plans.find(p => p.prices.length > 0
    ? p.prices.every(x => x.amount === 0)
    : matcher(FREE_WORDS, ownLanguages(r.pages.get(pages[0]?.pageId ?? '')?.language)).test(fold(p.name)))
  const trial = findTrial(r)
  const priceChanges: Sections['pricing']['priceChanges'] = []
  for (const c of r.inputs.priceChanges) {
    const source = r.changeSource(c)
    const moves = (c.moves ?? []).filter(m => ['price_up', 'price_down', 'plan_added', 'plan_removed'].includes(m.kind))
    if (c.moves === null) {
      const percent = PERCENT.exec(c.summary)
      priceChanges.push({
        at: c.at,
        source,
        kind: 'price_change',
        plan: null,
        before: null,
        after: null,
        summary: c.summary,
        percent: percent ? Number(percent[1].replace('−', '-').replace(',', '.')) : null
      })
    }
    for (const m of moves) {
      priceChanges.push({
        at: c.at,
        source,
        kind: m.kind,
        plan: m.plan ?? null,
        before: m.before ?? null,
        after: m.after ?? null,
        percent: m.percent ?? null,
        summary: m.summary
      })
    }
  }
  priceChanges.splice(MAX_LIST)
  if (plans.length === 0 && priceChanges.length === 0 && !trial) {
    const reason = r.count('pricing') === 0
      ? noPageOf(r, 'pricing page')
      : pages.length === 0
        ? 'its pricing pages have not been read yet'
        : `no plans or prices could be read on ${pages.map(p => p.source.url).join(', ')}`
    return omitted(reason, empty)
  }
  return included(
    [...plans.map(p => p.source), ...(trial ? [trial.source] : []), ...priceChanges.map(c => c.source)],
    {
      currency,
      plans,
      freeTier: free ? { plan: free.name, source: free.source } : null,
      trial,
      priceChanges
    }
  )
}

/** A free trial that the pricing pages (else the home page) offer: its sentence and length. */
function findTrial (r: Reading): Sections['pricing']['trial'] {
  const candidates = [...r.pages].filter(([, p]) => p.text !== undefined &&
    (p.pageType === 'pricing' || isHome(p.url)))
    .sort((a, b) => Number(a[1].pageType !== 'pricing') - Number(b[1].pageType !== 'pricing') || a[1].rank - b[1].rank)
  for (const [id, p] of candidates) {
    const words = matcher(TRIAL_WORDS, ownLanguages(p.language))
    for (const line of p.text!.split('\n')) {
      const folded = fold(line)
      const m = words.exec(folded)
      if (!m) continue
      const sentence = sentenceAt(line, folded.length === line.length ? m.index : 0)
      const days = TRIAL_DAYS.exec(fold(sentence))
      return { text: sentence, days: days ? Number(days[1]) : null, source: r.source(id) }
    }
  }
  return null
}

function features (r: Reading): Sections['features'] {
  const empty = { groups: [], windows: [] }
  const byPage = new Map<string, Map<number, ResearchInputs['features'][number]>>()
  for (const f of r.inputs.features) {
    const some = byPage.get(f.pageId) ?? new Map()
    some.set(f.days, f)
    byPage.set(f.pageId, some)
  }
  const groups: Sections['features']['groups'] = []
  const windows: Sections['features']['windows'] = FEATURE_WINDOWS.map(days => ({
    days, since: new Date(r.inputs.now.getTime() - days * DAY_MS), added: [], removed: []
  }))
  const sources: Source[] = []
  for (const [pageId, versions] of byPage) {
    const now = versions.get(0)
    if (!now) continue
    const source = r.source(pageId, { id: now.snapshotId, at: now.at })
    const current = readFeatures(now.text)
    for (const g of current) groups.push({ ...g, source })
    if (current.length > 0) sources.push(source)
    for (const w of windows) {
      const then = versions.get(w.days)
      if (!then) continue
      if (then.at > w.since) w.since = then.at
      if (then.snapshotId === now.snapshotId) continue
      const thenSource = r.source(pageId, { id: then.snapshotId, at: then.at })
      const moves = featureMoves(readFeatures(then.text), current)
      w.added.push(...moves.added.map(m => ({ ...m, source })))
      w.removed.push(...moves.removed.map(m => ({ ...m, source: thenSource })))
      if (moves.removed.length > 0) sources.push(thenSource)
    }
  }
  for (const w of windows) {
    w.added.splice(MAX_LIST)
    w.removed.splice(MAX_LIST)
  }
  if (groups.length === 0 && windows.every(w => w.added.length + w.removed.length === 0)) {
    const reason = r.count('features') === 0
      ? noPageOf(r, 'features page')
      : byPage.size === 0
        ? 'its features pages have not been read yet'
        : 'its features pages list no features under headings or in lists'
    return omitted(reason, empty)
  }
  return included(sources, { groups, windows })
}

/** Pages where claims are made first: security, terms, features, pricing, then the rest in rank order. */
const CLAIM_ORDER: readonly PageType[] = ['security', 'terms', 'features', 'pricing', 'api_docs', 'changelog', 'other']

function security (r: Reading): Sections['security'] {
  const read = [...r.pages].filter(([, p]) => p.text !== undefined && p.monitored)
    .sort((a, b) => CLAIM_ORDER.indexOf(a[1].pageType) - CLAIM_ORDER.indexOf(b[1].pageType) || a[1].rank - b[1].rank)
  const claims = findClaims(read.map(([id, p]) => ({ text: p.text!, language: p.language, source: r.source(id) })))
  if (claims.length === 0) {
    return omitted(read.length === 0
      ? 'no page of the domain has been read yet'
      : `none of the ${plural(read.length, 'page')} read states a security or compliance claim ` +
        '(SOC 2, ISO 27001, GDPR, HIPAA, PCI DSS, SSO/SAML, data residency…)', { claims: [] })
  }
  return included(claims.map(c => c.source), { claims })
}

function legal (r: Reading): Sections['legal'] {
  const pages = r.inputs.legal.map(l => {
    const page = r.pages.get(l.pageId)!
    return {
      url: page.url,
      pageType: page.pageType,
      changes: l.changes,
      lastChange: l.last && {
        at: l.last.at, source: r.changeSource(l.last), summary: l.last.summary, severity: l.last.severity
      },
      source: l.snapshot ? r.source(l.pageId, l.snapshot) : r.source(l.pageId)
    }
  })
  const highSeverity = r.inputs.legalHigh.map(c => ({
    at: c.at, source: r.changeSource(c), url: r.pages.get(c.pageId)?.url ?? '', summary: c.summary, severity: c.severity
  }))
  if (pages.length === 0) {
    return omitted(noPageOf(r, 'terms, privacy or security page'), { pages: [], highSeverity: [] })
  }
  return included([...pages.map(p => p.source), ...highSeverity.map(c => c.source)], { pages, highSeverity })
}

function api (r: Reading): Sections['api'] {
  let specification: Sections['api']['specification'] = null
  for (const page of r.raws('api_docs')) {
    if (!page.document) continue
    try {
      const doc = parseSpec(page.document.text())
      specification = {
        url: page.document.url,
        format: doc.openapi ? `OpenAPI ${String(doc.openapi)}` : `Swagger ${String(doc.swagger)}`,
        title: typeof doc.info?.title === 'string' ? doc.info.title : null,
        version: doc.info?.version != null ? String(doc.info.version) : null,
        operations: operationCount(doc),
        source: page.source
      }
      break
    } catch {
      // Not a description we read: the next page's, if any.
    }
  }
  const breaking = r.inputs.apiBreaking.flatMap(c => c.breaking.map(b => ({
    at: c.at, source: r.changeSource(c), method: b.method, path: b.path, change: b.change
  }))).slice(0, MAX_LIST)
  if (r.count('api_docs') === 0 && breaking.length === 0) {
    return omitted(noPageOf(r, 'API documentation page'), { specification: null, breaking: [] })
  }
  return included([...(specification ? [specification.source] : []), ...breaking.map(b => b.source)],
    { specification, breaking })
}

const monthOf = (d: Date) => d.toISOString().slice(0, 7)

function releases (r: Reading): Sections['releases'] {
  let entries: ChangelogEntry[] = []
  let source: Source | undefined
  for (const page of r.raws('changelog')) {
    let read = page.document ? safely(() => readFeed(page.document!.text()).entries) : []
    if (read.length === 0) read = readChangelog(page.html()).entries
    if (read.length > 0) {
      entries = read
      source = page.source
      break
    }
  }
  if (!source) {
    const reason = r.count('changelog') === 0
      ? noPageOf(r, 'changelog page')
      : 'its changelog pages list no entries Sitewatch can read'
    return omitted(reason, { months: [], latest: [] })
  }
  const now = r.inputs.now
  const from = new Date(now.getTime() - 90 * DAY_MS)
  const months: Sections['releases']['months'] = []
  for (let d = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), 1)); d <= now;
    d = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1))) {
    months.push({ month: monthOf(d), entries: 0 })
  }
  const fromDay = from.toISOString().slice(0, 10)
  const today = now.toISOString().slice(0, 10)
  for (const e of entries) {
    if (!e.date || e.date < fromDay || e.date > today) continue
    const month = months.find(m => m.month === e.date!.slice(0, 7))
    if (month) month.entries++
  }
  const ordered = entries.some(e => e.date)
    ? entries.map((e, i) => ({ e, i })).sort((a, b) => (b.e.date ?? '').localeCompare(a.e.date ?? '') || a.i - b.i)
      .map(x => x.e)
    : entries
  const latest = ordered.slice(0, 5).map(e => ({
    version: e.version ?? null, date: e.date ?? null, title: e.title, items: e.items.slice(0, 10), source: source!
  }))
  return included([source], { months, latest })
}

function safely<T> (read: () => T[]): T[] {
  try {
    return read()
  } catch {
    return []
  }
}

function activity (r: Reading): Sections['activity'] {
  const zero = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map(k => [k, 0])) as Record<K, number>
  const windows = ACTIVITY_WINDOWS.map(days => {
    const key = `d${days}` as 'd7' | 'd30' | 'd90'
    const byType = zero(CHANGE_TYPES)
    const bySeverity = zero(SEVERITIES)
    let total = 0
    for (const a of r.inputs.activity) {
      byType[a.changeType] += a[key]
      bySeverity[a.severity] += a[key]
      total += a[key]
    }
    return { days, total, byType, bySeverity }
  })
  const mostChanged = r.inputs.mostChanged.map(m => {
    const page = r.pages.get(m.pageId)
    return { url: page?.url ?? '', pageType: page?.pageType ?? 'other', changes: m.changes, source: r.source(m.pageId) }
  })
  if (r.inputs.texts.length === 0) {
    return omitted('no page of the domain has been checked yet', { windows, mostChanged: [] })
  }
  return included(mostChanged.map(m => m.source), { windows, mostChanged: mostChanged.map(({ source: _, ...m }) => m) })
}
