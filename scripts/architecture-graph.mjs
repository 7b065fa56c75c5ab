// Writes docs/architecture.svg: the folders of src/ and the imports between them, as
// dependency-cruiser finds them in the code (npm run graph:arch), drawn by Graphviz
// compiled to WebAssembly, so no system package is needed.
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { Graphviz } from '@hpcc-js/wasm-graphviz'

const dot = execFileSync(process.execPath, [
  'node_modules/dependency-cruiser/bin/dependency-cruise.mjs', 'src',
  '--config', '.dependency-cruiser.cjs', '--include-only', '^src/', '--output-type', 'archi'
], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 })
const graphviz = await Graphviz.load()
mkdirSync('docs', { recursive: true })
writeFileSync('docs/architecture.svg', graphviz.dot(dot, 'svg'))
console.log('wrote docs/architecture.svg')
