// Runs the test files named, `concurrency` at a time, in the order given (`node --test` sorts them
// by name): `node --enable-source-maps scripts/test-files.mjs <concurrency> <file>…`. The test
// processes inherit this one's flags. Exits 1 when a test failed; reports in TAP, or for a terminal as a list.
import { resolve } from 'node:path'
import { run } from 'node:test'
import { spec as Spec, tap } from 'node:test/reporters'

const [concurrency, ...files] = process.argv.slice(2)
const stream = run({ files: files.map(f => resolve(f)), concurrency: Number(concurrency) })
stream.on('test:fail', ({ todo }) => { if (!todo) process.exitCode = 1 })
stream.compose(process.stdout.isTTY ? new Spec() : tap).pipe(process.stdout)
