// A person's browser without the browser: cookies kept between requests, a form's CSRF token read from the page
// it is on. For tests of the app's answers where Chromium would only add time.

export class FormClient {
  readonly cookies = new Map<string, string>()
  /** Sent with every request (an X-Forwarded-For, to come from another address behind a proxy). */
  headers: Record<string, string> = {}
  constructor (readonly base: string) {}

  /** `from`: the app's page the request is made from, sent as its Referer, as a browser does. */
  async request (method: string, path: string, form?: Record<string, string>, from?: string) {
    const res = await fetch(`${this.base}${path}`, {
      method,
      redirect: 'manual',
      ...(from ? { referrer: `${this.base}${from}` } : {}),
      headers: {
        ...this.headers,
        cookie: [...this.cookies].filter(([, v]) => v !== '').map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {})
      },
      body: form ? new URLSearchParams(form).toString() : undefined
    })
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';')
      const at = pair.indexOf('=')
      this.cookies.set(pair.slice(0, at), pair.slice(at + 1))
    }
    return { status: res.status, location: res.headers.get('location'), text: await res.text() }
  }

  /** Opens the page with the form, then posts it with the page's CSRF token. */
  async submit (formPage: string, action: string, form: Record<string, string>) {
    const shown = await this.request('GET', formPage)
    const csrf = /name="_csrf" value="([^"]+)"/.exec(shown.text)?.[1]
    if (!csrf) throw new Error(`no form on ${formPage} (${shown.status})`)
    return await this.request('POST', action, { ...form, _csrf: csrf }, formPage)
  }

  async signIn (email: string, password: string) {
    return await this.submit('/app/sign-in', '/app/sign-in', { email, password })
  }
}
