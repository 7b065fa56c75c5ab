import { roleAllows, SEVERITIES, type Severity } from '../../domain/vocabulary.js'
import type { BriefSummary } from '../../domain/research.js'
import { Csrf, Page, Sev, Time, type Viewer } from './layout.js'
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

export function DomainList (p: { viewer: Viewer, domains: DomainItem[], error?: string, notice?: string, value?: string }) {
  const mayEdit = roleAllows(p.viewer.role, 'editor')
  return (
    <Page viewer={p.viewer} title='Domains' section='/app/domains' error={p.error} notice={p.notice}>
      {mayEdit
        ? (
          <form method='post' action='/app/domains' class='card row'>
            <Csrf token={p.viewer.csrf} />
            <div>
              <label for='domain'>Domain</label>
              <input id='domain' name='domain' placeholder='example.com' value={p.value} required size={28} />
            </div>
            <button type='submit'>Add domain</button>
          </form>
          )
        : <p class='muted'>You are a viewer: an editor or admin adds domains.</p>}
      {p.domains.length === 0
        ? <p class='card'>No domains yet. Add a competitor's domain above: Sitewatch finds its pricing, terms and other important pages and watches them.</p>
        : (
          <div class='scroll' tabIndex={0} role='region' aria-label='Domains'>
            <table>
              <thead>
                <tr><th scope='col'>Domain</th><th scope='col'>Status</th><th scope='col'>Pages</th><th scope='col'>Last crawl</th><th scope='col'>Next crawl</th><th scope='col'>Unacknowledged changes</th></tr>
              </thead>
              <tbody>
                {p.domains.map(d => (
                  <tr key={d.id}>
                    <td><a href={`/app/domains/${d.id}`}>{d.displayName ?? d.domain}</a>{d.displayName ? <div class='small muted'>{d.domain}</div> : null}</td>
                    <td>{d.status}</td>
                    <td>{d.pageCount}</td>
                    <td><Time at={d.lastCrawledAt} empty='not yet' /></td>
                    <td><Time at={d.nextCrawlAt} empty='—' /></td>
                    <td><OpenChanges open={d.open} domainId={d.id} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          )}
    </Page>
  )
}

export interface DomainPageData {
  id: string
  domain: string
  displayName: string | null
  status: string
  render: string
  lastCrawledAt: Date | null
  nextCrawlAt: Date | null
  pages: Array<{
    id: string
    url: string
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
    noiseRules: { ignoreSelectors?: string[], ignorePatterns?: string[], includeSelectors?: string[] }
  }>
}

const RENDERS = ['auto', 'always', 'never'] as const
const PRIORITIES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]

type PageSettingsData = Pick<DomainPageData['pages'][number], 'id' | 'url' | 'monitoringEnabled' | 'priority' | 'render' | 'noiseRules'>

/** A page's settings: monitoring, priority, render mode, noise rules; `back`: where saving returns to. */
export function PageSettingsForm (p: { domainId: string, domainRender: string, page: PageSettingsData, csrf: string, back?: 'page' }) {
  const pg = p.page
  return (
    <form method='post' action={`/app/domains/${p.domainId}/pages/${pg.id}`}>
      <Csrf token={p.csrf} />
      {p.back ? <input type='hidden' name='back' value={p.back} /> : null}
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
      <label class='small' for={`include-${pg.id}`}>Watch only (CSS selectors, one per line)</label>
      <textarea id={`include-${pg.id}`} name='includeSelectors' rows={2}>{(pg.noiseRules.includeSelectors ?? []).join('\n')}</textarea>
      <p><button type='submit' class='quiet'>Save page settings</button></p>
    </form>
  )
}

export function DomainPage (p: {
  viewer: Viewer
  domain: DomainPageData
  rechecksLeft: number | null
  research: { creditsLeft: number | null, briefs: BriefSummary[] }
  error?: string
  notice?: string
}) {
  const d = p.domain
  const mayEdit = roleAllows(p.viewer.role, 'editor')
  const discovering = d.status === 'discovering'
  return (
    <Page
      viewer={p.viewer} title={d.displayName ?? d.domain} section='/app/domains' refresh={discovering ? 2 : undefined}
      error={p.error} notice={p.notice}
    >
      <div class='card'>
        <p>
          Status: <strong>{d.status}</strong>
          {discovering ? <span role='status'> — discovering its pages: {d.pages.length} found so far. This page updates itself.</span> : null}
        </p>
        <p class='small'>Last crawl <Time at={d.lastCrawledAt} empty='not yet' />; next <Time at={d.nextCrawlAt} /></p>
        <p class='small'><a href={`/app/changes?domainId=${d.id}`}>Changes of this domain</a></p>
        {mayEdit
          ? (
            <form method='post' action={`/app/domains/${d.id}/crawl`} class='row'>
              <Csrf token={p.viewer.csrf} />
              <button type='submit'>Crawl now</button>
              <span class='small muted'>
                {p.rechecksLeft === null ? 'Manual rechecks are unlimited on your plan.' : `${p.rechecksLeft} manual rechecks left in this period.`}
              </span>
            </form>
            )
          : null}
      </div>
      <ResearchCard
        domainId={d.id} creditsLeft={p.research.creditsLeft} briefs={p.research.briefs}
        mayEdit={mayEdit} csrf={p.viewer.csrf}
      />
      <h2>Pages</h2>
      {d.pages.length === 0
        ? <p class='muted'>{discovering ? 'Looking for pages…' : 'No pages yet.'}</p>
        : (
          <div class='scroll' tabIndex={0} role='region' aria-label='Pages'>
            <table>
              <thead>
                <tr><th scope='col'>Page</th><th scope='col'>Type</th><th scope='col'>Status</th><th scope='col'>Last check</th><th scope='col'>Last change</th>{mayEdit ? <th scope='col'>Settings</th> : null}</tr>
              </thead>
              <tbody>
                {d.pages.map(pg => (
                  <tr key={pg.id}>
                    <td><a href={`/app/domains/${d.id}/pages/${pg.id}`}>{new URL(pg.url).pathname}</a>
                      {pg.lastError ? <div class='small'>{pg.lastError}</div> : null}
                    </td>
                    <td>{pg.pageType}{pg.intelligence ? <div class='small'>intelligence page</div> : null}</td>
                    <td>{pg.status}{pg.renderedWith === 'browser' ? <div class='small muted'>rendered</div> : null}</td>
                    <td><Time at={pg.lastCheckAt} empty='not yet' /></td>
                    <td><Time at={pg.lastChangeAt} empty='none' /></td>
                    {mayEdit
                      ? (
                        <td>
                          <details>
                            <summary>Settings of {new URL(pg.url).pathname}</summary>
                            <PageSettingsForm domainId={d.id} domainRender={d.render} page={pg} csrf={p.viewer.csrf} />
                          </details>
                        </td>
                        )
                      : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          )}
      {mayEdit
        ? (
          <>
            <h2>Add a page</h2>
            <form method='post' action={`/app/domains/${d.id}/pages`} class='card row'>
              <Csrf token={p.viewer.csrf} />
              <div class='grow'>
                <label for='url'>Page URL</label>
                <input id='url' name='url' type='url' placeholder={`https://${d.domain}/pricing`} required size={40} />
              </div>
              <button type='submit'>Add page</button>
            </form>
          </>
          )
        : null}
      {mayEdit
        ? (
          <details class='card'>
            <summary>Delete this domain</summary>
            <form method='post' action={`/app/domains/${d.id}/delete`}>
              <Csrf token={p.viewer.csrf} />
              <p>This removes {d.domain}, its pages, snapshots and changes for good. It does not give back a domain of the plan's quota.</p>
              <button type='submit' class='danger'>Delete {d.domain} and its history</button>
            </form>
          </details>
          )
        : null}
    </Page>
  )
}
