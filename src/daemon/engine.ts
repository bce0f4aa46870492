/**
 * The crawl engine's parts, built from config for createDaemon; what they hold (connections,
 * the breakers' timers) goes on the release stack.
 */
import { UndiciFetcher } from '../adapters/fetch/undici-fetcher.js';
import { ROBOTS_MAX_REDIRECTS, ROBOTS_UNREACHABLE, RobotsCache } from '../adapters/robots/robots-cache.js';
import { ROBOTS_MAX_BYTES } from '../adapters/robots/robots-txt.js';
import type { StoredLimitHints } from '../adapters/shared-map/stored-limit-hints.js';
import type { CrawldConfig } from '../config/config.js';
import { retryPolicyOptions } from '../config/control-options.js';
import { systemRandom } from '../core/clock.js';
import type { CrawlEvents } from '../core/events.js';
import { HedgePolicy } from '../core/hedge.js';
import { HostTimeouts } from '../core/host-timeout.js';
import { JobGate, type JobLimits } from '../core/job-gate.js';
import { SwappableControlPlane } from '../engine/control/swappable-control-plane.js';
import type { JobRuntime } from '../engine/job/job-runtime.js';
import type { PartialRecords } from '../engine/recovery/partial-records.js';
import { Scheduler } from '../engine/scheduler/scheduler.js';
import { createRetryPolicy, swappableRetryPolicy } from '../engine/task/retry-policy.js';
import { TaskRunner } from '../engine/task/task-runner.js';
import type { Fetcher } from '../ports/fetcher.js';
import type { ChangeSink, PageStateStore } from '../ports/page-state.js';
import type { Sink } from '../ports/sink.js';
import { pageFetcher } from './browser-factory.js';
import { createControlPlane } from './control-factory.js';
import type { EventLoopMonitor } from './event-loop-monitor.js';
import { exchangeTapsFor } from './exchange-taps.js';
import { fetcherOptions, jobProxies, listenerDeny } from './fetcher-options.js';
import type { BuiltFrontier } from './frontier-types.js';
import type { BuiltControl, Root } from './root.js';
import { publishLimits, startLimitOf } from './start-limits.js';

export function jobLimitsOf(config: CrawldConfig): Map<string, JobLimits> {
  return new Map(config.jobs.flatMap((j) => (j.limits ? [[j.id, j.limits] as const] : [])));
}

/** On a shared frontier, new hosts start from the limit hints and the limits go to them. */
export function buildControl(
  root: Root,
  config: CrawldConfig,
  store: BuiltFrontier,
  hints?: StoredLimitHints,
): BuiltControl {
  const start = startLimitOf(config, hints);
  const built = createControlPlane(config, root.clock, systemRandom, store.createRateLimiter, start);
  publishLimits(config, hints, built.limiters);
  built.breakers.onTransition((t) =>
    root.logger.warn('circuit breaker state change', { host: t.host, from: t.from, to: t.to }),
  );
  built.limiters.onLimitChange((host, limit, reason) =>
    root.logger.debug('concurrency limit changed', { host, limit, reason }),
  );
  return built;
}

/** `listenerUrl`: the daemon's own HTTP server, which no fetch of the crawl may reach. */
export function createFetching(root: Root, listenerUrl?: string) {
  const { config } = root.live;
  const base = fetcherOptions(config);
  const deny = listenerDeny(listenerUrl);
  const taps = exchangeTapsFor(config);
  // For the life of the daemon: a reload keeps what each host taught.
  const timeouts = new HostTimeouts(config.fetch.adaptiveTimeout);
  const hedge = config.fetch.hedge.enabled ? new HedgePolicy(config.fetch.hedge) : undefined;
  const fetchOptions = {
    ...base,
    ...(taps ? { tap: taps.tap } : {}),
    ...(deny ? { addressPolicy: { ...base.addressPolicy, deny } } : {}),
    extraProxies: jobProxies(config),
    onProxy: (proxy: number, result: CrawlEvents['proxy']['result']) =>
      root.events.emit('proxy', { proxy, result }),
    timeouts,
    ...(hedge ? { hedge } : {}),
    onHedge: (host: string, result: 'won' | 'lost') => root.events.emit('hedge', { host, result }),
  };
  const fetcher = new UndiciFetcher(fetchOptions);
  let pages: Fetcher;
  try {
    pages = pageFetcher(config, fetcher, root.events);
  } catch (err) {
    void fetcher.close();
    throw err;
  }
  root.stack.push('fetcher', () => pages.close());
  const control = new SwappableControlPlane(root.live.built.control);
  // A host of a render kind auto job decided http gets an http host's limit, not the render
  // limit its sample pages started it on.
  root.events.on('renderDecision', (e) => control.fetcherChanged(e.host, e.decision));
  root.stack.push('breakers', () => root.live.built.breakers.close());
  // RFC 9309 §2.3.1.2: at most 5 redirects; any media type; one byte past the parsed 500 KiB
  // tells a cut file, the rest is never downloaded.
  const robotsFetcher = fetcher.variant({
    maxRedirects: ROBOTS_MAX_REDIRECTS,
    maxBodyBytes: ROBOTS_MAX_BYTES + 1,
    maxDecodedBytes: ROBOTS_MAX_BYTES + 1,
    truncateBody: true,
    acceptContentTypes: ['text/*', 'application/*'],
  });
  const robots = new RobotsCache({
    fetcher: robotsFetcher,
    clock: root.clock,
    userAgent: config.fetch.userAgent,
    ttlMs: config.politeness.robotsTtlMs,
    retryMs: Math.min(config.politeness.robotsRetryMs, config.politeness.robotsTtlMs),
    onFetch: (host, outcome) => {
      root.events.emit('robotsFetch', { host, outcome });
      if (ROBOTS_UNREACHABLE.has(outcome))
        root.logger.warn('robots.txt unreachable: host waits', { host, outcome });
    },
    onCrawlDelay: (host, delayMs) =>
      root.live.built.control.setCrawlDelay(
        host,
        Math.min(delayMs, root.live.config.politeness.maxCrawlDelayMs),
      ),
  });
  return { fetcher, pages, fetchOptions, control, robots, timeouts, taps };
}

export interface RunnerParts {
  readonly store: BuiltFrontier;
  readonly fetching: ReturnType<typeof createFetching>;
  readonly sinks: Sink[];
  readonly sinksFor: (jobId: string) => readonly Sink[];
  readonly partial: PartialRecords;
  readonly jobs: Map<string, JobRuntime>;
  readonly pageState: PageStateStore | undefined;
  readonly changeSinks: ChangeSink[];
  readonly lag: EventLoopMonitor;
  /** Whose leases this daemon takes (lease-owner.ts), read once under the data-dir lock. */
  readonly leaseOwner: string;
}

export function createScheduler(root: Root, p: RunnerParts) {
  const { config } = root.live;
  const { control } = p.fetching;
  root.live.retryPolicy = createRetryPolicy(retryPolicyOptions(config.retry), root.clock, systemRandom);
  const retry = swappableRetryPolicy(root.live);
  const runner = new TaskRunner({
    frontier: p.store.frontier,
    fetcher: p.fetching.pages,
    sinks: p.sinks,
    sinksFor: p.sinksFor,
    partial: p.partial,
    jobs: p.jobs,
    retry,
    clock: root.clock,
    events: root.events,
    robots: p.fetching.robots,
    pageState: p.pageState,
    changeSinks: p.changeSinks,
    lagMs: () => p.lag.ownDelayMs(),
    breakerRetryInMs: (host) => control.breakerRetryInMs(host),
  });
  const jobGate = new JobGate(jobLimitsOf(config), root.clock);
  const { scheduling } = p.store;
  const scheduler = new Scheduler(p.store.frontier, control, runner, root.clock, root.events, {
    owner: p.leaseOwner,
    leaseMs: config.frontier.leaseMs,
    bufferSize: Math.max(64, config.concurrency.global * 2),
    perHostBuffer: Math.max(16, config.concurrency.maxPerHost * 2),
    idlePollMs: scheduling.idlePollMs,
    ...(scheduling.minLeaseLeftMs !== undefined ? { minLeaseLeftMs: scheduling.minLeaseLeftMs } : {}),
    ...(scheduling.workSharing ? { workSharing: scheduling.workSharing } : {}),
    once: root.once,
    jobGate,
    fetcherKind: (jobId, host) => fetcherKindOf(p.jobs.get(jobId), host),
  });
  return { scheduler, jobGate };
}

/**
 * Whose limit a task's host gets: a browser job's renders; an auto job's while its host learns
 * or renders, plain HTTP once it is decided so.
 */
function fetcherKindOf(job: JobRuntime | undefined, host: string): 'http' | 'browser' {
  const kind = job?.render?.kind;
  if (kind === 'browser') return 'browser';
  if (kind !== 'auto') return 'http';
  return job?.renderDecisions?.get(host).decision === 'http' ? 'http' : 'browser';
}
