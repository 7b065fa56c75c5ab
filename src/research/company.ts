import { boundedParser } from '../detection/detect.js'
import { IMPRINT, fold } from '../detection/words/lexicon.js'
import type { BriefSections, Source } from '../vocabulary/research.js'
import { PAGE_TYPES } from '../vocabulary/core.js'
import { included, isHome, omitted, type Reading } from './reading.js'

// The company section of a brief: the name the site gives itself, and the legal name its
// imprint or terms write.

/** The name a page's head gives the site: og:site_name, application-name, and its title. */
function headNames (html: string): { 'og:site_name'?: string, 'application-name'?: string, title?: string } {
  const names: Record<string, string> = {}
  let inTitle = false
  let title = ''
  const parser = boundedParser({
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

export function company (r: Reading): BriefSections['company'] {
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
  let nameFrom: BriefSections['company']['nameFrom'] = null
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
  let legalName: BriefSections['company']['legalName'] = null
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
