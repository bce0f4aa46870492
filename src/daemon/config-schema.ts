import { z } from 'zod';
import {
  changeSinkSchema,
  jsonExtractSchema,
  postgresSinkSchema,
  requestSchema,
} from './config-schema-io.js';

/**
 * The config file's schema: every option, its type and its default, in one place.
 * Objects are strict: an unknown key is refused (a typo such as `maxDepht` must not be
 * silently ignored in a crawler that runs for months). Durations are milliseconds.
 */

const httpUrl = z.string().refine(isHttpUrl, { message: 'must be an absolute http(s) URL' });

export function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

const regex = z.string().refine(isValidRegex, { message: 'must be a valid regular expression' });

function isValidRegex(s: string): boolean {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}

const hostPattern = z.string().regex(/^(\*|(\*\.)?[a-z0-9.-]+(:\d{1,5})?|\[[0-9a-f:.]+\](:\d{1,5})?)$/i, {
  message: "must be a hostname, '*.example.com' or '*'",
});

const ms = z.number().int().nonnegative();
const positiveInt = z.number().int().positive();

const fieldRule = z.strictObject({
  selector: z.string().min(1),
  attr: z.string().min(1).optional(),
  all: z.boolean().default(false),
  regex: regex.optional(),
  type: z.enum(['string', 'number']).default('string'),
  required: z.boolean().default(false),
});

const followRule = z.strictObject({
  selector: z.string().min(1).default('a[href]'),
  attr: z.string().min(1).default('href'),
  priority: z.number().int().default(10),
  maxDepth: z.number().int().nonnegative().optional(),
});

const htmlExtractSchema = z.strictObject({
  /** 'json' selects JSON rules (config-schema-io.ts). */
  type: z.literal('html').default('html'),
  fields: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), fieldRule).optional(),
  follow: z.array(followRule).default([]),
  followAllLinks: z
    .union([z.literal(false), z.strictObject({ priority: z.number().int().default(10) })])
    .prefault({}),
});

const extractSchema = z.discriminatedUnion('type', [htmlExtractSchema, jsonExtractSchema]);

const jobSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'must be 1-64 letters, digits, dot, dash or underscore' }),
  seeds: z.array(httpUrl).min(1),
  seedPriority: z.number().int().default(0),
  scope: z
    .strictObject({
      /** Hosts crawled. @default the seeds' hosts */
      hosts: z.array(hostPattern).optional(),
      include: z.array(regex).default([]),
      exclude: z.array(regex).default([]),
      maxDepth: z.number().int().nonnegative().default(20),
      /**
       * Links taken from one page, in document order; the rest are counted and dropped, so a
       * hostile page with 100 000 links cannot flood the frontier.
       */
      maxLinksPerPage: positiveInt.default(10_000),
    })
    .prefault({}),
  normalise: z
    .strictObject({ stripTracking: z.boolean().default(true), sortQuery: z.boolean().default(true) })
    .prefault({}),
  extract: extractSchema.optional(),
  /** Method, headers (secrets as ${ENV}), body and cookies of every request of the job. */
  request: requestSchema.prefault({}),
  /** Obey robots.txt (disallowed URLs are skipped, Crawl-delay honoured). */
  robots: z.boolean().default(true),
  /** Compare extracted fields with the previous crawl and write change records. @default true when recrawlIntervalMs is set */
  detectChanges: z.boolean().optional(),
  /** Recrawl every page of the job this long after it was fetched. */
  recrawlIntervalMs: positiveInt.optional(),
  /**
   * The job's own limits at each host it crawls, on top of the host's: e.g. an API's
   * contracted rate. Per daemon (not shared through Redis).
   */
  limits: z
    .strictObject({
      maxConcurrency: positiveInt.optional(),
      ratePerSec: z.number().positive().optional(),
      burst: positiveInt.optional(),
    })
    .optional(),
  /** Sitemaps as a seed source (docs/sitemaps.md). */
  sitemaps: z
    .strictObject({
      /** Sitemap or sitemap-index URLs (XML, plain text, or gzipped). */
      urls: z.array(httpUrl).default([]),
      /** Also read the Sitemap: lines of each seed host's robots.txt. */
      fromRobots: z.boolean().default(true),
      /** Page URLs taken per discovery (sitemaps.org allows 50 000 per file). */
      maxUrls: positiveInt.default(50_000),
      /** Sitemap files fetched per discovery, indexes included. */
      maxSitemaps: positiveInt.default(50),
      /** Largest sitemap after decompression. */
      maxBytes: positiveInt.default(52_428_800),
      /** @default the job's seedPriority */
      priority: z.number().int().optional(),
      /** Re-read the sitemaps this often; pages whose lastmod moved forward are recrawled. */
      refreshIntervalMs: positiveInt.optional(),
    })
    .optional(),
});

const sinkSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('jsonl'),
    path: z.string().min(1).optional(),
    /** Only these jobs' records. @default every job */
    jobs: z.array(z.string()).min(1).optional(),
  }),
  postgresSinkSchema,
]);

const configBase = z.strictObject({
  /** Where the SQLite frontier, results and lock live. */
  dataDir: z.string().min(1).default('./data'),
  /** Identity of this daemon for leases, logs and metrics. @default hostname-pid */
  instanceId: z.string().min(1).optional(),
  log: z.strictObject({ level: z.enum(['error', 'warn', 'info', 'debug']).default('info') }).prefault({}),
  /** false: crawl events update no metric (/metrics still answers, with the process metrics); for benchmarks. */
  metrics: z.strictObject({ enabled: z.boolean().default(true) }).prefault({}),
  http: z
    .strictObject({
      host: z.string().min(1).default('127.0.0.1'),
      /** null: no HTTP server. */
      port: z.number().int().min(0).max(65535).nullable().default(null),
      /**
       * Bearer token for the mutating admin routes. Prefer `${CRAWLD_ADMIN_TOKEN}` or
       * adminTokenFile to a literal. Without a token the mutating routes answer 403.
       */
      adminToken: z.string().min(16, { message: 'must be at least 16 characters' }).optional(),
      /** A file holding the bearer token (read at start and on reload). */
      adminTokenFile: z.string().min(1).optional(),
      /** Largest accepted request body on the admin API. */
      maxBodyBytes: positiveInt.default(1_048_576),
    })
    .prefault({}),
  frontier: z
    .strictObject({
      /** redis, redis-cluster: shared by several daemons (docs/redis.md); sqlite and memory: this daemon only. */
      kind: z.enum(['sqlite', 'memory', 'redis', 'redis-cluster']).default('sqlite'),
      /** sqlite only. @default DATA_DIR/frontier.db */
      path: z.string().min(1).optional(),
      /** redis only: redis://[:password@]HOST:PORT/DB (rediss:// for TLS). */
      url: z.string().min(1).optional(),
      /** redis-cluster only: start-up nodes, "HOST:PORT" each (any reachable one finds the rest). */
      nodes: z.array(z.string()).min(1).optional(),
      /** redis only: namespace of every key, so several crawls can share one Redis. @default 'crawld' */
      keyPrefix: z
        .string()
        .regex(/^[^{}\s]{1,64}$/, { message: 'must be 1-64 characters without braces or spaces' })
        .optional(),
      maxPending: positiveInt.default(5_000_000),
      /** Visibility timeout: a dead daemon's leased tasks return to the queue after this. */
      leaseMs: positiveInt.default(300_000),
    })
    .prefault({})
    .superRefine(frontierIssues),
  fetch: z
    .strictObject({
      userAgent: z.string().min(1).default('crawld/0.1'),
      connectTimeoutMs: positiveInt.default(10_000),
      headersTimeoutMs: positiveInt.default(15_000),
      bodyTimeoutMs: positiveInt.default(15_000),
      totalTimeoutMs: positiveInt.default(60_000),
      maxBodyBytes: positiveInt.default(10 * 1024 * 1024),
      maxDecodedBytes: positiveInt.default(20 * 1024 * 1024),
      maxRedirects: z.number().int().nonnegative().default(10),
      /** Keep-alive pool per origin. Unset: concurrency.maxPerHost, so requests never queue in it. */
      connectionsPerHost: positiveInt.optional(),
      acceptContentTypes: z
        .array(z.string().min(1))
        .default(['text/html', 'application/xhtml+xml', 'application/json', 'text/plain']),
      allowPrivateNetworks: z.boolean().default(false),
      /** Exact addresses allowed even when private networks are not: 'IP', 'IP:PORT' or CIDR. */
      allowAddresses: z.array(z.string().min(1)).default([]),
    })
    .prefault({}),
  concurrency: z
    .strictObject({
      /** Ceiling of requests in flight across all hosts. */
      global: positiveInt.default(512),
      /** Ceiling of each host's adaptive limit. */
      maxPerHost: positiveInt.default(256),
      minPerHost: positiveInt.default(1),
      initialPerHost: positiveInt.default(8),
      /** false: every host runs at maxPerHost, no AIMD. */
      adaptive: z.boolean().default(true),
      /** Latency target: relative to the host's measured baseline, or absolute. */
      target: z
        .discriminatedUnion('kind', [
          z.strictObject({
            kind: z.literal('relative'),
            ratio: z.number().gt(1).default(1.15),
            minMarginMs: z.number().min(0).default(10),
            minRttWindowMs: positiveInt.default(60_000),
            probeLimit: positiveInt.default(3),
          }),
          z.strictObject({ kind: z.literal('absolute'), latencyMs: positiveInt }),
        ])
        .prefault({ kind: 'relative' }),
      increase: z.number().positive().default(1),
      /** Growth after slow start: to limit × target / latency, at most × this. */
      maxGrowthRatio: z.number().min(1).max(2).default(1.25),
      backoffRatio: z.number().min(0.5).lt(1).default(0.9),
      percentile: z.number().gt(0).max(1).default(0.5),
      windowMs: positiveInt.default(1000),
      minWindowSamples: positiveInt.default(20),
      maxLagFraction: z.number().positive().default(0.5),
      /** Dead band above the target: holds the limit instead of cutting it on noise. */
      tolerance: z.number().min(0).default(0.05),
      /** Double each host's limit per window under target until its first cut. */
      slowStart: z.boolean().default(true),
      /** Window length while a host is in slow start. */
      slowStartWindowMs: positiveInt.default(100),
    })
    .prefault({}),
  rateLimits: z
    .strictObject({
      /** One bucket for all requests of this daemon. */
      global: z.strictObject({ ratePerSec: z.number().positive(), burst: positiveInt.optional() }).optional(),
      /** Per-host buckets; the first rule whose pattern matches a host applies to it. */
      hosts: z
        .array(
          z.strictObject({
            hosts: hostPattern,
            ratePerSec: z.number().positive(),
            burst: positiveInt.optional(),
          }),
        )
        .default([]),
    })
    .prefault({}),
  breaker: z
    .strictObject({
      implementation: z.enum(['opossum', 'policy']).default('opossum'),
      errorThresholdPercentage: z.number().gt(0).max(100).default(50),
      rollingWindowMs: positiveInt.default(10_000),
      rollingBuckets: positiveInt.default(10),
      volumeThreshold: positiveInt.default(10),
      resetTimeoutMs: positiveInt.default(30_000),
      halfOpenMaxProbes: positiveInt.default(1),
    })
    .prefault({}),
  hostBackoff: z
    .strictObject({
      initialPauseMs: ms.default(60_000),
      maxPauseMs: ms.default(3_600_000),
      forgiveAfterMs: ms.default(1_800_000),
    })
    .prefault({}),
  politeness: z
    .strictObject({
      /** Minimum gap between two request starts to one host. */
      minDelayMs: ms.default(0),
      robotsTtlMs: positiveInt.default(86_400_000),
      /** Crawl-delay from robots.txt is honoured up to this. */
      maxCrawlDelayMs: ms.default(60_000),
    })
    .prefault({}),
  retry: z
    .strictObject({
      maxAttempts: positiveInt.default(4),
      baseDelayMs: ms.default(1_000),
      maxDelayMs: ms.default(300_000),
      retryAfterCapMs: ms.default(3_600_000),
    })
    .prefault({}),
  shutdown: z.strictObject({ drainTimeoutMs: ms.default(10_000) }).prefault({}),
  sinks: z.array(sinkSchema).default([{ kind: 'jsonl' }]),
  /** Where change records go (jobs with detectChanges). @default DATA_DIR/changes.jsonl */
  changeSinks: z.array(changeSinkSchema).default([{ kind: 'jsonl' }]),
  jobs: z.array(jobSchema).default([]),
});

/** The Redis frontier's score packs priority into 12 bits (src/adapters/frontier/redis-keys.ts). */
export const REDIS_PRIORITY_MIN = -2048;
export const REDIS_PRIORITY_MAX = 2047;

/** The frontier kinds kept in Redis (one server or a Cluster): shared by several daemons. */
export function isRedisKind(kind: string): boolean {
  return kind === 'redis' || kind === 'redis-cluster';
}

/** A Redis Cluster start-up node: HOST:PORT (an IPv6 address in brackets). */
export function isRedisNode(s: string): boolean {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^\s:/@,[\]]+):(\d{1,5})$/.exec(s);
  return m !== null && Number(m[2]) >= 1 && Number(m[2]) <= 65535;
}

/** redis-cluster://HOST:PORT,HOST:PORT,... → the nodes, or undefined if it is not one. */
export function parseRedisClusterUrl(s: string): string[] | undefined {
  const m = /^redis-cluster:\/\/([^/?#]+)\/?$/.exec(s);
  const nodes = m?.[1]?.split(',');
  return nodes?.every(isRedisNode) ? nodes : undefined;
}

export function isRedisUrl(s: string): boolean {
  try {
    const u = new URL(s);
    const db = u.pathname.replace(/^\//, '');
    return (u.protocol === 'redis:' || u.protocol === 'rediss:') && u.hostname !== '' && /^\d{0,2}$/.test(db);
  } catch {
    return false;
  }
}

function frontierIssues(
  f: {
    kind: string;
    path?: string | undefined;
    url?: string | undefined;
    nodes?: string[] | undefined;
    keyPrefix?: string | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  const issue = (path: PropertyKey[], message: string) => ctx.addIssue({ code: 'custom', path, message });
  if (f.kind === 'redis') {
    if (f.url === undefined) issue(['url'], "required when kind is 'redis' (redis://HOST:PORT/DB)");
    else if (!isRedisUrl(f.url)) issue(['url'], 'must be a redis://HOST:PORT/DB or rediss:// URL');
  } else if (f.url !== undefined) issue(['url'], "is for kind 'redis'");
  if (f.kind === 'redis-cluster') {
    if (f.nodes === undefined)
      issue(['nodes'], 'required when kind is \'redis-cluster\' (["HOST:PORT", ...])');
    f.nodes?.forEach((n, i) => {
      if (!isRedisNode(n)) issue(['nodes', i], `must be HOST:PORT, got '${n}'`);
    });
  } else if (f.nodes !== undefined) issue(['nodes'], "is for kind 'redis-cluster'");
  if (isRedisKind(f.kind)) {
    if (f.path !== undefined) issue(['path'], "is for kind 'sqlite' (a redis frontier lives in Redis)");
  } else if (f.keyPrefix !== undefined) issue(['keyPrefix'], "is for kinds 'redis' and 'redis-cluster'");
}

/**
 * What a Redis frontier cannot do, found before any daemon starts: store priorities beyond
 * its range, or keep a lease shorter than a fetch (another daemon would fetch the page too).
 */
function redisIssues(config: z.output<typeof configBase>, ctx: z.RefinementCtx): void {
  if (!isRedisKind(config.frontier.kind)) return;
  if (config.frontier.leaseMs <= config.fetch.totalTimeoutMs)
    ctx.addIssue({
      code: 'custom',
      path: ['frontier', 'leaseMs'],
      message: `must be longer than fetch.totalTimeoutMs (${config.fetch.totalTimeoutMs}) with frontier kind '${config.frontier.kind}'`,
    });
  const check = (value: number, path: PropertyKey[]) => {
    if (value < REDIS_PRIORITY_MIN || value > REDIS_PRIORITY_MAX)
      ctx.addIssue({
        code: 'custom',
        path,
        message: `must be in [${REDIS_PRIORITY_MIN}, ${REDIS_PRIORITY_MAX}] with frontier kind '${config.frontier.kind}'`,
      });
  };
  config.jobs.forEach((job, j) => {
    check(job.seedPriority, ['jobs', j, 'seedPriority']);
    if (job.sitemaps?.priority !== undefined)
      check(job.sitemaps.priority, ['jobs', j, 'sitemaps', 'priority']);
    const e = job.extract;
    if (!e) return;
    e.follow.forEach((r, k) => {
      check(r.priority, ['jobs', j, 'extract', 'follow', k, 'priority']);
    });
    if (e.type === 'html' && e.followAllLinks !== false)
      check(e.followAllLinks.priority, ['jobs', j, 'extract', 'followAllLinks', 'priority']);
  });
}

export const configSchema = configBase.superRefine(redisIssues);

export type CrawldConfig = z.output<typeof configSchema>;
export type JobConfig = CrawldConfig['jobs'][number];
export type ConfigInput = z.input<typeof configSchema>;
