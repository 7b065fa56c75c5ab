// A research brief of a domain with BENCH_RESEARCH_PAGES pages (default 500) and
// BENCH_RESEARCH_CHANGES changes (default 10,000), on the embedded database: the CPU of
// reading its inputs (the store's statements) and of building it (the analysis thread's
// work, run here), beside a reference measured in the same run: one plain SELECT of the
// same pages' texts and the changes' rows, the least any brief must read.
import { gzipSync } from 'node:zlib'
import { sql } from 'kysely'
import { readPage } from '../src/detection/detect.js'
import { loadConfig } from '../src/config.js'
import { brief } from '../src/pipeline/analysis-thread.js'
import { startService } from '../src/service.js'
import { createOrg } from '../src/services/orgs.js'
import { researchInputs } from '../src/store/research.js'
import { pageHtml } from './site.js'

const DAY = 86_400_000
const fmt = (n: number, d = 0) => n.toFixed(d)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** CPU milliseconds (user + system, every thread of the process: the embedded database's too) of `work`. */
async function cpu<T> (work: () => Promise<T> | T): Promise<{ value: T, cpuMs: number, wallMs: number }> {
  const c = process.cpuUsage()
  const t = performance.now()
  const value = await work()
  const used = process.cpuUsage(c)
  return { value, cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - t }
}

const spec = (operations: number) => JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'Bench API', version: '1' },
  paths: Object.fromEntries(Array.from({ length: operations / 2 }, (_, i) => [`/v1/things${i}/{id}`, {
    get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'ok' } } },
    delete: { responses: { 204: { description: 'gone' } } }
  }]))
})

const changelog = (now: number) => '<html lang="en"><head><title>Changelog — Benchco</title></head><body><h1>Changelog</h1>' +
  Array.from({ length: 60 }, (_, i) => {
    const d = new Date(now - i * 4 * DAY).toISOString().slice(0, 10)
    return `<h2>[3.${60 - i}.0] - ${d}</h2><h3>Added</h3><ul><li>Feature ${i} for teams.</li><li>Export ${i}.</li></ul>`
  }).join('') + '</body></html>'

const features = (version: number) => '<html lang="en"><head><title>Features — Benchco</title></head><body><h1>Features</h1>' +
  Array.from({ length: 8 }, (_, g) => `<h2>Group ${g}</h2><ul>${Array.from({ length: 12 }, (_, k) =>
    `<li>Feature ${g}.${k}${(g + k + version) % 9 === 0 ? ' (new)' : ''}</li>`).join('')}</ul>`).join('') +
  '<p>SOC 2 Type II, ISO 27001 certified. GDPR compliant, with SAML single sign-on.</p></body></html>'

export async function researchBenchmark (): Promise<void> {
  const pageCount = Number(process.env.BENCH_RESEARCH_PAGES ?? 500)
  const changeCount = Number(process.env.BENCH_RESEARCH_CHANGES ?? 10_000)
  const config = loadConfig({ DATA_DIR: 'memory://', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ROLE: 'api' })
  const service = await startService(config, { logger: false, onBootstrapKey: () => {}, onSetupLink: () => {} })
  try {
    const db = service.store.db
    const now = Date.now()
    const { org } = await createOrg(db, 'research-bench', 'enterprise')
    const domain = await db.insertInto('domains').values({ org_id: org.id, hostname: 'benchco.example', status: 'active' })
      .returning(['id', 'hostname']).executeTakeFirstOrThrow()
    const typeOf = (i: number) => i === 0
      ? 'other'
      : i <= 5 ? 'pricing' : i <= 10 ? 'features' : i <= 15 ? 'changelog' : i <= 20 ? 'api_docs' : i <= 30 ? 'terms' : i <= 40 ? 'security' : 'other'
    const pages = await db.insertInto('pages').values(Array.from({ length: pageCount }, (_, i) => ({
      org_id: org.id,
      domain_id: domain.id,
      url: i === 0 ? 'https://benchco.example/' : `https://benchco.example/${typeOf(i)}/${i}`,
      url_hash: `h${i}`,
      page_type: typeOf(i),
      priority: typeOf(i) === 'other' ? 5 : 1
    }))).returning(['id', 'page_type']).execute()
    const document = gzipSync(spec(1000))
    for (const [i, page] of pages.entries()) {
      const versions = page.page_type === 'features' ? [120, 45, 0] : [0]
      for (const age of versions) {
        const html = page.page_type === 'changelog'
          ? changelog(now)
          : page.page_type === 'features' ? features(age) : pageHtml(i, 0, false)
        await db.insertInto('snapshots').values({
          page_id: page.id,
          org_id: org.id,
          content_hash: `${i}-${age}`,
          content: readPage(html).text,
          raw_html_gzip: gzipSync(html, { level: 1 }),
          http_status: 200,
          content_type: 'text/html; charset=utf-8',
          created_at: new Date(now - age * DAY),
          ...(page.page_type === 'api_docs'
            ? { document_url: 'https://benchco.example/openapi.json', document_gzip: document, document_type: 'application/json' }
            : {})
        }).execute()
      }
    }
    // The changes, spread over 90 days: every seventh a price change read as a table, the
    // API pages' with breaking operations.
    await sql`
      INSERT INTO changes (page_id, domain_id, org_id, change_type, severity, confidence, summary, diff_data,
        snapshot_before_id, snapshot_after_id, created_at, alerted_at)
      SELECT p.id, ${domain.id}::uuid, ${org.id}::uuid,
        (ARRAY['price_change','feature_added','feature_removed','terms_update','section_added','section_removed',
          'content_change'])[1 + g % 7],
        (ARRAY['low','low','medium','medium','high','critical'])[1 + (g / 7) % 6],
        0.80, 'Change ' || g || ' of the page: its wording moved',
        CASE WHEN g % 7 = 0 THEN jsonb_build_object('before', '', 'after', '', 'hunks', '[]'::jsonb,
            'stats', jsonb_build_object('additions', 1, 'deletions', 1, 'changes', 1),
            'pricing', jsonb_build_object('changes', jsonb_build_array(jsonb_build_object('kind', 'price_up',
              'plan', 'Pro', 'before', '$49/month', 'after', '$59/month', 'percent', 20,
              'summary', 'Pro: $49/month → $59/month (+20%)'))))
          WHEN p.page_type = 'api_docs' THEN jsonb_build_object('before', '', 'after', '', 'hunks', '[]'::jsonb,
            'stats', jsonb_build_object('additions', 1, 'deletions', 1, 'changes', 1),
            'api', jsonb_build_object('breaking', jsonb_build_array(jsonb_build_object('method', 'GET',
              'path', '/v1/things' || g, 'change', 'removed')), 'nonBreaking', '[]'::jsonb, 'deprecated', '[]'::jsonb))
          ELSE jsonb_build_object('before', repeat('old words ', 40), 'after', repeat('new words ', 40),
            'hunks', '[]'::jsonb, 'stats', jsonb_build_object('additions', 1, 'deletions', 1, 'changes', 1))
        END,
        s.id, s.id, ${new Date(now)}::timestamptz - (g % 90) * interval '1 day' - (g % 1440) * interval '1 minute', now()
      FROM generate_series(0, ${changeCount - 1}) AS g
      JOIN LATERAL (SELECT id, page_type FROM pages WHERE domain_id = ${domain.id}
        ORDER BY id OFFSET (g % ${pageCount}) LIMIT 1) p ON true
      JOIN LATERAL (SELECT id FROM snapshots WHERE page_id = p.id LIMIT 1) s ON true`.execute(db)

    console.log(`\n== A research brief: ${pageCount} pages, ${changeCount.toLocaleString('en')} changes (PGlite)`)
    const runs: Array<{ load: number, build: number, wall: number, heap: number }> = []
    let sections = ''
    for (let run = 0; run < 3; run++) {
      const heapBefore = process.memoryUsage().heapUsed
      const load = await cpu(() => researchInputs(db, domain, null, new Date(now)))
      const built = await cpu(() => brief(load.value))
      runs.push({
        load: load.cpuMs,
        build: built.cpuMs,
        wall: load.wallMs + built.wallMs,
        heap: (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20
      })
      sections = Object.entries(built.value.sections!).map(([k, s]) => `${k} ${s.included ? 'in' : 'out'}`).join(', ')
    }
    const reference = await cpu(async () => {
      await sql`SELECT content FROM snapshots WHERE page_id IN (SELECT id FROM pages WHERE domain_id = ${domain.id})`.execute(db)
      await sql`SELECT id, page_id, change_type, severity, summary, created_at FROM changes
        WHERE domain_id = ${domain.id}`.execute(db)
    })
    const cpuMs = median(runs.map(r => r.load + r.build))
    console.log(`  brief: CPU ${fmt(cpuMs)} ms (reading the store ${fmt(median(runs.map(r => r.load)))} ms, building ` +
      `${fmt(median(runs.map(r => r.build)))} ms), wall ${fmt(median(runs.map(r => r.wall)))} ms, heap ` +
      `+${fmt(Math.max(...runs.map(r => r.heap)), 1)} MB at most; target: under 2,000 ms of CPU`)
    console.log('  reference, in this run: one SELECT of the pages\' texts and the changes\' rows: CPU ' +
      `${fmt(reference.cpuMs)} ms, wall ${fmt(reference.wallMs)} ms`)
    console.log(`  sections: ${sections}`)
  } finally {
    await service.stop()
  }
}
