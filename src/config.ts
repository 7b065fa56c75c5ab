import { availableParallelism } from 'node:os'
// Every setting comes from the environment; README.md lists each with its default.

export type Role = 'all' | 'api' | 'worker' | 'renderer'

export interface Config {
  port: number
  host: string
  dataDir: string
  databaseUrl: string | undefined
  /** A session with the server (the migrations' lock, LISTEN), when DATABASE_URL is a pooler in transaction mode. */
  databaseDirectUrl: string | undefined
  /** This process's PostgreSQL connections (store/db.ts poolPlan); unset: sized by its role. */
  databasePoolSize: number | undefined
  redisUrl: string | undefined
  /** Prefix of the rate-limit keys in Redis, so deployments can share one Redis. */
  redisKeyPrefix: string
  adminToken: string | undefined
  /** When set, /metrics wants `Authorization: Bearer <METRICS_TOKEN>`. */
  metricsToken: string | undefined
  /** Pages rendered in the browser at once, per process that renders (0: this worker renders nothing). */
  browserConcurrency: number
  /** A system Chromium; unset: the one shipped in @sparticuz/chromium. */
  chromiumPath: string | undefined
  renderTimeoutMs: number
  renderQuietMs: number
  browserRestartAfter: number
  /** A worker process (ROLE=worker) serves /healthz, /readyz and /metrics on this port when set. */
  metricsPort: number | undefined
  role: Role
  logLevel: string
  crawlHostMap: Map<string, URL>
  crawlAllowPrivateNetworks: boolean
  /**
   * Alert destinations (webhooks, Slack) that may be reached at a private address, for a
   * receiver of the operator's own: never CRAWL_HOST_MAP's exemption, which is for crawling.
   */
  alertHostMap: Map<string, URL>
  alertAllowPrivateNetworks: boolean
  /** Identity providers may be http:// and on private addresses (development and tests only). */
  ssoAllowInsecureIssuers: boolean
  /** DNS servers (`ip` or `ip:port`) that domain proofs are asked of; empty: the system's resolver. */
  ssoDnsServers: string[]
  /** The key secrets are sealed with at rest (services/sealed.ts); unset: a key file in DATA_DIR. */
  secretsKey: string | undefined
  rateLimitStandardPerMinute: number
  rateLimitHeavyPerHour: number
  jobRetryDelaySeconds: number
  jobExpireSeconds: number
  jobPollingSeconds: number
  jobMaintenanceSeconds: number
  workerConcurrency: number
  /** The most crawl slots a worker grows to while every slot is busy and it has CPU and memory to spare. */
  workerMaxConcurrency: number
  /** Discoveries one worker runs at once: each spends most of its time waiting for its host's turns. */
  discoveryConcurrency: number
  /** The most discovery slots a worker grows to, as its crawl slots grow (queue/slots.ts). */
  discoveryMaxConcurrency: number
  /** Worker threads that read and compare crawled pages. */
  analysisThreads: number
  /** How long one page's reading or comparison may take on an analysis thread before it is stopped. */
  analysisDeadlineMs: number
  /** How long a page's view in the app waits for its outline before it is shown without it (the outline follows). */
  outlineWaitMs: number
  schedulerTickSeconds: number
  crawlTimeoutMs: number
  crawlMaxBytes: number
  crawlPerHostConcurrency: number
  crawlPerHostDelayMs: number
  discoveryMaxFetches: number
  /** How long a discovery reads before it stops and keeps what it found (see discoveryDeadlineMs). */
  discoveryDeadlineSeconds: number
  publicBaseUrl: string | undefined
  trustProxy: boolean
  /** Invitations and password resets go through this SMTP server; unset, their links are logged. */
  smtpUrl: string | undefined
  mailFrom: string
  /** A web app session ends after this long without a request, and at most this long after sign-in. */
  sessionIdleMinutes: number
  sessionMaxDays: number
}

function int (env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number >= ${min}, got "${raw}"`)
  return n
}

/** A setting counted in whole units (milliseconds, bytes, slots): a timer or a pool takes no fraction. */
const whole = (env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number =>
  Math.max(min, Math.round(int(env, name, fallback, min)))

/** How often the scheduler looks for pages due: every minute, or every n seconds for a divisor of 60 (tests, demos). */
function tickSeconds (env: NodeJS.ProcessEnv): number {
  const n = int(env, 'SCHEDULER_TICK_SECONDS', 60, 1)
  if (n !== 60 && (!Number.isInteger(n) || 60 % n !== 0)) {
    throw new Error(`SCHEDULER_TICK_SECONDS must be 60 or divide it (1, 2, 3, 5, 10, 15, 20, 30), got "${n}"`)
  }
  return n
}

/** `a.test=http://127.0.0.1:8081,b.test=http://127.0.0.1:8082`, like curl's --connect-to. */
export function parseHostMap (raw: string | undefined): Map<string, URL> {
  const map = new Map<string, URL>()
  for (const entry of (raw ?? '')
    .split(',')
    .map(s => s.trim())
    .filter(Boolean)) {
    const eq = entry.indexOf('=')
    if (eq <= 0) throw new Error(`CRAWL_HOST_MAP entry "${entry}" must be host=origin`)
    const host = entry.slice(0, eq).trim().toLowerCase()
    const origin = new URL(entry.slice(eq + 1).trim())
    if (origin.protocol !== 'http:' && origin.protocol !== 'https:') {
      throw new Error(`CRAWL_HOST_MAP origin for ${host} must be http(s)`)
    }
    map.set(host, origin)
  }
  return map
}

function secretsKey (env: NodeJS.ProcessEnv): string | undefined {
  const key = env.SECRETS_KEY || undefined
  if (key !== undefined && key.length < 32) {
    throw new Error('SECRETS_KEY must be at least 32 characters (say, `openssl rand -hex 32`)')
  }
  return key
}

export function loadConfig (env: NodeJS.ProcessEnv = process.env): Config {
  const role = (env.ROLE ?? 'all') as Role
  if (!['all', 'api', 'worker', 'renderer'].includes(role)) {
    throw new Error(`ROLE must be all, api, worker or renderer, got "${role}"`)
  }
  const workerConcurrency = whole(env, 'WORKER_CONCURRENCY', 16, 1)
  const discoveryConcurrency = whole(env, 'DISCOVERY_CONCURRENCY', 16, 1)
  return {
    port: whole(env, 'PORT', 3000),
    host: env.HOST ?? '0.0.0.0',
    dataDir: env.DATA_DIR ?? './data',
    databaseUrl: env.DATABASE_URL || undefined,
    databaseDirectUrl: env.DATABASE_DIRECT_URL || env.DATABASE_URL || undefined,
    databasePoolSize: env.DATABASE_POOL_SIZE ? whole(env, 'DATABASE_POOL_SIZE', 12, 3) : undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'sitewatch-rl-',
    adminToken: env.ADMIN_TOKEN || undefined,
    metricsToken: env.METRICS_TOKEN || undefined,
    metricsPort: env.METRICS_PORT ? int(env, 'METRICS_PORT', 0) : undefined,
    browserConcurrency: whole(env, 'BROWSER_CONCURRENCY', 2, role === 'renderer' ? 1 : 0),
    chromiumPath: env.CHROMIUM_PATH || undefined,
    renderTimeoutMs: whole(env, 'RENDER_TIMEOUT_MS', 20_000, 1000),
    renderQuietMs: whole(env, 'RENDER_QUIET_MS', 300, 0),
    browserRestartAfter: whole(env, 'BROWSER_RESTART_AFTER', 100, 1),
    role,
    logLevel: env.LOG_LEVEL ?? 'info',
    crawlHostMap: parseHostMap(env.CRAWL_HOST_MAP),
    crawlAllowPrivateNetworks: env.CRAWL_ALLOW_PRIVATE_NETWORKS === 'true',
    alertHostMap: parseHostMap(env.ALERT_HOST_MAP),
    alertAllowPrivateNetworks: env.ALERT_ALLOW_PRIVATE_NETWORKS === 'true',
    ssoAllowInsecureIssuers: env.SSO_ALLOW_INSECURE_ISSUERS === 'true',
    ssoDnsServers: (env.SSO_DNS_SERVERS ?? '').split(',').map(s => s.trim()).filter(Boolean),
    secretsKey: secretsKey(env),
    rateLimitStandardPerMinute: whole(env, 'RATE_LIMIT_STANDARD_PER_MINUTE', 100, 1),
    rateLimitHeavyPerHour: whole(env, 'RATE_LIMIT_HEAVY_PER_HOUR', 10, 1),
    jobRetryDelaySeconds: int(env, 'JOB_RETRY_DELAY_SECONDS', 30, 1),
    jobExpireSeconds: int(env, 'JOB_EXPIRE_SECONDS', 300, 1),
    jobPollingSeconds: int(env, 'JOB_POLLING_SECONDS', 2, 0.5),
    jobMaintenanceSeconds: int(env, 'JOB_MAINTENANCE_SECONDS', 10, 1),
    workerConcurrency,
    // Crawls mostly wait: a worker takes more while its slots are all busy and it has room (queue/slots.ts).
    workerMaxConcurrency: Math.max(whole(env, 'WORKER_MAX_CONCURRENCY', 64, 1), workerConcurrency),
    discoveryConcurrency,
    discoveryMaxConcurrency: Math.max(whole(env, 'DISCOVERY_MAX_CONCURRENCY', 64, 1), discoveryConcurrency),
    // A thread per core beside the event loop's, up to four: each costs 30–40 MB, and on
    // two cores a second one only sped up crawls of pages that all changed.
    analysisThreads: Math.floor(int(env, 'ANALYSIS_THREADS', Math.max(1, Math.min(4, availableParallelism() - 1)), 1)),
    analysisDeadlineMs: whole(env, 'ANALYSIS_DEADLINE_MS', 60_000, 10),
    outlineWaitMs: whole(env, 'OUTLINE_WAIT_MS', 100, 0),
    schedulerTickSeconds: tickSeconds(env),
    crawlTimeoutMs: whole(env, 'CRAWL_TIMEOUT_MS', 15000, 100),
    crawlMaxBytes: whole(env, 'CRAWL_MAX_BYTES', 5 * 1024 * 1024, 1024),
    crawlPerHostConcurrency: whole(env, 'CRAWL_PER_HOST_CONCURRENCY', 4, 1),
    crawlPerHostDelayMs: whole(env, 'CRAWL_PER_HOST_DELAY_MS', 250, 0),
    discoveryMaxFetches: whole(env, 'DISCOVERY_MAX_FETCHES', 60, 1),
    discoveryDeadlineSeconds: int(env, 'DISCOVERY_DEADLINE_SECONDS', 180, 1),
    publicBaseUrl: env.PUBLIC_BASE_URL || undefined,
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || 'Sitewatch <sitewatch@localhost>',
    sessionIdleMinutes: whole(env, 'SESSION_IDLE_MINUTES', 12 * 60, 1),
    sessionMaxDays: whole(env, 'SESSION_MAX_DAYS', 30, 1),
    trustProxy: env.TRUST_PROXY === 'true'
  }
}

/**
 * A discovery's deadline: DISCOVERY_DEADLINE_SECONDS, and never past two thirds of its
 * attempt's lease (JOB_EXPIRE_SECONDS), which leaves it time to record what it found.
 */
export function discoveryDeadlineMs (config: Pick<Config, 'discoveryDeadlineSeconds' | 'jobExpireSeconds'>): number {
  // Whole milliseconds: a timer takes no fraction (JOB_EXPIRE_SECONDS=20 gave 13,333.3 ms).
  return Math.floor(Math.min(config.discoveryDeadlineSeconds, config.jobExpireSeconds * 2 / 3) * 1000)
}

/** Where people reach this deployment, without a trailing slash: for links in e-mails and on the console. */
export function appBaseUrl (config: Pick<Config, 'publicBaseUrl' | 'port'>): string {
  return (config.publicBaseUrl ?? `http://localhost:${config.port}`).replace(/\/$/, '')
}
