import neostandard from 'neostandard'

// Query building on a Kysely handle, and sql`…` templates: the statements themselves.
const SQL = [
  {
    selector: 'CallExpression[callee.property.name=/^(selectFrom|insertInto|updateTable|deleteFrom|mergeInto)$/]',
    message: 'SQL lives in src/store (our tables) or src/queue (the job queue\'s): call a function there.'
  },
  {
    selector: 'TaggedTemplateExpression[tag.name="sql"]',
    message: 'SQL lives in src/store (our tables) or src/queue (the job queue\'s): call a function there.'
  }
]

// The house style: neostandard (standard's rules for TypeScript and ESM), lines up to 120.
export default [
  ...neostandard({ ts: true, ignores: ['dist/**', '.build/**', 'data/**', 'docs/**', 'openapi.generated.json'] }),
  {
    rules: {
      '@stylistic/max-len': ['error', { code: 120, ignoreUrls: true, ignoreRegExpLiterals: true }],
      // Type members as today: commas on one line, nothing at line ends.
      '@stylistic/member-delimiter-style': ['error', {
        multiline: { delimiter: 'none' }, singleline: { delimiter: 'comma', requireLast: false }
      }],
      // `void promise()` as a statement marks a promise deliberately not awaited (it handles its own errors).
      'no-void': ['error', { allowAsStatement: true }]
    }
  },
  {
    // Tests and benchmarks build pages, sitemaps and SQL as literals: a line of fixture data may run long.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@stylistic/max-len': ['error', {
        code: 120, ignoreUrls: true, ignoreRegExpLiterals: true, ignoreStrings: true, ignoreTemplateLiterals: true
      }]
    }
  },
  {
    // Templates: a line of markup with its attributes and text reads best whole.
    files: ['src/web/views/**/*.tsx', 'src/mail/**/*.tsx'],
    rules: {
      '@stylistic/max-len': ['error', {
        code: 160, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true
      }],
      '@stylistic/jsx-one-expression-per-line': 'off'
    }
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/store/**', 'src/queue/**'],
    rules: { 'no-restricted-syntax': ['error', ...SQL] }
  }
]
