import { SSO_ROLES, type SsoSettings } from '../../vocabulary/sso.js'
import { Csrf, Page, type Viewer } from './layout.js'

// The organisation's single sign-on, for its owners: the provider, the domains it vouches
// for, the role a first sign-in gives, whether passwords are refused.

export function SsoPage (p: {
  viewer: Viewer
  settings: SsoSettings | null
  redirectUri: string
  backchannelLogoutUri: string
  allowed: boolean
  notice?: string
  error?: string
  form?: Partial<Record<'issuer' | 'clientId' | 'domains' | 'defaultRole', string>> & { required?: boolean }
}) {
  const s = p.settings
  const f = p.form ?? {}
  return (
    <Page viewer={p.viewer} title='Single sign-on' section='/app/sso' notice={p.notice} error={p.error}>
      <p>
        People whose e-mail is of your company's domains sign in through your identity provider (OpenID Connect). The
        first time, they join {p.viewer.org.name} with the role you choose; someone removed at the provider cannot
        sign in again. Every change here, and every sign-in, is in the <a href='/app/audit'>audit log</a>.
      </p>
      {!p.allowed
        ? <p class='notice'>The {p.viewer.org.plan} plan does not include single sign-on: it comes with enterprise.</p>
        : (
          <form method='post' action='/app/sso' class='card'>
            <Csrf token={p.viewer.csrf} />
            <p class='small'>
              At your provider, register a web client with this redirect URI: <code>{p.redirectUri}</code>; and, if it
              offers back-channel logout, this logout URI: <code>{p.backchannelLogoutUri}</code> (a person signed out or
              removed there is signed out here).
            </p>
            <label for='sso-issuer'>Issuer</label>
            <input
              id='sso-issuer' name='issuer' type='url' required size={40} placeholder='https://login.example.com'
              value={f.issuer ?? s?.issuer} aria-describedby='sso-issuer-hint'
            />
            <p class='small muted' id='sso-issuer-hint'>Exactly as your provider writes it, a trailing slash included.</p>
            <label for='sso-client'>Client ID</label>
            <input id='sso-client' name='clientId' required size={40} value={f.clientId ?? s?.clientId} />
            <label for='sso-secret'>Client secret</label>
            <input
              id='sso-secret' name='clientSecret' type='password' autocomplete='off' size={40} required={!s}
              placeholder={s ? 'saved: leave empty to keep it' : ''}
            />
            <label for='sso-domains'>E-mail domains it vouches for</label>
            <input
              id='sso-domains' name='domains' required size={40} placeholder='example.com, example.co.uk'
              value={f.domains ?? s?.domains.join(', ')}
            />
            <label for='sso-role'>Role of a person who signs in the first time</label>
            <select id='sso-role' name='defaultRole'>
              {SSO_ROLES.map(r => <option key={r} value={r} selected={(f.defaultRole ?? s?.defaultRole ?? 'viewer') === r}>{r}</option>)}
            </select>
            <p>
              <label>
                <input type='checkbox' name='required' value='1' checked={f.required ?? s?.required ?? false} /> Require it:
                members of these domains sign in only through the provider, and the sessions their passwords opened
                end (owners keep their password, a way back in; guests of other domains keep theirs)
              </label>
            </p>
            <p><button type='submit'>{s ? 'Save' : 'Turn on single sign-on'}</button></p>
          </form>
          )}
      {s && p.allowed ? <DomainProofs settings={s} csrf={p.viewer.csrf} /> : null}
      {s
        ? (
          <form method='post' action='/app/sso/delete' class='card'>
            <Csrf token={p.viewer.csrf} />
            <p>
              Turning it off lets members sign in with a password again; those who never had one reset one. The
              sessions the provider opened end.
            </p>
            <button type='submit' class='danger'>Turn off single sign-on</button>
          </form>
          )
        : null}
    </Page>
  )
}

/** Each claimed domain: the DNS record that proves it, whether it is proven, and a look now. */
function DomainProofs (p: { settings: SsoSettings, csrf: string }) {
  return (
    <section class='card' aria-labelledby='sso-proofs'>
      <h2 id='sso-proofs'>Prove your domains</h2>
      <p>
        A domain signs its people in once you prove {p.settings.domainProofs.length === 1 ? 'it is' : 'they are'} yours:
        publish this TXT record in its DNS, then check. Proven domains are looked at again each day.
        {p.settings.clientAuth ? <> Sitewatch authenticates at your provider with <code>{p.settings.clientAuth}</code>.</> : null}
      </p>
      <ul class='results'>
        {p.settings.domainProofs.map(d => (
          <li key={d.domain}>
            <strong class='breakable'>{d.domain}</strong>: {d.verified
              ? 'proven'
              : <span class='warn'>not proven yet: it signs nobody in</span>}
            {d.verified
              ? null
              : (
                <>
                  <br />Name <code>{d.txtName}</code>, value <code>{d.txtValue}</code>
                  {d.problem ? <><br /><span class='small muted'>Last look: {d.problem}</span></> : null}
                </>
                )}
            <form method='post' action='/app/sso/domains/check'>
              <Csrf token={p.csrf} />
              <input type='hidden' name='domain' value={d.domain} />
              <button type='submit' class='quiet' aria-label={`Check ${d.domain} now`}>Check now</button>
            </form>
          </li>
        ))}
      </ul>
    </section>
  )
}
