import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { UndiciFetcher } from '../adapters/fetch/undici-fetcher.js';
import { MemoryPageStateStore, SqlitePageStateStore } from '../adapters/page-state/sqlite-page-state.js';
import {
  ROBOTS_MAX_REDIRECTS,
  ROBOTS_UNREACHABLE,
  RobotsCache,
  type UnreachableHost,
} from '../adapters/robots/robots-cache.js';
import { ROBOTS_MAX_BYTES } from '../adapters/robots/robots-txt.js';
import { type Clock, systemClock, systemRandom } from '../core/clock.js';
import { type CrawlEmitter, type CrawlEvents, TypedEmitter } from '../core/events.js';
import { JobGate, type JobLimits } from '../core/job-gate.js';
import { createLogger, type Logger, redactUrl } from '../observe/logger.js';
import { createMetrics, type Metrics } from '../observe/metrics.js';
import type { ControlPlane } from '../ports/control-plane.js';
import type { EnqueueRequest, EnqueueResult, Frontier } from '../ports/frontier.js';
import type { ChangeSink, PageStateStore } from '../ports/page-state.js';
import type { Sink } from '../ports/sink.js';
import { VERSION } from '../version.js';
import { pageFetcher } from './browser-factory.js';
import type { CrawldConfig } from './config.js';
import { createControlPlane } from './control-factory.js';
import { lockDataDir } from './data-dir-lock.js';
import { fetcherOptions, jobProxies, proxyCount } from './fetcher-options.js';
import { createFrontier } from './frontier-factory.js';
import type { RetryPolicy } from './job-runtime.js';
import { compileJob, seedRequests } from './jobs.js';
import { startLagMonitor } from './lag-monitor.js';
import { PartialRecords } from './partial-records.js';
import { recoverLeases } from './recovery.js';
import { diffReload, type ReloadResult } from './reload.js';
import { createRetryPolicy } from './retry-policy.js';
import { Scheduler } from './scheduler.js';
import { beginClosingSinks, createChangeSinks, createSinks, sinksForJob } from './sink-factory.js';
import { createSitemaps } from './sitemap-factory.js';
import { SwappableControlPlane } from './swappable-control-plane.js';
import { TaskRunner } from './task-runner.js';

/** jobs[].limits by job id, for the scheduler's JobGate. */
function jobLimitsOf(config: CrawldConfig): Map<string, JobLimits> {
  return new Map(config.jobs.flatMap((j) => (j.limits ? [[j.id, j.limits] as const] : [])));
}

/** This daemon's identity for leases, logs and metrics: configured, or hostname-pid. */
export function instanceIdOf(config: CrawldConfig): string {
  return config.instanceId ?? `${hostname()}-${process.pid}`;
}

export interface DaemonOptions {
  readonly once: boolean;
  readonly logger?: Logger;
  readonly clock?: Clock;
}

export interface Daemon {
  readonly config: CrawldConfig;
  readonly events: CrawlEmitter;
  readonly logger: Logger;
  readonly frontier: Frontier;
  readonly scheduler: Scheduler;
  readonly instanceId: string;
  readonly startedAt: number;
  readonly metrics: Metrics;
  readonly control: ControlPlane;
  /** Hosts whose robots.txt is unreachable (RFC 9309 §2.3.1.4), for the status page. */
  robotsUnreachable(): UnreachableHost[];
  /** Resolves when the crawl loop ends (once-mode end or stop()). */
  run(): Promise<void>;
  submit(requests: readonly EnqueueRequest[]): Promise<EnqueueResult>;
  ready(): boolean;
  /**
   * Applies a new, already validated config: rate limits, breaker thresholds, concurrency
   * bounds, retries, log level, jobs and schedules. Storage, HTTP and fetch settings need a
   * restart and are reported in `needsRestart`.
   */
  reload(next: CrawldConfig): Promise<ReloadResult>;
  /** Graceful: drain in-flight until the drain timeout, hand the rest back, flush, close. */
  stop(): Promise<void>;
}

/**
 * The composition root: the only place where config becomes components. Nothing below
 * reads config or the environment; everything receives what it needs by constructor.
 */
export async function createDaemon(config: CrawldConfig, options: DaemonOptions): Promise<Daemon> {
  const clock = options.clock ?? systemClock;
  const instanceId = instanceIdOf(config);
  const logger = options.logger ?? createLogger({ level: config.log.level, instanceId });
  // A listener's throw is logged and counted as an internal error, never the emitter's caller's
  // failure (the scheduler's pump took one for a frontier failure and stopped).
  const events: CrawlEmitter = new TypedEmitter<CrawlEvents>({
    onListenerError: (event, error) => {
      logger.error('event listener failed', { event, error: String(error) });
      if (event !== 'internalError') events.emit('internalError', { where: `listener:${event}`, error });
    },
  });
  const dataDir = resolve(config.dataDir);
  // Still one daemon per data dir with a shared frontier: the dir holds this daemon's results.
  const unlock = lockDataDir(dataDir);

  const store = await createFrontier(config, {
    clock,
    dataDir,
    instanceId,
    onConnection: (up, err) =>
      up
        ? logger.info('frontier store reachable', { frontier: config.frontier.kind })
        : logger.warn('frontier store unreachable: not ready, retrying', {
            ...(err !== undefined ? { error: String(err) } : {}),
          }),
    onRateError: (err) => logger.debug('shared rate limit unavailable', { error: String(err) }),
  });
  const frontier: Frontier = store.frontier;
  const sinks: Sink[] = await createSinks(config, dataDir, events);
  const sinksFor = sinksForJob(config, sinks);
  const partial = new PartialRecords();
  const fetchOptions = {
    ...fetcherOptions(config),
    extraProxies: jobProxies(config),
    onProxy: (proxy: number, result: CrawlEvents['proxy']['result']) =>
      events.emit('proxy', { proxy, result }),
  };
  const fetcher = new UndiciFetcher(fetchOptions);
  // Jobs with render.kind browser go to headless Chromium (docs/browser.md).
  const pages = pageFetcher(config, fetcher, events);
  const jobs = new Map(config.jobs.map((j) => [j.id, compileJob(j, config.fetch.userAgent)]));
  const trackChanges = [...jobs.values()].some((j) => j.detectChanges);
  // Recrawling jobs keep validators and intervals in the page state even without change records.
  const keepPages = trackChanges || [...jobs.values()].some((j) => j.recrawl);
  const pageState: PageStateStore | undefined = !keepPages
    ? undefined
    : config.frontier.kind === 'memory'
      ? new MemoryPageStateStore()
      : new SqlitePageStateStore(join(dataDir, 'pages.db'));
  const changeSinks: ChangeSink[] = trackChanges ? createChangeSinks(config, dataDir, events) : [];
  const lag = startLagMonitor();
  let current = config;
  const buildControl = (c: CrawldConfig) => {
    const built = createControlPlane(c, clock, systemRandom, store.createRateLimiter);
    built.breakers.onTransition((t) =>
      logger.warn('circuit breaker state change', { host: t.host, from: t.from, to: t.to }),
    );
    built.limiters.onLimitChange((host, limit, reason) =>
      logger.debug('concurrency limit changed', { host, limit, reason }),
    );
    return built;
  };
  let built = buildControl(config);
  const control = new SwappableControlPlane(built.control);
  // robots.txt on the page fetcher's connections, with its own limits: at most 5 redirects
  // (RFC 9309 §2.3.1.2), any media type, and any size: the head is read (one byte past the
  // parsed 500 KiB tells a cut file), the rest never downloaded.
  const robotsFetcher = fetcher.variant({
    maxRedirects: ROBOTS_MAX_REDIRECTS,
    maxBodyBytes: ROBOTS_MAX_BYTES + 1,
    maxDecodedBytes: ROBOTS_MAX_BYTES + 1,
    truncateBody: true,
    acceptContentTypes: ['text/*', 'application/*'],
  });
  const robots = new RobotsCache({
    fetcher: robotsFetcher,
    clock,
    userAgent: config.fetch.userAgent,
    ttlMs: config.politeness.robotsTtlMs,
    retryMs: Math.min(config.politeness.robotsRetryMs, config.politeness.robotsTtlMs),
    onFetch: (host, outcome) => {
      events.emit('robotsFetch', { host, outcome });
      if (ROBOTS_UNREACHABLE.has(outcome))
        logger.warn('robots.txt unreachable: host waits', { host, outcome });
    },
    onCrawlDelay: (host, delayMs) =>
      built.control.setCrawlDelay(host, Math.min(delayMs, current.politeness.maxCrawlDelayMs)),
  });
  let retryPolicy = createRetryPolicy(config.retry, clock, systemRandom);
  // The runner keeps this object; a reload swaps the policy behind it.
  const retry: RetryPolicy = {
    get maxAttempts() {
      return retryPolicy.maxAttempts;
    },
    delayMs: (attempt, retryAfterMs) => retryPolicy.delayMs(attempt, retryAfterMs),
    retryAfterMs: (header) => retryPolicy.retryAfterMs(header),
  };
  const runner = new TaskRunner({
    frontier,
    fetcher: pages,
    sinks,
    sinksFor,
    partial,
    jobs,
    retry,
    clock,
    events,
    robots,
    pageState,
    changeSinks,
    lagMs: () => lag.ownDelayMs(),
    breakerRetryInMs: (host) => control.breakerRetryInMs(host),
  });
  const jobGate = new JobGate(jobLimitsOf(config), clock);
  const scheduler = new Scheduler(frontier, control, runner, clock, events, {
    owner: instanceId,
    leaseMs: config.frontier.leaseMs,
    bufferSize: Math.max(64, config.concurrency.global * 2),
    perHostBuffer: Math.max(16, config.concurrency.maxPerHost * 2),
    idlePollMs: store.scheduling.idlePollMs,
    ...(store.scheduling.minLeaseLeftMs !== undefined
      ? { minLeaseLeftMs: store.scheduling.minLeaseLeftMs }
      : {}),
    once: options.once,
    jobGate,
  });

  try {
    await store.open();
  } catch (err) {
    await store.close();
    lag.stop();
    unlock();
    throw err;
  }
  for (const s of sinks) await s.open();
  await pageState?.open();
  for (const s of changeSinks) await s.open();
  // A shared frontier's leases may be live daemons' (listLeased cannot tell whose): they come
  // back by expiry (frontier.leaseMs) instead. docs/redis.md.
  if (store.recoverAtStart) {
    const recovered = await recoverLeases(
      frontier,
      sinks,
      clock.now(),
      (jobId) => {
        const j = jobs.get(jobId);
        return j?.recrawlIntervalMs !== undefined ? clock.now() + j.recrawlIntervalMs : undefined;
      },
      sinksFor,
      partial,
    );
    if (recovered.acked + recovered.returned > 0)
      logger.info('recovered leases of a previous run', recovered);
  }
  for (const job of config.jobs) {
    const res = await frontier.enqueue(seedRequests(job));
    logger.info('job seeded', { job: job.id, seeds: job.seeds.length, ...res });
  }
  // One line per task that gave up: what an operator greps for after a failure-rate page.
  events.on('deadLettered', (e) =>
    logger.warn('task dead-lettered', {
      job: e.jobId,
      host: e.host,
      url: redactUrl(e.url),
      reason: e.reason,
      attempts: e.attempts,
    }),
  );
  const sitemaps = createSitemaps(config, {
    dataDir,
    logger,
    jobs,
    enqueue: async (requests) => {
      const res = await frontier.enqueue(requests);
      scheduler.kick(true);
      return res;
    },
  });
  // Awaited before the crawl starts so that --once cannot finish before the sitemaps are in.
  await sitemaps?.discoverAll();
  if (!options.once) sitemaps?.startRefresh();
  logger.info('crawld started', {
    instance: instanceId,
    dataDir,
    frontier: config.frontier.kind,
    jobs: config.jobs.map((j) => j.id),
    once: options.once,
    // A summary, not the config: sink URLs and headers may hold secrets.
    concurrency: { global: config.concurrency.global, maxPerHost: config.concurrency.maxPerHost },
    adaptive: config.concurrency.adaptive,
    globalRatePerSec: config.rateLimits.global?.ratePerSec ?? null,
    hostRateRules: config.rateLimits.hosts.length,
    sinks: config.sinks.map((s) => s.kind),
  });

  let stopping: Promise<void> | undefined;
  const startedAt = clock.now();
  const breakerCode = { closed: 0, halfOpen: 1, open: 2 } as const;
  const metrics = createMetrics(
    config.metrics.enabled ? events : new TypedEmitter<CrawlEvents>(),
    {
      frontierStats: () => frontier.stats(),
      inflight: () => control.inflight(),
      globalLimit: () => control.globalLimit(),
      hosts: () => [...control.hostSnapshots()].map((h) => [h.host, h.limit, h.inflight] as const),
      breakers: () => [...control.hostSnapshots()].map((h) => [h.host, breakerCode[h.breaker]] as const),
      paused: () => scheduler.state === 'paused',
      ready: () => daemon.ready(),
      proxies: () => proxyCount(fetchOptions),
    },
    { version: VERSION },
    {
      jobs: config.jobs.map((j) => j.id),
      sinks: sinks.map((s) => s.name),
      priorities: config.jobs.map((j) => j.seedPriority),
    },
  );
  const daemon: Daemon = {
    // The running config: after a SIGHUP reload, the new one (jobs, limits) for /api/jobs.
    get config() {
      return current;
    },
    events,
    logger,
    frontier,
    scheduler,
    instanceId,
    startedAt,
    metrics,
    control,
    robotsUnreachable: () => robots.unreachable(),
    run: () => scheduler.run(),
    async submit(requests) {
      const res = await frontier.enqueue(requests);
      scheduler.kick(true);
      return res;
    },
    ready: () => stopping === undefined && scheduler.state !== 'stopped' && store.healthy(),
    async reload(next) {
      const result = diffReload(current, next);
      if (stopping) return result;
      const old = built;
      built = buildControl(next);
      control.swap(built.control);
      // Old breakers keep no timers once closed; their in-flight reports still land on them.
      setTimeout(() => old.breakers.close(), next.shutdown.drainTimeoutMs + 60_000).unref();
      retryPolicy = createRetryPolicy(next.retry, clock, systemRandom);
      jobGate.update(jobLimitsOf(next));
      logger.level = next.log.level;
      for (const job of next.jobs) {
        const isNew = !jobs.has(job.id);
        if (isNew) metrics.addJob(job.id);
        jobs.set(job.id, compileJob(job, next.fetch.userAgent));
        if (isNew) await frontier.enqueue(seedRequests(job));
      }
      current = next;
      scheduler.kick();
      logger.info('config reloaded', result);
      return result;
    },
    stop() {
      stopping ??= (async () => {
        logger.info('shutdown: draining', {
          inflight: scheduler.inflightCount,
          drainTimeoutMs: current.shutdown.drainTimeoutMs,
        });
        // In-flight tasks get the drain time; after it, no waiting for a store that is down.
        const giveUp = setTimeout(() => store.giveUp(), current.shutdown.drainTimeoutMs);
        await sitemaps?.close();
        const sinkDeadline = setTimeout(() => beginClosingSinks(sinks), current.shutdown.drainTimeoutMs);
        const { aborted } = await scheduler.stop(current.shutdown.drainTimeoutMs);
        clearTimeout(sinkDeadline);
        store.giveUp();
        clearTimeout(giveUp);
        logger.info('shutdown: drained', { aborted });
        for (const s of sinks) await s.close();
        for (const s of changeSinks) await s.close();
        await pageState?.close();
        logger.info('shutdown: sinks flushed');
        await pages.close(); // the browser first, when there is one, then the http fetcher
        built.breakers.close();
        await frontier.close();
        await store.close();
        lag.stop();
        unlock();
        logger.info('shutdown: frontier closed');
      })();
      return stopping;
    },
  };
  return daemon;
}
