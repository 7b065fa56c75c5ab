// The suite runs compiled (scripts/test.mjs builds src and test into .build/test, so that no
// test process, thread or child transpiles the code again) or under tsx (a file run by hand,
// `node --import tsx --test test/x.test.ts`). Whatever reads the repository or starts one of
// its programs finds it through here.
import { fileURLToPath } from 'node:url'

const compiled = !import.meta.url.endsWith('.ts')

/** The repository's root, as a file URL ending in '/'. */
export const repoRoot = new URL(compiled ? '../../../../' : '../../', import.meta.url)

/** A path of the repository's (`src/store/db.ts`), on disk. */
export const inRepo = (path: string) => fileURLToPath(new URL(path, repoRoot))

/**
 * The arguments for `node` that run one of the service's programs (`src/main.ts`,
 * `src/cli/main.ts`): its compiled module, or its source under tsx.
 */
export const programArgs = (source: string): string[] => compiled
  ? [fileURLToPath(new URL(`.build/test/${source.replace(/\.tsx?$/, '.js')}`, repoRoot))]
  : ['--import', 'tsx', inRepo(source)]
