import type { DiffData } from '../vocabulary/core.js'

/**
 * What a structured reader saw in a change, a line each, for messages that list it
 * under the summary: a pricing page's moves, an API description's changes (breaking
 * first), a changelog entry's items. Empty for a change of text only.
 */
export function structuredDetails (diffData: Partial<DiffData> | undefined): string[] {
  if (diffData?.pricing) return diffData.pricing.changes.map(c => c.summary)
  if (diffData?.api) {
    const { breaking, deprecated, nonBreaking } = diffData.api
    return [...breaking, ...deprecated, ...nonBreaking].map(c => `${c.method} ${c.path} ${c.change}`)
  }
  return diffData?.changelog?.items ?? []
}
