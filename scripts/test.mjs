// The test suite, as `npm test` runs it. Most test files run three at a time, the longest first:
// each waits on its own servers, sites, browser and database a good part of its time, and the
// suite has to fit CI twice (embedded database, then PostgreSQL). After them, the files that
// measure time against a promise (MEASURED: another tenant's wait beside an attack, a stop
// within its seconds, the gaps between requests to a host as the host sees them) run one at a
// time, so that what they measure is the service; beside them, two at a time, run the files that
// wait on clocks and check only end states (WAITING: outages, a frozen worker), which keep less
// than a core busy: a busy core beside is what every file must pass with. (The fleet's gaps,
// seen beside the hostile sites, came 176 ms apart for 200: the site's thread heard a request late.)
// With file arguments, only those files run, the same way; with --on-every-database, only
// ON_EVERY_DATABASE's (CI's second pass, on PostgreSQL and Redis under Node.js 24).
// The files run compiled: src and test are built into .build/test first (incrementally), for
// under tsx every test process, and every thread and child of the services it starts, compiled
// the code again (about a second and a half of a core each). A file can still be run alone
// under tsx: `node --import tsx --test test/x.test.ts`.
import { spawn, spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, renameSync, statSync, symlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const MEASURED = [
  'test/crawl/fleet.test.ts',
  'test/pipeline/abuse.test.ts',
  'test/pipeline/analysis.test.ts',
  'test/pipeline/recovery.test.ts',
  'test/resilience/hostile-sites.test.ts'
]
const WAITING = [
  'test/resilience/frozen-worker.test.ts',
  'test/resilience/outage.test.ts'
]
const TIMED = [...MEASURED, ...WAITING]

// The files whose behaviour depends on the database or its neighbours: SQL that PGlite and
// PostgreSQL run apart (the queue's fetches and fences, the pace of hosts, pagination, the
// data version's triggers), processes that share one database (NOTIFY, the sweep, the
// fleet), outages, and the rate limits' Redis store. CI runs them on both databases; every
// other file reads and writes through the same statements whatever the database, and runs once.
// (The store's own tests of PGlite, of an upgrade on PGlite and of the data versions' bookkeeping open no server.)
const ON_EVERY_DATABASE = [
  'test/store/host-pace.test.ts',
  'test/store/pages.test.ts',
  'test/store/pooler.test.ts',
  'test/store/schema.test.ts',
  'test/store/vacuum.test.ts',
  'test/queue/',
  'test/resilience/',
  'test/crawl/fleet.test.ts',
  'test/crawl/polite.test.ts',
  'test/crawl/robots-files.test.ts',
  'test/api/audit.test.ts',
  'test/api/conditional.test.ts',
  'test/api/contract.test.ts',
  'test/api/history-lists.test.ts',
  'test/api/limits.test.ts',
  'test/api/metrics.test.ts',
  'test/api/tenancy.test.ts',
  'test/alerts/fair-deliveries.test.ts',
  'test/alerts/webhooks.test.ts',
  'test/browser/renderer.test.ts',
  'test/pipeline/recovery.test.ts',
  'test/web/operators.test.ts',
  'test/web/sso.test.ts'
]

const started = performance.now()
const minutes = ms => `${Math.floor(ms / 60_000)} min ${Math.floor(ms % 60_000 / 1000)} s`

const OUT = '.build/test'

/** Builds src and test into OUT (unless `built`: npm run typecheck did); the fixtures are read where they are. */
function compile (built) {
  const since = performance.now()
  if (!built) {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
    const { status } = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.test.json'], { stdio: 'inherit' })
    // A type error is the type-check's to report (npm run typecheck, in CI): the code still runs.
    if (status !== 0) console.log('# tsc reported the errors above; the suite runs what it emitted')
  }
  for (const dir of ['test/detection/fixtures']) {
    // Made aside and renamed over the last one: the other pass may be starting beside this one (CI).
    const aside = `${OUT}/${dir}.${process.pid}`
    symlinkSync(fileURLToPath(new URL(`../${dir}`, import.meta.url)), aside)
    renameSync(aside, `${OUT}/${dir}`)
  }
  if (!built) console.log(`# compiled src and test into ${OUT} in ${minutes(performance.now() - since)}`)
}

/**
 * Runs `files` (test/….test.ts, compiled) with `concurrency` test processes at once; resolves true when
 * every test passed. A run `held` prints its report once it ends, so that two runs at once do not interleave.
 */
async function run (files, concurrency, { held = false } = {}) {
  if (files.length === 0) return true
  const since = performance.now()
  const child = spawn(process.execPath,
    ['--enable-source-maps', fileURLToPath(new URL('test-files.mjs', import.meta.url)), String(concurrency),
      ...files.map(f => `${OUT}/${f.replace(/\.ts$/, '.js')}`)], { stdio: ['ignore', held ? 'pipe' : 'inherit', 'inherit'] })
  const report = []
  child.stdout?.on('data', chunk => report.push(chunk))
  const status = await new Promise(resolve => child.on('close', resolve))
  if (held) process.stdout.write(Buffer.concat(report))
  console.log(`# ${files.length} test files, ${concurrency} at a time, took ${minutes(performance.now() - since)}`)
  return status === 0
}

// test/*/*.test.ts (fs.globSync needs Node.js 22)
const all = readdirSync('test', { withFileTypes: true }).filter(d => d.isDirectory())
  .flatMap(d => readdirSync(`test/${d.name}`).filter(f => f.endsWith('.test.ts')).map(f => `test/${d.name}/${f}`))
  .sort()
const missing = [...TIMED, ...ON_EVERY_DATABASE].filter(f => !all.some(file => file.startsWith(f)))
if (missing.length > 0) throw new Error(`scripts/test.mjs names test files that are gone: ${missing.join(', ')}`)
const flags = process.argv.slice(2).filter(a => a.startsWith('--'))
const named = process.argv.slice(2).filter(a => !a.startsWith('--'))
const flag = name => flags.find(f => f.startsWith(`--${name}=`))?.split('=')[1]
const asked = flags.includes('--on-every-database')
  ? all.filter(f => ON_EVERY_DATABASE.some(prefix => f.startsWith(prefix)))
  : named.length > 0 ? named.map(f => f.replace(/^\.\//, '')) : all
// --part=together or --part=timed runs that part alone (CI runs the second database's files beside the
// first's, one lane, and the timed files of each after both: --lanes); --built: npm run typecheck built the code.
const part = flag('part')
compile(flags.includes('--built'))
// Longest first, so that the last files to start are short ones and the lanes end together: a file
// that drives a browser takes about three times a file of its size that does not.
const weight = f => statSync(f).size * (/launchBrowser|playwright-core/.test(readFileSync(f, 'utf8')) ? 3 : 1)
const longestFirst = files => files.map(f => [weight(f), f]).sort((a, b) => b[0] - a[0]).map(([, f]) => f)
const lanes = Number(flag('lanes') ?? 3)
const together = part === 'timed' || await run(longestFirst(asked.filter(f => !TIMED.includes(f))), lanes)
const timed = part === 'together' || (await Promise.all([
  run(asked.filter(f => MEASURED.includes(f)), 1),
  run(asked.filter(f => WAITING.includes(f)), 2, { held: true })
])).every(Boolean)
const passed = together && timed
console.log(`# the suite took ${minutes(performance.now() - started)}`)
process.exit(passed ? 0 : 1)
