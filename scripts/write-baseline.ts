// Writes src/store/migrations/baseline.ts: the schema that the steps of history-*.ts make, as
// pg_dump prints it, one statement per string. A new database starts from it; an older one
// runs the steps it lacks. Run it (with PostgreSQL's pg_dump and a server) after moving the
// steps of a release into the history:
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx scripts/write-baseline.ts
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import pg from 'pg'
import { HISTORY, migrate } from '../src/store/migrations.js'

const server = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test')
const name = `sw_baseline_${process.pid}`
const admin = new pg.Client({ connectionString: server.toString() })
await admin.connect()
await admin.query(`CREATE DATABASE ${name}`)
let dump: string
try {
  const url = new URL(server)
  url.pathname = `/${name}`
  await migrate(url.toString(), { oldSteps: true })
  dump = execFileSync('pg_dump', ['--schema-only', '--no-owner', '--no-privileges', '--no-comments',
    '--exclude-table=kysely_migration*', '--dbname', url.toString()], { encoding: 'utf8' })
} finally {
  await admin.query(`DROP DATABASE ${name}`)
  await admin.end()
}

/**
 * The dump's statements, without its comments, its psql commands and its settings. The
 * schema's name goes (a database is migrated in whichever schema it searches first),
 * except inside dollar-quoted bodies, which are the steps' own text.
 */
function statements (text: string): string[] {
  const found: string[] = []
  let current = ''
  let i = 0
  const unqualified = (s: string) => s.replace(/\bpublic\./g, '')
  while (i < text.length) {
    const rest = text.slice(i)
    const dollar = /^\$[A-Za-z_]*\$/.exec(rest)
    if (rest.startsWith('--') || (rest.startsWith('\\') && (i === 0 || text[i - 1] === '\n'))) {
      const end = text.indexOf('\n', i)
      i = end === -1 ? text.length : end + 1
    } else if (dollar) {
      const close = text.indexOf(dollar[0], i + dollar[0].length) + dollar[0].length
      current += text.slice(i, close)
      i = close
    } else if (rest[0] === "'" || rest[0] === '"') {
      let end = i + 1
      while (!(text[end] === rest[0] && text[end + 1] !== rest[0])) end += text[end] === rest[0] ? 2 : 1
      current += unqualified(text.slice(i, end + 1))
      i = end + 1
    } else if (rest[0] === ';') {
      found.push(current.trim())
      current = ''
      i++
    } else {
      const plain = /^[^-\\$'";]+|^./s.exec(rest)![0]
      current += unqualified(plain)
      i += plain.length
    }
  }
  return found.filter(s => s !== '' && !/^(SET |SELECT pg_catalog\.set_config)/.test(s))
}

const through = Object.keys(HISTORY).at(-1)!
const literal = (s: string) => '`' + s.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${') + '`'
const header = `// Written by scripts/write-baseline.ts: do not edit. The schema that the steps of history-*.ts
// make, through ${through}, as pg_dump prints it: what a new database starts from (../migrations.ts).
// Functions come before the tables they read: it runs with check_function_bodies off.
/* eslint-disable @stylistic/max-len, @stylistic/quotes -- pg_dump's lines, each statement a template */
`
writeFileSync(new URL('../src/store/migrations/baseline.ts', import.meta.url), `${header}
export const BASELINE_THROUGH = '${through}'

export const BASELINE: string[] = [
${statements(dump).map(s => '  ' + literal(s)).join(',\n')}
]
`)
console.log(`baseline through ${through}: ${statements(dump).length} statements`)
