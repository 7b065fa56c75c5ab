// A snapshot's text, as extraction writes it (detection/text/extract.ts): one block of the
// page per line, its kind marked at its start — a heading ("## Pricing", its level by
// the number of #), a list item ("- SSO"), a table row ("| Pro | $49/month |") or text.
// The one place that writes and parses those marks: the comparison, the readers, the
// change's page, research and the app all read lines through it.

const HEADING = /^(#{1,6}) (.*)$/

export type LineKind = 'heading' | 'item' | 'row' | 'text'

export interface ParsedLine {
  kind: LineKind
  /** A heading's level, 1–6. */
  level?: number
  /** The line without its mark: a heading's or an item's words, a row's cells joined by " | ". */
  text: string
  /** A row's cells. */
  cells?: string[]
}

export const isHeading = (line: string): boolean => HEADING.test(line)
export const isItem = (line: string): boolean => line.startsWith('- ')
export const isRow = (line: string): boolean => line.startsWith('| ') && line.endsWith(' |')
/** An item or a row: a line of a list or a table. */
export const isListed = (line: string): boolean => isItem(line) || line.startsWith('| ')

/** A heading's words (the line itself when it is none). */
export const headingText = (line: string): string => HEADING.exec(line)?.[2] ?? line
/** A heading's level, 1–6 (undefined when the line is none). */
export const headingLevel = (line: string): number | undefined => HEADING.exec(line)?.[1].length

/** A row's cells, or null for a line that is no row. */
export const cellsOf = (line: string): string[] | null => line.startsWith('| ') ? line.slice(2, -2).split(' | ') : null

export function parseLine (line: string): ParsedLine {
  const h = HEADING.exec(line)
  if (h) return { kind: 'heading', level: h[1].length, text: h[2] }
  if (isItem(line)) return { kind: 'item', text: line.slice(2) }
  const cells = cellsOf(line)
  if (cells) return { kind: 'row', text: cells.join(' | '), cells }
  return { kind: 'text', text: line }
}

/** A line as it reads, without its marks: a row's cells joined by commas, empty cells left out. */
export function plain (line: string): string {
  const cells = cellsOf(line)
  if (cells) return cells.filter(Boolean).join(', ')
  return line.replace(/^(?:#{1,6}|-) /, '')
}

/** How extraction writes a block: a heading of `level`, an item (level 0), or text (no level). */
export const writeLine = (text: string, level?: number): string =>
  level === undefined ? text : level === 0 ? `- ${text}` : `${'#'.repeat(level)} ${text}`

/** How extraction writes a table's row. */
export const writeRow = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`
