import { operationCount, parseSpec } from '../detection/detect.js'
import { readChangelog, readFeed } from '../detection/detect.js'
import { FREE_WORDS, TRIAL_DAYS, TRIAL_WORDS, fold, matcher, ownLanguages } from '../detection/words/lexicon.js'
import { planKey, readPricing, sayPrices } from '../detection/detect.js'
import {
  ACTIVITY_WINDOWS, FEATURE_WINDOWS, type Brief, type BriefSections, type ResearchInputs, type Source
} from '../vocabulary/research.js'
import { CHANGE_TYPES, SEVERITIES, type ChangelogEntry, type FactKind, type PageType } from '../vocabulary/core.js'
import { findClaims, sentenceAt } from './claims.js'
import { featureMoves, readFeatures } from './features.js'
import { plural } from './markdown.js'
import { company } from './company.js'
import { DAY_MS, included, isHome, MAX_LIST, noPageOf, omitted, Reading, type Decode } from './reading.js'

// A research brief built from what the store holds of a domain (ResearchInputs): pure, and
// run on an analysis thread. Each section says where each of its facts was read, or why it
// is left out (see reading.ts).

type Sections = BriefSections

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

const PERCENT = /([+\-−]?\d+(?:[.,]\d+)?)\s?%/
/** The facts of a change that are prices or plans moving: the brief's price changes. */
const PRICE_FACTS: readonly FactKind[] = [
  'price_up', 'price_down', 'price_changed', 'price_added', 'price_removed', 'plan_added', 'plan_removed'
]

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
    // The facts its alert told, in its words; the pricing reader's moves only for a change kept before facts were.
    const facts = (c.facts ?? []).filter(f => PRICE_FACTS.includes(f.kind))
    const moves = c.facts
      ? facts.map(f => ({
        kind: f.kind,
        ...(f.subject ? { plan: f.subject } : {}),
        ...(f.before ? { before: f.before } : {}),
        ...(f.after ? { after: f.after } : {}),
        ...(f.percent !== undefined ? { percent: f.percent } : {}),
        summary: sayPrices([f], true)
      }))
      : (c.moves ?? []).filter(m => ['price_up', 'price_down', 'plan_added', 'plan_removed'].includes(m.kind))
    if (c.facts === null && c.moves === null) {
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
