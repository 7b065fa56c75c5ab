import type { Brief, BriefSections, Source } from '../vocabulary/research.js'
import { CHANGE_TYPES, PAGE_TYPES, SEVERITIES } from '../vocabulary/core.js'

// A brief as Markdown, for pasting into a document: the same facts as its JSON, each with
// its source (the page, and the time of the snapshot or change it was read in).

/** Text from a page, made inert: Markdown's marks are escaped, lines joined. */
export const mdText = (s: string) => s.replace(/\s+/g, ' ').replace(/([\\`*_[\]<>|])/g, '\\$1').trim()

export const when = (d: Date | string) => new Date(d).toISOString().slice(0, 16).replace('T', ' ') + ' UTC'
export const day = (d: Date | string) => new Date(d).toISOString().slice(0, 10)

export const shortUrl = (url: string) => url.replace(/^https?:\/\//, '').replace(/\/$/, '')

/** A link to a page, shown by its short address. */
const pageMd = (url: string) => `[${mdText(shortUrl(url))}](<${url.replace(/[<>\s]/g, encodeURIComponent)}>)`

/** A source as a link to the page and the time its snapshot (or change) was read. */
export const sourceMd = (s: Source) => `${pageMd(s.url)}, ${when(s.at)}`

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** When a brief was built, and from how much. */
export const builtFrom = (w: NonNullable<Brief['window']>) =>
  `built ${when(w.builtAt)} from the ${plural(w.pages, 'page')} Sitewatch read ` +
  `and the ${plural(w.changes, 'change')} ` +
  `it kept ${w.retentionDays === null ? '(all history)' : `over the last ${w.retentionDays} days`}.`

/** A changelog entry's version and date ("2.4.0, 2026-11-20"). */
export const entryName = (e: { version: string | null, date: string | null }) =>
  [e.version, e.date].filter(Boolean).join(', ') || 'undated'

/** A vocabulary word as text: "api_docs" → "api docs". */
export const words = (s: string) => s.replace(/_/g, ' ')

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' })

/** The languages of a domain's pages: "English (8 pages), French (1 page)". */
export const languagesText = (languages: BriefSections['company']['languages']) =>
  languages.map(l => `${languageNames.of(l.language) ?? l.language} (${plural(l.pages, 'page')})`).join(', ')

/** Monitored pages by type: "1 pricing, 2 terms, 1 api docs". */
export const pagesByTypeText = (byType: BriefSections['company']['pagesByType']) =>
  PAGE_TYPES.filter(t => byType[t] > 0).map(t => `${byType[t]} ${words(t)}`).join(', ')

type Plan = BriefSections['pricing']['plans'][number]
/**
 * A plan's prices as written, each with its billing note and, for a fee, a total or an add-on, what the page calls
 * it ("50 € (Setup fee)"); empty when it states none.
 */
export const pricesText = (plan: Plan) => plan.prices
  .map(x => x.text + [x.charge ? x.label : undefined, x.billing].filter(Boolean).map(n => ` (${n})`).join(''))
  .join(', ')
/**
 * A plan's headline limits, "user: 5, payout: unlimited": the reader keeps one name for one
 * and many ("1 seat", "5 seats"), so the name comes first rather than in a wrong number.
 */
export const limitsText = (plan: Plan) => plan.limits.map(l => `${l.name}: ${l.value}`).join(', ')

export const SECTION_TITLES: Record<keyof BriefSections, string> = {
  company: 'Company',
  pricing: 'Pricing',
  features: 'Features',
  security: 'Security and compliance claims',
  legal: 'Legal',
  api: 'API',
  releases: 'Release cadence',
  activity: 'Activity'
}

const cell = (s: string) => mdText(s) || ' '
const table = (head: string[], rows: string[][]) =>
  [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map(r => `| ${r.join(' | ')} |`)]

const WRITERS: { [K in keyof BriefSections]: (s: BriefSections[K]) => string[] } = {
  company: c => [
    ...(c.name ? [`- **Name:** ${mdText(c.name)} (from ${c.nameFrom}; ${sourceMd(c.sources[0])})`] : []),
    ...(c.legalName ? [`- **Company:** ${mdText(c.legalName.name)} (${sourceMd(c.legalName.source)})`] : []),
    ...(c.languages.length > 0 ? [`- **Languages:** ${languagesText(c.languages)}`] : []),
    `- **Monitored pages:** ${c.monitoredPages}` + (c.monitoredPages > 0 ? `: ${pagesByTypeText(c.pagesByType)}` : '')
  ],
  pricing: p => [
    ...(p.plans.length > 0
      ? [
          `Plans${p.currency ? ` (prices in ${mdText(p.currency)})` : ''}, read on ${sourceMd(p.plans[0].source)}:`, '',
          ...table(['Plan', 'Price', 'Limits'], p.plans.map(plan => [
            cell(plan.name),
            cell(pricesText(plan) || 'no price stated'),
            cell(limitsText(plan))
          ])),
          ''
        ]
      : []),
    ...(p.freeTier ? [`- **Free tier:** ${mdText(p.freeTier.plan)} (${sourceMd(p.freeTier.source)})`] : []),
    ...(p.trial
      ? [`- **Trial:** “${mdText(p.trial.text)}”${p.trial.days !== null ? ` (${p.trial.days} days)` : ''} ` +
          `(${sourceMd(p.trial.source)})`]
      : []),
    ...(p.priceChanges.length > 0
      ? ['', '**Price changes:**', '', ...p.priceChanges.map(c =>
          `- ${day(c.at)}: ${mdText(c.summary)}` +
          `${c.percent !== null && !c.summary.includes('%') ? ` (${c.percent}%)` : ''} ` +
          `(${sourceMd(c.source)})`)]
      : ['', 'No price changed in the window.'])
  ],
  features: f => [
    ...f.groups.flatMap(g => [
      `**${mdText(g.name)}** (${sourceMd(g.source)})`, '', ...g.features.map(x => `- ${mdText(x)}`), ''
    ]),
    ...f.windows.flatMap(w => [
      `**Last ${w.days} days** (since ${day(w.since)}): ${w.added.length} added, ${w.removed.length} removed`,
      ...w.added.map(a => `- Added: ${mdText(a.feature)} (${mdText(a.group)}; ${sourceMd(a.source)})`),
      ...w.removed.map(a => `- Removed: ${mdText(a.feature)} (${mdText(a.group)}; ${sourceMd(a.source)})`),
      ''
    ])
  ],
  security: s => s.claims.map(c => `- **${c.claim}:** “${mdText(c.sentence)}” (${sourceMd(c.source)})`),
  legal: l => [
    ...table(['Page', 'Type', 'Changes in the window', 'Last change'], l.pages.map(p => [
      pageMd(p.url),
      words(p.pageType),
      String(p.changes),
      p.lastChange ? `${day(p.lastChange.at)}, ${p.lastChange.severity}: ${cell(p.lastChange.summary)}` : 'none seen'
    ])),
    '',
    ...(l.highSeverity.length > 0
      ? ['**High-severity edits:**', '', ...l.highSeverity.map(c =>
          `- ${day(c.at)}, ${c.severity}: ${mdText(c.summary)} (${sourceMd(c.source)})`)]
      : ['No high-severity edit of a legal page in the window.'])
  ],
  api: a => [
    a.specification
      ? `- **Specification:** ${mdText(a.specification.format)}` +
        `${a.specification.title ? ` “${mdText(a.specification.title)}”` : ''}` +
        `${a.specification.version ? ` version ${mdText(a.specification.version)}` : ''}, ` +
        `${a.specification.operations} operations, at <${a.specification.url}> (${sourceMd(a.specification.source)})`
      : '- **Specification:** none found on its API pages (no OpenAPI or Swagger description linked or at a ' +
        'conventional address)',
    `- **Breaking changes in the window:** ${a.breaking.length}`,
    ...a.breaking.map(b =>
      `  - ${day(b.at)}: \`${b.method} ${mdText(b.path)}\` ${mdText(b.change)} (${sourceMd(b.source)})`)
  ],
  releases: r => [
    `Entries per month over the last 90 days (${sourceMd(r.sources[0])}):`, '',
    ...table(r.months.map(m => m.month), [r.months.map(m => String(m.entries))]),
    '',
    '**Latest entries:**', '',
    ...r.latest.map(e => `- ${entryName(e)}${e.title !== e.version ? `: ${mdText(e.title)}` : ''}` +
      (e.items.length > 0 ? ` (${e.items.slice(0, 3).map(mdText).join('; ')}${e.items.length > 3 ? '; …' : ''})` : ''))
  ],
  activity: a => [
    ...table(['', ...a.windows.map(w => `${w.days} days`)], [
      ['**Changes**', ...a.windows.map(w => String(w.total))],
      ...SEVERITIES.map(s => [s, ...a.windows.map(w => String(w.bySeverity[s] ?? 0))]),
      ...CHANGE_TYPES
        .filter(t => a.windows.some(w => w.byType[t] > 0))
        .map(t => [words(t), ...a.windows.map(w => String(w.byType[t]))])
    ]),
    '',
    ...(a.mostChanged.length > 0
      ? ['**Pages that change most (90 days):**', '',
          ...a.mostChanged.map(m =>
            `- ${pageMd(m.url)} (${words(m.pageType)}): ${plural(m.changes, 'change')}`)]
      : ['No change in the last 90 days.'])
  ]
}

export function briefMarkdown (brief: Brief): string {
  const out = [`# Research brief: ${mdText(brief.sections?.company.name ?? brief.domain)} (${brief.domain})`, '']
  if (!brief.sections || !brief.window) {
    out.push(brief.status === 'failed'
      ? `This brief could not be built: ${mdText(brief.failedReason ?? 'unknown reason')}.` +
        (brief.creditRefunded ? ' Its research credit was given back.' : '')
      : `This brief is ${brief.status}; it is ready in a minute or so.`)
    return out.join('\n') + '\n'
  }
  out.push(builtFrom(brief.window).replace(/^b/, 'B'))
  for (const name of Object.keys(SECTION_TITLES) as Array<keyof BriefSections>) {
    const section = brief.sections[name]
    out.push('', `## ${SECTION_TITLES[name]}`, '')
    if (!section.included) out.push(`_Left out: ${mdText(section.reason ?? '')}._`)
    else out.push(...(WRITERS[name] as (s: typeof section) => string[])(section))
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n') + '\n'
}
