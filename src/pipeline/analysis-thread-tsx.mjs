// The analysis thread under tsx (tests, dev): registers tsx in the thread, then loads
// the TypeScript worker. Built code loads analysis-thread.js directly.
const { register } = await import('tsx/esm/api')
register()
export const { read, document, links, compare, screenshots, brief, rules, outline, tryPageRules } =
  await import('./analysis-thread.ts')
