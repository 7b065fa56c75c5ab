import type { Logger } from 'pino'
import { discoveryDeadlineMs, type Config } from '../config.js'
import type { Crawler } from '../crawl/crawler.js'
import { FetchError } from '../crawl/errors.js'
import { HostBusy } from '../crawl/polite.js'
import { BatchedCompletions } from '../queue/completions.js'
import { forgetOldJobRecords } from '../queue/job-records.js'
import type { Job } from '../queue/puller.js'
import { type JobQueue } from '../queue/queue.js'
import { QUEUE, type CrawlJobData, type DiscoverJobData, type ResearchJobData } from '../queue/queues.js'
import { giveBackCredit } from '../services/research.js'
import type { Db } from '../store/db.js'
import { claimFailureAlert, recordChecksStatement, type PageCheck } from '../store/page-checks.js'
import { SnapshotSuperseded } from '../store/changes.js'
import { deleteExpired } from '../store/retention.js'
import { forgetOldRobotsFiles } from '../store/robots-files.js'
import { sweepExpiredAccess } from '../services/accounts.js'
import { recheckProvenDomains } from '../services/sso-domains.js'
import { AnalysisTimeout, type PageAnalysis } from './analysis.js'
import { crawlLost, noFailureOfThePage } from './crawl-failure.js'
import { crawlPage, crawlTargetLoader, type CrawlResult } from './crawl-job.js'
import { NeedsBrowser } from './fetch-page.js'
import { discoveryGaveUp, runDiscovery } from './discovery-job.js'
import { runResearch, settleAbandonedBriefs, type ResearchResult } from './research-job.js'
import type { PageChecked, PipelineEvents } from './events.js'
import { runSchedulerTick } from './scheduler-tick.js'

// An analysis that outlived its deadline would outlive it again: no retry is spent on it.
const isPermanent = (err: unknown) => (err instanceof FetchError && err.permanent) || err instanceof AnalysisTimeout
// A host not free yet; a page another attempt recorded meanwhile: read again at once, against that.
const deferredUntil = (err: unknown) =>
  err instanceof HostBusy ? err.until : err instanceof SnapshotSuperseded ? new Date() : undefined

export interface PipelineDeps {
  db: Db
  /** The store's vacuum (see Store): run after each retention sweep. */
  vacuum: () => Promise<void>
  queue: JobQueue
  crawler: Crawler
  events: PipelineEvents
  config: Config
  log: Logger
  /** The analysis threads, shared with the API's rule checks (closed by the service). */
  analysis: PageAnalysis
}

/**
 * Registers the pipeline's handlers with the queue: crawls, discoveries, the
 * scheduler's tick and the retention sweep. A crawl or discovery that fails for good
 * is announced as job.failed.
 */
export async function startPipeline (deps: PipelineDeps): Promise<void> {
  const { queue, config, analysis } = deps
  const gaveUp = (job: Job<{ orgId: string, domainId: string, pageId?: string }>, reason: string) => {
    const { orgId, domainId, pageId } = job.data
    deps.events.emit('job.failed', { jobId: job.id, name: job.name, orgId, domainId, pageId: pageId ?? null, reason })
  }

  const targets = crawlTargetLoader(deps.db)
  // Plain crawls and rendered ones on queues of their own: a plain-fetch slot never waits
  // for a browser, and a renderer (ROLE=renderer) takes only the crawls that need one.
  const crawls = (name: typeof QUEUE.crawl | typeof QUEUE.render, concurrency: number, most = concurrency) => {
    // Crawls still running: their completions are coming, and a batch may wait for them.
    let running = 0
    const completions = new BatchedCompletions<PageCheck>(deps.db, queue.workerId, recordChecksStatement,
      { othersComing: () => running > 0 })
    const crawlDeps = { ...deps, targets, analysis, mayRender: name === QUEUE.render }
    queue.pull<CrawlJobData, CrawlResult>(name, concurrency, {
      run: async (job, signal) => {
        const checked = (outcome: PageChecked['outcome']) => {
          deps.events.emit('page.checked', { pageId: job.data.pageId, outcome })
        }
        running++
        try {
          const result = await crawlPage(crawlDeps, job.data, signal)
          checked(result.outcome)
          return result
        } catch (err) {
          if (!noFailureOfThePage(err)) checked('failed')
          throw err
        } finally {
          running--
        }
      },
      isPermanent,
      deferredUntil,
      movedTo: err => err instanceof NeedsBrowser ? QUEUE.render : undefined,
      complete: async (job, { pageCheck, ...output }) => await completions.complete(job, output, pageCheck),
      onGiveUp: async (job, reason, failure, tx) => {
        if (failure === undefined) await crawlLost({ ...deps, db: tx }, job.data.pageId, reason)
        // A page that keeps failing is alerted once, when it enters error; again only once it has recovered.
        return await claimFailureAlert(tx, job.data.pageId) ? () => { gaveUp(job, reason) } : undefined
      }
    }, most)
  }
  // One more crawl than browsers: the next render starts while the last one's result is recorded.
  if (config.browserConcurrency > 0) crawls(QUEUE.render, config.browserConcurrency + 1)
  if (config.role === 'renderer') return
  crawls(QUEUE.crawl, config.workerConcurrency, config.workerMaxConcurrency)

  const discoveryDeps = {
    ...deps, maxFetches: config.discoveryMaxFetches, deadlineMs: discoveryDeadlineMs(config)
  }
  // Discoveries wait on their hosts' turns as crawls do: their slots grow and shrink with the load the same way.
  queue.pull<DiscoverJobData, object>(QUEUE.discover, config.discoveryConcurrency, {
    run: async (job, signal) => await runDiscovery(discoveryDeps, job.id, job.data, signal),
    isPermanent,
    onGiveUp: async (job, reason, failure, tx) => {
      // Should it fail, the queue runs it again: job.failed is sent once it has run.
      await discoveryGaveUp({ ...discoveryDeps, db: tx }, job.data, reason, failure)
      return () => { gaveUp(job, reason) }
    }
  }, config.discoveryMaxConcurrency)

  // Research briefs, one at a time per process: each reads a whole domain's history.
  queue.pull<ResearchJobData, ResearchResult>(QUEUE.research, 1, {
    run: async (job, signal) => await runResearch({ db: deps.db, analysis }, job.id, job.data, signal),
    onGiveUp: async (job, reason, _err, tx) => {
      await giveBackCredit(tx, job.data.briefId, reason)
      return () => { gaveUp(job, reason) }
    }
  })

  await queue.work(QUEUE.tick, 1, async () => {
    // Job records first: a research job that expired is failed there before its brief is settled.
    const jobsSwept = await queue.sweep()
    const r = {
      ...await runSchedulerTick(deps.db, queue), jobsSwept, briefsRefunded: await settleAbandonedBriefs(deps.db)
    }
    if (r.queued > 0 || r.paused > 0 || r.briefsRefunded > 0 || jobsSwept > 0) deps.log.info(r, 'scheduler tick')
    return r
  })
  await queue.work(QUEUE.retention, 1, async () => {
    const now = new Date()
    const r = {
      ...await deleteExpired(deps.db, now),
      ...await sweepExpiredAccess(deps.db, now, config.sessionIdleMinutes * 60_000),
      ssoDomainsLost: (await recheckProvenDomains({ db: deps.db, dnsServers: config.ssoDnsServers }, now)).lost
    }
    await forgetOldJobRecords(deps.db)
    await forgetOldRobotsFiles(deps.db, now)
    await deps.vacuum()
    deps.log.info(r, 'retention sweep')
    return r
  })
  await queue.schedule(QUEUE.tick, tickCron(config.schedulerTickSeconds))
  await queue.schedule(QUEUE.retention, '17 3 * * *')
}

/** The scheduler's tick as a cron: every minute, or every n seconds for a divisor n of 60 (see config.ts). */
const tickCron = (seconds: number) => seconds >= 60 ? '* * * * *' : `*/${seconds} * * * * *`
