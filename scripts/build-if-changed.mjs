// `npm start`'s build: runs tsc only when what dist/ is built from changed since the last
// build. A no-op incremental tsc still reads every file and costs 5–25 s of a start.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json']
const STAMP = 'dist/.built-from'

/** The newest time, count and sizes of the files and folders under `path` (a deletion changes a folder's time). */
function survey (path, into = { newest: 0, files: 0, bytes: 0 }) {
  const st = statSync(path)
  into.newest = Math.max(into.newest, st.mtimeMs)
  if (st.isDirectory()) {
    for (const entry of readdirSync(path)) survey(join(path, entry), into)
  } else {
    into.files++
    into.bytes += st.size
  }
  return into
}

const fingerprint = JSON.stringify({ node: process.version, inputs: INPUTS.filter(existsSync).map(p => survey(p)) })
if (existsSync('dist/main.js') && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === fingerprint) {
  console.log('dist/ is up to date with src/: nothing to build')
  process.exit(0)
}
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' })
if (built.status !== 0) process.exit(built.status ?? 1)
writeFileSync(STAMP, fingerprint)
