import { roleAllows, SEVERITIES, type Severity } from '../../vocabulary/core.js'
import type { BriefSummary } from '../../vocabulary/research.js'
import { Address, Csrf, Page, Sev, Time, type Viewer } from './layout.js'
import { ResearchCard } from './research.js'

export interface DomainItem {
  id: string
  domain: string
  displayName: string | null
  status: string
  lastCrawledAt: Date | null
  nextCrawlAt: Date | null
  pageCount: number
  open: Partial<Record<Severity, number>>
  /** Its monitored pages whose checks fail, by kind. */
  failing: { blocked: number, error: number }
  discoveryFailure: { kind: string, reason: string } | null
  tags: string[]
}

/** A domain's tags, each a link to the domains that have it. */
const Tags = ({ tags }: { tags: readonly string[] }) => tags.length === 0
  ? null
  : (
    <ul class='tags' aria-label='Tags'>
      {tags.map(t => <li key={t}><a href={`/app/domains?tag=${encodeURIComponent(t)}`}>{t}</a></li>)}
    </ul>
    )

/** What became of each line of a pasted list. */
export interface LineResult {
  input: string
  outcome: string
  message: string
  id?: string
}

const OpenChanges = ({ open, domainId }: { open: Partial<Record<Severity, number>>, domainId: string }) => {
  const shown = [...SEVERITIES].reverse().filter(s => open[s])
  if (shown.length === 0) return <span class='muted'>none</span>
  return (
    <a href={`/app/changes?domainId=${domainId}&acknowledged=false`}>
      {shown.map(s => <span key={s}>{open[s]} <Sev s={s} />{' '}</span>)}
    </a>
  )
}

/** Each line of a pasted list with what became of it, added first. */
export function LineResults (p: { title: string, results: LineResult[], href?: (id: string) => string }) {
  const added = p.results.filter(r => r.outcome === 'added').length
  return (
    <section class='card' aria-label={p.title}>
      <h2>{p.title}: {added} of {p.results.length} added</h2>
      <ul class='results'>
        {p.results.map((r, i) => (
          <li key={i} class={`result-${r.outcome.replace(/ /g, '-')}`}>
            <strong>{r.outcome}</strong> {r.id && p.href ? <a href={p.href(r.id)}>{r.input}</a> : <span>{r.input}</span>}
            <span class='small'> — {r.message}</span>
          </li>
        ))}
      </ul>
    </section>
  )
}

/** A domain's state in a word or two, with what fails: "active · 2 pages blocked". */
function DomainState ({ d }: { d: DomainItem }) {
  const parts = [
    d.failing.blocked > 0 ? `${d.failing.blocked} page${d.failing.blocked === 1 ? '' : 's'} blocked` : '',
    d.failing.error > 0 ? `${d.failing.error} page${d.failing.error === 1 ? '' : 's'} failing` : ''
  ].filter(Boolean)
  return (
    <>
      {d.status}
      {d.discoveryFailure ? <div class='small warn'>discovery failed: {d.discoveryFailure.kind === 'blocked' ? 'the site blocks Sitewatch' : 'nothing could be read'}</div> : null}
      {parts.length > 0 ? <div class='small warn'>{parts.join(', ')}</div> : null}
    </>
  )
}

export function DomainList (p: {
  viewer: Viewer
  domains: DomainItem[]
  /** Why adding is off: the domains quota's sentence, when none is left. */
  outOfDomains?: string
  results?: LineResult[]
  error?: string
  notice?: string
  value?: string
  /** The tag the list is narrowed to. */
  tag?: string
}) {
  const mayEdit = roleAllows(p.viewer.role, 'editor')
  const off = p.outOfDomains !== undefined
  return (
    <Page viewer={p.viewer} title='Domains' section='/app/domains' error={p.error} notice={p.notice}>
      {mayEdit
        ? (
          <div class='card'>
            <form method='post' action='/app/domains' class='row'>
              <Csrf token={p.viewer.csrf} />
              <div class='grow'>
                <label for='domain'>Domain</label>
                <input id='domain' name='domain' placeholder='example.com or https://example.com/pricing' value={p.value} required size={34} disabled={off} aria-describedby='domain-help' />
              </div>
              <button type='submit' disabled={off}>Add domain</button>
            </form>
            <p id='domain-help' class={off ? 'small warn' : 'small muted'}>
              {p.outOfDomains ?? 'A pasted address adds its host and that page: https://www.example.com/pricing adds www.example.com and watches its /pricing.'}
            </p>
            {off
              ? null
              : (
                <details>
                  <summary>Add several at once</summary>
                  <form method='post' action='/app/domains'>
                    <Csrf token={p.viewer.csrf} />
                    <label for='domains'>Several at once: one per line, host or address (at most 100)</label>
                    <textarea id='domains' name='domains' rows={5} required />
                    <p><button type='submit'>Add these domains</button></p>
                  </form>
                </details>
                )}
          </div>
          )
        : <p class='muted'>You are a viewer: an editor or admin adds domains.</p>}
      {p.results ? <LineResults title='Domains pasted' results={p.results} href={id => `/app/domains/${id}`} /> : null}
      {p.tag
        ? <p role='status'>Domains tagged <strong>{p.tag}</strong> · <a href='/app/domains'>Show every domain</a> · <a href={`/app/changes?tag=${encodeURIComponent(p.tag)}`}>Their changes</a></p>
        : null}
      {p.domains.length === 0 && p.tag
        ? <p class='card'>No domain has this tag.</p>
        : p.domains.length === 0
          ? <p class='card'>No domains yet. Add a competitor's domain above: Sitewatch finds its pricing, terms and other important pages and watches them.</p>
          : (
            <table class='stack'>
              <caption class='sr-only'>Your domains</caption>
              <thead>
                <tr><th scope='col'>Domain</th><th scope='col'>Status</th><th scope='col'>Pages</th><th scope='col'>Last crawl</th><th scope='col'>Next crawl</th><th scope='col'>Unacknowledged changes</th></tr>
              </thead>
              <tbody>
                {p.domains.map(d => (
                  <tr key={d.id}>
                    <td data-label='Domain'><a href={`/app/domains/${d.id}`}>{d.displayName ?? <Address text={d.domain} />}</a>{d.displayName ? <div class='small muted'>{d.domain}</div> : null}<Tags tags={d.tags} /></td>
                    <td data-label='Status'><DomainState d={d} /></td>
                    <td data-label='Pages'>{d.pageCount}</td>
                    <td data-label='Last crawl'><Time at={d.lastCrawledAt} empty='not yet' /></td>
                    <td data-label='Next crawl'><Time at={d.nextCrawlAt} empty='—' /></td>
                    <td data-label='To review'><OpenChanges open={d.open} domainId={d.id} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
            )}
    </Page>
  )
}

export interface PageFailure {
  kind: 'blocked' | 'error'
  reason: string
  since: Date
  failedChecks: number
  nextStep: string
}

export interface DomainPageData {
  id: string
  domain: string
  displayName: string | null
  status: string
  render: string
  tags: string[]
  lastCrawledAt: Date | null
  nextCrawlAt: Date | null
  discoveryFailure: { kind: 'blocked' | 'error', reason: string, at: Date, nextStep: string } | null
  /** What cut its last discovery short, if anything. */
  discoveryNote: string | null
  pages: Array<{
    id: string
    url: string
    name: string | null
    pageType: string
    status: string
    monitoringEnabled: boolean
    priority: number
    intelligence: boolean
    render: string | null
    renderedWith: string | null
    lastCheckAt: Date | null
    lastChangeAt: Date | null
    lastError: string | null
    failure: PageFailure | null
    noiseRules: {
      ignoreSelectors?: string[]
      ignorePatterns?: string[]
      includeSelectors?: string[]
      includePaths?: string[]
      ignoreFacts?: Array<{ kind: string, subject: string }>
    }
  }>
}

/** A failing page's state in words: blocked or failing, since when, and what to do. */
export function FailureNote (p: { failure: PageFailure, href?: string }) {
  const f = p.failure
  return (
    <div class='small failure'>
      <strong>{f.kind === 'blocked' ? 'Blocked by the site' : 'Failing'}</strong> since <Time at={f.since} />
      {' '}({f.failedChecks} check{f.failedChecks === 1 ? '' : 's'} in a row): {f.reason}.
      {' '}{f.nextStep}{p.href ? <> <a href={p.href}>What to do</a></> : null}
    </div>
  )
}

/** A page as people call it: the name they gave it, else its address's path. */
export const pageLabel = (pg: { url: string, name: string | null }): string => pg.name ?? new URL(pg.url).pathname

const RENDERS = ['auto', 'always', 'never'] as const
const PRIORITIES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]

type PageSettingsData = Pick<DomainPageData['pages'][number], 'id' | 'url' | 'name' | 'monitoringEnabled' | 'priority' | 'render' | 'noiseRules'>

/** A page's settings: monitoring, priority, render mode, noise rules; `back`: where saving returns to. */
export function PageSettingsForm (p: { domainId: string, domainRender: string, page: PageSettingsData, csrf: string, back?: 'page' }) {
  const pg = p.page
  return (
    <form method='post' action={`/app/domains/${p.domainId}/pages/${pg.id}`}>
      <Csrf token={p.csrf} />
      {p.back ? <input type='hidden' name='back' value={p.back} /> : null}
      <label class='small' for={`name-${pg.id}`}>Name (shown instead of its address; empty: its address)</label>
      <input id={`name-${pg.id}`} class='wide' name='name' maxLength={120} value={pg.name ?? ''} placeholder={new URL(pg.url).pathname} />
      <label class='small'>
        <input type='checkbox' name='monitoringEnabled' value='on' checked={pg.monitoringEnabled} /> Monitored
      </label>
      <label class='small' for={`priority-${pg.id}`}>Priority (1 first; the first ones are the intelligence pages)</label>
      <select id={`priority-${pg.id}`} name='priority'>
        {PRIORITIES.map(n => <option key={n} value={String(n)} selected={pg.priority === n}>{n}</option>)}
      </select>
      <label class='small' for={`render-${pg.id}`}>Render</label>
      <select id={`render-${pg.id}`} name='render'>
        <option value='' selected={pg.render === null}>as the domain ({p.domainRender})</option>
        {RENDERS.map(r => <option key={r} value={r} selected={pg.render === r}>{r}</option>)}
      </select>
      <label class='small' for={`ignore-${pg.id}`}>Ignore (CSS selectors, one per line)</label>
      <textarea id={`ignore-${pg.id}`} name='ignoreSelectors' rows={2}>{(pg.noiseRules.ignoreSelectors ?? []).join('\n')}</textarea>
      <label class='small' for={`patterns-${pg.id}`}>Ignore text matching (patterns, one per line)</label>
      <textarea id={`patterns-${pg.id}`} name='ignorePatterns' rows={2}>{(pg.noiseRules.ignorePatterns ?? []).join('\n')}</textarea>
      <label class='small' for={`facts-${pg.id}`}>Leave out facts (one per line, such as price: Pro, as "Not important" offers them)</label>
      <textarea id={`facts-${pg.id}`} name='ignoreFacts' rows={2}>{(pg.noiseRules.ignoreFacts ?? []).map(f => `${f.kind}: ${f.subject}`).join('\n')}</textarea>
      <label class='small' for={`include-${pg.id}`}>Watch only (CSS selectors, one per line)</label>
      <textarea id={`include-${pg.id}`} name='includeSelectors' rows={2}>{(pg.noiseRules.includeSelectors ?? []).join('\n')}</textarea>
      <label class='small' for={`paths-${pg.id}`}>Watch only, in a JSON document (paths such as $.plans[*].price, one per line)</label>
      <textarea id={`paths-${pg.id}`} name='includePaths' rows={2}>{(pg.noiseRules.includePaths ?? []).join('\n')}</textarea>
      <p><button type='submit' class='quiet'>Save page settings</button></p>
    </form>
  )
}

export function DomainPage (p: {
  viewer: Viewer
  domain: DomainPageData
  rechecksLeft: number | null
  /** Why Crawl now is off: the rechecks' quota sentence, or the hour's heavy actions used, when none is left. */
  outOfRechecks?: string
  /** What is left of the organisation's heavy actions of the hour, in a sentence. */
  hourLeft?: string
  research: { creditsLeft: number | null, briefs: BriefSummary[], outOfCredits?: string }
  results?: LineResult[]
  error?: string
  notice?: string
}) {
  const d = p.domain
  const mayEdit = roleAllows(p.viewer.role, 'editor')
  const discovering = d.status === 'discovering'
  const failing = d.pages.filter(pg => pg.failure && pg.monitoringEnabled)
  const csrf = p.viewer.csrf
  return (
    <Page
      viewer={p.viewer} title={d.displayName ?? d.domain} section='/app/domains' liveEvery={discovering ? 2 : undefined}
      error={p.error} notice={p.notice}
    >
      {/* While discovering, the parts marked data-live follow it without a reload (Document's liveEvery). */}
      <div id='domain-problems' data-live>
        {d.discoveryFailure
          ? (
            <div class='card problem' role='region' aria-label='Discovery failed'>
              <h2>{d.discoveryFailure.kind === 'blocked' ? 'The site blocks Sitewatch' : 'Discovery found no page'}</h2>
              <p>Discovery failed <Time at={d.discoveryFailure.at} />: {d.discoveryFailure.reason}.</p>
              <p>{d.discoveryFailure.nextStep}</p>
              {mayEdit
                ? (
                  <form method='post' action={`/app/domains/${d.id}/discover`} class='row'>
                    <Csrf token={csrf} />
                    <button type='submit'>Run discovery again</button>
                    <span class='small muted'>Or add the pages you know below: each is checked on its own.</span>
                  </form>
                  )
                : null}
            </div>
            )
          : null}
        {d.discoveryNote && !discovering
          ? <p class='card small' role='note'>{d.discoveryNote} Pages you know of can be added below.</p>
          : null}
        {failing.length > 0
          ? (
            <div class='card problem' role='region' aria-label='Pages that fail'>
              <h2>{failing.length} page{failing.length === 1 ? '' : 's'} cannot be checked</h2>
              <ul>
                {failing.map(pg => (
                  <li key={pg.id}>
                    <a href={`/app/domains/${d.id}/pages/${pg.id}`}>{pageLabel(pg)}</a>
                    <FailureNote failure={pg.failure!} />
                  </li>
                ))}
              </ul>
            </div>
            )
          : null}
      </div>
      <div class='card'>
        <div role='status'>
          <p id='domain-status' data-live>
            Status: <strong>{d.status}</strong>
            {discovering ? <span> — discovering its pages: {d.pages.length} found so far. This page updates itself.</span> : null}
          </p>
        </div>
        <p class='small'>Last crawl <Time at={d.lastCrawledAt} empty='not yet' />; next <Time at={d.nextCrawlAt} empty='not scheduled' />. A scheduled crawl takes no manual recheck.</p>
        {mayEdit
          ? (
            <form method='post' action={`/app/domains/${d.id}/tags`} class='row'>
              <Csrf token={csrf} />
              <div class='grow'>
                <label for='tags'>Tags</label>
                <input id='tags' name='tags' value={d.tags.join(', ')} size={34} aria-describedby='tags-help' placeholder='direct competitors, suppliers' />
              </div>
              <button type='submit' class='quiet'>Save tags</button>
            </form>
            )
          : <Tags tags={d.tags} />}
        {mayEdit
          ? <p id='tags-help' class='small muted'>Comma-separated, such as "direct competitors, suppliers": the domain list, the inbox and the feeds filter by them.</p>
          : null}
        <p class='small'><a href={`/app/changes?domainId=${d.id}`}>Changes of this domain</a> · <a href={`/app/domains/${d.id}/pages.csv`}>Its pages as CSV</a></p>
        <div id='domain-crawl' data-live>
          {mayEdit && !d.pages.some(pg => pg.monitoringEnabled)
            ? <p class='small muted'>No page of this domain is monitored: there is nothing to crawl now. Add its pages below, or turn a page's monitoring on.</p>
            : null}
          {mayEdit && d.pages.some(pg => pg.monitoringEnabled)
            ? (
              <form method='post' action={`/app/domains/${d.id}/crawl`} class='row'>
                <Csrf token={csrf} />
                <button type='submit' disabled={p.outOfRechecks !== undefined} aria-describedby='rechecks'>Crawl now</button>
                <span id='rechecks' class={p.outOfRechecks ? 'small warn' : 'small muted'}>
                  {p.outOfRechecks ?? `${p.rechecksLeft === null ? 'Manual rechecks are unlimited on your plan.' : `One manual recheck; ${p.rechecksLeft} left in this period.`} ${p.hourLeft ?? ''}`.trim()}
                </span>
              </form>
              )
            : null}
        </div>
      </div>
      <ResearchCard
        domainId={d.id} creditsLeft={p.research.creditsLeft} briefs={p.research.briefs}
        mayEdit={mayEdit} csrf={csrf} outOfCredits={p.research.outOfCredits}
      />
      {p.results ? <LineResults title='Pages pasted' results={p.results} href={id => `/app/domains/${d.id}/pages/${id}`} /> : null}
      <h2>Pages</h2>
      <div id='domain-pages' data-live>
        {d.pages.length === 0
          ? <p class='muted'>{discovering ? 'Looking for pages…' : 'No pages yet.'}</p>
          : (
            <table class='stack'>
              <caption class='sr-only'>Pages of {d.domain}</caption>
              <thead>
                <tr><th scope='col'>Page</th><th scope='col'>Type</th><th scope='col'>Status</th><th scope='col'>Last check</th><th scope='col'>Last change</th>{mayEdit ? <th scope='col'>Settings</th> : null}</tr>
              </thead>
              <tbody>
                {d.pages.map(pg => (
                  <tr key={pg.id}>
                    <td data-label='Page'>
                      <a href={`/app/domains/${d.id}/pages/${pg.id}`}>{pg.name ? pg.name : <Address text={new URL(pg.url).pathname} />}</a>
                      {pg.name ? <div class='small muted'><Address text={new URL(pg.url).pathname} /></div> : null}
                    </td>
                    <td data-label='Type'>{pg.pageType}{pg.intelligence ? <div class='small'>intelligence page</div> : null}</td>
                    <td data-label='Status'>
                      {pg.failure?.kind === 'blocked' ? `${pg.status}, blocked` : pg.status}
                      {pg.monitoringEnabled ? null : <div class='small muted'>not monitored</div>}
                      {pg.renderedWith === 'browser' ? <div class='small muted'>rendered</div> : null}
                    </td>
                    <td data-label='Last check'><Time at={pg.lastCheckAt} empty='not yet' /></td>
                    <td data-label='Last change'><Time at={pg.lastChangeAt} empty='none' /></td>
                    {mayEdit
                      ? (
                        <td data-label='Settings'>
                          <details>
                            <summary>Settings of {pageLabel(pg)}</summary>
                            <PageSettingsForm domainId={d.id} domainRender={d.render} page={pg} csrf={csrf} />
                          </details>
                        </td>
                        )
                      : null}
                  </tr>
                ))}
              </tbody>
            </table>
            )}
      </div>
      {mayEdit
        ? (
          <>
            <h2>Add pages</h2>
            <form method='post' action={`/app/domains/${d.id}/pages`} class='card'>
              <Csrf token={csrf} />
              <label for='urls'>Page addresses, one per line (or a path such as /pricing; a PDF, JSON or text file too; at most 100)</label>
              <textarea id='urls' name='urls' rows={3} required placeholder={`https://${d.domain}/pricing`} />
              <p><button type='submit'>Add pages</button></p>
            </form>
          </>
          )
        : null}
      {mayEdit
        ? (
          <details class='card'>
            <summary>Delete this domain</summary>
            <form method='post' action={`/app/domains/${d.id}/delete`}>
              <Csrf token={csrf} />
              <p>This removes <Address text={d.domain} />, its pages, snapshots and changes for good. It does not give back a domain of the plan's quota.</p>
              <button type='submit' class='danger'>Delete {d.domain} and its history</button>
            </form>
          </details>
          )
        : null}
    </Page>
  )
}
