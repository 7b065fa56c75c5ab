import type { Usage } from '../../vocabulary/plans.js'
import { ROLES, roleAllows, type Role } from '../../vocabulary/core.js'
import { Csrf, Page, Time, type Viewer } from './layout.js'

/** A quota of the period: how much is taken, of how much, what it counts and when it starts again. */
function Meter (p: { label: string, used: number, limit: number | null, locale: string, counts: string, resets: string }) {
  const n = (x: number) => x.toLocaleString(p.locale)
  const share = p.limit ? Math.min(100, Math.round((p.used / p.limit) * 100)) : 0
  return (
    <div class='card'>
      <p><strong>{p.label}</strong>: {n(p.used)} {p.limit === null ? 'taken (unlimited on this plan)' : `of ${n(p.limit)} taken`}</p>
      {p.limit !== null
        ? <progress class='bar' max={100} value={share} aria-label={`${p.label}: ${share}% used`}>{share}%</progress>
        : null}
      <p class='small muted'>{p.counts} {p.resets}</p>
    </div>
  )
}

export function UsagePage (p: {
  viewer: Viewer
  usage: Usage & { watching: NonNullable<Usage['watching']> }
  plans: readonly string[]
  shareLinks: boolean
  notice?: string
  error?: string
}) {
  const u = p.usage
  const owner = p.viewer.role === 'owner'
  const end = new Date(u.period.end).toISOString().slice(0, 10)
  const resets = u.trial
    ? `A trial's counters do not start again: the trial ends on ${end}.${owner ? ' Choose a plan below for more.' : ' The owner can change the plan.'}`
    : `They start again on ${end}, when this period ends.${owner ? ' Change the plan below for more now.' : ' The owner can change the plan.'}`
  const trialDays = u.trial ? Math.max(0, Math.ceil((new Date(u.trial.expiresAt).getTime() - Date.now()) / 86_400_000)) : null
  return (
    <Page viewer={p.viewer} title='Usage and plan' section='/app/usage' notice={p.notice} error={p.error}>
      <div class='card'>
        <p>Plan: <strong>{u.plan}</strong>, billed {u.billingCycle}.
          {trialDays !== null ? ` ${trialDays} day${trialDays === 1 ? '' : 's'} left in the trial.` : ''}
        </p>
        <p class='small'>This period: <Time at={u.period.start} /> to <Time at={u.period.end} /></p>
      </div>
      <div class='card'>
        <p><strong>Watched now</strong>: {u.watching.domains} domain{u.watching.domains === 1 ? '' : 's'}, {u.watching.pages} page{u.watching.pages === 1 ? '' : 's'} ({u.watching.monitoredPages} monitored).</p>
        <p class='small muted'>What Sitewatch watches today. The counters below count what was taken in this period, which is not the same: a domain added and deleted still counts, one added last period does not.</p>
      </div>
      <Meter
        label='Domains added' used={u.limits.domains.used} limit={u.limits.domains.limit} locale={p.viewer.locale}
        counts='Each domain added in this period counts once, even if it is deleted later.' resets={resets}
      />
      <Meter
        label='Manual rechecks' used={u.limits.manualRechecks.used} limit={u.limits.manualRechecks.limit} locale={p.viewer.locale}
        counts={'Each "Crawl now" of a domain takes one; a page\'s "Check now" takes none.'} resets={resets}
      />
      <Meter
        label='Research credits' used={u.limits.researchCredits.used} limit={u.limits.researchCredits.limit} locale={p.viewer.locale}
        counts='Each research brief takes one; a brief that fails gives it back.' resets={resets}
      />
      <div class='card'>
        <p>Pages per domain: {u.limits.accessiblePagesPerDomain ?? 'unlimited'} (a deleted page does not give its place back); intelligence pages per domain: {u.limits.intelligencePagesPerDomain ?? 'all'}. Slack: {u.features.slackIntegration ? 'yes' : 'no'}. Custom alert rules: {u.features.customAlertRules ? 'yes' : 'no'}. API access: {u.features.apiAccess ? 'yes' : 'no'}.</p>
      </div>
      {roleAllows(p.viewer.role, 'admin')
        ? (
          <>
            <h2>Sharing</h2>
            <form method='post' action='/app/org/share-links' class='card'>
              <Csrf token={p.viewer.csrf} />
              <label>
                <input type='checkbox' name='on' value='1' checked={p.shareLinks} /> Members may share a change by a link that anyone can open for 7 days
              </label>
              <p class='small muted'>A link shows that one change and nothing else. Turning this off stops every link at once.</p>
              <button type='submit'>Save sharing</button>
            </form>
          </>
          )
        : null}
      {owner
        ? (
          <>
            <h2>Change the plan</h2>
            <form method='post' action='/app/plan' class='card row'>
              <Csrf token={p.viewer.csrf} />
              <div>
                <label for='plan'>Plan</label>
                <select id='plan' name='plan'>
                  {p.plans.map(x => <option key={x} value={x} selected={x === u.plan}>{x}</option>)}
                </select>
              </div>
              <button type='submit'>Change plan</button>
              <p class='small muted grow'>The new limits apply at once, to what this period has already used.</p>
            </form>
            <h2>Delete this organisation</h2>
            <form method='post' action='/app/org/delete' class='card'>
              <Csrf token={p.viewer.csrf} />
              <p>Deleting {p.viewer.org.name} removes its domains, pages, snapshots, changes, keys, alert destinations and members, at once and for good.</p>
              <label for='confirm-name'>Type the organisation's name to confirm</label>
              <input id='confirm-name' name='name' required autocomplete='off' />
              <p><button type='submit' class='danger'>Delete organisation</button></p>
            </form>
          </>
          )
        : <p class='muted'>The owner changes the plan.</p>}
    </Page>
  )
}

export function MembersPage (p: {
  viewer: Viewer
  members: Array<{ id: string, email: string, name: string | null, role: Role, created_at: Date }>
  invitations: Array<{ id: string, email: string | null, role: Role | null, expires_at: Date }>
  me: string
  /** Whether e-mail leaves this server (SMTP_URL is set). */
  mailConfigured: boolean
  /** An invitation just made while mail is not configured: its link, shown once to its maker. */
  invited?: { email: string, link: string }
  /** What was typed into an invitation the server refused, shown again to be corrected. */
  typed?: { email: string, role: string }
  notice?: string
  error?: string
}) {
  const admin = roleAllows(p.viewer.role, 'admin')
  const grantable = ROLES.filter(r => r !== 'owner' || p.viewer.role === 'owner')
  return (
    <Page viewer={p.viewer} title='Members' section='/app/members' notice={p.notice} error={p.error}>
      <div class='scroll' tabIndex={0} role='region' aria-label='Members'>
        <table>
          <thead><tr><th scope='col'>Person</th><th scope='col'>Role</th><th scope='col'>Member since</th>{admin ? <th scope='col'>Change</th> : null}</tr></thead>
          <tbody>
            {p.members.map(m => (
              <tr key={m.id}>
                <td>{m.name ? `${m.name} ` : ''}<span class='muted'>{m.email}</span></td>
                <td>{m.role}</td>
                <td><Time at={m.created_at} /></td>
                {admin
                  ? (
                    <td>
                      <form method='post' action={`/app/members/${m.id}`} class='row'>
                        <Csrf token={p.viewer.csrf} />
                        <label class='small' for={`role-${m.id}`}>Role of {m.email}</label>
                        <select id={`role-${m.id}`} name='role'>
                          {grantable.map(r => <option key={r} value={r} selected={r === m.role}>{r}</option>)}
                          <option value='remove'>remove from organisation</option>
                        </select>
                        <button type='submit' class='quiet'>Apply</button>
                      </form>
                    </td>
                    )
                  : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {admin
        ? (
          <>
            <h2>Invite someone</h2>
            {p.invited
              ? (
                <div class='notice' role='status'>
                  <p>
                    No e-mail was sent: mail is not configured on this server (SMTP_URL is not set). Send this link to
                    {' '}{p.invited.email} yourself. It is shown only once, and works once.
                  </p>
                  <label for='invite-link'>Invitation link for {p.invited.email}</label>
                  <input id='invite-link' readonly value={p.invited.link} />
                </div>
                )
              : p.mailConfigured ? null : <p class='small muted'>Mail is not configured on this server (SMTP_URL is not set): an invitation's link is shown here, for you to send.</p>}
            <form method='post' action='/app/members/invite' class='card row'>
              <Csrf token={p.viewer.csrf} />
              <div><label for='invite-email'>Email</label><input id='invite-email' name='email' type='email' required size={28} value={p.typed?.email} /></div>
              <div>
                <label for='invite-role'>Role</label>
                <select id='invite-role' name='role'>
                  {grantable.map(r => <option key={r} value={r} selected={r === (p.typed?.role ?? 'viewer')}>{r}</option>)}
                </select>
              </div>
              <button type='submit'>Invite</button>
            </form>
            <h2>Open invitations</h2>
            {p.invitations.length === 0
              ? <p class='muted'>None.</p>
              : (
                <ul>
                  {p.invitations.map(i => (
                    <li key={i.id}>
                      {i.email} as {i.role}, until <Time at={i.expires_at} />{' '}
                      <form method='post' action={`/app/invitations/${i.id}/cancel`} class='inline'>
                        <Csrf token={p.viewer.csrf} />
                        <button type='submit' class='quiet'>Cancel invitation to {i.email}</button>
                      </form>
                    </li>
                  ))}
                </ul>
                )}
          </>
          )
        : <p class='muted'>An admin or owner invites people and changes roles.</p>}
      {p.viewer.role === 'owner' && p.members.length > 1
        ? (
          <>
            <h2>Transfer ownership</h2>
            <form method='post' action='/app/members/transfer' class='card row'>
              <Csrf token={p.viewer.csrf} />
              <div>
                <label for='transfer-to'>New owner</label>
                <select id='transfer-to' name='userId'>
                  {p.members.filter(m => m.id !== p.me).map(m => <option key={m.id} value={m.id}>{m.email}</option>)}
                </select>
              </div>
              <button type='submit'>Transfer ownership</button>
              <p class='small muted grow'>They become owner; you stay, as an admin.</p>
            </form>
          </>
          )
        : null}
      <form method='post' action={`/app/members/${p.me}`} class='row'>
        <Csrf token={p.viewer.csrf} />
        <input type='hidden' name='role' value='remove' />
        <button type='submit' class='quiet'>Leave this organisation</button>
      </form>
    </Page>
  )
}

export function KeysPage (p: {
  viewer: Viewer
  apiAccess: boolean
  keys: Array<{
    id: string
    name: string | null
    prefix: string
    scope: string
    createdBy: string | null
    createdAt: string
    lastUsedAt: string | null
    revokedAt: string | null
  }>
  created?: { apiKey: string, scope: string }
  /** What was typed into a form the server refused, shown again to be corrected. */
  typed?: { name: string, scope: string }
  notice?: string
  error?: string
}) {
  const admin = roleAllows(p.viewer.role, 'admin')
  return (
    <Page viewer={p.viewer} title='API keys' section='/app/keys' notice={p.notice} error={p.error}>
      {!p.apiAccess
        ? <p class='notice'>The {p.viewer.org.plan} plan does not include API access: keys would be refused (403). Everything the plan includes is here in the app; the pro and enterprise plans add the API.</p>
        : null}
      {p.created
        ? (
          <div class='notice' role='status'>
            <p>Your new {p.created.scope} key. Copy it now: it is shown only once.</p>
            <p class='key'>{p.created.apiKey}</p>
          </div>
          )
        : null}
      {admin && p.apiAccess
        ? (
          <form method='post' action='/app/keys' class='card row'>
            <Csrf token={p.viewer.csrf} />
            <div class='grow'>
              <label for='key-name'>Name</label>
              <input id='key-name' name='name' maxLength={100} placeholder='what uses it: CI, Zapier, the data team' required value={p.typed?.name} aria-invalid={p.error ? 'true' : undefined} />
            </div>
            <div>
              <label for='scope'>Scope</label>
              <select id='scope' name='scope'>
                <option value='read' selected={p.typed?.scope === 'read'}>read (GET only)</option>
                <option value='write' selected={p.typed?.scope === 'write'}>write</option>
              </select>
            </div>
            <button type='submit'>Create key</button>
          </form>
          )
        : null}
      {p.keys.length === 0
        ? <p class='muted'>No keys.</p>
        : (
          <div class='scroll' tabIndex={0} role='region' aria-label='API keys'>
            <table>
              <thead><tr><th scope='col'>Key</th><th scope='col'>Scope</th><th scope='col'>Created</th><th scope='col'>Last used</th><th scope='col'>State</th></tr></thead>
              <tbody>
                {p.keys.map(k => (
                  <tr key={k.id}>
                    <td>{k.name ?? <span class='muted'>unnamed</span>}<div class='key small'>{k.prefix}…</div></td>
                    <td>{k.scope}</td>
                    <td><Time at={k.createdAt} />{k.createdBy ? <div class='small muted'>by {k.createdBy}</div> : null}</td>
                    <td><Time at={k.lastUsedAt} empty='never' /></td>
                    <td>
                      {k.revokedAt
                        ? <>revoked <Time at={k.revokedAt} /></>
                        : admin
                          ? (
                            <details>
                              <summary>Revoke {k.name ?? `${k.prefix}…`}</summary>
                              <form method='post' action={`/app/keys/${k.id}/revoke`}>
                                <Csrf token={p.viewer.csrf} />
                                <p class='small'>What uses this key is refused within 2 seconds, for good: a revoked key cannot be restored.</p>
                                <button type='submit' class='danger'>Revoke {k.name ?? `${k.prefix}…`} for good</button>
                              </form>
                            </details>
                            )
                          : 'active'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          )}
    </Page>
  )
}

export function AccountPage (p: {
  viewer: Viewer
  sessions: Array<{ id: string, user_agent: string | null, ip: string | null, created_at: Date, last_seen_at: Date }>
  current: string
  notice?: string
  error?: string
}) {
  return (
    <Page viewer={p.viewer} title='Your account' section='/app/account' notice={p.notice} error={p.error}>
      <p>Signed in as {p.viewer.email}.</p>
      <h2>Change your password</h2>
      <form method='post' action='/app/account/password' class='card'>
        <Csrf token={p.viewer.csrf} />
        <label for='currentPassword'>Current password</label>
        <input id='currentPassword' name='currentPassword' type='password' autocomplete='current-password' required />
        <label for='password'>New password</label>
        <input id='password' name='password' type='password' autocomplete='new-password' required />
        <p><button type='submit'>Change password</button></p>
      </form>
      <h2>Your sessions</h2>
      <ul>
        {p.sessions.map(s => (
          <li key={s.id}>
            {s.user_agent ?? 'unknown browser'} {s.ip ? `from ${s.ip}` : ''}, last active <Time at={s.last_seen_at} />
            {s.id === p.current ? <strong> (this one)</strong> : null}
          </li>
        ))}
      </ul>
      {p.sessions.length > 1
        ? (
          <form method='post' action='/app/account/sessions/end-others'>
            <Csrf token={p.viewer.csrf} />
            <button type='submit'>Sign out everywhere else</button>
          </form>
          )
        : null}
    </Page>
  )
}
