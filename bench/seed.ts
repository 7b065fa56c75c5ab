import type { Db } from '../src/store/db.js'
import { createOrg } from '../src/services/orgs.js'

const TYPES = ['pricing', 'features', 'terms', 'security', 'api_docs', 'changelog', 'other'] as const

/**
 * An enterprise organisation with 20 domains of 7 typed, checked pages each and one
 * snapshot (what generated changes point to): the API benchmarks' tenant.
 */
export async function seedTenant (db: Db, name: string) {
  const { org, apiKey } = await createOrg(db, name, 'enterprise')
  const host = (i: number) => `site${String(i).padStart(2, '0')}.example.com`
  const domains = await db
    .insertInto('domains')
    .values(Array.from({ length: 20 }, (_, i) => ({ org_id: org.id, hostname: host(i), status: 'active' as const })))
    .returning('id')
    .execute()
  const pages = await db
    .insertInto('pages')
    .values(domains.flatMap((d, i) => TYPES.map((type, k) => ({
      org_id: org.id,
      domain_id: d.id,
      url: `https://${host(i)}/${type}`,
      url_hash: `${i}-${k}`,
      page_type: type,
      last_check_at: new Date()
    }))))
    .returning(['id', 'domain_id'])
    .execute()
  const snapshot = await db
    .insertInto('snapshots')
    .values({ org_id: org.id, page_id: pages[0].id, content_hash: 'x', content: 'x', http_status: 200 })
    .returning('id')
    .executeTakeFirstOrThrow()
  return { org, apiKey, domains, pages, snapshotId: snapshot.id }
}
