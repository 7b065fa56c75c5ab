import { Fragment, type ComponentChildren } from 'preact'
import { renderToString } from 'preact-render-to-string'
import { roleAllows, type Role, type Severity } from '../../vocabulary/core.js'

// The frame of every page, and the small pieces pages share. Preact escapes every text
// and attribute it renders: page text from crawled sites is shown as text, never as HTML.

export interface Viewer {
  email: string
  name: string | null
  role: Role
  org: { id: string, name: string, plan: string }
  orgs: Array<{ id: string, name: string }>
  csrf: string
  /** For numbers: the first language the browser asks for. */
  locale: string
  /** Why the form the person just sent could not be done (shown once). */
  flash?: string
}

/** The app's sections, and the role each needs to be shown. */
const SECTIONS: ReadonlyArray<readonly [string, string, Role]> = [
  ['/app/domains', 'Domains', 'viewer'],
  ['/app/changes', 'Changes', 'viewer'],
  ['/app/usage', 'Usage and plan', 'viewer'],
  ['/app/alerts', 'Alerts', 'viewer'],
  ['/app/members', 'Members', 'viewer'],
  ['/app/keys', 'API keys', 'viewer'],
  ['/app/audit', 'Audit log', 'admin'],
  ['/app/sso', 'Sign-on', 'owner'],
  ['/app/account', 'Account', 'viewer']
]

export function html (node: ComponentChildren): string {
  return '<!doctype html>' + renderToString(<>{node}</>)
}

/**
 * `liveEvery`: the page is still being built (a domain's discovery, a brief), and asks for
 * itself again every so many seconds, putting in place each of its parts marked `data-live`
 * that moved (the script's, see static/assets.ts): a meta refresh would reload the whole
 * page, throwing away what is being typed, and takes the page from a screen reader's user
 * (axe's meta-refresh). Without script, it is that refresh.
 */
export function Document (props: { title: string, liveEvery?: number, goTo?: string, children: ComponentChildren }) {
  return (
    <html lang='en'>
      <head>
        <meta charset='utf-8' />
        <meta name='viewport' content='width=device-width, initial-scale=1' />
        {props.liveEvery ? <noscript><meta http-equiv='refresh' content={String(props.liveEvery)} /></noscript> : null}
        {props.goTo ? <meta http-equiv='refresh' content={`0;url=${props.goTo}`} /> : null}
        <title>{`${props.title} · Sitewatch`}</title>
        <link rel='stylesheet' href='/app/static/app.css' />
        <script src='/app/static/app.js' defer />
      </head>
      <body data-live-every={props.liveEvery}>{props.children}</body>
    </html>
  )
}

/** A page of the signed-in app: the navigation, who is signed in, the organisation switch. */
export function Page (props: {
  viewer: Viewer
  title: string
  section: string
  /** See Document. */
  liveEvery?: number
  notice?: string
  error?: string
  children: ComponentChildren
}) {
  const v = props.viewer
  return (
    <Document title={props.title} liveEvery={props.liveEvery}>
      <a class='skip' href='#main'>Skip to content</a>
      <header class='top'>
        <a class='brand' href='/app/domains'>Sitewatch</a>
        <nav aria-label='Main'>
          <ul>
            {SECTIONS.filter(([, , role]) => roleAllows(v.role, role)).map(([href, label]) => (
              <li key={href}>
                <a href={href} aria-current={props.section === href ? 'page' : undefined}>{label}</a>
              </li>
            ))}
          </ul>
        </nav>
        <div class='who'>
          {v.orgs.length > 1
            ? (
              <form method='post' action='/app/org' class='row'>
                <Csrf token={v.csrf} />
                <label for='org-switch' class='small'>Organisation</label>
                <select id='org-switch' name='orgId'>
                  {v.orgs.map(o => <option key={o.id} value={o.id} selected={o.id === v.org.id}>{o.name}</option>)}
                </select>
                <button class='quiet' type='submit'>Switch</button>
              </form>
              )
            : <span class='small muted'>{v.org.name}</span>}
          <span class='small'>{v.name ?? v.email} ({v.role})</span>
          <form method='post' action='/app/sign-out' class='inline'>
            <Csrf token={v.csrf} />
            <button class='quiet' type='submit'>Sign out</button>
          </form>
        </div>
      </header>
      <main id='main'>
        <h1 id='page-title' data-live>{props.title}</h1>
        {props.notice ? <p class='notice' role='status'>{props.notice}</p> : null}
        {props.error ?? v.flash ? <p class='notice error' role='alert'>{props.error ?? v.flash}</p> : null}
        {props.children}
      </main>
    </Document>
  )
}

export const Csrf = ({ token }: { token: string }) => <input type='hidden' name='_csrf' value={token} />

/** A time the browser's script shows in the reader's locale and zone; UTC until then. */
export function Time ({ at, empty = '—' }: { at: Date | string | null | undefined, empty?: string }) {
  if (!at) return <span class='muted'>{empty}</span>
  const d = new Date(at)
  return <time datetime={d.toISOString()}>{d.toISOString().slice(0, 16).replace('T', ' ')} UTC</time>
}

/** Severity as a colour and as its word. */
export const Sev = ({ s }: { s: Severity }) => <span class={`sev sev-${s}`}>{s}</span>

/**
 * An address, a path or a host that may wrap after its slashes and dots only, not its first (`/pricing`
 * never becomes "/pricin g" in a narrow column; a long path wraps between its parts).
 */
export const Address = ({ text }: { text: string }) =>
  <>{text.split(/(?<=.[/.])/).map((part, i) => i === 0 ? part : <Fragment key={i}><wbr />{part}</Fragment>)}</>

/**
 * An explained refusal, a missing thing, or a failure: the page the person lands on, with a
 * way back to the app's page they came from (`back`), else to their domains.
 */
export function Problem (props: { viewer?: Viewer, status: number, message: string, back?: string }) {
  const title = props.status === 403
    ? 'Not allowed'
    : props.status === 404 ? 'Not found' : props.status === 429 ? 'Too many attempts' : 'Something went wrong'
  // Signed out, the domains' page asks to sign in first, and then shows them.
  const [href, words] = props.back ? [props.back, 'Back to the page you were on'] : ['/app/domains', 'Back to your domains']
  const body = (
    <>
      <p role='alert'>{props.message}</p>
      <p><a href={href}>{words}</a></p>
    </>
  )
  if (props.viewer) return <Page viewer={props.viewer} title={title} section=''>{body}</Page>
  return (
    <Document title={title}>
      <main id='main' class='auth'><h1>{title}</h1>{body}</main>
    </Document>
  )
}

/** Pages of a list; `capped`: total is a lower bound (more follow than were counted). */
export function Pager (props: {
  page: number
  pageSize: number
  total: number
  capped?: boolean
  href: (page: number) => string
}) {
  const last = Math.max(1, Math.ceil(props.total / props.pageSize))
  const more = props.capped === true || props.page < last
  if (last === 1 && !more && props.page === 1) return null
  return (
    <nav class='pager' aria-label='Pages'>
      {props.page > 1 ? <a href={props.href(props.page - 1)}>Previous page</a> : null}
      <span>{props.capped ? `Page ${props.page}` : `Page ${props.page} of ${last}`}</span>
      {more ? <a href={props.href(props.page + 1)}>Next page</a> : null}
    </nav>
  )
}
