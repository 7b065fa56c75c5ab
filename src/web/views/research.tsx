import type { ComponentChildren } from 'preact'
import { sourceKey, type Brief, type BriefSections, type BriefSummary, type Source } from '../../vocabulary/research.js'
import { CHANGE_TYPES, SEVERITIES } from '../../vocabulary/core.js'
import {
  builtFrom, day, entryName, languagesText, limitsText, pagesByTypeText, plural, pricesText, SECTION_TITLES, shortUrl, when, words
} from '../../research/markdown.js'
import { Page, Sev, Time, type Viewer } from './layout.js'

// A research brief as a report to read and print: each section's facts carry numbered
// references to the section's sources (page and snapshot time), listed under it. The
// print stylesheet (assets.ts) drops the app's frame, so "Save as PDF" gives the report.

/** The section's sources, numbered: `Ref` points a fact at its source's number. */
function referencing (sources: Source[], sectionId: string) {
  const numbers = new Map(sources.map((s, i) => [sourceKey(s), i + 1]))
  return ({ s }: { s: Source }) => {
    const n = numbers.get(sourceKey(s))
    return n ? <sup><a class='ref' href={`#${sectionId}-src-${n}`} aria-label={`source ${n}`}>[{n}]</a></sup> : null
  }
}

type Ref = (p: { s: Source }) => ComponentChildren

const Facts: { [K in keyof BriefSections]: (p: { s: BriefSections[K], Ref: Ref }) => ComponentChildren } = {
  company: ({ s, Ref }) => (
    <dl>
      {s.name ? <><dt>Name</dt><dd>{s.name} <span class='muted small'>(from {s.nameFrom})</span> <Ref s={s.sources[0]} /></dd></> : null}
      {s.legalName ? <><dt>Company</dt><dd>{s.legalName.name} <Ref s={s.legalName.source} /></dd></> : null}
      {s.languages.length > 0
        ? <><dt>Languages</dt><dd>{languagesText(s.languages)}</dd></>
        : null}
      <dt>Monitored pages</dt>
      <dd>
        {s.monitoredPages}
        {s.monitoredPages > 0 ? `: ${pagesByTypeText(s.pagesByType)}` : null}
      </dd>
    </dl>
  ),
  pricing: ({ s, Ref }) => (
    <>
      {s.plans.length > 0
        ? (
          <div class='scroll' tabIndex={0} role='region' aria-label='Plans'>
            <table>
              <caption class='small muted'>Plans{s.currency ? `, prices in ${s.currency}` : ''}</caption>
              <thead><tr><th scope='col'>Plan</th><th scope='col'>Price</th><th scope='col'>Limits</th><th scope='col'>Source</th></tr></thead>
              <tbody>
                {s.plans.map(p => (
                  <tr key={p.name}>
                    <th scope='row'>{p.name}</th>
                    <td>{pricesText(p) || <span class='muted'>no price stated</span>}</td>
                    <td>{limitsText(p)}</td>
                    <td><Ref s={p.source} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          )
        : null}
      {s.freeTier ? <p><strong>Free tier:</strong> {s.freeTier.plan} <Ref s={s.freeTier.source} /></p> : null}
      {s.trial
        ? <p><strong>Trial:</strong> “{s.trial.text}”{s.trial.days !== null ? ` (${s.trial.days} days)` : ''} <Ref s={s.trial.source} /></p>
        : null}
      <h3>Price changes</h3>
      {s.priceChanges.length > 0
        ? <ul>{s.priceChanges.map((c, i) => <li key={i}><Time at={c.at} />: {c.summary} <Ref s={c.source} /></li>)}</ul>
        : <p class='muted'>No price changed in the window.</p>}
    </>
  ),
  features: ({ s, Ref }) => (
    <>
      <div class='columns'>
        {s.groups.map((g, i) => (
          <div key={i}>
            <h3>{g.name} <Ref s={g.source} /></h3>
            <ul>{g.features.map(f => <li key={f}>{f}</li>)}</ul>
          </div>
        ))}
      </div>
      {s.windows.map(w => (
        <div key={w.days}>
          <h3>Last {w.days} days <span class='muted small'>(since {day(w.since)})</span></h3>
          {w.added.length + w.removed.length === 0
            ? <p class='muted'>Nothing added or removed.</p>
            : (
              <ul>
                {w.added.map(a => <li key={`+${a.feature}`}><ins>Added</ins> {a.feature} <span class='muted'>({a.group})</span> <Ref s={a.source} /></li>)}
                {w.removed.map(a => <li key={`-${a.feature}`}><del>Removed</del> {a.feature} <span class='muted'>({a.group})</span> <Ref s={a.source} /></li>)}
              </ul>
              )}
        </div>
      ))}
    </>
  ),
  security: ({ s, Ref }) => (
    <ul>
      {s.claims.map((c, i) => <li key={i}><strong>{c.claim}:</strong> “{c.sentence}” <Ref s={c.source} /></li>)}
    </ul>
  ),
  legal: ({ s, Ref }) => (
    <>
      <div class='scroll' tabIndex={0} role='region' aria-label='Legal pages'>
        <table>
          <thead><tr><th scope='col'>Page</th><th scope='col'>Type</th><th scope='col'>Changes in the window</th><th scope='col'>Last change</th></tr></thead>
          <tbody>
            {s.pages.map(p => (
              <tr key={p.url}>
                <th scope='row'><a href={p.url}>{shortUrl(p.url)}</a> <Ref s={p.source} /></th>
                <td>{words(p.pageType)}</td>
                <td>{p.changes}</td>
                <td>{p.lastChange ? <><Time at={p.lastChange.at} /> <Sev s={p.lastChange.severity} /> {p.lastChange.summary}</> : <span class='muted'>none seen</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3>High-severity edits</h3>
      {s.highSeverity.length > 0
        ? <ul>{s.highSeverity.map((c, i) => <li key={i}><Time at={c.at} /> <Sev s={c.severity} /> {c.summary} <Ref s={c.source} /></li>)}</ul>
        : <p class='muted'>None in the window.</p>}
    </>
  ),
  api: ({ s, Ref }) => (
    <>
      {s.specification
        ? (
          <p>
            <strong>Specification:</strong> {s.specification.format}
            {s.specification.title ? ` “${s.specification.title}”` : ''}
            {s.specification.version ? ` version ${s.specification.version}` : ''}, {s.specification.operations} operations,
            at <a href={s.specification.url}>{shortUrl(s.specification.url)}</a> <Ref s={s.specification.source} />
          </p>
          )
        : <p><strong>Specification:</strong> none found on its API pages.</p>}
      <h3>Breaking changes in the window: {s.breaking.length}</h3>
      {s.breaking.length > 0
        ? <ul>{s.breaking.map((b, i) => <li key={i}><Time at={b.at} />: <code>{b.method} {b.path}</code> {b.change} <Ref s={b.source} /></li>)}</ul>
        : null}
    </>
  ),
  releases: ({ s, Ref }) => (
    <>
      <div class='scroll' tabIndex={0} role='region' aria-label='Entries per month'>
        <table>
          <caption class='small muted'>Entries per month, last 90 days <Ref s={s.sources[0]} /></caption>
          <thead><tr>{s.months.map(m => <th key={m.month} scope='col'>{m.month}</th>)}</tr></thead>
          <tbody><tr>{s.months.map(m => <td key={m.month}>{m.entries}</td>)}</tr></tbody>
        </table>
      </div>
      <h3>Latest entries</h3>
      <ul>
        {s.latest.map((e, i) => (
          <li key={i}>
            <strong>{entryName(e)}</strong>{e.title !== e.version ? `: ${e.title}` : ''}
            {e.items.length > 0 ? <span class='muted'> — {e.items.slice(0, 3).join('; ')}{e.items.length > 3 ? '; …' : ''}</span> : null}
          </li>
        ))}
      </ul>
    </>
  ),
  activity: ({ s }) => (
    <>
      <div class='scroll' tabIndex={0} role='region' aria-label='Changes by window'>
        <table>
          <thead><tr><th scope='col'>Changes</th>{s.windows.map(w => <th key={w.days} scope='col'>{w.days} days</th>)}</tr></thead>
          <tbody>
            <tr class='moved'><th scope='row'>All</th>{s.windows.map(w => <td key={w.days}>{w.total}</td>)}</tr>
            {SEVERITIES.map(k => (
              <tr key={k}><th scope='row'><Sev s={k} /></th>{s.windows.map(w => <td key={w.days}>{w.bySeverity[k] ?? 0}</td>)}</tr>
            ))}
            {CHANGE_TYPES.filter(k => s.windows.some(w => w.byType[k] > 0)).map(k => (
              <tr key={k}><th scope='row'>{words(k)}</th>{s.windows.map(w => <td key={w.days}>{w.byType[k]}</td>)}</tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3>Pages that change most (90 days)</h3>
      {s.mostChanged.length > 0
        ? <ol>{s.mostChanged.map(m => <li key={m.url}><a href={m.url}>{shortUrl(m.url)}</a> ({words(m.pageType)}): {plural(m.changes, 'change')}</li>)}</ol>
        : <p class='muted'>No change in the last 90 days.</p>}
    </>
  )
}

function Section<K extends keyof BriefSections> ({ name, s }: { name: K, s: BriefSections[K] }) {
  const id = `s-${name}`
  const Ref = referencing(s.sources, id)
  const Body = Facts[name] as (p: { s: BriefSections[K], Ref: Ref }) => ComponentChildren
  return (
    <section class='brief-section' aria-labelledby={id}>
      <h2 id={id}>{SECTION_TITLES[name]}</h2>
      {s.included
        ? (
          <>
            <Body s={s} Ref={Ref} />
            {s.sources.length > 0
              ? (
                <ol class='sources small'>
                  {s.sources.map((src, i) => (
                    <li key={i} id={`${id}-src-${i + 1}`}>
                      <a href={src.url}>{shortUrl(src.url)}</a>,{' '}
                      {src.changeId ? 'change of ' : 'snapshot of '}{when(src.at)}
                    </li>
                  ))}
                </ol>
                )
              : null}
          </>
          )
        : <p class='muted'>Left out: {s.reason}.</p>}
    </section>
  )
}

export function ResearchPage (p: { viewer: Viewer, brief: Brief }) {
  const b = p.brief
  const pending = b.status === 'queued' || b.status === 'building'
  const title = `Research brief: ${b.sections?.company.name ?? b.domain}`
  return (
    <Page viewer={p.viewer} title={title} section='/app/domains' liveEvery={pending ? 2 : undefined}>
      <div id='brief-live' data-live>
        <p class='no-print small'>
          <a href={`/app/domains/${b.domainId}`}>Back to {b.domain}</a>
          {b.sections
            ? (
              <>
                {' · '}<a href={`/app/research/${b.id}/markdown`}>Download as Markdown</a>{' · '}
                <button type='button' class='quiet' data-print>Print or save as PDF</button>
              </>
              )
            : null}
        </p>
        {pending ? <p class='notice' role='status'>Building the brief of {b.domain}… This page updates itself.</p> : null}
        {b.status === 'failed'
          ? <p class='notice error' role='alert'>This brief could not be built: {b.failedReason}. {b.creditRefunded ? 'Its research credit was given back.' : ''}</p>
          : null}
        {b.sections && b.window
          ? (
            <article class='brief'>
              <p class='muted'>
                {b.domain} · {builtFrom(b.window)}
              </p>
              {(Object.keys(SECTION_TITLES) as Array<keyof BriefSections>).map(name => (
                <Section key={name} name={name} s={b.sections![name]} />
              ))}
            </article>
            )
          : null}
      </div>
    </Page>
  )
}

/** The research card of a domain's page: the button that spends a credit, and the briefs already bought. */
export function ResearchCard (p: {
  domainId: string
  creditsLeft: number | null
  briefs: BriefSummary[]
  mayEdit: boolean
  csrf: string
  /** Why the button is off: the credits' quota sentence, when none is left. */
  outOfCredits?: string
}) {
  return (
    <div class='card'>
      <h2>Research</h2>
      <p class='small'>
        A brief of what this competitor is doing, built from everything Sitewatch has seen on the domain: company,
        pricing, features, security claims, legal pages, API, releases and activity, each fact with its source.
      </p>
      {p.mayEdit
        ? (
          <form method='post' action={`/app/domains/${p.domainId}/research`} class='row'>
            <input type='hidden' name='_csrf' value={p.csrf} />
            <button type='submit' disabled={p.creditsLeft === 0}>Research</button>
            <span class='small muted'>
              {p.outOfCredits ??
                (p.creditsLeft === null
                  ? 'Research credits are unlimited on your plan.'
                  : `One research credit; ${p.creditsLeft} left in this period.`)}
            </span>
          </form>
          )
        : null}
      {p.briefs.length > 0
        ? (
          <ul class='small'>
            {p.briefs.map(b => (
              <li key={b.id}>
                <a href={`/app/research/${b.id}`}>Brief of <Time at={b.createdAt} /></a> — {b.status}
                {b.creditRefunded ? ' (credit given back)' : ''}
              </li>
            ))}
          </ul>
          )
        : null}
    </div>
  )
}
