import type { Browser, Page } from 'playwright-core'

/** A person signed in to the app at `base`, in a page of its own context at this width and colour scheme. */
export async function signedIn (
  browser: Browser, base: string, who: { email: string, password: string }, width: number, colorScheme: 'light' | 'dark'
): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme, locale: 'en-GB' })
  const page = await context.newPage()
  await page.goto(`${base}/app/sign-in`)
  await page.fill('#email', who.email)
  await page.fill('#password', who.password)
  await page.click('button[type=submit]')
  await page.waitForURL(/\/app\/domains/)
  return page
}
