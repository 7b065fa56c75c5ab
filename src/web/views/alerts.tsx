import type { Plan } from '../../domain/plans.js'
import { roleAllows, SEVERITIES } from '../../domain/vocabulary.js'
import type { deliveryView, endpointView } from '../../store/webhooks.js'
import { Csrf, Page, Pager, Time, type Viewer } from './layout.js'

type Destination = ReturnType<typeof endpointView>
type Delivery = ReturnType<typeof deliveryView>

/** A destination's address without what could be a secret: a Slack URL's token, a query string. */
export function shownUrl (raw: string, kind: string): string {
  const url = new URL(raw)
  if (kind === 'slack') return `${url.host}/services/${url.pathname.split('/')[2] ?? ''}/…`
  return `${url.origin}${url.pathname}${url.search ? '?…' : ''}`
}

const MODE: Record<Plan['alerts'], string> = {
  realtime: 'each change is sent as soon as it is found',
  digest: 'one changes.digest message a day gathers the day’s changes',
  custom: 'each change is sent as soon as it is found, filtered by each destination’s rules'
}

export function AlertsPage (p: {
  viewer: Viewer
  plan: Plan
  destinations: Destination[]
  created?: { secret: string, url: string }
  form?: Record<string, string>
  notice?: string
  error?: string
}) {
  const admin = roleAllows(p.viewer.role, 'admin')
  const f = p.form ?? {}
  return (
    <Page viewer={p.viewer} title='Alerts' section='/app/alerts' notice={p.notice} error={p.error}>
      <p>On the {p.plan.name} plan, {MODE[p.plan.alerts]}. Alerts go to the destinations below: a webhook (signed JSON) or{p.plan.features.slackIntegration ? ' a Slack channel' : ' Slack, which comes with the pro plan'}.</p>
      {p.created
        ? (
          <div class='notice' role='status'>
            <p>Destination added. Its signing secret, shown only once: copy it to verify the signature of each delivery.</p>
            <p class='key'>{p.created.secret}</p>
          </div>
          )
        : null}
      {p.destinations.length === 0
        ? <p class='card'>No destinations yet.{admin ? ' Add a webhook URL below, then send it a test event.' : ' An admin adds them.'}</p>
        : (
          <div class='scroll' tabIndex={0} role='region' aria-label='Alert destinations'>
            <table>
              <thead><tr><th scope='col'>Destination</th><th scope='col'>Sends</th><th scope='col'>State</th><th scope='col'>Added</th></tr></thead>
              <tbody>
                {p.destinations.map(d => (
                  <tr key={d.id}>
                    <td>
                      <a href={`/app/alerts/${d.id}`}>{d.description ?? shownUrl(d.url, d.kind)}</a>
                      <div class='small muted'>{d.kind === 'slack' ? 'Slack' : 'Webhook'} · {shownUrl(d.url, d.kind)}</div>
                    </td>
                    <td>{d.events.join(', ')}<div class='small muted'>severity {d.minSeverity} and above</div></td>
                    <td>{d.enabled ? 'on' : 'off'}</td>
                    <td><Time at={d.createdAt} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          )}
      {admin
        ? (
          <>
            <h2>Add a destination</h2>
            <form method='post' action='/app/alerts' class='card'>
              <Csrf token={p.viewer.csrf} />
              <div class='row'>
                <div>
                  <label for='alert-kind'>Kind</label>
                  <select id='alert-kind' name='kind'>
                    <option value='webhook' selected={f.kind !== 'slack'}>Webhook</option>
                    {p.plan.features.slackIntegration ? <option value='slack' selected={f.kind === 'slack'}>Slack</option> : null}
                  </select>
                </div>
                <div class='grow'>
                  <label for='alert-url'>URL</label>
                  <input id='alert-url' name='url' type='url' required value={f.url} placeholder='https://example.com/hooks/sitewatch' />
                </div>
              </div>
              <label for='alert-description'>Description (optional)</label>
              <input id='alert-description' name='description' maxLength={200} value={f.description} />
              {p.plan.features.customAlertRules
                ? (
                  <>
                    <label for='alert-severity'>Minimum severity</label>
                    <select id='alert-severity' name='minSeverity'>
                      {[...SEVERITIES].reverse().map(s => <option key={s} value={s} selected={(f.minSeverity || 'low') === s}>{s}</option>)}
                    </select>
                  </>
                  )
                : null}
              <p><button type='submit'>Add destination</button></p>
            </form>
          </>
          )
        : null}
    </Page>
  )
}

export function DestinationPage (p: {
  viewer: Viewer
  endpoint: Destination
  deliveries: Delivery[]
  total: number
  page: number
  pageSize: number
  notice?: string
}) {
  const d = p.endpoint
  const admin = roleAllows(p.viewer.role, 'admin')
  return (
    <Page viewer={p.viewer} title={d.description ?? shownUrl(d.url, d.kind)} section='/app/alerts' notice={p.notice}>
      <p><a href='/app/alerts'>All destinations</a></p>
      <div class='card'>
        <p>{d.kind === 'slack' ? 'Slack' : 'Webhook'} to {shownUrl(d.url, d.kind)}; {d.enabled ? 'on' : 'off'}.</p>
        <p class='small'>Sends {d.events.join(', ')}, severity {d.minSeverity} and above. Added <Time at={d.createdAt} />.</p>
        {admin
          ? (
            <div class='row'>
              <form method='post' action={`/app/alerts/${d.id}/test`} class='inline'>
                <Csrf token={p.viewer.csrf} />
                <button type='submit'>Send a test event</button>
              </form>
              <form method='post' action={`/app/alerts/${d.id}/enabled`} class='inline'>
                <Csrf token={p.viewer.csrf} />
                <input type='hidden' name='enabled' value={d.enabled ? 'false' : 'true'} />
                <button type='submit' class='quiet'>{d.enabled ? 'Switch off' : 'Switch on'}</button>
              </form>
              <form method='post' action={`/app/alerts/${d.id}/delete`} class='inline'>
                <Csrf token={p.viewer.csrf} />
                <button type='submit' class='danger'>Delete destination</button>
              </form>
            </div>
            )
          : null}
      </div>
      <h2>Deliveries</h2>
      {p.deliveries.length === 0
        ? <p class='muted'>Nothing sent yet. Sitewatch sends here when a change is found{admin ? ', or when you send a test event' : ''}.</p>
        : (
          <div class='scroll' tabIndex={0} role='region' aria-label='Deliveries'>
            <table>
              <thead><tr><th scope='col'>Event</th><th scope='col'>State</th><th scope='col'>Attempts</th><th scope='col'>Answer</th><th scope='col'>Queued</th><th scope='col'>Last attempt</th></tr></thead>
              <tbody>
                {p.deliveries.map(x => (
                  <tr key={x.id}>
                    <td>{x.eventType}</td>
                    <td class={x.status === 'failed' ? 'sev sev-high' : undefined}>{x.status}</td>
                    <td>{x.attempts}</td>
                    <td>{x.responseStatus ?? ''}{x.durationMs !== null ? <span class='small muted'> in {x.durationMs} ms</span> : null}{x.error ? <div class='small'>{x.error}</div> : null}</td>
                    <td><Time at={x.createdAt} /></td>
                    <td><Time at={x.lastAttemptAt} empty='not yet' /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          )}
      <Pager page={p.page} pageSize={p.pageSize} total={p.total} href={n => `/app/alerts/${d.id}?page=${n}`} />
    </Page>
  )
}
