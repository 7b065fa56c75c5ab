import { mailModesFor, type MailPreference } from '../../vocabulary/mail-alerts.js'
import type { Plan } from '../../vocabulary/plans.js'
import { roleAllows, SEVERITIES, type MailMode } from '../../vocabulary/core.js'
import type { emailView } from '../../store/mail-alerts.js'
import type { deliveryView, endpointView } from '../../store/webhooks.js'
import { AlertRules, type AlertRulesData, type Learned, LearnedRules } from './alert-rules.js'
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

type MemberSettings = MailPreference & { userId: string, email: string, chosen: boolean, pausedReason: string | null }
type Email = ReturnType<typeof emailView>

const MODE_WORDS: Record<MailMode, string> = {
  realtime: 'each change as it is found',
  daily: 'a daily digest',
  weekly: 'a weekly digest',
  off: 'off'
}
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
const ZONES = Intl.supportedValuesOf('timeZone')

function MailSettings (p: { viewer: Viewer, plan: Plan, mine: MemberSettings }) {
  const m = p.mine
  const zones = ZONES.includes(m.timeZone) ? ZONES : [m.timeZone, ...ZONES]
  return (
    <form method='post' action='/app/alerts/email' class='card'>
      <Csrf token={p.viewer.csrf} />
      {m.pausedReason ? <p class='notice error' role='alert'>Your alert e-mails are paused: {m.pausedReason}. Saving these settings resumes them.</p> : null}
      <div class='row'>
        <div>
          <label for='mail-mode'>E-mail alerts</label>
          <select id='mail-mode' name='mode'>
            {mailModesFor(p.plan).map(x => <option key={x} value={x} selected={x === m.mode}>{MODE_WORDS[x]}</option>)}
          </select>
        </div>
        <div>
          <label for='mail-severity'>Minimum severity</label>
          <select id='mail-severity' name='minSeverity'>
            {[...SEVERITIES].reverse().map(s => <option key={s} value={s} selected={s === m.minSeverity}>{s}</option>)}
          </select>
        </div>
        <div>
          <label for='mail-hour'>Digest hour</label>
          <select id='mail-hour' name='hour'>
            {Array.from({ length: 24 }, (_, h) => <option key={h} value={h} selected={h === m.hour}>{`${String(h).padStart(2, '0')}:00`}</option>)}
          </select>
        </div>
        <div>
          <label for='mail-weekday'>Weekly digest day</label>
          <select id='mail-weekday' name='weekday'>
            {DAYS.map((d, i) => <option key={d} value={i} selected={i === m.weekday}>{d}</option>)}
          </select>
        </div>
        <div>
          <label for='mail-zone'>Time zone</label>
          <select id='mail-zone' name='timeZone' data-guess={m.chosen ? undefined : 'browser'}>
            {zones.map(z => <option key={z} value={z} selected={z === m.timeZone}>{z}</option>)}
          </select>
        </div>
        {p.plan.features.customAlertRules
          ? (
            <div class='grow'>
              <label for='mail-tags'>Only domains tagged (comma-separated; empty: every domain)</label>
              <input id='mail-tags' name='tags' value={(m.tags ?? []).join(', ')} placeholder='direct competitors' />
            </div>
            )
          : null}
      </div>
      <p><button type='submit'>Save e-mail alerts</button></p>
      <p class='small muted'>To {p.viewer.email}. Every message has a link that turns them off without signing in.</p>
    </form>
  )
}

export function AlertsPage (p: {
  viewer: Viewer
  plan: Plan
  mine: MemberSettings
  members: MemberSettings[]
  emails: Email[]
  /** The person's own feed addresses; they stop working when the membership ends. */
  feeds: { changes: string, domain: string }
  /** The organisation's, for an admin (the API's GET /api/feeds). */
  orgFeeds?: { changes: string, domain: string }
  destinations: Destination[]
  created?: { secret: string, url: string }
  form?: Record<string, string>
  /** Whether e-mail leaves this server (SMTP_URL is set). */
  mailConfigured: boolean
  /** What Sitewatch learned from people's verdicts on changes. */
  learned: Learned[]
  alertRules: AlertRulesData
  notice?: string
  error?: string
}) {
  const admin = roleAllows(p.viewer.role, 'admin')
  const f = p.form ?? {}
  return (
    <Page viewer={p.viewer} title='Alerts' section='/app/alerts' notice={p.notice} error={p.error}>
      <h2>Your e-mail alerts</h2>
      {p.mailConfigured
        ? null
        : <p class='notice error'>Mail is not configured on this server (SMTP_URL is not set): alert e-mails are written to the server's log, not sent. The operator sets SMTP_URL to send them.</p>}
      <MailSettings viewer={p.viewer} plan={p.plan} mine={p.mine} />
      <h2>Atom feeds</h2>
      <div class='card'>
        <p>
          For a feed reader: every change of the organisation, newest first. Add <code>?severity=high</code>,
          {' '}<code>changeType=</code> or <code>pageType=</code> to filter, as in the API. These addresses are
          yours: keep them as you would a password. They stop working if you leave the organisation.
        </p>
        <p class='key'>{p.feeds.changes}</p>
        <p class='small muted'>One domain's changes:</p>
        <p class='key small'>{p.feeds.domain}</p>
        <form method='post' action='/app/alerts/feeds/rotate' class='inline'>
          <Csrf token={p.viewer.csrf} />
          <input type='hidden' name='which' value='mine' />
          <button type='submit' class='quiet'>Make new addresses for me (my old ones stop working)</button>
        </form>
      </div>
      {p.orgFeeds
        ? (
          <div class='card'>
            <p>The organisation's own feed addresses (for tools, as <code>GET /api/feeds</code> gives them):</p>
            <p class='key small'>{p.orgFeeds.changes}</p>
            <form method='post' action='/app/alerts/feeds/rotate' class='inline'>
              <Csrf token={p.viewer.csrf} />
              <input type='hidden' name='which' value='organisation' />
              <button type='submit' class='quiet'>Make new organisation addresses (the old ones stop working)</button>
            </form>
          </div>
          )
        : null}
      {admin
        ? (
          <>
            <h2>Members' e-mail alerts</h2>
            <div class='scroll' tabIndex={0} role='region' aria-label="Members' e-mail alerts">
              <table>
                <thead><tr><th scope='col'>Member</th><th scope='col'>Gets</th><th scope='col'>From severity</th><th scope='col'>State</th></tr></thead>
                <tbody>
                  {p.members.map(m => (
                    <tr key={m.userId}>
                      <td>{m.email}</td>
                      <td>{MODE_WORDS[m.mode]}{m.mode === 'daily' || m.mode === 'weekly' ? <div class='small muted'>{m.mode === 'weekly' ? `${DAYS[m.weekday]}s, ` : ''}{String(m.hour).padStart(2, '0')}:00 {m.timeZone}</div> : null}</td>
                      <td>{m.minSeverity}</td>
                      <td>{m.pausedReason ? <span class='sev sev-high'>paused</span> : m.chosen ? 'chosen' : 'plan default'}{m.pausedReason ? <div class='small'>{m.pausedReason}</div> : null}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <h2>E-mails</h2>
            {p.emails.length === 0
              ? <p class='muted'>No alert e-mail yet.</p>
              : (
                <div class='scroll' tabIndex={0} role='region' aria-label='E-mails'>
                  <table>
                    <thead><tr><th scope='col'>To</th><th scope='col'>Subject</th><th scope='col'>State</th><th scope='col'>Queued</th></tr></thead>
                    <tbody>
                      {p.emails.map(e => (
                        <tr key={e.id}>
                          <td>{e.to}</td>
                          <td>{e.subject}</td>
                          <td class={e.status === 'failed' ? 'sev sev-high' : undefined}>{e.status === 'not_sent' ? 'not sent' : e.status}{e.attempts > 1 ? ` after ${e.attempts} attempts` : ''}{e.error ? <div class='small'>{e.error}</div> : null}</td>
                          <td><Time at={e.createdAt} /></td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                )}
          </>
          )
        : null}
      <h2 id='rules'>Alert rules</h2>
      <AlertRules viewer={p.viewer} {...p.alertRules} />
      <h2 id='learned'>Learned from your feedback</h2>
      <LearnedRules viewer={p.viewer} rules={p.learned} />
      <h2>Webhooks and Slack</h2>
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
              <input id='alert-description' name='description' maxLength={500} value={f.description} />
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
