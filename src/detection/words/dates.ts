import { fold, MONTHS } from './lexicon.js'

// Dates as pages write them, in the seven languages: 2026-11-20, "20. November 2026",
// "3 octobre 2026", "28 de septiembre de 2026", "November 20, 2026", "20/11/2026". Pure.

const ISO_DATE = /\b(\d{4})-(\d{2})-(\d{2})\b/
const MONTH_NAMES = [...MONTHS.keys()].join('|')
const DAY_MONTH_YEAR =
  new RegExp(`\\b(\\d{1,2})\\.?\\s+(?:de\\s+)?(${MONTH_NAMES})\\.?,?\\s+(?:de\\s+)?(\\d{4})\\b`, 'i')
const MONTH_DAY_YEAR = new RegExp(`\\b(${MONTH_NAMES})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'i')
/** Day first, as most of the seven languages write it with slashes or dots (20/11/2026, 20.11.2026). */
const NUMERIC_DATE = /\b(\d{1,2})[./](\d{1,2})[./](\d{4})\b/

/** The date a text writes, as YYYY-MM-DD, and what it was written as. */
export function dateIn (text: string): { iso: string, written: string } | undefined {
  const folded = fold(text)
  const pad = (n: number | string) => String(n).padStart(2, '0')
  let m = ISO_DATE.exec(folded)
  if (m) return { iso: `${m[1]}-${m[2]}-${m[3]}`, written: m[0] }
  m = DAY_MONTH_YEAR.exec(folded)
  if (m) return { iso: `${m[3]}-${pad(MONTHS.get(m[2].toLowerCase())!)}-${pad(m[1])}`, written: m[0] }
  m = MONTH_DAY_YEAR.exec(folded)
  if (m) return { iso: `${m[3]}-${pad(MONTHS.get(m[1].toLowerCase())!)}-${pad(m[2])}`, written: m[0] }
  m = NUMERIC_DATE.exec(folded)
  if (m && Number(m[2]) <= 12 && Number(m[1]) <= 31) return { iso: `${m[3]}-${pad(m[2])}-${pad(m[1])}`, written: m[0] }
  return undefined
}
