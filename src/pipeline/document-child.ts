import { readDocument } from '../detection/detect.js'
import type { DocumentTask } from './analysis-thread.js'

// A process that reads one document (see document-process.ts), for the formats whose
// decoder no heap limit bounds (DocumentFormat.isolated). It answers once and ends.

process.once('message', (task: DocumentTask) => {
  readDocument(task.contentType, task.raw, { includePaths: task.includePaths })
    .catch((err: unknown) => ({ error: `it cannot be read (${(err as Error)?.message ?? String(err)})` }))
    .then(answer => { process.send!(answer, () => process.exit(0)) }, () => process.exit(1))
})
