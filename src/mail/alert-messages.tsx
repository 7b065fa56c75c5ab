import type { ComponentChildren } from 'preact'
import { renderToString } from 'preact-render-to-string'
import type { Mail } from './mailer.js'

// The words of alert e-mails: a change as it is found, and a digest. Each has a plain-text
// and an HTML part (inline styles: mail clients ignore style sheets), a link to the app,
// and RFC 8058's one-click unsubscribe.

export interface DiffLine { type: 'context' | 'deletion' | 'addition', content: string }

export interface ChangeMailInput {
  to: string
  orgName: string
  domain: string
  pageUrl: string
  change: {
    id: string
    summary: string
    severity: string
    changeType: string
    confidence: string
    lines: DiffLine[]
    /** What a structured reader saw: a pricing page's moves, API changes, a release's items. */
    details?: string[]
  }
  links: { change: string, unsubscribe: string, settings: string, images?: { diff: string } }
}

export interface DigestMailInput {
  to: string
  orgName: string
  period: { from: Date, to: Date, mode: 'daily' | 'weekly' }
  total: number
  groups: Array<{
    domain: string
    counts: Record<string, number>
    changes: Array<{ summary: string, severity: string, changeType: string, link: string }>
  }>
  more: { count: number, link: string } | null
  /** New and removed pages of the period. */
  pages: Array<{ kind: 'discovered' | 'removed', url: string, domain: string, pageType: string, watched: boolean }>
  links: { unsubscribe: string, settings: string }
}

const pageLine = (e: DigestMailInput['pages'][number]) => e.kind === 'discovered'
  ? `New ${words(e.pageType)} page on ${e.domain}${e.watched ? ', now watched' : ''}: ${e.url}`
  : `Gone from ${e.domain}: ${e.url}`

const COLOURS: Record<string, string> = { critical: '#b3261e', high: '#c25400', medium: '#8a6d00', low: '#2e7d32' }
const words = (t: string) => t.replaceAll('_', ' ')
const clip = (s: string, n: number) => s.length > n ? `${s.slice(0, n - 1)}…` : s

/** The headers every alert carries: one-click unsubscribe, and an id that makes a resend a duplicate to clients. */
function listHeaders (unsubscribe: string): Record<string, string> {
  return { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
}

const Sev = ({ s }: { s: string }) => (
  <span style={`color:${COLOURS[s] ?? '#333'};font-weight:700;border:1px solid ${COLOURS[s] ?? '#333'};border-radius:9px;padding:0 6px`}>{s}</span>
)

function Frame (p: { children: ComponentChildren, orgName: string, links: { unsubscribe: string, settings: string } }) {
  return (
    <html lang='en'>
      <body style='font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1d1d1f;line-height:1.5;max-width:640px;margin:0 auto;padding:16px'>
        {p.children}
        <p style='color:#5f6368;font-size:13px;margin-top:24px;border-top:1px solid #dcdcd7;padding-top:12px'>
          You get this as a member of {p.orgName} on Sitewatch. <a href={p.links.settings}>Alert settings</a> ·{' '}
          <a href={p.links.unsubscribe}>Unsubscribe</a>
        </p>
      </body>
    </html>
  )
}

const footer = (orgName: string, links: { unsubscribe: string, settings: string }) =>
  `\n--\nYou get this as a member of ${orgName} on Sitewatch.\nAlert settings: ${links.settings}\n` +
  `Unsubscribe: ${links.unsubscribe}\n`

/** At most this many lines of the diff: an excerpt, the change's page has the rest. */
const EXCERPT_LINES = 12

export function changeMail (p: ChangeMailInput): Mail {
  const c = p.change
  const shown = c.lines.filter(l => l.type !== 'context').slice(0, EXCERPT_LINES)
  // Listed when they say more than the summary (which names the first few).
  const details = (c.details ?? []).length > 1 ? c.details! : []
  const text = `${c.summary}\n\nSeverity: ${c.severity} · ${words(c.changeType)} · confidence ${c.confidence}\n` +
    `Page: ${p.pageUrl}\n\n` +
    (details.length > 0 ? `${details.map(d => `• ${clip(d, 300)}`).join('\n')}\n\n` : '') +
    shown.map(l => `${l.type === 'deletion' ? '- ' : '+ '}${clip(l.content, 300)}`).join('\n') +
    `\n\nSee the change: ${p.links.change}\n` + footer(p.orgName, p.links)
  const html = '<!doctype html>' + renderToString(
    <Frame orgName={p.orgName} links={p.links}>
      <p style='margin:0 0 4px'><Sev s={c.severity} /> <strong>{words(c.changeType)}</strong> on {p.domain} · confidence {c.confidence}</p>
      <h1 style='font-size:18px;margin:8px 0'>{c.summary}</h1>
      <p style='margin:0 0 12px'><a href={p.pageUrl}>{p.pageUrl}</a></p>
      {details.length > 0 ? <ul style='margin:0 0 12px;padding-left:20px'>{details.map((d, i) => <li key={i}>{clip(d, 300)}</li>)}</ul> : null}
      {shown.length > 0
        ? (
          <div style='font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;white-space:pre-wrap;border:1px solid #dcdcd7;border-radius:6px;padding:8px'>
            {shown.map((l, i) => l.type === 'deletion'
              ? <div key={i}><del style='background:#fde2e1'>{clip(l.content, 300)}</del></div>
              : <div key={i}><ins style='background:#dcf5e3;text-decoration:none'>{clip(l.content, 300)}</ins></div>)}
          </div>
          )
        : null}
      {p.links.images
        ? <p><a href={p.links.images.diff}><img src={p.links.images.diff} alt='Difference' width={600} style='max-width:100%;border:1px solid #dcdcd7' /></a></p>
        : null}
      <p><a href={p.links.change} style='background:#1f5fbf;color:#fff;padding:8px 14px;border-radius:6px;text-decoration:none;display:inline-block'>See the change</a></p>
    </Frame>
  )
  return {
    to: p.to,
    subject: clip(`[${c.severity}] ${p.domain} — ${c.summary}`, 180),
    text,
    html,
    headers: listHeaders(p.links.unsubscribe)
  }
}

export function digestMail (p: DigestMailInput): Mail {
  const when = p.period.mode === 'weekly' ? 'this week' : 'today'
  const counts = (c: Record<string, number>) => Object.entries(c).map(([t, n]) => `${n} ${words(t)}`).join(', ')
  const pages = p.pages.length > 0 ? `New and removed pages\n${p.pages.map(e => `  ${pageLine(e)}`).join('\n')}\n\n` : ''
  const text = `${p.total} change${p.total === 1 ? '' : 's'} ${when} in ${p.orgName}\n\n` + pages +
    p.groups.map(g => `${g.domain} (${counts(g.counts)})\n` +
      g.changes.map(c => `  [${c.severity}] ${c.summary}\n  ${c.link}`).join('\n')).join('\n\n') +
    (p.more ? `\n\n${p.more.count} more: ${p.more.link}\n` : '\n') + footer(p.orgName, p.links)
  const html = '<!doctype html>' + renderToString(
    <Frame orgName={p.orgName} links={p.links}>
      <h1 style='font-size:18px;margin:0 0 12px'>{p.total} change{p.total === 1 ? '' : 's'} {when} in {p.orgName}</h1>
      {p.pages.length > 0
        ? (
          <div style='margin-bottom:16px'>
            <h2 style='font-size:16px;margin:0'>New and removed pages</h2>
            <ul style='margin:0;padding-left:18px'>{p.pages.map(e => <li key={e.url}>{pageLine(e)}</li>)}</ul>
          </div>
          )
        : null}
      {p.groups.map(g => (
        <div key={g.domain} style='margin-bottom:16px'>
          <h2 style='font-size:16px;margin:0'>{g.domain}</h2>
          <p style='color:#5f6368;font-size:13px;margin:0 0 6px'>{counts(g.counts)}</p>
          <ul style='margin:0;padding-left:18px'>
            {g.changes.map(c => <li key={c.link}><Sev s={c.severity} /> <a href={c.link}>{c.summary}</a></li>)}
          </ul>
        </div>
      ))}
      {p.more ? <p><a href={p.more.link}>{p.more.count} more change{p.more.count === 1 ? '' : 's'} in the inbox</a></p> : null}
    </Frame>
  )
  return {
    to: p.to,
    subject: p.total > 0 || p.pages.length === 0
      ? `${p.total} change${p.total === 1 ? '' : 's'} ${when} on Sitewatch — ${p.orgName}`
      : `${p.pages.length} new or removed page${p.pages.length === 1 ? '' : 's'} ${when} on Sitewatch — ${p.orgName}`,
    text,
    html,
    headers: listHeaders(p.links.unsubscribe)
  }
}
