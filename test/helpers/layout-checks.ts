import type { Page } from 'playwright-core'

/**
 * The severities, hosts and paths in the page's tables that are cut mid-word ("medi-um",
 * "/pricin-g"): a line of theirs ends other than after a space, a slash, a dot or a hyphen.
 */
export async function wordsCut (page: Page): Promise<string[]> {
  return await page.evaluate(() => [...document.querySelectorAll('td .sev, td a')].flatMap(e => {
    const text = document.createTreeWalker(e, NodeFilter.SHOW_TEXT)
    const chars: Array<{ c: string, top: number }> = []
    for (let n = text.nextNode(); n; n = text.nextNode()) {
      for (let i = 0; i < (n.textContent ?? '').length; i++) {
        const range = document.createRange()
        range.setStart(n, i)
        range.setEnd(n, i + 1)
        chars.push({ c: n.textContent![i], top: range.getBoundingClientRect().top })
      }
    }
    const breaks = chars.slice(1).filter((ch, i) => ch.top > chars[i].top + 1 && !/[\s/.-]/.test(chars[i].c))
    return breaks.length > 0 ? [e.textContent ?? ''] : []
  }))
}
