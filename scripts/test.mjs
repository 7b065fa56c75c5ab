// The test suite, as `npm test` runs it. Most test files run two at a time: each waits on
// its own servers, sites and database most of its time, and the suite has to fit CI twice
// (embedded database, then PostgreSQL). The files that measure time against a promise (the
// gaps between requests to a host, another tenant's wait beside an attack, crashes and
// frozen workers) run after them, one at a time, so that what they measure is the service.
// With file arguments, only those files run, the same way.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'

const ALONE = [
  'test/crawl/fleet.test.ts',
  'test/pipeline/abuse.test.ts',
  'test/pipeline/analysis.test.ts',
  'test/pipeline/recovery.test.ts',
  'test/resilience/frozen-worker.test.ts',
  'test/resilience/hostile-sites.test.ts',
  'test/resilience/outage.test.ts'
]

const started = performance.now()
const minutes = ms => `${Math.floor(ms / 60_000)} min ${Math.floor(ms % 60_000 / 1000)} s`

/** Runs `files` with `concurrency` test processes at once; true when every test passed. */
function run (files, concurrency) {
  if (files.length === 0) return true
  const since = performance.now()
  const { status } = spawnSync(process.execPath,
    ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], { stdio: 'inherit' })
  console.log(`# ${files.length} test files, ${concurrency} at a time, took ${minutes(performance.now() - since)}`)
  return status === 0
}

// test/*/*.test.ts (fs.globSync needs Node.js 22)
const all = readdirSync('test', { withFileTypes: true }).filter(d => d.isDirectory())
  .flatMap(d => readdirSync(`test/${d.name}`).filter(f => f.endsWith('.test.ts')).map(f => `test/${d.name}/${f}`))
  .sort()
const missing = ALONE.filter(f => !all.includes(f))
if (missing.length > 0) throw new Error(`scripts/test.mjs names test files that are gone: ${missing.join(', ')}`)
const asked = process.argv.length > 2 ? process.argv.slice(2).map(f => f.replace(/^\.\//, '')) : all
const together = run(asked.filter(f => !ALONE.includes(f)), 2)
const alone = run(asked.filter(f => ALONE.includes(f)), 1)
const passed = together && alone
console.log(`# the suite took ${minutes(performance.now() - started)}`)
process.exit(passed ? 0 : 1)
