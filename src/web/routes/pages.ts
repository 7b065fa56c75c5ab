import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError, notFound } from '../../vocabulary/errors.js'
import {
  FACT_SUBJECTS, PAGE_TYPES, type FactSubject, type IgnoredFact, type PageType
} from '../../vocabulary/core.js'
import { requireDomain } from '../../services/domains.js'
import { changePage, crawlPageNow, removePage } from '../../services/pages.js'
import { pageTimeline, pageVersion, priceHistory, versionsCompared } from '../../services/page-history.js'
import { pageOutline, previewRules } from '../../services/page-outline.js'
import type { PageOutline } from '../../vocabulary/outline.js'
import { roleAllows, type NoiseRules } from '../../vocabulary/core.js'
import { findPage, onePageView } from '../../store/pages.js'
import { getSnapshot } from '../../store/page-versions.js'
import { screenshotOf } from '../../store/screenshots.js'
import { field, page, UUID, viewerOf, type WebDeps } from '../context.js'
import { html } from '../views/layout.js'
import { PageView } from '../views/page.js'
import { formAction, heavyActions, id, lines, notice, pageOf } from './common.js'
import { checkForm } from '../form-check.js'
import { PagePatchSchema, type PagePatch } from '../../vocabulary/pages.js'

/** What the page settings form says of a field the API's schema refuses. */
const SAY = {
  name: "A page's name is 120 characters at most",
  priority: 'Choose a priority from 1 to 10',
  render: 'Choose how the page is read: auto, always, never, or as the domain',
  ignoreSelectors: 'A page keeps at most 20 selectors to ignore, of 200 characters each',
  includeSelectors: 'A page keeps at most 20 selectors to watch, of 200 characters each',
  ignorePatterns: 'A page keeps at most 20 patterns to ignore, of 200 characters each',
  includePaths: 'A page keeps at most 20 paths of its document to watch, each a JSON path such as $.paths'
}

// A watched page of its own: its state and failure, timeline, versions, two versions
// compared, prices over time; its type, settings, a check now, and deleting it.

export async function pageRoutes (app: FastifyInstance, deps: WebDeps) {
  const { db, queue, settings: config } = deps
  const ctx = { db, queue, ruleChecks: deps.ruleChecks, readings: deps.readings }

  app.get('/domains/:id/pages/:pageId', async (req, reply) => {
    const org = req.person!.org
    const [domainId, pageId] = [id(req.params), id(req.params, 'pageId')]
    const domain = await requireDomain(ctx, org.id, domainId)
    const row = await findPage(db, org.id, domainId, pageId)
    if (!row) throw notFound('Page')
    const q = req.query as Record<string, string | undefined>
    const known = (v: string | undefined) => v !== undefined && UUID.test(v) ? v : undefined
    const [view, timeline, version, compared] = await Promise.all([
      onePageView(db, row),
      pageTimeline(db, org.id, pageId, pageOf(req.query)),
      known(q.version) ? pageVersion(db, pageId, q.version!) : undefined,
      known(q.from) && known(q.to) ? versionsCompared(db, pageId, q.from!, q.to!, 1) : undefined
    ])
    const base = `/app/domains/${domainId}/pages/${pageId}`
    const mayEdit = roleAllows(req.person!.role, 'editor')
    const picks = { watch: many(req.query, 'watch'), ignore: many(req.query, 'ignore') }
    // Ticked blocks, or the outline asked for (its link, the page's script), wait for it; a view waits a moment.
    const waits = picks.watch.length + picks.ignore.length > 0 || q.outline === 'wait'
    const waitMs = waits ? Infinity : config.outlineWaitMs
    const outline = mayEdit ? await outlineWithin(pageOutline(ctx, org.id, domainId, pageId), waitMs) : undefined
    let picked: PageViewProps['picked']
    let error: string | undefined
    if (mayEdit && (picks.watch.length > 0 || picks.ignore.length > 0)) {
      const rules = withPicks(row.noise_rules ?? {}, picks)
      try {
        tooMany(rules)
        picked = { ...picks, rules, preview: await previewRules(ctx, org.id, domainId, pageId, rules) }
      } catch (err) {
        if (!(err instanceof AppError) || !['VALIDATION_ERROR', 'SERVICE_UNAVAILABLE'].includes(err.code)) throw err
        picked = { ...picks, rules }
        error = err.message
      }
    }
    return await page(reply, html(PageView({
      viewer: viewerOf(req, reply),
      domain: { id: domain.id, domain: domain.hostname, render: domain.render },
      page: { ...view, domainId },
      timeline,
      // Every page whose plans were read has its chart, whatever its type.
      prices: priceHistory(timeline.changes),
      ...(version ? { version } : {}),
      ...(compared
        ? {
            compared: {
              ...compared,
              fromId: q.from!,
              toId: q.to!,
              href: (n: number) => `${base}?from=${q.from}&to=${q.to}&page=${n}#compared`
            }
          }
        : {}),
      ...await (async () => {
        const heavy = await heavyActions(app, req)
        return { outOfHour: heavy.out, hourLeft: heavy.left }
      })(),
      ...(outline ? { outline, outlineFrom: withQuery(req.url, 'outline', 'wait') } : {}),
      ...(picked ? { picked } : {}),
      ...(error ? { error } : {}),
      notice: notice(req.query)
    })))
  })

  // The picture a page's outline is drawn over: a snapshot's screenshot, of this organisation's page.
  app.get('/domains/:id/pages/:pageId/snapshots/:snapshotId/picture', async (req, reply) => {
    const row = await findPage(db, req.person!.org.id, id(req.params), id(req.params, 'pageId'))
    const snapshotId = id(req.params, 'snapshotId')
    const shot = row && await getSnapshot(db, row.id, snapshotId) ? await screenshotOf(db, snapshotId) : undefined
    if (!shot) throw notFound('Picture')
    return await reply.type('image/png').header('cache-control', 'private, max-age=86400').send(shot.image)
  })

  const pagePath = (req: FastifyRequest) => `/app/domains/${id(req.params)}/pages/${id(req.params, 'pageId')}`
  const onPage = formAction(config, pagePath)

  app.post('/domains/:id/pages/:pageId/crawl', { config: { tier: 'heavy' } }, onPage(async req => {
    const { jobId } = await crawlPageNow(ctx, req.person.org, id(req.params), id(req.params, 'pageId'))
    return `${pagePath(req)}?done=${jobId ? 'page-crawl' : 'page-pending'}`
  }))

  app.post('/domains/:id/pages/:pageId/type', onPage(async req => {
    const pageType = field(req.body, 'pageType')
    if (!(PAGE_TYPES as readonly string[]).includes(pageType)) {
      throw new AppError('VALIDATION_ERROR', 'Choose one of the page types.')
    }
    const typed = { pageType: pageType as PageType }
    await changePage(ctx, req.person.org.id, id(req.params), id(req.params, 'pageId'), typed)
    return `${pagePath(req)}?done=typed`
  }))

  app.post('/domains/:id/pages/:pageId/delete', onPage(async req => {
    await removePage(ctx, req.person.org.id, id(req.params), id(req.params, 'pageId'))
    return `/app/domains/${id(req.params)}?done=page-deleted`
  }))

  app.post('/domains/:id/pages/:pageId', onPage(async req => {
    const render = field(req.body, 'render')
    const name = (field(req.body, 'name') ?? '').trim()
    const patch = {
      name: name || null,
      monitoringEnabled: field(req.body, 'monitoringEnabled') === 'on',
      priority: Number(field(req.body, 'priority')),
      render: render === '' ? null : render,
      noiseRules: {
        ignoreSelectors: lines(field(req.body, 'ignoreSelectors')),
        ignorePatterns: lines(field(req.body, 'ignorePatterns')),
        includeSelectors: lines(field(req.body, 'includeSelectors')),
        includePaths: lines(field(req.body, 'includePaths')),
        ignoreFacts: lines(field(req.body, 'ignoreFacts')).map(ignoredFact)
      }
    }
    // As PATCH /api/…/pages/{pageId} decides: refused, not cut or ignored.
    checkForm(PagePatchSchema, patch, SAY)
    await changePage(ctx, req.person.org.id, id(req.params), id(req.params, 'pageId'), patch as PagePatch)
    return field(req.body, 'back') === 'page'
      ? `${pagePath(req)}?done=saved`
      : `/app/domains/${id(req.params)}?done=saved`
  }))
}

type PageViewProps = Parameters<typeof PageView>[0]

/** A query's values of one name (a form's ticked boxes), each once. */
function many (query: unknown, name: string): string[] {
  const v = (query as Record<string, unknown>)[name]
  const all = Array.isArray(v) ? v : v === undefined ? [] : [v]
  return [...new Set(all.filter((x): x is string => typeof x === 'string' && x.trim() !== ''))]
}

/** A page's rules with the blocks a person ticked: watched ones kept alone, ignored ones left out (each once). */
function withPicks (rules: NoiseRules, picks: { watch: string[], ignore: string[] }): NoiseRules {
  const add = (had: string[] | undefined, more: string[]) => [...new Set([...(had ?? []), ...more])]
  return {
    ...rules,
    ...(picks.watch.length > 0 ? { includeSelectors: add(rules.includeSelectors, picks.watch) } : {}),
    ...(picks.ignore.length > 0 ? { ignoreSelectors: add(rules.ignoreSelectors, picks.ignore) } : {})
  }
}

/** Refuses picks past what a page's rules hold (as the API's schema does): 20 selectors a list, 200 characters each. */
function tooMany (rules: NoiseRules): void {
  for (const list of [rules.includeSelectors ?? [], rules.ignoreSelectors ?? []]) {
    if (list.length > 20 || list.some(s => s.length > 200)) {
      throw new AppError('VALIDATION_ERROR', 'A page keeps at most 20 selectors to watch and 20 to ignore, of 200 ' +
        'characters at most: tick fewer blocks, or a block that holds the others.')
    }
  }
}

/** A line of the page's "facts left out" ("price: Pro"): what the facts are about, and its name. */
function ignoredFact (line: string): IgnoredFact {
  const [, kind, subject] = /^\s*(\w+)\s*:\s*(.+?)\s*$/.exec(line) ?? []
  if (!(FACT_SUBJECTS as readonly string[]).includes(kind) || !subject) {
    throw new AppError('VALIDATION_ERROR', `"${line}" is no fact to leave out: write what it is about ` +
      `(${FACT_SUBJECTS.join(', ')}), a colon and its name, e.g. "price: Pro"`, { field: 'ignoreFacts' })
  }
  return { kind: kind as FactSubject, subject }
}

/**
 * The outline, or 'pending' when it is not read within `ms`: the reading goes on (and is
 * kept, see services/page-outline.ts), so that the view is shown at once and the outline follows.
 */
async function outlineWithin (reading: Promise<PageOutline>, ms: number): Promise<PageOutline | 'pending'> {
  if (ms === Infinity) return await reading
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'pending'>(resolve => { timer = setTimeout(() => resolve('pending'), ms) })
  try {
    const first = await Promise.race([reading, late])
    // Its failure after the view was shown is the next view's to show.
    if (first === 'pending') reading.catch(() => {})
    return first
  } finally {
    clearTimeout(timer)
  }
}

/** `url` (a path with its query) with `name` set to `value`. */
function withQuery (url: string, name: string, value: string): string {
  const u = new URL(url, 'http://app')
  u.searchParams.set(name, value)
  return `${u.pathname}${u.search}`
}
