import { francAll } from 'franc-min'
import { LANGUAGES, type Language } from './lexicon.js'
import { isHeading } from '../../vocabulary/lines.js'

const BY_ISO3: Record<string, Language> = {
  eng: 'en', fra: 'fr', deu: 'de', spa: 'es', ita: 'it', nld: 'nl', por: 'pt'
}
const ISO3 = Object.keys(BY_ISO3)
/** Below this many letters of running text, what a page declares is all there is to go by. */
const ENOUGH_TEXT = 200
/** How close (franc's scores, the best being 1) the declared language must come to be believed. */
const CLOSE_ENOUGH = 0.9

/**
 * One of the lexicon's languages from a language tag ("fr-CH" → fr). A Content-Language
 * that lists several languages names none of them.
 */
export function languageOfTag (tag: string | null | undefined): Language | undefined {
  if (!tag || tag.includes(',')) return undefined
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0]
  return (LANGUAGES as readonly string[]).includes(primary) ? primary as Language : undefined
}

/**
 * The language a page is written in, of the lexicon's seven: what it declares (`<html lang>`,
 * else Content-Language) when its running text agrees or is too short to tell, else what its
 * text reads as. Templates often declare `en` on every page whatever its language, so the
 * text has the last word.
 */
export function pageLanguage (page: {
  declared?: string | null
  contentLanguage?: string | null
  lines: readonly string[]
}): Language | undefined {
  const stated = languageOfTag(page.declared) ?? languageOfTag(page.contentLanguage)
  const sample = runningText(page.lines)
  if (sample.replace(/[^\p{L}]/gu, '').length < ENOUGH_TEXT) return stated
  const scores = francAll(sample, { only: ISO3 })
  if (stated && (scores.find(([iso]) => BY_ISO3[iso] === stated)?.[1] ?? 0) >= CLOSE_ENOUGH) return stated
  return BY_ISO3[scores[0][0]] ?? stated
}

/** Sentences rather than menus and headings, which are often English on any page: franc reads 2,048 characters. */
function runningText (lines: readonly string[]): string {
  let out = ''
  for (const line of lines) {
    if (isHeading(line) || line.split(' ').length < 6) continue
    out += `${line} `
    if (out.length >= 2048) break
  }
  return out
}
