// The import rules of src/ (README, "Architecture"). Layers, top to bottom; a folder may
// import its own files and the layers below it, never one above:
//
//   main.ts, cli/          entry points
//   service.ts             the composition root
//   web/                   the web app for people (/app): session, pages, forms
//   api/                   HTTP: app, guard, errors, input checks, one routes file per resource
//   metrics/               Prometheus: listeners on the parts' events, gauges read when scraped
//   alerts/                subscribers to the pipeline's events: dispatch, delivery, digest
//   pipeline/              job handlers and analysis threads; they emit the pipeline's events
//   services/              use cases: they own transactions and quota rules
//   queue/                 the one queue (jobs): lanes, fenced attempts, heartbeats, the sweep, the cron
//   store/                 every statement on our tables, and the migrations
//   research/              research briefs built from what the store read (pure: no database)
//   crawl/  detection/     fetching and discovery; reading and comparing pages (no database)
//   mail/                  e-mail to people (nodemailer, or the log) and the words of each message
//   vocabulary/ config.ts  the vocabulary, plan and failure rules; settings (import nothing of ours)
const layer = (from, allowed, comment) => ({
  name: `${from}-imports-only-below`,
  comment,
  severity: 'error',
  from: { path: `^src/${from}` },
  to: { path: '^src/', pathNot: [`^src/${from}`, ...allowed.map(a => `^src/${a}`)] }
})

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no import cycles, between files or folders',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true }
    },
    layer('vocabulary/', [], 'the vocabulary imports nothing of ours'),
    layer('config\\.ts$', [], 'settings import nothing of ours'),
    layer('detection/', ['vocabulary/'], 'reading and comparing pages is pure: the vocabulary only'),
    // Within detection/, sub-folders in layers too (a module cycle check does not see one between folders):
    // words, then text, then classify, then the structured readers; detect.ts, the entry, above them all.
    layer('detection/words/', ['vocabulary/'], 'the words of each language: the vocabulary only'),
    layer('detection/text/', ['detection/words/', 'vocabulary/'], 'text, hunks and outlines: below the readers'),
    layer('detection/classify/', ['detection/text/', 'detection/words/', 'vocabulary/'],
      'what a change is and how much it matters: from the text, below the structured readers'),
    layer('detection/readers/', ['detection/classify/', 'detection/text/', 'detection/words/', 'vocabulary/'],
      'the structured readers (pricing, changelog, API): on the text and the classifier'),
    layer('crawl/', ['detection/', 'vocabulary/', 'config\\.ts$'], 'crawling knows no database'),
    layer('research/', ['detection/', 'vocabulary/'], 'a brief is built from what it is given, with the readers'),
    layer('store/', ['vocabulary/'], 'the store knows only the vocabulary'),
    layer('queue/', ['store/', 'vocabulary/', 'config\\.ts$'], 'the queue knows no handler'),
    layer('services/', ['queue/', 'store/', 'crawl/', 'detection/', 'vocabulary/', 'config\\.ts$'],
      'use cases sit under their callers'),
    layer('pipeline/',
      ['services/', 'queue/', 'store/', 'research/', 'crawl/', 'detection/', 'vocabulary/', 'config\\.ts$'],
      'the pipeline never calls alerts or the API: it emits events'),
    layer('alerts/',
      ['pipeline/events\\.ts$', 'mail/', 'services/', 'queue/', 'store/', 'crawl/', 'vocabulary/', 'config\\.ts$'],
      'alerts subscribe to the pipeline\'s events and know nothing else of it'),
    layer('metrics/',
      ['pipeline/events\\.ts$', 'queue/', 'store/', 'crawl/', 'vocabulary/'],
      'metrics listen to events and read gauges; nothing in the pipeline calls them'),
    layer('mail/', ['vocabulary/', 'config\\.ts$'], 'mail knows the vocabulary and the settings'),
    layer('web/',
      ['alerts/signature\\.ts$', 'mail/', 'services/', 'queue/', 'store/', 'research/', 'crawl/', 'vocabulary/',
        'config\\.ts$'],
      'the web app stands on the services and the store, as the API does'),
    layer('api/',
      ['metrics/', 'alerts/signature\\.ts$', 'mail/', 'services/', 'queue/', 'store/', 'research/', 'crawl/',
        'detection/', 'vocabulary/', 'config\\.ts$'],
      'routes reach the database through services and store modules; the signature recipe is documented from alerts'),
    {
      name: 'detection-has-one-entry',
      comment: 'reading and comparing is used through detection/detect.ts; its words (detection/words/) are shared',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/detection/' },
      to: { path: '^src/detection/', pathNot: ['^src/detection/detect\\.ts$', '^src/detection/words/'] }
    },
    {
      name: 'database-drivers-in-store-and-queue',
      comment: 'only store/ and queue/ speak to the database (eslint.config.js keeps SQL itself there)',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/store/', '^src/queue/'] },
      to: { path: 'node_modules/(kysely|pg|@electric-sql/pglite)/' }
    },
    {
      name: 'only-the-root-starts-the-service',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/main\\.ts$'] },
      to: { path: ['^src/service\\.ts$', '^src/main\\.ts$', '^src/cli/'] }
    },
    {
      name: 'no-orphans',
      comment: 'a file nothing imports is dead code (entry points and thread scripts excepted)',
      severity: 'error',
      from: {
        orphan: true,
        path: '^src/',
        pathNot: ['^src/main\\.ts$', '^src/cli/main\\.ts$', '^src/pipeline/analysis-thread(-tsx\\.mjs|\\.ts)$']
      },
      to: {}
    }
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    reporterOptions: {
      // The picture of the layers (npm run graph:arch): one box per folder of src/.
      archi: { collapsePattern: '^src/[^/]+', theme: { graph: { rankdir: 'TB', splines: 'ortho' } } }
    }
  }
}
