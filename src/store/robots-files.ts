import { sql } from 'kysely'
import type { Db } from './db.js'

// The robots.txt files the fleet read, by origin, until their cache time ends (see crawl/robots.ts).

export async function readRobotsFile (
  db: Db, origin: string
): Promise<{ body: string, expiresAt: number } | undefined> {
  const row = await db.selectFrom('robots_files').select(['body', 'expires_at'])
    .where('origin', '=', origin).executeTakeFirst()
  return row ? { body: row.body, expiresAt: row.expires_at.getTime() } : undefined
}

export async function writeRobotsFile (db: Db, origin: string, body: string, expiresAt: number): Promise<void> {
  await sql`INSERT INTO robots_files (origin, body, expires_at) VALUES (${origin}, ${body}, ${new Date(expiresAt)})
    ON CONFLICT (origin) DO UPDATE SET body = EXCLUDED.body, expires_at = EXCLUDED.expires_at`.execute(db)
}

/** Forgets the files whose cache time ended a day ago or more (a host no longer watched). */
export async function forgetOldRobotsFiles (db: Db, now = new Date()): Promise<void> {
  await db.deleteFrom('robots_files').where('expires_at', '<', new Date(now.getTime() - 86_400_000)).execute()
}
