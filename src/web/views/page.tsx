import { PAGE_TYPES, roleAllows, type Severity } from '../../vocabulary/core.js'
import type { ChangeView } from '../../services/change-view.js'
import type { PriceSeries, TimelineEntry } from '../../services/page-history.js'
import { VersionText, WholeChange } from './diff.js'
import { type DomainPageData, FailureNote, PageSettingsForm } from './domains.js'
import { Address, Csrf, Page, Pager, Sev, Time, type Viewer } from './layout.js'
import { OutlinePicker, RulesPreviewView } from './outline.js'
import type { PageOutline, RulesPreview } from '../../vocabulary/outline.js'
import type { NoiseRules } from '../../vocabulary/core.js'

// A watched page of its own: what it is (its type, editable, with who chose it), how it is
// read, its last error; a timeline of its versions and changes; the text of any version;
// two versions compared; a pricing page's prices over time as a chart (server-drawn SVG,
// with the same figures as a table); and deleting it.

export interface PageData extends Omit<DomainPageData['pages'][number], 'renderedWith'> {
  domainId: string
  pageTypeSource: string
  renderedWith: string | null
  renderReason: string | null
  /** What its type's reader could not read or compare at its last check (it was compared as text). */
  readingNote: string | null
  errorCount: number
}

const TYPE_SOURCES: Record<string, string> = {
  person: 'chosen by a person',
  content: 'read from the page',
  address: 'guessed from the address'
}

/** Series are told apart by classes s0…s7 (colours in the style sheet: inline styles are refused by the CSP). */
const SERIES_CLASSES = 8

/**
 * Where the time axis is marked: up to four dates, or dates with times when the prices span
 * less than two days, or times to the second within an hour; never one text twice. Written
 * in UTC, then in the reader's time zone by the page's script (`show`: which parts; see
 * web/static/assets.ts), as every other time of the app.
 */
function timeTicks (t0: number, t1: number): Array<{ at: number, text: string, show: 'date' | 'minute' | 'second' }> {
  const span = t1 - t0
  const show: 'date' | 'minute' | 'second' =
    span === 0 || span >= 2 * 86_400_000 ? 'date' : span < 3_600_000 ? 'second' : 'minute'
  const ticks = (t1 === t0 ? [t0] : [0, 1, 2, 3].map(i => t0 + span * i / 3)).map(at => {
    const iso = new Date(at).toISOString()
    const text = show === 'second'
      ? `${iso.slice(11, 19)} UTC`
      : show === 'minute' ? `${iso.slice(5, 10)} ${iso.slice(11, 16)} UTC` : iso.slice(0, 10)
    return { at, text, show }
  })
  return ticks.filter((t, i) => ticks.findIndex(o => o.text === t.text) === i)
}

/**
 * Each plan's price over time, one chart per unit ($/month, $/GB, …: amounts of different
 * units on one scale would read as moves): one line per plan, its points marked, time
 * across (dated) and money up.
 */
export function PriceCharts (p: { series: PriceSeries[] }) {
  const units = [...new Set(p.series.map(s => s.unit))]
  return <>{units.map(unit => <PriceChart key={unit} unit={unit} series={p.series.filter(s => s.unit === unit)} />)}</>
}

function PriceChart (p: { unit: string, series: PriceSeries[] }) {
  const all = p.series.flatMap(s => s.points)
  if (all.length < 2) return null
  const [w, h, pad] = [640, 260, 44]
  const times = all.map(x => x.at.getTime())
  const [t0, t1] = [Math.min(...times), Math.max(...times)]
  const amounts = all.map(x => x.amount)
  const [a0, a1] = [Math.min(0, ...amounts), Math.max(...amounts)]
  const x = (t: number) => pad + (t1 === t0 ? (w - 2 * pad) / 2 : ((t - t0) / (t1 - t0)) * (w - 2 * pad))
  const y = (a: number) => h - pad - (a1 === a0 ? 0 : ((a - a0) / (a1 - a0)) * (h - 2 * pad))
  const ticks = timeTicks(t0, t1)
  const anchor = (i: number) => ticks.length === 1 ? 'middle' : i === 0 ? 'start' : i === ticks.length - 1 ? 'end' : 'middle'
  const label = `Prices in ${p.unit} over time: ${p.series.map(s => `${s.name} from ${s.points[0].text} to ${s.points.at(-1)!.text}`).join('; ')}`
  return (
    <figure class='card chart'>
      <svg viewBox={`0 0 ${w} ${h}`} role='img' aria-label={label} class='price-chart'>
        <line x1={pad} y1={h - pad} x2={w - pad} y2={h - pad} class='axis' />
        <line x1={pad} y1={pad} x2={pad} y2={h - pad} class='axis' />
        <text x={pad - 6} y={y(a1) + 4} class='tick' text-anchor='end'>{a1}</text>
        <text x={pad - 6} y={y(a0) + 4} class='tick' text-anchor='end'>{a0}</text>
        {ticks.map((tick, i) => (
          <text
            key={i} x={x(tick.at)} y={h - pad + 18} class='tick' text-anchor={anchor(i)}
            data-at={new Date(tick.at).toISOString()} data-show={tick.show}
          >{tick.text}
          </text>
        ))}
        {p.series.map((s, i) => {
          // A step line: a price holds until it moves.
          const pts = s.points.flatMap((pt, j) => j === 0
            ? [[x(pt.at.getTime()), y(pt.amount)]]
            : [[x(pt.at.getTime()), y(s.points[j - 1].amount)], [x(pt.at.getTime()), y(pt.amount)]])
          return (
            <g key={s.name} class={`s${i % SERIES_CLASSES}`}>
              <polyline points={pts.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(' ')} class='series' />
              {s.points.map((pt, j) => <circle key={j} cx={x(pt.at.getTime())} cy={y(pt.amount)} r={4} class='point' />)}
            </g>
          )
        })}
      </svg>
      <figcaption>
        <p class='small'>In {p.unit}</p>
        <ul class='legend'>
          {p.series.map((s, i) => <li key={s.name}><span class={`swatch s${i % SERIES_CLASSES}`} aria-hidden='true' /> {s.name}</li>)}
        </ul>
      </figcaption>
      <div class='scroll' tabIndex={0} role='region' aria-label={`Prices in ${p.unit} over time, as a table`}>
        <table>
          <caption class='small'>Each price as first read, and each time it moved</caption>
          <thead><tr><th scope='col'>Plan</th><th scope='col'>When</th><th scope='col'>Price</th></tr></thead>
          <tbody>
            {p.series.flatMap(s => s.points.filter((pt, j) => j === 0 || pt.amount !== s.points[j - 1].amount).map((pt, j) => (
              <tr key={`${s.name}-${j}`}><th scope='row'>{s.name}</th><td><Time at={pt.at} /></td><td>{pt.text}</td></tr>
            )))}
          </tbody>
        </table>
      </div>
    </figure>
  )
}

function Timeline (p: { base: string, entries: TimelineEntry[] }) {
  const snapshots = p.entries.filter(e => e.snapshot)
  const previousOf = (id: string) => {
    const i = snapshots.findIndex(e => e.snapshot!.id === id)
    return snapshots[i + 1]?.snapshot?.id
  }
  return (
    <ol class='timeline'>
      {p.entries.map(e => e.change
        ? (
          <li key={e.change.id} class='timeline-change'>
            <Time at={e.at} /> <Sev s={e.change.severity as Severity} /> <a href={`/app/changes/${e.change.id}`}>{e.change.summary}</a>
          </li>
          )
        : (
          <li key={e.snapshot!.id} class='timeline-version'>
            <Time at={e.at} /> version of {e.snapshot!.textLength.toLocaleString('en')} characters{e.snapshot!.status ? `, HTTP ${e.snapshot!.status}` : ''}
            {' · '}<a href={`${p.base}?version=${e.snapshot!.id}#version`}>read it</a>
            {previousOf(e.snapshot!.id) ? <>{' · '}<a href={`${p.base}?from=${previousOf(e.snapshot!.id)}&to=${e.snapshot!.id}#compared`}>compare with the one before</a></> : null}
          </li>
          ))}
    </ol>
  )
}

/** Any two versions of the timeline's page, chosen and compared (the older one first by default). */
function CompareTwo (p: { base: string, entries: TimelineEntry[], from?: string, to?: string }) {
  const versions = p.entries.filter(e => e.snapshot)
  if (versions.length < 2) return null
  const label = (e: TimelineEntry) =>
    `${e.at.toISOString().slice(0, 19).replace('T', ' ')} UTC, ${e.snapshot!.textLength.toLocaleString('en')} characters`
  const choice = (name: 'from' | 'to', chosen: string) => (
    <select id={`compare-${name}`} name={name}>
      {versions.map(e => <option key={e.snapshot!.id} value={e.snapshot!.id} selected={e.snapshot!.id === chosen}>{label(e)}</option>)}
    </select>
  )
  return (
    <form method='get' action={`${p.base}#compared`} class='row' aria-label='Compare two versions'>
      <div>
        <label for='compare-from'>Compare the version of</label>
        {choice('from', p.from ?? versions[1].snapshot!.id)}
      </div>
      <div>
        <label for='compare-to'>with the version of</label>
        {choice('to', p.to ?? versions[0].snapshot!.id)}
      </div>
      <button type='submit'>Compare</button>
    </form>
  )
}

export function PageView (p: {
  viewer: Viewer
  domain: { id: string, domain: string, render: string }
  page: PageData
  timeline: { entries: TimelineEntry[], total: number, page: number, pageSize: number }
  prices: PriceSeries[]
  version?: { id: string, at: Date, lines: string[], document?: { url: string, lines: string[] } }
  compared?: {
    from: Date
    to: Date
    fromId: string
    toId: string
    view: ChangeView
    /** The document the page is read with (an API description, a feed), compared the same way. */
    document?: { url: string, view: ChangeView }
    href: (page: number) => string
  }
  /** Why Check now is off: the hour's heavy actions used, when none is left (a page's check takes no manual recheck). */
  outOfHour?: string
  /** What is left of the organisation's heavy actions of the hour, in a sentence. */
  hourLeft?: string
  /**
   * Its blocks to point at (for those who may change its settings), or 'pending' while they
   * are read: the view is shown at once and its script loads them from `outlineFrom`.
   */
  outline?: PageOutline | 'pending'
  outlineFrom?: string
  /** The blocks ticked, the rules they make (in the settings' boxes, unsaved) and what they would compare. */
  picked?: { watch: string[], ignore: string[], rules: NoiseRules, preview?: RulesPreview }
  error?: string
  notice?: string
}) {
  const pg = p.page
  const mayEdit = roleAllows(p.viewer.role, 'editor')
  const base = `/app/domains/${p.domain.id}/pages/${pg.id}`
  const path = new URL(pg.url).pathname
  return (
    <Page viewer={p.viewer} title={pg.name ? `${pg.name} — ${p.domain.domain}` : `${p.domain.domain}${path}`} section='/app/domains' error={p.error} notice={p.notice}>
      <p class='small'><a href={`/app/domains/${p.domain.id}`}>← {p.domain.domain}</a></p>
      <div class='card'>
        <p><a href={pg.url} rel='noreferrer noopener' target='_blank'>{pg.url}</a> <span class='small muted'>(opens the watched site)</span></p>
        <p>
          Type: <strong>{pg.pageType}</strong> <span class='small muted'>({TYPE_SOURCES[pg.pageTypeSource] ?? pg.pageTypeSource})</span>
          {pg.intelligence ? <span class='small'> · intelligence page</span> : null}
        </p>
        <p>Status: <strong>{pg.status}</strong>{pg.monitoringEnabled ? '' : ' · not monitored'} · last check <Time at={pg.lastCheckAt} empty='not yet' /> · last change <Time at={pg.lastChangeAt} empty='none' /></p>
        {pg.renderedWith ? <p class='small'>Read {pg.renderedWith === 'browser' ? 'in the browser' : 'without a browser'}{pg.renderReason ? `: ${pg.renderReason}` : ''}</p> : null}
        {pg.readingNote ? <p class='small' role='note'>At its last check: {pg.readingNote}.</p> : null}
        {pg.failure
          ? (
            <div class='notice error' role='region' aria-label='Why this page cannot be checked'>
              <FailureNote failure={pg.failure} />
              {mayEdit ? <p class='small'><a href='#settings'>Change the page's settings</a> (render, selectors), or check it again once changed.</p> : null}
            </div>
            )
          : null}
        {mayEdit
          ? (
            <form method='post' action={`${base}/crawl`} class='row'>
              <Csrf token={p.viewer.csrf} />
              <button type='submit' disabled={p.outOfHour !== undefined || !pg.monitoringEnabled} aria-describedby='check-help'>
                {pg.failure ? 'Check again' : 'Check now'}
              </button>
              <span id='check-help' class={p.outOfHour ? 'small warn' : 'small muted'}>
                {p.outOfHour ?? (pg.monitoringEnabled ? `Checks this page alone: takes no manual recheck. ${p.hourLeft ?? ''}`.trim() : 'Monitoring is off: turn it on in the settings to check it.')}
              </span>
            </form>
            )
          : null}
        {mayEdit
          ? (
            <form method='post' action={`${base}/type`} class='row'>
              <Csrf token={p.viewer.csrf} />
              <div>
                <label for='pageType'>What this page is</label>
                <select id='pageType' name='pageType'>
                  {PAGE_TYPES.map(t => <option key={t} value={t} selected={pg.pageType === t}>{t}</option>)}
                </select>
              </div>
              <button type='submit' class='quiet'>Save the type</button>
              <span class='small muted'>A type you choose is kept: Sitewatch never types this page again.</span>
            </form>
            )
          : null}
      </div>
      {p.prices.length > 0 ? <><h2>Prices over time</h2><PriceCharts series={p.prices} /></> : null}
      {p.compared
        ? (
          <section id='compared' aria-label='Two versions compared'>
            <h2>The version of <time datetime={p.compared.from.toISOString()}>{p.compared.from.toISOString().slice(0, 16).replace('T', ' ')}</time> against <time datetime={p.compared.to.toISOString()}>{p.compared.to.toISOString().slice(0, 16).replace('T', ' ')}</time></h2>
            {p.compared.view.total === 0
              ? <p class='card'>{p.compared.document ? 'The page\'s own text reads the same in both.' : 'The two versions read the same.'}</p>
              : <WholeChange view={p.compared.view} href={p.compared.href} title={p.compared.document ? 'What changed in its text' : undefined} />}
            {p.compared.document
              ? p.compared.document.view.total === 0
                ? <p class='card'>Its document, <Address text={p.compared.document.url} />, reads the same in both.</p>
                : <WholeChange view={p.compared.document.view} href={p.compared.href} prefix='document-edit' title={`What changed in ${p.compared.document.url}`} />
              : null}
          </section>
          )
        : null}
      {p.version
        ? (
          <section id='version' aria-label='A version of the page'>
            <h2>The page as read <Time at={p.version.at} /></h2>
            {p.version.lines.length > 0
              ? <VersionText lines={p.version.lines} />
              : <p class='card'>This version has no text of its own{p.version.document ? ': the page is read through its document, below.' : '.'}</p>}
            {p.version.document
              ? (
                <details class='card'>
                  <summary>The document it was read with: <Address text={p.version.document.url} /> ({p.version.document.lines.length} lines)</summary>
                  <pre class='document' tabIndex={0}>{p.version.document.lines.join('\n')}</pre>
                </details>
                )
              : null}
          </section>
          )
        : null}
      <h2 id='timeline'>Timeline</h2>
      {p.timeline.entries.length === 0 ? <p class='card'>Not read yet: its first check records the version the next ones are compared with.</p> : <div class='card'><CompareTwo base={base} entries={p.timeline.entries} from={p.compared?.fromId} to={p.compared?.toId} /><Timeline base={base} entries={p.timeline.entries} /></div>}
      <Pager page={p.timeline.page} pageSize={p.timeline.pageSize} total={p.timeline.total} href={n => `${base}?page=${n}`} />
      {mayEdit
        ? (
          <>
            {p.outline
              ? (
                <>
                  <h2 id='outline'>What to watch</h2>
                  {p.outline === 'pending'
                    ? (
                      <div id='outline-picker' class='card' data-load-from={p.outlineFrom} aria-busy='true' aria-live='polite'>
                        <p>Reading the page's blocks from its versions… <a href={`${p.outlineFrom ?? base}#outline`}>Show them once read</a></p>
                      </div>
                      )
                    : <div id='outline-picker'><OutlinePicker base={base} outline={p.outline} picked={p.picked ?? { watch: [], ignore: [] }} /></div>}
                  {p.picked?.preview ? <RulesPreviewView preview={p.picked.preview} /> : null}
                </>
                )
              : null}
            <h2 id='settings'>Settings</h2>
            <div class='card'>
              {p.picked ? <p class='small notice' role='note'>The selectors you ticked are in the boxes below, not saved yet.</p> : null}
              <PageSettingsForm domainId={p.domain.id} domainRender={p.domain.render} page={p.picked ? { ...pg, noiseRules: p.picked.rules } : pg} csrf={p.viewer.csrf} back='page' />
            </div>
            <details class='card'>
              <summary>Delete this page</summary>
              <form method='post' action={`${base}/delete`}>
                <Csrf token={p.viewer.csrf} />
                <p>This removes <Address text={pg.url} /> with its versions and changes, for good. It does not give back a page of the plan's quota.</p>
                <button type='submit' class='danger'>Delete this page and its history</button>
              </form>
            </details>
          </>
          )
        : null}
    </Page>
  )
}
