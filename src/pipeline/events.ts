import { EventEmitter } from 'node:events'
import type { ChangeType, Severity } from '../vocabulary/core.js'

export interface ChangeDetected {
  changeId: string
  orgId: string
  domainId: string
  pageId: string
  url: string
  changeType: ChangeType
  severity: Severity
  summary: string
}

export interface JobFailed {
  jobId: string
  name: string
  orgId: string
  domainId: string
  pageId: string | null
  reason: string
}

/** A page whose failure was alerted works again. */
export interface PageRecovered {
  orgId: string
  domainId: string
  pageId: string
  url: string
  at: Date
}

/** How one check of a page ended. */
export interface PageChecked {
  pageId: string
  outcome: 'not_modified' | 'unchanged' | 'changed' | 'baseline' | 'skipped' | 'failed'
}

/** A page's structured reader could not read (`error` false) or compare (true) it: it was compared as text. */
export interface ReaderFailed {
  orgId: string
  pageId: string
  url: string
  reader: string
  error: boolean
  note: string
}

interface PipelineEventMap {
  'change.detected': [ChangeDetected]
  'job.failed': [JobFailed]
  'page.recovered': [PageRecovered]
  /** Page events were recorded (a page found or gone): the alerts' outbox has them. */
  'pages.told': [{ orgId: string, domainId: string }]
  'page.checked': [PageChecked]
  'reader.failed': [ReaderFailed]
}

/**
 * What the pipeline reports after each commit. Side effects (alerts, webhooks,
 * metrics) subscribe here; the pipeline never calls them itself.
 */
export class PipelineEvents extends EventEmitter<PipelineEventMap> {}
