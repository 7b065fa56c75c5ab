import { sql, type Expression, type RawBuilder } from 'kysely'

// Rows that cross as one JSON value. The embedded database hands each field of each row to
// JavaScript on its own thread, and the rows are then copied to the main thread: a domain's
// 500 pages took 20 ms as rows and 9 ms as one text value, and the database's one thread is
// what a crawl keeps busy. JSON carries timestamps as text: `dates` names the columns made
// Dates again, as the drivers give them.

/** The rows of `query`, in its order, as one JSON array (text; '[]' when none). */
export function jsonRows (query: Expression<unknown>): RawBuilder<string> {
  return sql<string>`(SELECT coalesce(json_agg(r), '[]')::text FROM (${query}) r)`
}

/** Rows from jsonRows' text, with the columns `dates` as Dates. */
export function rowsFromJson<R> (text: string, dates: readonly string[]): R[] {
  const rows = JSON.parse(text) as Array<Record<string, unknown>>
  for (const row of rows) {
    for (const key of dates) {
      const value = row[key]
      if (typeof value === 'string') row[key] = new Date(value)
    }
  }
  return rows as R[]
}
