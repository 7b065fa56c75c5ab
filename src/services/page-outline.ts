import { LRUCache } from 'lru-cache'
import { OUTLINE_DAYS, type PageOutline, type RulesPreview } from '../vocabulary/outline.js'
import type { NoiseRules } from '../vocabulary/core.js'
import { AppError } from '../vocabulary/errors.js'
import { changesOnArrival, recentChangePages, recentVersions } from '../store/page-versions.js'
import { pictureWithBoxes } from '../store/screenshots.js'
import type { ReadingContext } from './context.js'
import { requirePage } from './pages.js'

// A page as a person points at it: its outline (blocks, their selectors, how often each
// moved), and a page's rules tried before they are saved (what the next check will
// compare, what the last 30 days' changes would have been).

/** The versions the churn reads, and the changes rules are tried on, at most. */
const VERSIONS = 30
const CHANGES = 30
const PREVIEW_LINES = 500

const NO_OUTLINE: PageOutline = {
  snapshotId: null,
  at: null,
  picture: null,
  versions: 0,
  truncated: false,
  note: 'The page has not been read yet: its outline comes with its first check.',
  blocks: []
}

const since = () => new Date(Date.now() - OUTLINE_DAYS * 86_400_000)

type OutlineReading = Awaited<ReturnType<ReadingContext['readings']['outline']>>

/**
 * Outlines read lately, by the versions and the picture read: a reading changes only when a
 * version is recorded, and a page's view asks for it each time it is shown (30 versions of
 * a long page take a second or more to read).
 */
const readLately = new LRUCache<string, Promise<OutlineReading>>({ max: 200 })

export async function pageOutline (ctx: ReadingContext, orgId: string, domainId: string, pageId: string):
Promise<PageOutline> {
  await requirePage(ctx, orgId, domainId, pageId)
  // Newest first from the store; oldest first for the reading, the outlined one last.
  const versions = (await recentVersions(ctx.db, pageId, since(), VERSIONS)).reverse()
  const latest = versions.at(-1)
  if (!latest) return NO_OUTLINE
  const [picture, changes] = await Promise.all([
    pictureWithBoxes(ctx.db, pageId, latest.id),
    changesOnArrival(ctx.db, pageId, versions.map(v => v.id))
  ])
  const onArrival = new Map(changes.map(c => [c.snapshot_after_id, c]))
  // One reading of these versions at a time: a view shown before its outline was read, and
  // shown again, waits for the reading under way.
  const readingKey = `${pageId} ${versions.map(v => v.id).join(',')} ${picture?.snapshotId ?? ''} ` +
    changes.map(c => c.id).join(',')
  let read = readLately.get(readingKey)
  if (!read) {
    read = ctx.readings.outline(orgId, {
      versions: versions.map(v => v.page),
      ...(picture ? { picture: { page: picture.page, boxes: picture.boxes } } : {}),
      changes: versions.map(v => {
        const c = onArrival.get(v.id)
        return c && { removed: c.removed, added: c.added }
      })
    })
    readLately.set(readingKey, read)
    read.catch(() => readLately.delete(readingKey))
  }
  const reading = await read.catch(err => {
    // Too large to outline in time: no blocks, and why (the rules still work, written by hand).
    if (err instanceof AppError && err.code === 'SERVICE_UNAVAILABLE') return err
    throw err
  })
  if (reading instanceof AppError) {
    const at = latest.at.toISOString()
    return { ...NO_OUTLINE, snapshotId: latest.id, at, versions: versions.length, note: reading.message }
  }
  return {
    snapshotId: latest.id,
    at: latest.at.toISOString(),
    picture: picture ? { snapshotId: picture.snapshotId, width: picture.width, height: picture.height } : null,
    versions: versions.length,
    truncated: reading.truncated,
    note: reading.blocks.length === 0
      ? 'Nothing in the last version reads as a block of text (a document, or a page its script has not built).'
      : null,
    blocks: reading.blocks.map((b, i) => {
      const reported = reading.reported[i].map(v => onArrival.get(versions[v].id)).filter(c => c !== undefined)
      return {
        ...b,
        box: reading.boxes[i],
        churn: {
          moves: reading.moves[i].length,
          reported: reported.length,
          important: reported.some(c => c.verdict === 'important' || c.pinned_at !== null)
        }
      }
    })
  }
}

/**
 * A page's proposed rules tried on its last version and its changes of the last 30 days;
 * rules that cannot work are a 400.
 */
export async function previewRules (
  ctx: ReadingContext, orgId: string, domainId: string, pageId: string, proposed: NoiseRules
): Promise<RulesPreview> {
  const page = await requirePage(ctx, orgId, domainId, pageId)
  const problems = await ctx.ruleChecks(orgId, proposed)
  if (problems.length > 0) {
    throw new AppError('VALIDATION_ERROR', problems[0].message, { field: problems[0].field, issues: problems })
  }
  const [latest] = await recentVersions(ctx.db, pageId, since(), 1)
  if (!latest) {
    return { snapshotId: null, lines: [], totalLines: 0, changes: { considered: 0, kept: 0, changed: 0, muted: 0 } }
  }
  const changes = await recentChangePages(ctx.db, pageId, since(), CHANGES)
  const tried = await ctx.readings.tryRules(orgId, {
    latest: latest.page,
    changes,
    pageType: page.page_type,
    proposed,
    ...(page.noise_rules ? { current: page.noise_rules } : {})
  })
  return {
    snapshotId: latest.id,
    lines: tried.lines.slice(0, PREVIEW_LINES),
    totalLines: tried.lines.length,
    changes: { considered: changes.length, ...tried.changes }
  }
}
