import { actionSays, AUDIT_ACTIONS, type AuditEvent } from '../../vocabulary/audit.js'
import { Page, Pager, Time, type Viewer } from './layout.js'

// The organisation's audit log for owners and admins: who did what, filtered by person,
// kind and date, and the same as CSV.

export interface AuditQuery { userId: string, action: string, from: string, to: string }

export function AuditPage (p: {
  viewer: Viewer
  events: AuditEvent[]
  actors: Array<{ userId: string, label: string }>
  query: AuditQuery
  page: number
  pageSize: number
  total: number
  capped: boolean
  retention: string
}) {
  const q = p.query
  const params = (extra: Record<string, string>) => {
    const all = new URLSearchParams(Object.entries({ ...q, ...extra }).filter(([, v]) => v !== ''))
    const text = all.toString()
    return text ? `?${text}` : ''
  }
  return (
    <Page viewer={p.viewer} title='Audit log' section='/app/audit'>
      <p class='muted'>
        Who did what in {p.viewer.org.name}: every change to its domains, pages, alerts, members and keys, and
        every sign-in, recorded as it was made and never edited. {p.retention}
      </p>
      <form method='get' action='/app/audit' class='card row' aria-label='Filter the audit log'>
        <div>
          <label for='audit-person'>Person</label>
          <select id='audit-person' name='userId'>
            <option value=''>anyone</option>
            {p.actors.map(a => <option key={a.userId} value={a.userId} selected={a.userId === q.userId}>{a.label}</option>)}
          </select>
        </div>
        <div>
          <label for='audit-action'>What</label>
          <select id='audit-action' name='action'>
            <option value=''>anything</option>
            {AUDIT_ACTIONS.map(([action, , says]) =>
              <option key={action} value={action} selected={action === q.action}>{says}</option>)}
          </select>
        </div>
        <div>
          <label for='audit-from'>From</label>
          <input id='audit-from' name='from' type='date' value={q.from} />
        </div>
        <div>
          <label for='audit-to'>To (inclusive)</label>
          <input id='audit-to' name='to' type='date' value={q.to} />
        </div>
        <div class='row'>
          <button type='submit'>Show</button>
          <a href={`/app/audit.csv${params({})}`} download>Download CSV</a>
        </div>
      </form>
      {p.events.length === 0
        ? <p class='muted'>Nothing recorded{q.userId || q.action || q.from || q.to ? ' that matches' : ' yet'}.</p>
        : (
          <div class='scroll' tabIndex={0} role='region' aria-label='Audit events'>
            <table>
              <thead>
                <tr><th scope='col'>When</th><th scope='col'>Who</th><th scope='col'>What</th></tr>
              </thead>
              <tbody>
                {p.events.map(e => (
                  <tr key={e.id}>
                    <td><Time at={e.at} /></td>
                    <td>
                      {e.actor.label}
                      <div class='small muted'>{actorKindSays[e.actor.kind]}{e.ip ? `, from ${e.ip}` : ''}</div>
                    </td>
                    <td>
                      {actionSays(e.action)}
                      {e.object.label ? <div class='small'>{e.object.label}</div> : null}
                      {detailsSaid(e.details) ? <div class='small muted'>{detailsSaid(e.details)}</div> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          )}
      <Pager page={p.page} pageSize={p.pageSize} total={p.total} capped={p.capped} href={n => `/app/audit${params({ page: String(n) })}`} />
    </Page>
  )
}

const actorKindSays: Record<AuditEvent['actor']['kind'], string> = {
  user: 'in the app',
  api_key: 'API key',
  operator: 'Sitewatch operator',
  anonymous: 'not signed in'
}

/** What changed, in a line: "role: admin · to: viewer". */
function detailsSaid (details: Record<string, unknown>): string {
  return Object.entries(details)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' · ')
    .slice(0, 300)
}
