import { randomBytes } from 'node:crypto'
import type { Db } from './db.js'

/**
 * A secret of the service's own, the same in every process of a deployment: made by the
 * first process that asks, kept in the database.
 */
export async function serviceSecret (db: Db, name: string): Promise<string> {
  await db
    .insertInto('service_secrets')
    .values({ name, value: randomBytes(32).toString('hex') })
    .onConflict(oc => oc.column('name').doNothing())
    .execute()
  const row = await db.selectFrom('service_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow()
  return row.value
}
