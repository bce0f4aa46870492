/** The started daemon's handle: metrics, run, reload and stop. */

import { DEFAULT_RENDER } from '../adapters/fetch/browser/browser-fetcher.js';
import type { StoredLimitHints } from '../adapters/shared-map/stored-limit-hints.js';
import { resolveAdminToken } from '../admin/auth.js';
import type { CrawldConfig } from '../config/config.js';
import { retryPolicyOptions } from '../config/control-options.js';
import { diffReload } from '../config/reload.js';
import { systemRandom } from '../core/clock.js';
import { type CrawlEvents, TypedEmitter } from '../core/events.js';
import type { FetchLimits } from '../core/fetch-limits.js';
import type { HostTimeouts } from '../core/host-timeout.js';
import type { JobGate } from '../core/job-gate.js';
import { TIMEOUT_PHASES, type TimeoutPhase } from '../core/timeout-phase.js';
import type { JobRuntime } from '../engine/job/job-runtime.js';
import type { Scheduler } from '../engine/scheduler/scheduler.js';
import { createRetryPolicy } from '../engine/task/retry-policy.js';
import { createMetrics } from '../observe/metrics.js';
import { TrapCounts } from '../observe/trap-counts.js';
import type { ChangeSink, PageStateStore } from '../ports/page-state.js';
import type { Sink } from '../ports/sink.js';
import { VERSION } from '../version.js';
import type { Daemon } from './daemon-types.js';
import { buildControl, type createFetching, jobLimitsOf } from './engine.js';
import { proxyCount } from './fetcher-options.js';
import type { BuiltFrontier } from './frontier-types.js';
import type { DaemonHttp } from './http-listener.js';
import type { JobStates } from './job-states.js';
import { compileJob, seedRequests } from './jobs.js';
import type { Root } from './root.js';
import { beginClosingSinks } from './sink-factory.js';

export interface DaemonParts {
  readonly store: BuiltFrontier;
  readonly hints: StoredLimitHints | undefined;
  readonly http: DaemonHttp | undefined;
  readonly fetching: ReturnType<typeof createFetching>;
  readonly scheduler: Scheduler;
  readonly jobGate: JobGate;
  readonly jobs: Map<string, JobRuntime>;
  readonly sitemaps: { close(): Promise<void> } | undefined;
  readonly sinks: readonly Sink[];
  readonly pageState: PageStateStore | undefined;
  readonly changeSinks: readonly ChangeSink[];
  readonly states: JobStates;
}

const BREAKER_CODE = { closed: 0, halfOpen: 1, open: 2 } as const;

function daemonMetrics(root: Root, p: DaemonParts, ready: () => boolean) {
  const { config } = root.live;
  const { control } = p.fetching;
  return createMetrics(
    config.metrics.enabled ? root.events : new TypedEmitter<CrawlEvents>(),
    {
      frontierStats: () => p.store.frontier.stats(),
      inflight: () => control.inflight(),
      globalLimit: () => control.globalLimit(),
      hosts: () => [...control.hostSnapshots()].map((h) => [h.host, h.limit, h.inflight] as const),
      breakers: () => [...control.hostSnapshots()].map((h) => [h.host, BREAKER_CODE[h.breaker]] as const),
      paused: () => p.scheduler.state === 'paused',
      ready,
      proxies: () => proxyCount(p.fetching.fetchOptions),
      cookieJars: () => p.states.cookieSizes(),
      renderHosts: () => p.states.decided(),
      timeoutCeilings: () => timeoutCeilings(p.fetching.fetchOptions, root.live.config),
      learnedTimeouts: () =>
        p.fetching.timeouts.learned(timeoutCeilings(p.fetching.fetchOptions, root.live.config)),
    },
    { version: VERSION },
    {
      jobs: config.jobs.map((j) => j.id),
      sinks: p.sinks.map((s) => s.name),
      priorities: config.jobs.map((j) => j.seedPriority),
    },
  );
}

/** The learned timeouts' ceilings; a render's is the longest of the running jobs' and the default. */
function timeoutCeilings(
  fetch: Pick<FetchLimits, 'connectTimeoutMs' | 'headersTimeoutMs' | 'bodyTimeoutMs'>,
  config: CrawldConfig,
): Record<TimeoutPhase, number> {
  return {
    connect: fetch.connectTimeoutMs,
    headers: fetch.headersTimeoutMs,
    body: fetch.bodyTimeoutMs,
    render: Math.max(DEFAULT_RENDER.timeoutMs, ...config.jobs.map((j) => j.render.timeoutMs)),
  };
}

function learnedOf(
  timeouts: HostTimeouts,
  host: string,
  ceilings: Record<TimeoutPhase, number>,
): Partial<Record<TimeoutPhase, number>> {
  const out: Partial<Record<TimeoutPhase, number>> = {};
  for (const phase of TIMEOUT_PHASES) {
    const ms = timeouts.timeoutOf(host, phase, ceilings[phase]);
    if (ms !== undefined) out[phase] = ms;
  }
  return out;
}

export function daemonHandle(root: Root, p: DaemonParts): Daemon {
  const { live, logger, clock } = root;
  const { scheduler, store } = p;
  let stopping: Promise<void> | undefined;
  let running: Promise<void> | undefined;
  const ready = () => stopping === undefined && scheduler.state !== 'stopped' && store.healthy();
  const metrics = daemonMetrics(root, p, ready);
  const daemon: Daemon = {
    // The running config: after a SIGHUP reload, the new one (jobs, limits) for /api/jobs.
    get config() {
      return live.config;
    },
    events: root.events,
    logger,
    frontier: store.frontier,
    scheduler,
    instanceId: root.instanceId,
    startedAt: clock.now(),
    metrics,
    control: p.fetching.control,
    httpUrl: p.http?.url,
    robotsUnreachable: () => p.fetching.robots.unreachable(),
    renderChoices: () => p.states.decided(),
    hostTimeouts: (host) =>
      learnedOf(p.fetching.timeouts, host, timeoutCeilings(p.fetching.fetchOptions, live.config)),
    renderPaths: countRenderPaths(root),
    traps: new TrapCounts(root.events),
    run: () => (running ??= scheduler.run()),
    async serveHttp() {
      if (p.http) await p.http.serve(daemon, running ?? Promise.resolve());
    },
    async submit(requests) {
      const res = await store.frontier.enqueue(requests);
      scheduler.kick(true);
      return res;
    },
    ready,
    async reload(next) {
      // First: an unreadable token file refuses the whole config, the running one is kept;
      // a rotated token file takes effect without a restart.
      const token = resolveAdminToken(next.http);
      const result = diffReload(live.config, next);
      if (stopping) return result;
      await applyReload(root, p, next, metrics.addJob);
      live.adminToken = token;
      logger.info('config reloaded', result);
      return result;
    },
    stop() {
      stopping ??= drainAndRelease(root, p);
      return stopping;
    },
  };
  return daemon;
}

/** Pages of auto-render jobs by path, for the --once summary. */
function countRenderPaths(root: Root): Record<'http' | 'browser' | 'both', number> {
  const counts = { http: 0, browser: 0, both: 0 };
  root.events.on('renderPath', (e) => {
    counts[e.path]++;
  });
  return counts;
}

async function applyReload(
  root: Root,
  p: DaemonParts,
  next: CrawldConfig,
  addJob: (id: string) => void,
): Promise<void> {
  const { live } = root;
  const old = live.built;
  live.built = buildControl(root, next, p.store, p.hints);
  p.fetching.control.swap(live.built.control);
  // Old breakers keep no timers once closed; their in-flight reports still land on them.
  setTimeout(() => old.breakers.close(), next.shutdown.drainTimeoutMs + 60_000).unref();
  live.retryPolicy = createRetryPolicy(retryPolicyOptions(next.retry), root.clock, systemRandom);
  p.jobGate.update(jobLimitsOf(next));
  root.logger.level = next.log.level;
  for (const job of next.jobs) {
    const isNew = !p.jobs.has(job.id);
    if (isNew) addJob(job.id);
    const compiled = compileJob(job, next.fetch.userAgent, await p.states.of(job));
    // Hosts the job's seeds redirected to stay in its scope across a reload.
    for (const h of p.jobs.get(job.id)?.scope.redirectHosts ?? []) compiled.scope.redirectHosts?.add(h);
    p.jobs.set(job.id, compiled);
    if (isNew) await p.store.frontier.enqueue(seedRequests(job));
  }
  live.config = next;
  p.scheduler.kick();
}

async function drainAndRelease(root: Root, p: DaemonParts): Promise<void> {
  const { logger, live } = root;
  const drainMs = live.config.shutdown.drainTimeoutMs;
  live.stopping = true;
  logger.info('shutdown: draining', { inflight: p.scheduler.inflightCount, drainTimeoutMs: drainMs });
  // After the drain time, no waiting for a store that is down.
  const giveUp = setTimeout(() => p.store.giveUp(), drainMs);
  await p.sitemaps?.close();
  const sinkDeadline = setTimeout(() => beginClosingSinks(p.sinks), drainMs);
  const { aborted } = await p.scheduler.stop(drainMs);
  clearTimeout(sinkDeadline);
  p.store.giveUp();
  clearTimeout(giveUp);
  logger.info('shutdown: drained', { aborted });
  await root.stack.release();
  logger.info('shutdown: frontier closed');
}
