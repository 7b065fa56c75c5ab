import type { ChangeView } from '../../services/change-view.js'
import { WholeChange } from './diff.js'
import { CHANGE_TYPES, SEVERITIES, type ChangeType, type DiffData, type Severity } from '../../vocabulary/core.js'
import { Feedback, type LearnedItem, type Offer } from './feedback.js'
import { Csrf, Document, Page, Pager, Sev, Time, type Viewer } from './layout.js'

export interface ChangeItem {
  id: string
  domainId: string
  pageId: string
  changeType: ChangeType
  severity: Severity
  confidence: string
  summary: string
  acknowledgedAt: Date | null
  acknowledgedBy: string | null
  verdict?: string | null
  pinnedAt?: Date | null
  createdAt: Date
  diffData: {
    before: string
    after: string
    visual?: unknown
    pricing?: DiffData['pricing']
    changelog?: DiffData['changelog']
    api?: DiffData['api']
    hunks: DiffData['hunks']
  }
}

export interface InboxFilters {
  severity?: string
  changeType?: string
  domainId?: string
  /** Only the changes of domains with this tag. */
  tag?: string
  acknowledged?: string
  q?: string
  /** Days (YYYY-MM-DD, UTC), both included. */
  from?: string
  to?: string
}

export interface PageEventItem {
  id: string
  domainId: string
  domain?: string
  kind: 'discovered' | 'removed'
  url: string
  pageType: string
  watched: boolean
  reason: string | null
  createdAt: Date
}

/** New and removed pages of the last weeks; a page found and not watched can be watched from here. */
function PageEvents (p: { events: PageEventItem[], viewer: Viewer }) {
  return (
    <section class='card' aria-labelledby='page-events'>
      <h2 id='page-events'>New and removed pages</h2>
      <ul class='learned'>
        {p.events.map(e => (
          <li key={e.id}>
            {e.kind === 'discovered'
              ? <>New {e.pageType.replace('_', ' ')} page on {e.domain}: <a href={e.url} rel='noreferrer noopener' target='_blank'>{e.url}</a>{e.watched ? ' — now watched' : ''}</>
              : <>Gone from {e.domain}: {e.url}{e.reason ? ` (${e.reason})` : ''}</>}
            {' '}<span class='small muted'><Time at={e.createdAt} /></span>
            {e.kind === 'discovered' && !e.watched
              ? (
                <form method='post' action={`/app/domains/${e.domainId}/pages`} class='inline'>
                  <Csrf token={p.viewer.csrf} />
                  <input type='hidden' name='urls' value={e.url} />
                  {' '}<button type='submit' class='quiet' aria-label={`Watch ${e.url}`}>Watch it</button>
                </form>
                )
              : null}
          </li>
        ))}
      </ul>
    </section>
  )
}

/** One filter of the inbox: a labelled select whose empty choice means any. */
function Choice (p: { name: string, label: string, value?: string, empty?: string, options: Array<[string, string]> }) {
  return (
    <div>
      <label for={p.name}>{p.label}</label>
      <select id={p.name} name={p.name}>
        <option value=''>{p.empty ?? 'any'}</option>
        {p.options.map(([value, text]) => <option key={value} value={value} selected={p.value === value}>{text}</option>)}
      </select>
    </div>
  )
}

export function Inbox (p: {
  viewer: Viewer
  changes: ChangeItem[]
  /** The changes' pages' addresses, by page id: each change names its page. */
  addresses: ReadonlyMap<string, string>
  total: number
  /** total is a lower bound (see listChanges) */
  capped?: boolean
  page: number
  pageSize: number
  filters: InboxFilters
  domains: Array<{ id: string, domain: string }>
  /** The tags the organisation's domains have. */
  tags: string[]
  /** Pages found or gone lately (new and removed pages: their own kind of entry). */
  pageEvents: PageEventItem[]
  notice?: string
  error?: string
}) {
  const f = p.filters
  const names = new Map(p.domains.map(d => [d.id, d.domain]))
  const search = (extra: Record<string, string>) => new URLSearchParams(
    Object.entries({ ...f, ...extra }).filter(([, v]) => v) as Array<[string, string]>
  ).toString()
  const query = (page: number) => `/app/changes?${search({ page: String(page) })}`
  const filtered = Object.values(f).some(Boolean)
  return (
    <Page viewer={p.viewer} title='Changes' section='/app/changes' notice={p.notice} error={p.error}>
      <form method='get' action='/app/changes' class='card row' aria-label='Filter changes'>
        <div>
          <label for='q'>Search</label>
          <input id='q' name='q' type='search' value={f.q} size={20} />
        </div>
        <Choice name='severity' label='Severity' value={f.severity} options={SEVERITIES.map(s => [s, s])} />
        <Choice name='changeType' label='Type' value={f.changeType} options={CHANGE_TYPES.map(t => [t, t.replace('_', ' ')])} />
        <Choice name='domainId' label='Domain' value={f.domainId} options={p.domains.map(d => [d.id, d.domain])} />
        {p.tags.length > 0 ? <Choice name='tag' label='Tag' value={f.tag} options={p.tags.map(t => [t, t])} /> : null}
        <Choice name='acknowledged' label='State' value={f.acknowledged} empty='all' options={[['false', 'to review'], ['true', 'acknowledged']]} />
        <div>
          <label for='from'>From</label>
          <input id='from' name='from' type='date' value={f.from} />
        </div>
        <div>
          <label for='to'>To</label>
          <input id='to' name='to' type='date' value={f.to} />
        </div>
        <button type='submit'>Filter</button>
        {filtered ? <a href='/app/changes' class='small'>Clear the filters</a> : null}
      </form>
      {p.pageEvents.length > 0 && p.page === 1 ? <PageEvents events={p.pageEvents} viewer={p.viewer} /> : null}
      {p.changes.length === 0
        ? <p class='card'>No changes{filtered ? ' match these filters' : ' yet: Sitewatch lists here what moves on the pages it watches'}.</p>
        : (
          <form method='post' action='/app/changes/acknowledge'>
            <Csrf token={p.viewer.csrf} />
            <table class='stack inbox'>
              <caption class='sr-only'>Changes, newest first</caption>
              <thead>
                <tr><th scope='col'><span class='small'>Select</span></th><th scope='col'>Change</th><th scope='col'>Severity</th><th scope='col'>Page</th><th scope='col'>When</th><th scope='col'>State</th></tr>
              </thead>
              <tbody>
                {p.changes.map(c => (
                  <tr key={c.id}>
                    <td class='select'><input type='checkbox' name='ids' value={c.id} aria-label={`Select: ${c.summary.slice(0, 80)}`} /></td>
                    <td class='summary'><a href={`/app/changes/${c.id}`}>{c.summary}</a><div class='small muted'>{c.changeType.replace('_', ' ')}{c.pinnedAt ? ' · pinned as important' : ''}{c.verdict === 'not_important' ? ' · not important' : ''}</div></td>
                    <td data-label='Severity'><Sev s={c.severity} /></td>
                    <td data-label='Page' class='page'>{names.get(c.domainId) ?? ''}<div class='small muted'>{pathOf(p.addresses.get(c.pageId))}</div></td>
                    <td data-label='When'><Time at={c.createdAt} /></td>
                    <td data-label='State'>{c.acknowledgedAt ? 'acknowledged' : 'to review'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p class='row'>
              <button type='submit' name='state' value='acknowledged'>Acknowledge selected</button>
              <button type='submit' name='state' value='to-review' class='quiet'>Mark selected as not reviewed</button>
            </p>
          </form>
          )}
      <p class='small muted'>
        {p.capped ? 'At least ' : ''}{p.total.toLocaleString('en')} change{p.total === 1 ? '' : 's'}
        {p.total > 0 ? <> · <a href={`/app/changes.csv?${search({})}`}>Download {filtered ? 'these' : 'all'} as CSV</a></> : null}
      </p>
      <Pager page={p.page} pageSize={p.pageSize} total={p.total} capped={p.capped} href={query} />
    </Page>
  )
}

/** A page's path and query as a list names it under its domain ("/pricing"); the home page is "/". */
function pathOf (url: string | undefined): string {
  if (!url) return ''
  const u = new URL(url)
  return `${u.pathname}${u.search}`
}

/** A pricing page's plans, before and after: what moved, and each plan's prices. */
function PlansView (p: { pricing: NonNullable<DiffData['pricing']> }) {
  const { before, after, changes } = p.pricing
  const names = [...new Set([...before.plans, ...after.plans].map(x => x.name))]
  // '—': not a plan on that side; 'no price': a plan that states none ("contact us").
  const prices = (plans: typeof before.plans, name: string) => {
    const plan = plans.find(x => x.name === name)
    return plan ? plan.prices.map(x => x.text).join(', ') || 'no price' : '—'
  }
  const moved = new Set(changes.map(x => x.plan))
  return (
    <>
      <h2>Plans</h2>
      <ul class='moves'>{changes.map((x, i) => <li key={i}>{x.summary}</li>)}</ul>
      <div class='scroll' tabIndex={0} role='region' aria-label='Prices before and after'>
        <table>
          <caption class='small'>Prices before and after</caption>
          <thead><tr><th scope='col'>Plan</th><th scope='col'>Before</th><th scope='col'>After</th></tr></thead>
          <tbody>
            {names.map(name => {
              const [was, is] = [prices(before.plans, name), prices(after.plans, name)]
              return (
                <tr key={name} class={moved.has(name) || was !== is ? 'moved' : undefined}>
                  <th scope='row'>{name}</th><td>{was}</td><td>{is}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
    </>
  )
}

/** A changelog's entry, new or edited, as the page lists it. */
function EntryView (p: { entry: NonNullable<DiffData['changelog']> }) {
  const e = p.entry
  const name = [e.version, e.date].filter(Boolean).join(' · ')
  return (
    <>
      <h2>Changelog entry</h2>
      <section class='card' aria-label='The entry'>
        <h3>{e.title === e.version || e.title === e.date ? name : e.title}</h3>
        {e.title !== e.version && e.title !== e.date && name ? <p class='small'>{name}</p> : null}
        <ul>{e.items.map((x, i) => <li key={i}>{x}</li>)}</ul>
      </section>
    </>
  )
}

/** Text with `code` spans (as API changes name fields and parameters) shown as code. */
const Spans = (p: { text: string }) => (
  <>{p.text.split('`').map((part, i) => i % 2 === 1 ? <code key={i}>{part}</code> : part)}</>
)

/** An API description's changes, by kind: breaking first. */
function ApiView (p: { api: NonNullable<DiffData['api']> }) {
  const groups = [['Breaking', p.api.breaking], ['Deprecated', p.api.deprecated], ['Not breaking', p.api.nonBreaking]] as const
  return (
    <>
      <h2>API description</h2>
      {groups.filter(([, items]) => items.length > 0).map(([label, items]) => (
        <section class='card' key={label} aria-label={label}>
          <h3 class='small'>{label} ({items.length})</h3>
          <ul>{items.map((x, i) => <li key={i}><code>{x.method} {x.path}</code> <Spans text={x.change} /></li>)}</ul>
        </section>
      ))}
    </>
  )
}

/** What changed: the structured view when there is one, every passage of the text, and the screenshots. */
function ChangeBody (p: {
  change: ChangeItem
  view: ChangeView
  href: (page: number) => string
  image: (which: 'before' | 'after' | 'diff') => string
}) {
  const c = p.change
  return (
    <>
      {c.diffData.pricing ? <PlansView pricing={c.diffData.pricing} /> : null}
      {c.diffData.changelog ? <EntryView entry={c.diffData.changelog} /> : null}
      {c.diffData.api ? <ApiView api={c.diffData.api} /> : null}
      {p.view.total === 0 ? null : <WholeChange view={p.view} href={p.href} />}
      {c.diffData.visual
        ? (
          <>
            <h2>Screenshots</h2>
            <div class='shots'>
              <img src={p.image('before')} alt='Before' loading='lazy' />
              <img src={p.image('after')} alt='After' loading='lazy' />
              <img src={p.image('diff')} alt='Difference' loading='lazy' />
            </div>
          </>
          )
        : null}
    </>
  )
}

const Found = (p: { change: ChangeItem, pageUrl: string, pageName?: string | null, domain: string }) => (
  <>
    <p><Sev s={p.change.severity} /> <strong>{p.change.changeType.replace('_', ' ')}</strong>, confidence {p.change.confidence}</p>
    <p>On {p.pageName ? <><strong>{p.pageName}</strong>, </> : null}<a href={p.pageUrl} rel='noreferrer noopener' target='_blank'>{p.pageUrl}</a> ({p.domain}), found <Time at={p.change.createdAt} /></p>
  </>
)

/** A learned rule in words. */
export function ChangePage (p: {
  viewer: Viewer
  change: ChangeItem
  pageUrl: string
  /** The name people gave the page, if any. */
  pageName?: string | null
  domain: string
  acknowledger: string | null
  /** The change's passages (this page of them) and the text between them. */
  view: ChangeView
  /** What "not important" could teach (shown once that is the verdict), and the rules learned from this change. */
  feedback?: {
    offers: Offer[]
    learned: LearnedItem[]
  }
  /** When the organisation allows sharing: the change's live links, and the one just made (shown once). */
  share?: {
    links: Array<{ id: string, created_at: Date, expires_at: Date, created_by_email: string | null }>
    created?: { id: string, url: string, expiresAt: Date }
  }
  notice?: string
}) {
  const c = p.change
  return (
    <Page viewer={p.viewer} title={c.summary} section='/app/changes' notice={p.notice}>
      <div class='card'>
        <Found change={c} pageUrl={p.pageUrl} pageName={p.pageName} domain={p.domain} />
        <p class='small'><a href={`/app/domains/${c.domainId}/pages/${c.pageId}#timeline`}>The page's history</a>: every version Sitewatch kept, and its other changes</p>
        {c.acknowledgedAt
          ? (
            <form method='post' action={`/app/changes/${c.id}/unacknowledge`} class='row'>
              <Csrf token={p.viewer.csrf} />
              <span>Acknowledged by {p.acknowledger ?? c.acknowledgedBy ?? 'an API key'}, <Time at={c.acknowledgedAt} /></span>
              <button type='submit' class='quiet'>Mark as not reviewed</button>
            </form>
            )
          : (
            <form method='post' action={`/app/changes/${c.id}/acknowledge`}>
              <Csrf token={p.viewer.csrf} />
              <button type='submit'>Acknowledge</button>
            </form>
            )}
        {p.feedback ? <Feedback change={c} viewer={p.viewer} {...p.feedback} /> : null}
        {p.share
          ? (
            <details open={p.share.created !== undefined || undefined}>
              <summary>Share this change</summary>
              {p.share.created
                ? (
                  <div class='grow'>
                    <label for='share-link'>Anyone with this link sees this change, and nothing else, until <Time at={p.share.created.expiresAt} /> or until it is revoked. Copy it now: it is shown only once.</label>
                    <input id='share-link' readonly value={p.share.created.url} />
                  </div>
                  )
                : null}
              <form method='post' action={`/app/changes/${c.id}/share`}>
                <Csrf token={p.viewer.csrf} />
                <button type='submit'>Make a share link</button>
              </form>
              {p.share.links.length > 0
                ? (
                  <ul>
                    {p.share.links.map(l => (
                      <li key={l.id}>
                        <form method='post' action={`/app/changes/${c.id}/share/${l.id}/revoke`} class='inline'>
                          A link made <Time at={l.created_at} />{l.created_by_email ? ` by ${l.created_by_email}` : ''}, until <Time at={l.expires_at} />{' '}
                          <Csrf token={p.viewer.csrf} />
                          <button type='submit' class='secondary' aria-label={`Revoke the link made ${l.created_at.toISOString()}`}>Revoke</button>
                        </form>
                      </li>
                    ))}
                  </ul>
                  )
                : <p class='small muted'>No link to this change works now.</p>}
            </details>
            )
          : null}
      </div>
      <ChangeBody change={c} view={p.view} href={page => `/app/changes/${c.id}?page=${page}`} image={which => `/app/changes/${c.id}/images/${which}`} />
      <p><a href='/app/changes'>Back to changes</a></p>
    </Page>
  )
}

/** One change, for whoever holds its share link: no navigation, no actions, nothing else of the organisation. */
export function SharedChangePage (p: {
  change: ChangeItem
  pageUrl: string
  domain: string
  view: ChangeView
  /** This change's shared address, for its pages of passages. */
  self: string
  images: Record<'before' | 'after' | 'diff', string>
}) {
  return (
    <Document title={p.change.summary}>
      <header class='top'><span class='brand'>Sitewatch</span></header>
      <main id='main'>
        <h1>{p.change.summary}</h1>
        <div class='card'>
          <Found change={p.change} pageUrl={p.pageUrl} domain={p.domain} />
          <p class='small muted'>Shared from Sitewatch by a link that expires.</p>
        </div>
        <ChangeBody change={p.change} view={p.view} href={page => `${p.self}?page=${page}`} image={which => p.images[which]} />
      </main>
    </Document>
  )
}
