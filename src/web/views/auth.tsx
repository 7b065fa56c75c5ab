import type { ComponentChildren } from 'preact'
import { Csrf, Document } from './layout.js'

// The pages before signing in: sign-in, the first owner's account, an invitation, a reset.

function AuthPage (props: { title: string, error?: string, notice?: string, goTo?: string, children: ComponentChildren }) {
  return (
    <Document title={props.title} goTo={props.goTo}>
      <main id='main' class='auth'>
        <p><strong>Sitewatch</strong></p>
        <h1>{props.title}</h1>
        {props.notice ? <p class='notice' role='status'>{props.notice}</p> : null}
        {props.error ? <p class='notice error' role='alert'>{props.error}</p> : null}
        <div class='card'>{props.children}</div>
      </main>
    </Document>
  )
}

const Field = (p: { id: string, label: string, type?: 'text' | 'email' | 'password', value?: string, autocomplete?: string, required?: boolean }) => (
  <>
    <label for={p.id}>{p.label}</label>
    <input
      id={p.id} name={p.id} type={(p.type ?? 'text') as 'text'} value={p.value} autocomplete={p.autocomplete}
      required={p.required ?? true} size={30}
    />
  </>
)

export function SignIn (p: { csrf: string, email?: string, error?: string, notice?: string, next?: string }) {
  return (
    <AuthPage title='Sign in' error={p.error} notice={p.notice}>
      <form method='post' action='/app/sign-in'>
        <Csrf token={p.csrf} />
        {p.next ? <input type='hidden' name='next' value={p.next} /> : null}
        <Field id='email' label='Email' type='email' value={p.email} autocomplete='username' />
        <Field id='password' label='Password' type='password' autocomplete='current-password' />
        <p><button type='submit'>Sign in</button></p>
      </form>
      <p class='small'><a href='/app/reset'>Forgot your password?</a></p>
      <form method='post' action='/app/sso/start' class='sso'>
        <h2>Single sign-on</h2>
        <p class='small muted'>If your company signs you in through its identity provider, give your work e-mail.</p>
        <Csrf token={p.csrf} />
        {p.next ? <input type='hidden' name='next' value={p.next} /> : null}
        <label for='sso-email'>Work e-mail</label>
        <input id='sso-email' name='email' type='email' value={p.email} autocomplete='username' required size={30} />
        <p><button type='submit' class='quiet'>Continue with single sign-on</button></p>
      </form>
    </AuthPage>
  )
}

/** A single sign-on the provider answered and Sitewatch refused: why, and the way back. */
export function SsoRefusedPage (p: { message: string }) {
  return (
    <AuthPage title='Single sign-on did not sign you in' error={p.message}>
      <p><a href='/app/sign-in'>Back to sign-in</a></p>
    </AuthPage>
  )
}

/**
 * The step from the sign-in form to the provider: a page of this site that goes on at once.
 * A browser applies the form's `form-action 'self'` to every redirect that answers the
 * form, so the form's answer cannot send it to the provider; this page's own navigation can.
 */
export function SsoLeaving (p: { to: string }) {
  const provider = new URL(p.to).origin
  return (
    <AuthPage title='Signing you in' goTo={p.to}>
      <p>Taking you to your organisation's identity provider, <strong class='breakable'>{provider}</strong>…</p>
      <p><a href={p.to}>Continue to {provider}</a></p>
    </AuthPage>
  )
}

/**
 * An identity the provider vouched for, whose address already has an account here: its
 * person proves the account once (its password, or a link mailed to it) before the two are linked.
 */
export function SsoProveAccount (p: { csrf: string, token: string, email: string, hasPassword: boolean, error?: string, notice?: string }) {
  return (
    <AuthPage title='Link your account' error={p.error} notice={p.notice}>
      <p>
        Your identity provider signed you in as <strong class='breakable'>{p.email}</strong>, and Sitewatch already has
        an account for that address. Prove once that it is yours, and your provider signs you in to it from then on.
      </p>
      {p.hasPassword
        ? (
          <form method='post' action='/app/sso/link'>
            <Csrf token={p.csrf} />
            <input type='hidden' name='token' value={p.token} />
            <input type='hidden' name='email' value={p.email} autocomplete='username' />
            <Field id='password' label='Its password' type='password' autocomplete='current-password' />
            <p><button type='submit'>Link and sign in</button></p>
          </form>
          )
        : null}
      <form method='post' action='/app/sso/link/mail'>
        <Csrf token={p.csrf} />
        <input type='hidden' name='token' value={p.token} />
        <p><button type='submit' class={p.hasPassword ? 'quiet' : undefined}>E-mail me a link instead</button></p>
      </form>
      <p class='small'><a href='/app/sign-in'>Back to sign-in</a></p>
    </AuthPage>
  )
}

/** A mailed link that links a provider identity to its account: one press uses it (a mail scanner's visit does not). */
export function SsoLinkMailed (p: { csrf: string, action: string, email: string }) {
  return (
    <AuthPage title='Link your account'>
      <p>Link <strong class='breakable'>{p.email}</strong> to your organisation's identity provider, and sign in.</p>
      <form method='post' action={p.action}>
        <Csrf token={p.csrf} />
        <p><button type='submit'>Link and sign in</button></p>
      </form>
    </AuthPage>
  )
}

/** The first owner's form, and an invitation's: a new account (or the password of an existing one). */
export function CreateAccount (p: {
  csrf: string
  action: string
  title: string
  intro: string
  email?: string
  emailFixed?: boolean
  error?: string
}) {
  return (
    <AuthPage title={p.title} error={p.error}>
      <p>{p.intro}</p>
      <form method='post' action={p.action}>
        <Csrf token={p.csrf} />
        <label for='email'>Email</label>
        <input
          id='email' name='email' type='email' value={p.email} readOnly={p.emailFixed} required
          autocomplete='username' size={30}
        />
        <Field id='name' label='Name (optional)' autocomplete='name' required={false} />
        <Field id='password' label='Password' type='password' autocomplete='new-password' />
        <p class='small muted'>At least 10 characters. If this e-mail already has an account, enter its password.</p>
        <p><button type='submit'>Create account</button></p>
      </form>
    </AuthPage>
  )
}

/** An invitation whose address signs in only through the organisation's provider: no password, the provider's way in. */
export function SsoInvitation (p: { csrf: string, email: string, role: string, error?: string }) {
  return (
    <AuthPage title='Join an organisation' error={p.error}>
      <p>
        You are invited to join as {p.role}. The organisation signs its people in through its identity provider:
        continue with single sign-on as <strong>{p.email}</strong>, and your first sign-in joins you.
      </p>
      <form method='post' action='/app/sso/start'>
        <Csrf token={p.csrf} />
        <input type='hidden' name='email' value={p.email} />
        <p><button type='submit'>Continue with single sign-on</button></p>
      </form>
    </AuthPage>
  )
}

export function LinkGone () {
  return (
    <AuthPage title='This link no longer works'>
      <p>It has expired or was already used. Ask for a new one, or <a href='/app/sign-in'>sign in</a>.</p>
    </AuthPage>
  )
}

export function ResetRequest (p: { csrf: string, notice?: string, error?: string }) {
  return (
    <AuthPage title='Reset your password' notice={p.notice} error={p.error}>
      <form method='post' action='/app/reset'>
        <Csrf token={p.csrf} />
        <Field id='email' label='Email' type='email' autocomplete='username' />
        <p><button type='submit'>Send a reset link</button></p>
      </form>
      <p class='small'><a href='/app/sign-in'>Back to sign-in</a></p>
    </AuthPage>
  )
}

export function ResetForm (p: { csrf: string, action: string, error?: string }) {
  return (
    <AuthPage title='Choose a new password' error={p.error}>
      <form method='post' action={p.action}>
        <Csrf token={p.csrf} />
        <Field id='password' label='New password' type='password' autocomplete='new-password' />
        <p><button type='submit'>Set password</button></p>
      </form>
    </AuthPage>
  )
}

/** The unsubscribe link of an alert e-mail: a button (a link alone must not change anything: mail scanners follow links). */
export function Unsubscribe (p: { action: string, email: string, orgName: string, done: boolean }) {
  return (
    <AuthPage title={p.done ? 'E-mail alerts are off' : 'Turn off e-mail alerts'}>
      {p.done
        ? <p role='status'>{p.email} gets no more alert e-mails from {p.orgName}. Turn them back on in <a href='/app/alerts'>Alerts</a>.</p>
        : (
          <form method='post' action={p.action}>
            <p>Stop the alert e-mails that {p.email} gets from {p.orgName} on Sitewatch?</p>
            <button type='submit'>Turn off e-mail alerts</button>
          </form>
          )}
    </AuthPage>
  )
}
