import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import assert from 'node:assert/strict'
import { AxeBuilder } from '@axe-core/playwright'
import chromium from '@sparticuz/chromium'
import { chromium as playwright, type Browser, type Locator, type Page, type PageScreenshotOptions } from 'playwright-core'
import { shippedChromium } from '../../src/crawl/chromium.js'

/** The project's Chromium, one process per page (not the single process @sparticuz/chromium suggests for Lambda). */
export async function launchBrowser (): Promise<Browser> {
  const args = chromium.args.filter(a => a !== '--single-process' && a !== '--no-zygote')
  return await playwright.launch({ executablePath: await shippedChromium(), args, headless: true })
}

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

/**
 * Fails with axe's serious and critical violations on what `page` shows (with `every`, all of them).
 * Axe runs in the page itself (its legacy mode): by default each analysis also opens a blank page to
 * merge the results of frames, which took more than half of its time (1.24 s against 0.53 s a view),
 * and the app's views have no frames.
 */
export async function assertAccessible (page: Page, { every = false } = {}): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).setLegacyMode(true).analyze()
  const counted = every ? violations : violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
  assert.deepEqual(counted.map(v => `${v.id}: ${v.nodes.map(n => n.target.join(' ')).join(', ')}`), [], page.url())
}

/** Where pictures go when asked for (`npm run screenshots`); none: the suite takes none. */
const SHOTS = process.env.SHOTS

/** Whether pictures are taken (see shot): a test need not reach a view only to picture it. */
export const takingShots = Boolean(SHOTS)

/**
 * A picture of `target`, named `name`, taken only when SHOTS names a directory: in every run
 * they cost the suite time twice (one pass per database) and rewrote the docs' pictures in
 * the working tree. `docs`: one of the docs' pictures, written to docs/ itself.
 */
export async function shot (
  target: Page | Locator, name: string, options: Pick<PageScreenshotOptions, 'fullPage' | 'clip'> & { docs?: boolean } = {}
): Promise<void> {
  if (!SHOTS) return
  const { docs, ...taken } = options
  const path = docs ? join('docs', `${name}.png`) : join(SHOTS, `${name}.png`)
  mkdirSync(dirname(path), { recursive: true })
  if ('goto' in target) await target.screenshot({ path, ...taken })
  else await target.screenshot({ path })
}
