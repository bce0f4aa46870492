import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { proxyUrlProblem } from '../adapters/fetch/proxy.js';
import { BACKOFF_BOUNDS, backoffDefaults } from '../core/backoff.js';
import { BREAKER_BOUNDS, breakerPolicyDefaults } from '../core/breaker-policy.js';
import { HOST_BACKOFF_BOUNDS, hostBackoffDefaults } from '../core/host-backoff.js';
import { JOB_LIMIT_BOUNDS } from '../core/job-gate.js';
import { AIMD_BOUNDS, AIMD_TARGET_BOUNDS, aimdDefaults } from '../core/limit/aimd.js';
import { LOOP_LIMIT_BOUNDS, loopLimitDefaults } from '../core/limit/loop-limit.js';
import { HOST_LIMITERS_BOUNDS, hostLimitersDefaults } from '../core/limiter.js';
import { DEFAULT_MAX_REFRESH_DELAY_SECONDS } from '../core/refresh.js';
import { RETRY_AFTER_BOUNDS, retryAfterDefaults } from '../core/retry-after.js';
import { DEFAULT_LINK_TAGS, LINK_TAGS, type LinkTag } from '../core/rules.js';
import { TOKEN_BUCKET_BOUNDS } from '../core/token-bucket.js';
import { REDIS_PRIORITY_MAX, REDIS_PRIORITY_MIN } from '../ports/frontier.js';
import { controlIssues } from './checks.js';
import { browserSchema, renderSchema } from './schema-browser.js';
import {
  changeSinkSchema,
  cookiesSchema,
  jsonExtractSchema,
  postgresSinkSchema,
  requestSchema,
} from './schema-io.js';
import { ms, numberIn, positiveInt, positiveMs } from './units.js';

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

function isPemFile(path: string): boolean {
  try {
    return readFileSync(path, 'utf8').includes('-----BEGIN CERTIFICATE-----');
  } catch {
    return false;
  }
}

/** A proxy URL; the message never repeats the value, which may carry credentials. */
const proxyUrl = z.string().superRefine((v, ctx) => {
  const problem = proxyUrlProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
const proxyChoice = z.union([z.literal(false), proxyUrl, z.array(proxyUrl).min(1)]);
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
  /** 'json' selects JSON rules (schema-io.ts). */
  type: z.literal('html').default('html'),
  fields: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), fieldRule).optional(),
  follow: z.array(followRule).default([]),
  /**
   * Follow every link of each page: `<a href>`, `<area href>`, `<iframe src>` and `<frame
   * src>` by default (`tags: [a]` follows anchors only); false: only the `follow` rules.
   */
  followAllLinks: z
    .union([
      z.literal(false),
      z.strictObject({
        priority: z.number().int().default(10),
        tags: z
          .array(z.enum(Object.keys(LINK_TAGS) as [LinkTag, ...LinkTag[]]))
          .min(1)
          .default([...DEFAULT_LINK_TAGS]),
      }),
    ])
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
      /**
       * Hosts crawled. @default the seeds' hosts, their www./apex twins and the hosts the
       * seeds redirect to (docs/politeness.md)
       */
      hosts: z.array(hostPattern).optional(),
      /**
       * Widen the default scope to every host of the seeds' registrable domains (Public
       * Suffix List): `shop.example` then covers `img.shop.example`. @default false
       */
      sameSite: z.boolean().default(false),
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
  /** The job's cookie jar: on by default, as in browsers, wget and Scrapy. */
  cookies: cookiesSchema.prefault({}),
  /** http: fetch with undici; browser: render in headless Chromium first (docs/browser.md). */
  render: renderSchema,
  /**
   * Politeness (docs/politeness.md). true: obey robots.txt (disallowed URLs skipped,
   * Crawl-delay honoured) and meta robots / X-Robots-Tag; false: neither. The object form sets
   * each: `txt`, `meta` (nofollow: no links followed; noindex: the record says `noindex: true`),
   * `dropNoindex` (noindex pages write no record).
   */
  robots: z
    .union([
      z.boolean(),
      z.strictObject({
        txt: z.boolean().default(true),
        meta: z.boolean().default(true),
        dropNoindex: z.boolean().default(false),
      }),
    ])
    .default(true),
  /** Compare extracted fields with the previous crawl and write change records. @default true when recrawlIntervalMs is set */
  detectChanges: z.boolean().optional(),
  /**
   * Recrawl every page of the job this long after it was fetched. Recrawls are conditional
   * (If-None-Match / If-Modified-Since from the page's last 200; docs/recrawl.md).
   */
  recrawlIntervalMs: positiveInt.optional(),
  /**
   * Adaptive recrawl intervals, starting from recrawlIntervalMs: a page that did not change
   * waits longer next time, one that changed comes back sooner, within [min, max].
   */
  recrawl: z
    .strictObject({
      minIntervalMs: positiveInt,
      maxIntervalMs: positiveInt,
      adaptive: z.boolean().default(true),
    })
    .optional(),
  /** The job's proxies (a URL or a list), overriding fetch.proxy; false: direct. */
  proxy: proxyChoice.optional(),
  /** Write a record (`status: 304, unchanged: true`) for a recrawl the server answered 304. */
  recordUnchanged: z.boolean().default(true),
  /**
   * The job's own limits at each host it crawls, on top of the host's: e.g. an API's
   * contracted rate. Per daemon (not shared through Redis).
   */
  limits: z
    .strictObject({
      maxConcurrency: numberIn(JOB_LIMIT_BOUNDS.maxConcurrency).optional(),
      ratePerSec: numberIn(JOB_LIMIT_BOUNDS.ratePerSec).optional(),
      burst: numberIn(JOB_LIMIT_BOUNDS.burst).optional(),
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
      refreshIntervalMs: positiveMs.optional(),
      /** Also enqueue the xhtml:link rel="alternate" pages of each <url> (other languages). */
      alternates: z.boolean().default(false),
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
      /**
       * Visibility timeout: a dead daemon's leased tasks return to the queue at most this long
       * after its death (a running task's lease is extended by its holder while it runs).
       */
      leaseMs: positiveMs.default(120_000),
    })
    .prefault({})
    .superRefine(frontierIssues),
  fetch: z
    .strictObject({
      userAgent: z.string().min(1).default('crawld/0.1'),
      connectTimeoutMs: positiveMs.default(10_000),
      headersTimeoutMs: positiveMs.default(15_000),
      bodyTimeoutMs: positiveMs.default(15_000),
      totalTimeoutMs: positiveMs.default(60_000),
      maxBodyBytes: positiveInt.default(10 * 1024 * 1024),
      maxDecodedBytes: positiveInt.default(20 * 1024 * 1024),
      maxRedirects: z.number().int().nonnegative().default(10),
      /**
       * Meta refresh and Refresh headers of 2xx pages with at most this delay are followed as
       * redirects (Scrapy's METAREFRESH_MAXDELAY); 0 follows only immediate ones.
       */
      maxRefreshDelaySeconds: z.number().nonnegative().default(DEFAULT_MAX_REFRESH_DELAY_SECONDS),
      /** Keep-alive pool per origin. Unset: concurrency.maxPerHost, so requests never queue in it. */
      connectionsPerHost: positiveInt.optional(),
      acceptContentTypes: z
        .array(z.string().min(1))
        .default(['text/html', 'application/xhtml+xml', 'application/json', 'text/plain']),
      allowPrivateNetworks: z.boolean().default(false),
      /** Exact addresses allowed even when private networks are not: 'IP', 'IP:PORT' or CIDR. */
      allowAddresses: z.array(z.string().min(1)).default([]),
      /**
       * Fixed answers before DNS, hostname -> IP (curl's --resolve): a staging server under its
       * production name. The SSRF guard still checks the address. @default {}
       */
      resolve: z
        .record(
          z.string().regex(/^[a-z0-9.-]+$/i, { message: 'must be a hostname' }),
          z.union([z.ipv4(), z.ipv6()]),
        )
        .default({}),
      /** `ca`: a PEM file of CA certificates trusted besides Node's own (a private CA). */
      tls: z
        .strictObject({
          ca: z
            .string()
            .min(1)
            .refine(isPemFile, { message: 'must be a readable PEM file of certificates' })
            .optional(),
        })
        .prefault({}),
      /**
       * HTTP(S) proxy URL, or a list to rotate through; false: direct, whatever the environment.
       * Unset: HTTPS_PROXY / HTTP_PROXY / NO_PROXY. Credentials in the URL (or ${ENV}) are never logged.
       */
      proxy: proxyChoice.optional(),
      /** The Chromium pool of jobs with render.kind browser (docs/browser.md). */
      browser: browserSchema,
    })
    .prefault({}),
  concurrency: z
    .strictObject({
      /** Ceiling of requests in flight across all hosts. */
      global: numberIn(HOST_LIMITERS_BOUNDS.globalMaxInflight).default(
        hostLimitersDefaults.globalMaxInflight,
      ),
      /** Lower the global limit while the event loop is saturated (core/limit/loop-limit.ts). */
      globalAdaptive: z.boolean().default(true),
      /** Floor of the adaptive global limit. */
      minGlobal: numberIn(LOOP_LIMIT_BOUNDS.minLimit).default(loopLimitDefaults.minLimit),
      /** Event-loop delay a saturated loop may run at before the global limit is cut. */
      loopLagTargetMs: numberIn(LOOP_LIMIT_BOUNDS.targetLagMs).default(loopLimitDefaults.targetLagMs),
      /** Ceiling of each host's adaptive limit. */
      maxPerHost: numberIn(AIMD_BOUNDS.maxLimit).default(aimdDefaults.maxLimit),
      minPerHost: numberIn(AIMD_BOUNDS.minLimit).default(aimdDefaults.minLimit),
      initialPerHost: numberIn(AIMD_BOUNDS.initialLimit).default(aimdDefaults.initialLimit),
      /** false: every host runs at maxPerHost, no AIMD. */
      adaptive: z.boolean().default(true),
      /** Latency target: relative to the host's measured baseline, or absolute. */
      target: z
        .discriminatedUnion('kind', [
          z.strictObject({
            kind: z.literal('relative'),
            ratio: numberIn(AIMD_TARGET_BOUNDS.ratio).default(aimdDefaults.target.ratio),
            minMarginMs: numberIn(AIMD_TARGET_BOUNDS.minMarginMs).default(aimdDefaults.target.minMarginMs),
            minRttWindowMs: numberIn(AIMD_TARGET_BOUNDS.minRttWindowMs).default(
              aimdDefaults.target.minRttWindowMs,
            ),
            probeLimit: numberIn(AIMD_TARGET_BOUNDS.probeLimit).default(aimdDefaults.target.probeLimit),
          }),
          z.strictObject({ kind: z.literal('absolute'), latencyMs: numberIn(AIMD_TARGET_BOUNDS.latencyMs) }),
        ])
        .prefault({ kind: 'relative' }),
      increase: numberIn(AIMD_BOUNDS.increase).default(aimdDefaults.increase),
      /** Growth after slow start: to limit × target / latency, at most × this. */
      maxGrowthRatio: numberIn(AIMD_BOUNDS.maxGrowthRatio).default(aimdDefaults.maxGrowthRatio),
      backoffRatio: numberIn(AIMD_BOUNDS.backoffRatio).default(aimdDefaults.backoffRatio),
      percentile: numberIn(AIMD_BOUNDS.percentile).default(aimdDefaults.percentile),
      windowMs: numberIn(AIMD_BOUNDS.windowMs).default(aimdDefaults.windowMs),
      minWindowSamples: numberIn(AIMD_BOUNDS.minWindowSamples).default(aimdDefaults.minWindowSamples),
      maxLagFraction: numberIn(AIMD_BOUNDS.maxLagFraction).default(aimdDefaults.maxLagFraction),
      /** Dead band above the target: holds the limit instead of cutting it on noise. */
      tolerance: numberIn(AIMD_BOUNDS.tolerance).default(aimdDefaults.tolerance),
      /** Double each host's limit per window under target until its first cut. */
      slowStart: z.boolean().default(aimdDefaults.slowStart),
      /** Window length while a host is in slow start. */
      slowStartWindowMs: numberIn(AIMD_BOUNDS.slowStartWindowMs).default(aimdDefaults.slowStartWindowMs),
    })
    .prefault({}),
  rateLimits: z
    .strictObject({
      /** One bucket for all requests of this daemon. */
      global: z
        .strictObject({
          ratePerSec: numberIn(TOKEN_BUCKET_BOUNDS.ratePerSec),
          burst: numberIn(TOKEN_BUCKET_BOUNDS.burst).optional(),
        })
        .optional(),
      /** Per-host buckets; the first rule whose pattern matches a host applies to it. */
      hosts: z
        .array(
          z.strictObject({
            hosts: hostPattern,
            ratePerSec: numberIn(TOKEN_BUCKET_BOUNDS.ratePerSec),
            burst: numberIn(TOKEN_BUCKET_BOUNDS.burst).optional(),
          }),
        )
        .default([]),
    })
    .prefault({}),
  breaker: z
    .strictObject({
      implementation: z.enum(['policy', 'opossum']).default('policy'),
      errorThresholdPercentage: numberIn(BREAKER_BOUNDS.errorThresholdPercentage).default(
        breakerPolicyDefaults.errorThresholdPercentage,
      ),
      rollingWindowMs: numberIn(BREAKER_BOUNDS.rollingCountTimeoutMs).default(
        breakerPolicyDefaults.rollingCountTimeoutMs,
      ),
      rollingBuckets: numberIn(BREAKER_BOUNDS.rollingCountBuckets).default(
        breakerPolicyDefaults.rollingCountBuckets,
      ),
      volumeThreshold: numberIn(BREAKER_BOUNDS.volumeThreshold).default(
        breakerPolicyDefaults.volumeThreshold,
      ),
      /** Opens after this many failures in a row (0: the rate rule only). */
      consecutiveFailures: numberIn(BREAKER_BOUNDS.consecutiveFailures).default(
        breakerPolicyDefaults.consecutiveFailures,
      ),
      /** Open time after a first trip; doubled per consecutive trip up to maxResetTimeoutMs. */
      resetTimeoutMs: numberIn(BREAKER_BOUNDS.resetTimeoutMs).default(breakerPolicyDefaults.resetTimeoutMs),
      maxResetTimeoutMs: numberIn(BREAKER_BOUNDS.maxResetTimeoutMs).default(
        breakerPolicyDefaults.maxResetTimeoutMs,
      ),
      halfOpenMaxProbes: numberIn(BREAKER_BOUNDS.halfOpenMaxProbes).default(
        breakerPolicyDefaults.halfOpenMaxProbes,
      ),
    })
    .prefault({}),
  hostBackoff: z
    .strictObject({
      initialPauseMs: numberIn(HOST_BACKOFF_BOUNDS.initialPauseMs).default(
        hostBackoffDefaults.initialPauseMs,
      ),
      maxPauseMs: numberIn(HOST_BACKOFF_BOUNDS.maxPauseMs).default(hostBackoffDefaults.maxPauseMs),
      forgiveAfterMs: numberIn(HOST_BACKOFF_BOUNDS.forgiveAfterMs).default(
        hostBackoffDefaults.forgiveAfterMs,
      ),
    })
    .prefault({}),
  politeness: z
    .strictObject({
      /** Minimum gap between two request starts to one host. */
      minDelayMs: ms.default(0),
      robotsTtlMs: positiveMs.default(86_400_000),
      /** First refetch of an unreachable robots.txt (429, 5xx, network); doubles up to robotsTtlMs. */
      robotsRetryMs: positiveMs.default(30_000),
      /** Crawl-delay from robots.txt is honoured up to this. */
      maxCrawlDelayMs: ms.default(60_000),
    })
    .prefault({}),
  retry: z
    .strictObject({
      maxAttempts: positiveInt.default(4),
      baseDelayMs: numberIn(BACKOFF_BOUNDS.baseMs).default(backoffDefaults.baseMs),
      maxDelayMs: numberIn(BACKOFF_BOUNDS.maxMs).default(backoffDefaults.maxMs),
      retryAfterCapMs: numberIn(RETRY_AFTER_BOUNDS.maxMs).default(retryAfterDefaults.maxMs),
    })
    .prefault({}),
  shutdown: z.strictObject({ drainTimeoutMs: ms.default(10_000) }).prefault({}),
  sinks: z.array(sinkSchema).default([{ kind: 'jsonl' }]),
  /** Where change records go (jobs with detectChanges). @default DATA_DIR/changes.jsonl */
  changeSinks: z.array(changeSinkSchema).default([{ kind: 'jsonl' }]),
  jobs: z.array(jobSchema.superRefine(recrawlIssues)).default([]),
});

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

/** recrawl needs a starting interval inside [minIntervalMs, maxIntervalMs]. */
function recrawlIssues(
  j: {
    recrawlIntervalMs?: number | undefined;
    recrawl?: { minIntervalMs: number; maxIntervalMs: number } | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  const r = j.recrawl;
  if (!r) return;
  const issue = (path: string, message: string) =>
    ctx.addIssue({ code: 'custom', path: ['recrawl', path], message });
  if (r.minIntervalMs > r.maxIntervalMs) issue('minIntervalMs', 'must not exceed maxIntervalMs');
  else if (j.recrawlIntervalMs === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['recrawlIntervalMs'],
      message: 'is required with recrawl (the starting interval)',
    });
  else if (j.recrawlIntervalMs < r.minIntervalMs || j.recrawlIntervalMs > r.maxIntervalMs)
    ctx.addIssue({
      code: 'custom',
      path: ['recrawlIntervalMs'],
      message: 'must lie within recrawl.minIntervalMs..maxIntervalMs',
    });
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
 * its range. (A lease may be shorter than a fetch: the daemon extends the lease of a task
 * while it runs, engine/lease-keeper.ts.)
 */
function redisIssues(config: z.output<typeof configBase>, ctx: z.RefinementCtx): void {
  if (!isRedisKind(config.frontier.kind)) return;
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

export const configSchema = configBase.superRefine(redisIssues).superRefine(controlIssues);

export type CrawldConfig = z.output<typeof configSchema>;
export type JobConfig = CrawldConfig['jobs'][number];
export type ConfigInput = z.input<typeof configSchema>;
